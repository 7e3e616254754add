// How long does a kernel that only reads B bytes take under boo's timing protocol (DESIGN.md
// §7: a GPU-side hold, a read sweep of 2x L2 so the L2 is cold, events around the launch,
// the median of the samples), and what does an empty kernel take the same way? A memory-bound
// problem cannot beat the read of its bytes: the fixed part of that time (launch, ramp, drain)
// is what separates a small problem's floor (bytes / copy bandwidth) from what it can reach.
// Prints, per size, the median time, the rate, and the time over bytes / peak rate; then the
// least-squares line time = fixed + bytes / rate over the sizes.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <vector>

__global__ void hold_kernel(long long cycles) {
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

// Every thread reads 16-byte vectors, 4 in flight, grid-stride; the sum is stored only when it
// matches an impossible value, so the loads stay.
__global__ void read_kernel(const float4* __restrict__ p, size_t n, float* out) {
  float acc = 0.0f;
  const size_t step = static_cast<size_t>(gridDim.x) * blockDim.x;
  size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  for (; i + 3 * step < n; i += 4 * step) {
    const float4 a = __ldcs(p + i), b = __ldcs(p + i + step), c = __ldcs(p + i + 2 * step),
                 d = __ldcs(p + i + 3 * step);
    acc += a.x + b.y + c.z + d.w;
  }
  for (; i < n; i += step) acc += __ldcs(p + i).x;
  if (acc == -1.2345f) *out = acc;
}

__global__ void empty_kernel() {}

int main() {
  setvbuf(stdout, nullptr, _IONBF, 0);
  int sms = 0, l2 = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0);
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, 0);
  const size_t most = size_t{640} << 20, sweep_bytes = std::max<size_t>(2 * l2, size_t{128} << 20);
  float4 *buf = nullptr, *sweep = nullptr;
  float* out = nullptr;
  if (cudaMalloc(&buf, most) != cudaSuccess || cudaMalloc(&sweep, sweep_bytes) != cudaSuccess ||
      cudaMalloc(&out, 4) != cudaSuccess) {
    std::printf("allocation failed\n");
    return 1;
  }
  cudaMemset(buf, 0, most);
  cudaMemset(sweep, 0, sweep_bytes);
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  int khz = 0;
  cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0);
  const long long hold = static_cast<long long>(khz) / 5;  // 200 us (khz: cycles a ms)
  const int blocks = sms * 8, threads = 256;
  // One sample: hold, sweep the L2, then the events around the launch.
  const auto sample = [&](size_t bytes) {
    hold_kernel<<<1, 1>>>(hold);
    read_kernel<<<blocks, threads>>>(sweep, sweep_bytes / 16, out);
    cudaEventRecord(e0);
    if (bytes == 0) {
      empty_kernel<<<1, 32>>>();
    } else {
      read_kernel<<<blocks, threads>>>(buf, bytes / 16, out);
    }
    cudaEventRecord(e1);
    cudaEventSynchronize(e1);
    float ms = 0.0f;
    cudaEventElapsedTime(&ms, e0, e1);
    return 1e3 * static_cast<double>(ms);
  };
  const auto median_us = [&](size_t bytes) {
    for (int i = 0; i < 10; ++i) sample(bytes);
    std::vector<double> t;
    for (int i = 0; i < 100; ++i) t.push_back(sample(bytes));
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
  };
  // Peak: 1 GiB device-to-device copy, best of 20 (the protocol's copy ceiling).
  double copy_best = 1e30;
  for (int i = 0; i < 20; ++i) {
    cudaEventRecord(e0);
    cudaMemcpyAsync(sweep, buf, std::min(sweep_bytes, most) / 2, cudaMemcpyDeviceToDevice);
    cudaEventRecord(e1);
    cudaEventSynchronize(e1);
    float ms = 0.0f;
    cudaEventElapsedTime(&ms, e0, e1);
    copy_best = std::min(copy_best, 1e3 * static_cast<double>(ms));
  }
  const double copy_gbs = 2.0 * static_cast<double>(std::min(sweep_bytes, most) / 2) / copy_best / 1e3;
  std::printf("%s: %d SMs, L2 %d MB; copy %.0f GB/s (%zu MB device-to-device, best of 20)\n",
              prop.name, sms, l2 >> 20, copy_gbs, std::min(sweep_bytes, most) >> 21);
  std::printf("empty kernel: %.2f us (median of 100, behind the hold and the sweep)\n",
              median_us(0));
  const size_t sizes_mb[] = {4, 8, 17, 34, 67, 117, 256, 525};
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  int n = 0;
  std::printf("%10s %10s %10s %12s %10s\n", "MB", "us", "GB/s", "floor us", "floor/time");
  for (size_t mb : sizes_mb) {
    const size_t bytes = mb * 1000 * 1000 / 16 * 16;
    const double us = median_us(bytes);
    const double floor_us = static_cast<double>(bytes) / (copy_gbs * 1e3);
    std::printf("%10zu %10.2f %10.0f %12.2f %9.0f%%\n", mb, us, bytes / us / 1e3, floor_us,
                100.0 * floor_us / us);
    sx += static_cast<double>(bytes);
    sy += us;
    sxx += static_cast<double>(bytes) * static_cast<double>(bytes);
    sxy += static_cast<double>(bytes) * us;
    ++n;
  }
  const double slope = (n * sxy - sx * sy) / (n * sxx - sx * sx);
  const double fixed = (sy - slope * sx) / n;
  std::printf("least squares: time = %.2f us + bytes / %.0f GB/s\n", fixed, 1e-3 / slope);
  return 0;
}
