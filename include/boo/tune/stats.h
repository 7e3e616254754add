// Summary statistics of timing samples (microseconds), as the driver prints them:
// ">>> min=..us max=..us mean=..us median=..us stddev=..us".
#pragma once

#include <span>
#include <string>

namespace boo::tune {

struct TimingStats {
  int samples = 0;
  double min_us = 0.0;
  double max_us = 0.0;
  double mean_us = 0.0;
  double median_us = 0.0;
  double stddev_us = 0.0;  // population standard deviation
};

TimingStats timing_stats(std::span<const double> samples_us);
// BOO's driver line: "min=85.24us max=371.23us mean=255.28us median=250.10us stddev=92.66us".
std::string format_timing(const TimingStats& s);

}  // namespace boo::tune
