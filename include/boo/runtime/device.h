// The GPUs this process can use. A missing GPU or driver is a Status with a clear message, never
// a crash: boo builds and its CPU paths run on machines without either.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "boo/core/status.h"

namespace boo::runtime {

struct DeviceInfo {
  int index = 0;
  std::string name;
  int cc_major = 0;
  int cc_minor = 0;
  int sm_count = 0;
  int64_t memory_bytes = 0;
  int64_t l2_bytes = 0;
  // Peak HBM bandwidth, GB/s: twice the memory clock times the bus width (an H100 SXM's 2619 MHz
  // x 5120 bits: 3352); 0 where the driver does not report them.
  double bandwidth_gbs = 0.0;
};

// Every visible CUDA device; kUnavailable (with the CUDA runtime's reason) when there is none.
core::Expected<std::vector<DeviceInfo>> list_devices();
// The first visible GPU; none on a machine without one.
std::optional<DeviceInfo> first_device();
// One line: "NVIDIA H100 80GB HBM3 (sm_90, 132 SMs, 79.1 GiB, 3352 GB/s)".
std::string describe(const DeviceInfo& d);
// Peak bandwidth of a DDR memory interface in GB/s from the driver's memory clock (kHz) and bus
// width (bits); 0 where either is not positive.
double peak_bandwidth_gbs(int memory_clock_khz, int bus_width_bits);
// The CUDA runtime version boo was linked against, e.g. "13.0".
std::string cuda_runtime_version();

}  // namespace boo::runtime
