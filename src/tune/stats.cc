#include "boo/tune/stats.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

namespace boo::tune {

TimingStats timing_stats(std::span<const double> samples_us) {
  TimingStats s;
  s.samples = static_cast<int>(samples_us.size());
  if (samples_us.empty()) return s;
  std::vector<double> v(samples_us.begin(), samples_us.end());
  std::sort(v.begin(), v.end());
  s.min_us = v.front();
  s.max_us = v.back();
  const size_t n = v.size();
  s.median_us = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
  double sum = 0.0;
  for (double x : v) sum += x;
  s.mean_us = sum / static_cast<double>(n);
  double sq = 0.0;
  for (double x : v) sq += (x - s.mean_us) * (x - s.mean_us);
  s.stddev_us = std::sqrt(sq / static_cast<double>(n));
  return s;
}

std::string format_timing(const TimingStats& s) {
  char buf[200];
  std::snprintf(buf, sizeof(buf), "min=%.2fus max=%.2fus mean=%.2fus median=%.2fus stddev=%.2fus",
                s.min_us, s.max_us, s.mean_us, s.median_us, s.stddev_us);
  return buf;
}

}  // namespace boo::tune
