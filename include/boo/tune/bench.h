// The benchmark protocol of DESIGN.md §7: a cold L2 before every sample (a buffer of at least
// twice the L2 overwritten), warm-up launches, CUDA-event samples of several backends
// interleaved on the same data, medians; CUDA-graph timing for short kernels; and the three
// ceilings every floor is computed from, measured in the same run.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "boo/core/status.h"
#include "boo/ops/problem.h"
#include "boo/runtime/cuda.h"

namespace boo::tune {

using Launch = std::function<core::Status(void* stream)>;

// How the L2 is made cold before a sample. kRead (the default) reads a buffer of 2x L2 so that
// the L2 holds only clean lines of it; kWrite fills the buffer (cudaMemsetAsync, as nvbench and
// triton's do_bench do), which leaves the L2 full of dirty lines whose write-back the timed
// kernel then pays for as it evicts them (up to the L2 size, 50 MB on an H100).
enum class FlushMode : uint8_t { kRead, kWrite };

class L2Flusher {
 public:
  // A buffer of 2 x `l2_bytes` (at least 128 MiB).
  static core::Expected<L2Flusher> create(int64_t l2_bytes, FlushMode mode = FlushMode::kRead);
  core::Status flush(void* stream);
  FlushMode mode() const { return mode_; }

 private:
  runtime::DeviceBuffer buffer_;
  runtime::DeviceBuffer sink_;
  FlushMode mode_ = FlushMode::kRead;
};

struct TimingOptions {
  int warmups = 10;
  int samples = 50;
  bool cold_l2 = true;
  // A kernel that holds the stream this long before each sample's flush: the host enqueues the
  // flush, the events and the launch meanwhile, so a library whose launch costs CPU time is
  // timed on the GPU only, like a kernel in a stream that is never starved. cuDNN's legacy API
  // needs more than 150 us at times on the H100 VM: with 150 its medians moved up to 5x between
  // runs (stddev up to 200 us), with 1000 its stddev is below 1 us
  // (bench/results/2026-11-22-conv-h100.md). 0 disables it.
  double hold_us = 1000.0;
};

// samples[i][j]: the j-th sample of launches[i] in microseconds. Sample j of every launch is
// taken before sample j + 1 of any, each after an L2 flush.
core::Expected<std::vector<std::vector<double>>> time_interleaved(
    const std::vector<Launch>& launches, void* stream, L2Flusher* flusher,
    const TimingOptions& options);

// Microseconds per launch when `launches_per_graph` launches replay as one CUDA graph (warm
// L2, no launch gaps): the median over `replays`.
core::Expected<double> time_in_graph(const Launch& launch, void* stream,
                                     int launches_per_graph = 20, int replays = 10);

// Samples of one read of `bytes` fresh bytes (the L2 sweep kernel: 16-byte loads over the whole
// GPU) under `options` (cold L2 by `flusher`, the hold before each sample): what a kernel that
// only streams that much from memory shows under the protocol, launch and ramp included, for
// comparison with the floor that size gets (`boo ceilings --read-mb`).
core::Expected<std::vector<double>> time_cold_read(int64_t bytes, L2Flusher& flusher, void* stream,
                                                   const TimingOptions& options);

// Peak bf16 GEMM rate (cuBLASLt, the best of 8192^3 and two shapes that fill whole waves,
// random data), device-to-device copy bandwidth
// (1 GiB, bytes read + written) and an empty kernel's time, measured now (best of 30 samples
// each; the GEMM and the copy both back to back and behind the benchmark's hold, the better
// kept); tf32 and fp8 rates scale with the datasheet ratios.
core::Expected<ops::Ceilings> measure_ceilings(void* stream, std::string* report = nullptr);

}  // namespace boo::tune
