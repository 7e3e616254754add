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

core::Expected<ops::Ceilings> measure_ceilings(void* stream, std::string* report) {
  // A ceiling is what the machine can reach: the best (shortest) of 30 samples, not the median,
  // so that a clock dip during the measurement does not lower every floor of the run.
  ops::Ceilings c;  // datasheet ratios for the rates not measured
  const ops::Ceilings sheet = ops::Ceilings::h100_sxm_datasheet();
  TimingOptions warm;
  warm.cold_l2 = false;
  warm.warmups = 5;
  warm.samples = 30;
  warm.hold_us = 0;  // as before: tables stay comparable
  // 1. Device-to-device copy of 1 GiB: 2 GiB cross HBM.
  constexpr int64_t kCopy = int64_t{1} << 30;
  BOO_ASSIGN_OR_RETURN(auto src, runtime::DeviceBuffer::allocate(kCopy));
  BOO_ASSIGN_OR_RETURN(auto dst, runtime::DeviceBuffer::allocate(kCopy));
  BOO_RETURN_IF_ERROR(src.fill_bytes(1, stream));
  auto copy =
      time_interleaved({[&](void* s) {
                         return runtime::cuda_status(cudaMemcpyAsync(dst.data(), src.data(), kCopy,
                                                                     cudaMemcpyDeviceToDevice,
                                                                     static_cast<cudaStream_t>(s)),
                                                     "cudaMemcpyAsync");
                       }},
                       stream, nullptr, warm);
  if (!copy) return copy.status();
  c.bandwidth_gbs = 2.0 * kCopy / (timing_stats((*copy)[0]).min_us * 1e-6) / 1e9;
  // 2. bf16 GEMM 8192^3 through cuBLASLt on random data.
  ops::GemmProblem g;
  g.m = g.n = g.k = 8192;
  g.trans_a = ops::Transpose::kT;
  g.lda = g.ldb = g.ldc = g.ldd = 8192;
  g.a_type = g.b_type = g.c_type = g.d_type = g.bias_type = core::DType::kBF16;
  const int64_t bytes = 8192LL * 8192 * 2;
  BOO_ASSIGN_OR_RETURN(auto a, runtime::DeviceBuffer::allocate(bytes));
  BOO_ASSIGN_OR_RETURN(auto b, runtime::DeviceBuffer::allocate(bytes));
  BOO_ASSIGN_OR_RETURN(auto d, runtime::DeviceBuffer::allocate(bytes));
  BOO_RETURN_IF_ERROR(reference::gpu::fill_uniform(a.data(), g.a_type, 8192LL * 8192, 11, stream));
  BOO_RETURN_IF_ERROR(reference::gpu::fill_uniform(b.data(), g.b_type, 8192LL * 8192, 12, stream));
  dispatch::GemmPointers ptrs;
  ptrs.a = a.data();
  ptrs.b = b.data();
  ptrs.d = d.data();
  BOO_ASSIGN_OR_RETURN(auto lt, reference::CublasLtGemm::create());
  BOO_RETURN_IF_ERROR(lt->prepare(g, ptrs, stream, 4));
  auto gemm = time_interleaved({[&](void* s) { return lt->run(ptrs, s); }}, stream, nullptr, warm);
  if (!gemm) return gemm.status();
  c.tflops_16bit = g.flops() / (timing_stats((*gemm)[0]).min_us * 1e-6) / 1e12;
  const double ratio = c.tflops_16bit / sheet.tflops_16bit;
  c.tflops_tf32 = sheet.tflops_tf32 * ratio;
  c.tflops_fp8 = sheet.tflops_fp8 * ratio;
  c.tflops_fp32 = sheet.tflops_fp32 * ratio;
  // 3. Empty kernel, measured as before (tables stay comparable): its ceiling includes its launch
  // latency, the time any launch costs a caller that waits for it. Last, once the copy and the
  // GEMM have woken the GPU's clocks: measured first in a process it took 13.95 and 21.18 us in
  // some runs on an H100 against 5.4-6.5 us in others (2026-11-27), and it is the floor of the
  // smallest problems.
  auto empty = time_interleaved({[](void* s) { return reference::gpu::launch_empty(s); }}, stream,
                                nullptr, warm);
  if (!empty) return empty.status();
  c.launch_us = timing_stats((*empty)[0]).min_us;
  if (report != nullptr) {
    char buf[256];
    std::snprintf(buf, sizeof(buf),
                  "ceilings measured (best of 30): bf16 GEMM %.1f TFLOP/s (cuBLASLt 8192^3), copy "
                  "%.0f GB/s (1 GiB device-to-device), empty kernel %.2f us",
                  c.tflops_16bit, c.bandwidth_gbs, c.launch_us);
    *report = buf;
  }
  return c;
}

}  // namespace boo::tune
