// One-line diagnostics on stderr, filtered by BOO_LOG_LEVEL (error, warn, info, debug; default
// info). Long work (compiles, tuning) logs at info so that users see progress by default.
#pragma once

#include <string_view>

namespace boo::core {

enum class LogLevel { kError = 0, kWarn = 1, kInfo = 2, kDebug = 3 };

LogLevel log_level();
void set_log_level(LogLevel level);
void log(LogLevel level, std::string_view message);
inline void log_error(std::string_view m) { log(LogLevel::kError, m); }
inline void log_warn(std::string_view m) { log(LogLevel::kWarn, m); }
inline void log_info(std::string_view m) { log(LogLevel::kInfo, m); }
inline void log_debug(std::string_view m) { log(LogLevel::kDebug, m); }

}  // namespace boo::core
