// Device traits that need no GPU: the peak bandwidth from the driver's memory clock and bus width,
// and the one-line description.
#include "boo/runtime/device.h"

#include <gtest/gtest.h>

namespace boo::runtime {
namespace {

TEST(PeakBandwidth, ClockTimesBusWidthTwiceAClock) {
  // H100 SXM5: HBM3 at 2619 MHz on 5120 bits, NVIDIA's 3.35 TB/s.
  EXPECT_NEAR(peak_bandwidth_gbs(2619000, 5120), 3352.3, 0.1);
  // A 6144-bit HBM3e part at 3201 MHz (an H200's widths; the lent one reported 4814 GB/s).
  EXPECT_NEAR(peak_bandwidth_gbs(3201000, 6144), 4916.7, 0.1);
  EXPECT_EQ(peak_bandwidth_gbs(0, 5120), 0.0);
  EXPECT_EQ(peak_bandwidth_gbs(2619000, 0), 0.0);
  EXPECT_EQ(peak_bandwidth_gbs(-1, 5120), 0.0);
}

TEST(DescribeDevice, NamesTheBandwidthWhereKnown) {
  DeviceInfo d;
  d.name = "NVIDIA H100 80GB HBM3";
  d.cc_major = 9;
  d.cc_minor = 0;
  d.sm_count = 132;
  d.memory_bytes = int64_t{85} * 1000 * 1000 * 1000;
  EXPECT_EQ(describe(d), "NVIDIA H100 80GB HBM3 (sm_90, 132 SMs, 79.2 GiB)");
  d.bandwidth_gbs = 3352.3;
  EXPECT_EQ(describe(d), "NVIDIA H100 80GB HBM3 (sm_90, 132 SMs, 79.2 GiB, 3352 GB/s)");
  // A name longer than any fixed buffer is kept whole.
  d.name = std::string(300, 'x');
  EXPECT_EQ(describe(d), std::string(300, 'x') + " (sm_90, 132 SMs, 79.2 GiB, 3352 GB/s)");
}

}  // namespace
}  // namespace boo::runtime
