// Host time of a repeated boo GEMM call (issue 3: <= 3 us before the launch). Times, on the host,
// many back-to-back calls of GemmDispatcher::gemm() for an already-planned problem (a) as a dry
// run, which does everything up to the launch and then returns — the host time before the
// launch — and (b) for real; and (c) an empty kernel launch for scale. GPU work queues
// asynchronously. Needs a GPU.
#include <chrono>
#include <cstdio>
#include <vector>

#include "boo/dispatch/context.h"
#include "boo/reference/gpu_reference.h"
#include "boo/runtime/cuda.h"
#include "boo/runtime/device.h"
#include "boo/tune/stats.h"

using namespace boo;

namespace {

template <class Fn>
double host_us_per_call(Fn&& fn, int calls, runtime::Stream& stream) {
  std::vector<double> per_batch;
  for (int rep = 0; rep < 7; ++rep) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < calls; ++i) fn();
    const auto t1 = std::chrono::steady_clock::now();
    (void)stream.synchronize();
    per_batch.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / calls);
  }
  return tune::timing_stats(per_batch).median_us;
}

int fail(const core::Status& s) {
  std::fprintf(stderr, "dispatch_overhead: %s\n", s.message().c_str());
  return 1;
}

}  // namespace

int main() {
  auto devices = runtime::list_devices();
  if (!devices) return fail(devices.status());
  auto ctx = dispatch::Context::create({}, devices->front().sm_count);
  if (!ctx) return fail(ctx.status());
  auto stream = runtime::Stream::create();
  if (!stream) return fail(stream.status());
  // A small GEMM (256^3 bf16): the GPU finishes each in microseconds, so the host dominates.
  ops::GemmProblem p;
  p.m = p.n = p.k = 256;
  p.trans_a = ops::Transpose::kT;
  p.lda = p.ldb = p.ldc = p.ldd = 256;
  p.a_type = p.b_type = p.c_type = p.d_type = p.bias_type = core::DType::kBF16;
  std::vector<runtime::DeviceBuffer> bufs;
  for (int i = 0; i < 3; ++i) {
    auto b = runtime::DeviceBuffer::allocate(256 * 256 * 2);
    if (!b) return fail(b.status());
    bufs.push_back(std::move(*b));
  }
  dispatch::GemmPointers ptrs;
  ptrs.a = bufs[0].data();
  ptrs.b = bufs[1].data();
  ptrs.d = bufs[2].data();
  dispatch::GemmDispatcher& d = *(*ctx)->gemm;
  auto plan = d.plan(p);
  if (!plan) return fail(plan.status());
  if (auto s = d.gemm(p, ptrs, stream->get()); !s.is_ok()) return fail(s);
  (void)stream->synchronize();
  constexpr int kCalls = 2000;
  const double t_dry =
      host_us_per_call([&] { (void)d.gemm(p, ptrs, stream->get(), true); }, kCalls, *stream);
  const double t_gemm =
      host_us_per_call([&] { (void)d.gemm(p, ptrs, stream->get()); }, kCalls, *stream);
  const double t_empty =
      host_us_per_call([&] { (void)reference::gpu::launch_empty(stream->get()); }, kCalls, *stream);
  std::printf("kernel: %s\n", (**plan).config.c_str());
  std::printf(
      "host us per call: gemm() up to the launch %.2f, gemm() with the launch %.2f, "
      "empty kernel launch %.2f\n",
      t_dry, t_gemm, t_empty);
  std::printf("boo host time before launch: %.2f us (target <= 3 us): %s\n", t_dry,
              t_dry <= 3.0 ? "MET" : "MISSED");
  return 0;
}
