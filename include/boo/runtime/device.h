// The GPUs this process can use. A missing GPU or driver is a Status with a clear message, never
// a crash: boo builds and its CPU paths run on machines without either.
#pragma once

#include <cstdint>
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
};

// Every visible CUDA device; kUnavailable (with the CUDA runtime's reason) when there is none.
core::Expected<std::vector<DeviceInfo>> list_devices();
// One line: "NVIDIA H100 80GB HBM3 (sm_90, 132 SMs, 79.1 GiB)".
std::string describe(const DeviceInfo& d);
// The CUDA runtime version boo was linked against, e.g. "13.0".
std::string cuda_runtime_version();

}  // namespace boo::runtime
