// Human-readable numbers for the command line: "14.50 GFLOP", "60.3 MB", "12.34 us".
#pragma once

#include <cstdio>
#include <string>

namespace boo::cli {

inline std::string with_unit(double v, const char* unit) {
  static constexpr const char* kPrefixes[] = {"", "K", "M", "G", "T", "P"};
  int i = 0;
  while (v >= 1000.0 && i < 5) {
    v /= 1000.0;
    ++i;
  }
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*f %s%s", i == 0 ? 0 : 2, v, kPrefixes[i], unit);
  return buf;
}

inline std::string micros(double us) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.2f us", us);
  return buf;
}

}  // namespace boo::cli
