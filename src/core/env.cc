#include "boo/core/env.h"

#include <cstdlib>

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

}  // namespace boo::core
