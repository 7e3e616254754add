#include "boo/tune/bench.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdio>

#include "boo/reference/cublaslt_gemm.h"
#include "boo/reference/gpu_reference.h"
#include "boo/tune/stats.h"

namespace boo::tune {

core::Expected<L2Flusher> L2Flusher::create(int64_t l2_bytes, FlushMode mode) {
  L2Flusher f;
  f.mode_ = mode;
  const int64_t bytes = std::max<int64_t>(2 * l2_bytes, 128 << 20) / 16 * 16;
  BOO_ASSIGN_OR_RETURN(f.buffer_, runtime::DeviceBuffer::allocate(bytes));
  BOO_ASSIGN_OR_RETURN(f.sink_, runtime::DeviceBuffer::allocate(16));
  // Written once here; read sweeps then leave only clean lines behind.
  BOO_RETURN_IF_ERROR(f.buffer_.fill_bytes(0x5a, nullptr));
  return f;
}

core::Status L2Flusher::flush(void* stream) {
  if (mode_ == FlushMode::kWrite) return buffer_.fill_bytes(0x5a, stream);
  return reference::gpu::read_sweep(buffer_.data(), buffer_.bytes(), sink_.data(), stream);
}

core::Expected<std::vector<std::vector<double>>> time_interleaved(
    const std::vector<Launch>& launches, void* stream, L2Flusher* flusher,
    const TimingOptions& options) {
  std::vector<std::vector<double>> samples(launches.size());
  for (const Launch& l : launches) {
    for (int i = 0; i < options.warmups; ++i) BOO_RETURN_IF_ERROR(l(stream));
  }
  BOO_ASSIGN_OR_RETURN(auto timer, runtime::EventTimer::create());
  for (int j = 0; j < options.samples; ++j) {
    for (size_t i = 0; i < launches.size(); ++i) {
      if (options.hold_us > 0)
        BOO_RETURN_IF_ERROR(reference::gpu::launch_hold(options.hold_us, stream));
      if (options.cold_l2 && flusher != nullptr) BOO_RETURN_IF_ERROR(flusher->flush(stream));
      BOO_RETURN_IF_ERROR(timer->start(stream));
      BOO_RETURN_IF_ERROR(launches[i](stream));
      BOO_RETURN_IF_ERROR(timer->stop(stream));
      BOO_ASSIGN_OR_RETURN(double us, timer->elapsed_us());
      samples[i].push_back(us);
    }
  }
  return samples;
}

core::Expected<double> time_in_graph(const Launch& launch, void* stream, int launches_per_graph,
                                     int replays) {
  const cudaStream_t s = static_cast<cudaStream_t>(stream);
  BOO_RETURN_IF_ERROR(launch(stream));  // warm-up outside the capture (lazy initialization)
  BOO_RETURN_IF_ERROR(runtime::cuda_status(cudaStreamSynchronize(s), "cudaStreamSynchronize"));
  cudaGraph_t graph = nullptr;
  BOO_RETURN_IF_ERROR(runtime::cuda_status(
      cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture"));
  core::Status captured = core::Status::ok();
  for (int i = 0; i < launches_per_graph && captured.is_ok(); ++i) captured = launch(stream);
  const cudaError_t end = cudaStreamEndCapture(s, &graph);
  BOO_RETURN_IF_ERROR(captured);
  BOO_RETURN_IF_ERROR(runtime::cuda_status(end, "cudaStreamEndCapture"));
  cudaGraphExec_t exec = nullptr;
  core::Status st =
      runtime::cuda_status(cudaGraphInstantiate(&exec, graph, 0), "cudaGraphInstantiate");
  std::vector<double> per_launch;
  if (st.is_ok()) {
    auto timer = runtime::EventTimer::create();
    st = timer.status();
    for (int r = 0; st.is_ok() && r < replays + 2; ++r) {
      st = (*timer)->start(stream);
      if (st.is_ok()) st = runtime::cuda_status(cudaGraphLaunch(exec, s), "cudaGraphLaunch");
      if (st.is_ok()) st = (*timer)->stop(stream);
      auto us = (*timer)->elapsed_us();
      if (!us) st = us.status();
      if (st.is_ok() && r >= 2) per_launch.push_back(*us / launches_per_graph);
    }
  }
  if (exec) cudaGraphExecDestroy(exec);
  if (graph) cudaGraphDestroy(graph);
  BOO_RETURN_IF_ERROR(st);
  return timing_stats(per_launch).median_us;
}

core::Expected<std::vector<double>> time_cold_read(int64_t bytes, L2Flusher& flusher, void* stream,
                                                   const TimingOptions& options) {
  if (bytes < 16) return core::invalid_argument("a timed read needs at least 16 bytes");
  BOO_ASSIGN_OR_RETURN(auto buf, runtime::DeviceBuffer::allocate(bytes / 16 * 16));
  BOO_ASSIGN_OR_RETURN(auto sink, runtime::DeviceBuffer::allocate(16));
  BOO_RETURN_IF_ERROR(buf.fill_bytes(0x3c, stream));
  auto samples =
      time_interleaved({[&](void* s) {
                         return reference::gpu::read_sweep(buf.data(), buf.bytes(), sink.data(), s);
                       }},
                       stream, &flusher, options);
  if (!samples) return samples.status();
  return (*samples)[0];
}

namespace {

// One ceiling's two samplings: back to back (no hold, the rate a sustained stream of launches
// keeps) and behind the benchmark's hold (the rate a timed sample sees; a GPU that waits between
// launches runs cooler and may clock higher). The best sample of each.
struct TwoWays {
  double back_to_back_us = 0.0;
  double held_us = 0.0;
  double best_us() const { return std::min(back_to_back_us, held_us); }
};

// The best of 30 samples of `launch` (after 5 warm-ups, warm L2), each behind a hold of
// `hold_us` (0: back to back).
core::Expected<double> best_sample_us(const Launch& launch, void* stream, double hold_us) {
  TimingOptions t;
  t.cold_l2 = false;
  t.warmups = 5;
  t.samples = 30;
  t.hold_us = hold_us;
  BOO_ASSIGN_OR_RETURN(auto samples, time_interleaved({launch}, stream, nullptr, t));
  return timing_stats(samples[0]).min_us;
}

core::Expected<TwoWays> time_two_ways(const Launch& launch, void* stream) {
  TwoWays out;
  BOO_ASSIGN_OR_RETURN(out.back_to_back_us, best_sample_us(launch, stream, 0.0));
  BOO_ASSIGN_OR_RETURN(out.held_us, best_sample_us(launch, stream, TimingOptions{}.hold_us));
  return out;
}

}  // namespace

core::Expected<ops::Ceilings> measure_ceilings(void* stream, std::string* report) {
  // A ceiling is what the machine can reach: the best (shortest) of 30 samples, not the median,
  // so that a clock dip during the measurement does not lower every floor of the run; and the
  // better of back-to-back launches and launches behind the benchmark's hold. Back to back
  // only, the 8192^3 GEMM measured 789-799 TFLOP/s on an H200 where cuBLASLt then ran a public
  // GEMM behind the hold at 837 (2026-11-30, bench/results/2026-11-30-vendor-kernels-h200.md):
  // floors were too long and shares of the floor above 100%. Behind the hold the same GEMM ran
  // at 806.8 against 761.5 back to back (bench/results/2026-11-30-ceiling-tiles-h200.md).
  ops::Ceilings c;  // datasheet ratios for the rates not measured
  const ops::Ceilings sheet = ops::Ceilings::h100_sxm_datasheet();
  // 1. Device-to-device copy of 1 GiB: 2 GiB cross HBM.
  constexpr int64_t kCopy = int64_t{1} << 30;
  BOO_ASSIGN_OR_RETURN(auto src, runtime::DeviceBuffer::allocate(kCopy));
  BOO_ASSIGN_OR_RETURN(auto dst, runtime::DeviceBuffer::allocate(kCopy));
  BOO_RETURN_IF_ERROR(src.fill_bytes(1, stream));
  const Launch copy_launch = [&](void* s) {
    return runtime::cuda_status(
        cudaMemcpyAsync(dst.data(), src.data(), kCopy, cudaMemcpyDeviceToDevice,
                        static_cast<cudaStream_t>(s)),
        "cudaMemcpyAsync");
  };
  BOO_ASSIGN_OR_RETURN(const TwoWays copy, time_two_ways(copy_launch, stream));
  const auto copy_gbs = [&](double us) { return 2.0 * kCopy / (us * 1e-6) / 1e9; };
  c.bandwidth_gbs = copy_gbs(copy.best_us());
  // 2. bf16 GEMMs through cuBLASLt on random data (each the fastest of its 8 heuristic
  // candidates, timed under the protocol by prepare()): 8192^3, and two shapes whose 256x128
  // tiles fill whole waves of 132 SMs (33 x 64 tiles), where 8192^3's 2048 tiles leave the last
  // of 16 waves half idle. The fastest rate is the ceiling.
  constexpr int64_t kBig = 8448, kSide = 8192;
  const int64_t shapes[][3] = {{kSide, kSide, kSide}, {kBig, kSide, kSide}, {kSide, kBig, kSide}};
  const int64_t operand = kBig * kSide;
  BOO_ASSIGN_OR_RETURN(auto a, runtime::DeviceBuffer::allocate(operand * 2));
  BOO_ASSIGN_OR_RETURN(auto b, runtime::DeviceBuffer::allocate(operand * 2));
  BOO_ASSIGN_OR_RETURN(auto d, runtime::DeviceBuffer::allocate(operand * 2));
  BOO_RETURN_IF_ERROR(
      reference::gpu::fill_uniform(a.data(), core::DType::kBF16, operand, 11, stream));
  BOO_RETURN_IF_ERROR(
      reference::gpu::fill_uniform(b.data(), core::DType::kBF16, operand, 12, stream));
  dispatch::GemmPointers ptrs;
  ptrs.a = a.data();
  ptrs.b = b.data();
  ptrs.d = d.data();
  double best_tflops = 0.0, back_to_back_tflops = 0.0, held_tflops = 0.0;
  char best_shape[48] = "";
  for (const auto& shape : shapes) {
    ops::GemmProblem g;
    g.m = shape[0];
    g.n = shape[1];
    g.k = shape[2];
    g.trans_a = ops::Transpose::kT;
    g.lda = g.ldb = g.k;
    g.ldc = g.ldd = g.m;
    g.a_type = g.b_type = g.c_type = g.d_type = g.bias_type = core::DType::kBF16;
    BOO_ASSIGN_OR_RETURN(auto lt, reference::CublasLtGemm::create());
    BOO_RETURN_IF_ERROR(lt->prepare(g, ptrs, stream, 8));
    BOO_ASSIGN_OR_RETURN(const TwoWays gemm,
                         time_two_ways([&](void* s) { return lt->run(ptrs, s); }, stream));
    const auto tflops = [&](double us) { return g.flops() / (us * 1e-6) / 1e12; };
    if (tflops(gemm.best_us()) > best_tflops) {
      best_tflops = tflops(gemm.best_us());
      back_to_back_tflops = tflops(gemm.back_to_back_us);
      held_tflops = tflops(gemm.held_us);
      std::snprintf(best_shape, sizeof(best_shape), "%lldx%lldx%lld", static_cast<long long>(g.m),
                    static_cast<long long>(g.n), static_cast<long long>(g.k));
    }
  }
  c.tflops_16bit = best_tflops;
  const double ratio = c.tflops_16bit / sheet.tflops_16bit;
  c.tflops_tf32 = sheet.tflops_tf32 * ratio;
  c.tflops_fp8 = sheet.tflops_fp8 * ratio;
  c.tflops_fp32 = sheet.tflops_fp32 * ratio;
  // 3. Empty kernel, back to back as before (tables stay comparable): its ceiling includes its
  // launch latency, the time any launch costs a caller that waits for it. Last, once the copy and
  // the GEMM have woken the GPU's clocks: measured first in a process it took 13.95 and 21.18 us
  // in some runs on an H100 against 5.4-6.5 us in others (2026-11-27), and it is the floor of the
  // smallest problems.
  BOO_ASSIGN_OR_RETURN(
      c.launch_us,
      best_sample_us([](void* s) { return reference::gpu::launch_empty(s); }, stream, 0.0));
  if (report != nullptr) {
    char buf[400];
    std::snprintf(buf, sizeof(buf),
                  "ceilings measured (best of 30, the better of back to back and behind the "
                  "hold): bf16 GEMM %.1f TFLOP/s (cuBLASLt, the best of 8192^3, 8448x8192x8192 and "
                  "8192x8448x8192: %s; %.1f back to back, %.1f held), "
                  "copy %.0f GB/s (1 GiB device-to-device; %.0f back to back, %.0f held), empty "
                  "kernel %.2f us",
                  c.tflops_16bit, best_shape, back_to_back_tflops, held_tflops, c.bandwidth_gbs,
                  copy_gbs(copy.back_to_back_us), copy_gbs(copy.held_us), c.launch_us);
    *report = buf;
  }
  return c;
}

}  // namespace boo::tune
