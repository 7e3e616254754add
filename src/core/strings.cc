#include "boo/core/strings.h"

#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace boo::core {

std::string quote(std::string_view value) {
  constexpr size_t kMax = 40;
  std::string out = "'";
  for (char ch : value.substr(0, kMax)) {
    out += std::isprint(static_cast<unsigned char>(ch)) ? ch : '?';
  }
  if (value.size() > kMax) out += "...";
  return out + "'";
}

Expected<int64_t> parse_int(std::string_view field, std::string_view text) {
  std::string_view t = trim(text);
  if (!t.empty() && t.front() == '+') t.remove_prefix(1);
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (t.empty() || ec == std::errc::invalid_argument || ptr != t.data() + t.size()) {
    return invalid_argument(std::string(field) + ": expected an integer, got " + quote(text));
  }
  if (ec == std::errc::result_out_of_range) {
    return invalid_argument(std::string(field) + ": integer out of 64-bit range: " + quote(text));
  }
  return v;
}

Expected<double> parse_double(std::string_view field, std::string_view text) {
  const std::string t(trim(text));
  if (t.empty()) {
    return invalid_argument(std::string(field) + ": expected a number, got " + quote(text));
  }
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(t.c_str(), &end);
  if (end != t.c_str() + t.size()) {
    return invalid_argument(std::string(field) + ": expected a number, got " + quote(text));
  }
  if (!std::isfinite(v) || errno == ERANGE) {
    return invalid_argument(std::string(field) + ": number is not finite: " + quote(text));
  }
  return v;
}

Status require_at_least(std::string_view field, int64_t value, int64_t min, std::string_view why) {
  if (value >= min) return Status::ok();
  std::string m = std::string(field) + ": must be >= " + std::to_string(min);
  if (!why.empty()) m += " (" + std::string(why) + ")";
  return invalid_argument(m + ", got " + std::to_string(value));
}

Expected<bool> parse_bool(std::string_view field, std::string_view text) {
  const std::string t = to_lower(trim(text));
  if (t == "1" || t == "true") return true;
  if (t == "0" || t == "false") return false;
  return invalid_argument(std::string(field) + ": expected true/false or 1/0, got " + quote(text));
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (true) {
    const size_t pos = s.find(sep, start);
    if (pos == std::string_view::npos) {
      out.push_back(s.substr(start));
      return out;
    }
    out.push_back(s.substr(start, pos - start));
    start = pos + 1;
  }
}

std::vector<std::string> split_words(std::string_view s) {
  std::vector<std::string> out;
  std::string cur;
  for (char ch : s) {
    if (ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n') {
      if (!cur.empty()) out.push_back(std::move(cur));
      cur.clear();
    } else {
      cur += ch;
    }
  }
  if (!cur.empty()) out.push_back(std::move(cur));
  return out;
}

std::string join(std::span<const std::string> parts, std::string_view sep) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i) out += sep;
    out += parts[i];
  }
  return out;
}

std::string to_lower(std::string_view s) {
  std::string out(s);
  for (char& ch : out) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return out;
}

std::string format_double(double v) {
  char buf[64];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof(buf), "%.*g", precision, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  return buf;
}

std::string format_shape(std::span<const int64_t> dims) {
  std::string out = "(";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i) out += ", ";
    out += std::to_string(dims[i]);
  }
  return out + ")";
}

}  // namespace boo::core
