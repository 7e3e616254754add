// Value checks for boo's own command-line options, with messages in the user's terms: CLI11's
// PositiveNumber and NonNegativeNumber report "Value 0 not in range 0.000000 to 1797...(300
// digits)" and let "nan" through.
#pragma once

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <string>

namespace boo::cli {

// A finite number above `low` (or at least `low` where `or_equal`), for options of any numeric
// type; the option's own conversion then checks that it fits the type.
inline CLI::Validator number_above(double low, bool or_equal) {
  const std::string what = std::string(or_equal ? ">= " : "> ") + CLI::detail::to_string(low);
  return CLI::Validator(
      [low, or_equal, what](std::string& text) -> std::string {
        errno = 0;
        char* end = nullptr;
        const double v = std::strtod(text.c_str(), &end);
        if (text.empty() || end == text.c_str() || *end != '\0' || errno == ERANGE ||
            !std::isfinite(v)) {
          return "expected a number " + what + ", got '" + text + "'";
        }
        if (or_equal ? v < low : v <= low) return "must be " + what + ", got " + text;
        return std::string();
      },
      "NUMBER " + what);
}

// A file name that is not empty (`--csv ""` would otherwise write nothing, silently).
inline CLI::Validator file_name() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        return text.empty() ? std::string("expected a file name, got an empty one") : std::string();
      },
      "FILE");
}

inline CLI::Validator positive() { return number_above(0.0, false); }
inline CLI::Validator non_negative() { return number_above(0.0, true); }

}  // namespace boo::cli
