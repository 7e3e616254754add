#include "boo/core/log.h"

#include <atomic>
#include <cstdio>
#include <mutex>
#include <string>

#include "boo/core/env.h"
#include "boo/core/strings.h"

namespace boo::core {
namespace {

LogLevel level_from_env() {
  const auto v = get_env("BOO_LOG_LEVEL");
  if (!v) return LogLevel::kInfo;
  const std::string s = to_lower(trim(*v));
  if (s == "error") return LogLevel::kError;
  if (s == "warn" || s == "warning") return LogLevel::kWarn;
  if (s == "debug") return LogLevel::kDebug;
  if (s != "info" && !s.empty()) {
    std::fprintf(stderr,
                 "boo: warning: BOO_LOG_LEVEL=%s is not one of error, warn, info, debug; "
                 "using info\n",
                 v->c_str());
  }
  return LogLevel::kInfo;
}

std::atomic<int>& level_storage() {
  static std::atomic<int> level{static_cast<int>(level_from_env())};
  return level;
}

}  // namespace

LogLevel log_level() { return static_cast<LogLevel>(level_storage().load()); }
void set_log_level(LogLevel level) { level_storage().store(static_cast<int>(level)); }

void log(LogLevel level, std::string_view message) {
  if (static_cast<int>(level) > static_cast<int>(log_level())) return;
  static constexpr const char* kNames[] = {"error", "warning", "info", "debug"};
  static std::mutex mu;
  std::lock_guard<std::mutex> lock(mu);
  std::fprintf(stderr, "boo: %s: %.*s\n", kNames[static_cast<int>(level)],
               static_cast<int>(message.size()), message.data());
}

}  // namespace boo::core
