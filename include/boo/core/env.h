// Environment settings (BOO_*). Each is read where it is used, through these helpers, so that a
// malformed value is an error that names the variable rather than a silent default.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "boo/core/status.h"

namespace boo::core {

std::optional<std::string> get_env(std::string_view name);
// 0/1/true/false; `fallback` when unset or empty.
Expected<bool> env_flag(std::string_view name, bool fallback);
// A positive integer; `fallback` when unset or empty.
Expected<int64_t> env_int(std::string_view name, int64_t fallback);

}  // namespace boo::core
