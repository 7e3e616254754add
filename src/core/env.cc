#include "boo/core/env.h"

#include <cstdlib>
#include <mutex>
#include <set>

#include "boo/core/log.h"
#include "boo/core/strings.h"

namespace boo::core {

std::optional<std::string> get_env(std::string_view name) {
  const char* v = std::getenv(std::string(name).c_str());
  if (v == nullptr) return std::nullopt;
  return std::string(v);
}

Expected<bool> env_flag(std::string_view name, bool fallback) {
  auto v = get_env(name);
  if (!v || trim(*v).empty()) return fallback;
  return parse_bool(std::string("environment variable ") + std::string(name), *v);
}

Expected<int64_t> env_int(std::string_view name, int64_t fallback) {
  auto v = get_env(name);
  if (!v || trim(*v).empty()) return fallback;
  const std::string field = std::string("environment variable ") + std::string(name);
  BOO_ASSIGN_OR_RETURN(int64_t x, parse_int(field, *v));
  if (x <= 0) return invalid_argument(field + ": expected a positive integer, got " + quote(*v));
  return x;
}

void warn_env_ignored(std::string_view name, std::string_view value, std::string_view expected) {
  static std::mutex mu;
  static std::set<std::string, std::less<>> warned;
  {
    const std::lock_guard<std::mutex> lock(mu);
    if (!warned.insert(std::string(name)).second) return;
  }
  log_warn(std::string(name) + "=" + quote(value) + " is not " + std::string(expected) +
           "; ignored");
}

std::optional<std::string> env_choice(std::string_view name,
                                      std::initializer_list<std::string_view> allowed) {
  auto v = get_env(name);
  if (!v || trim(*v).empty()) return std::nullopt;
  std::string choices;
  for (std::string_view a : allowed) {
    if (*v == a) return v;
    choices += (choices.empty() ? "" : ", ") + std::string(a);
  }
  warn_env_ignored(name, *v, "one of " + choices);
  return std::nullopt;
}

}  // namespace boo::core
