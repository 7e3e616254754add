#include "boo/reference/compare.h"

#include <cmath>
#include <cstdio>

namespace boo::reference {

ErrorStats compare(std::span<const double> got, std::span<const double> ref) {
  ErrorStats s;
  s.count = static_cast<int64_t>(std::min(got.size(), ref.size()));
  double diff2 = 0.0;
  double ref2 = 0.0;
  for (int64_t i = 0; i < s.count; ++i) {
    if (!std::isfinite(got[i])) {
      ++s.nonfinite;
      continue;
    }
    const double d = got[i] - ref[i];
    diff2 += d * d;
    ref2 += ref[i] * ref[i];
    s.max_abs = std::max(s.max_abs, std::fabs(d));
  }
  s.rel_fro = ref2 > 0.0 ? std::sqrt(diff2 / ref2) : std::sqrt(diff2);
  if (s.nonfinite > 0 || got.size() != ref.size()) s.rel_fro = INFINITY;
  return s;
}

Summary summarize(std::span<const double> values) {
  Summary s;
  double sq = 0.0;
  for (double v : values) {
    if (!std::isfinite(v)) {
      ++s.nonfinite;
      continue;
    }
    ++s.count;
    s.sum += v;
    sq += v * v;
    s.abs_max = std::max(s.abs_max, std::fabs(v));
  }
  s.rms = s.count > 0 ? std::sqrt(sq / static_cast<double>(s.count)) : 0.0;
  return s;
}

std::string format_summary(const Summary& s) {
  char buf[160];
  std::snprintf(buf, sizeof(buf), "sum=%.6g absmax=%.6g rms=%.6g", s.sum, s.abs_max, s.rms);
  std::string out = buf;
  if (s.nonfinite > 0) out += " nonfinite=" + std::to_string(s.nonfinite);
  return out;
}

}  // namespace boo::reference
