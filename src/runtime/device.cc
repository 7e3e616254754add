#include "boo/runtime/device.h"

#include <cuda_runtime_api.h>

#include <cmath>
#include <cstdio>

namespace boo::runtime {

core::Expected<std::vector<DeviceInfo>> list_devices() {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err == cudaErrorInsufficientDriver) {
    return core::unavailable(
        "no usable CUDA GPU: the NVIDIA driver is missing or older than the "
        "CUDA " +
        cuda_runtime_version() + " runtime (" + cudaGetErrorName(err) + ")");
  }
  if (err == cudaErrorNoDevice || (err == cudaSuccess && count == 0)) {
    return core::unavailable(
        "no usable CUDA GPU: no CUDA device is visible (check "
        "CUDA_VISIBLE_DEVICES and nvidia-smi)");
  }
  if (err != cudaSuccess) {
    return core::unavailable(std::string("no usable CUDA GPU: ") + cudaGetErrorString(err) + " (" +
                             cudaGetErrorName(err) + ")");
  }
  std::vector<DeviceInfo> out;
  for (int i = 0; i < count; ++i) {
    cudaDeviceProp prop{};
    const cudaError_t e = cudaGetDeviceProperties(&prop, i);
    if (e != cudaSuccess) {
      return core::unavailable("cudaGetDeviceProperties(" + std::to_string(i) +
                               ") failed: " + cudaGetErrorString(e));
    }
    DeviceInfo d;
    d.index = i;
    d.name = prop.name;
    d.cc_major = prop.major;
    d.cc_minor = prop.minor;
    d.sm_count = prop.multiProcessorCount;
    d.memory_bytes = static_cast<int64_t>(prop.totalGlobalMem);
    d.l2_bytes = prop.l2CacheSize;
    int clock_khz = 0;
    int bus_bits = 0;
    if (cudaDeviceGetAttribute(&clock_khz, cudaDevAttrMemoryClockRate, i) == cudaSuccess &&
        cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, i) == cudaSuccess) {
      d.bandwidth_gbs = peak_bandwidth_gbs(clock_khz, bus_bits);
    }
    out.push_back(std::move(d));
  }
  return out;
}

std::optional<DeviceInfo> first_device() {
  auto devices = list_devices();
  if (!devices || devices->empty()) return std::nullopt;
  return devices->front();
}

double peak_bandwidth_gbs(int memory_clock_khz, int bus_width_bits) {
  if (memory_clock_khz <= 0 || bus_width_bits <= 0) return 0.0;
  // Double data rate: two transfers a clock, bus_width_bits / 8 bytes each.
  return 2.0 * memory_clock_khz * 1e3 * (bus_width_bits / 8.0) / 1e9;
}

std::string describe(const DeviceInfo& d) {
  char buf[96];
  std::snprintf(buf, sizeof(buf), " (sm_%d%d, %d SMs, %.1f GiB", d.cc_major, d.cc_minor, d.sm_count,
                static_cast<double>(d.memory_bytes) / (1ull << 30));
  std::string out = d.name + buf;
  if (d.bandwidth_gbs > 0) out += ", " + std::to_string(std::lround(d.bandwidth_gbs)) + " GB/s";
  return out + ")";
}

std::string cuda_runtime_version() {
  return std::to_string(CUDART_VERSION / 1000) + "." + std::to_string(CUDART_VERSION % 1000 / 10);
}

}  // namespace boo::runtime
