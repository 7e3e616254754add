// Environment settings (BOO_*). Each is read where it is used, through these helpers, so that a
// malformed value is an error that names the variable rather than a silent default.
#pragma once

#include <initializer_list>
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
// A switch's value where it is one of `allowed`; nullopt when unset or empty, and when it is
// none of them, after a warning (once a process and variable) that names the variable, its value
// and the choices: a switch that does not parse stays at its default, visibly.
std::optional<std::string> env_choice(std::string_view name,
                                      std::initializer_list<std::string_view> allowed);
// The warning of a variable whose value is ignored (once a process and variable).
void warn_env_ignored(std::string_view name, std::string_view value, std::string_view expected);

}  // namespace boo::core
