// GPU helpers of the numerics and benchmark protocols (DESIGN.md §7, §8): random operands made
// on the device, an fp32-accumulating reference GEMM and an fp64-accumulating reference
// convolution for problems too large for the CPU, output comparison, the activation pass a
// cuBLASLt user adds when no fused epilogue exists, and an empty kernel for the launch ceiling.
// Host API only; the kernels are compiled with the library (src/reference/gpu/).
#pragma once

#include <cstdint>

#include "boo/core/dtype.h"
#include "boo/core/status.h"
#include "boo/dispatch/conv_args.h"
#include "boo/ops/conv_problem.h"
#include "boo/ops/gemm_problem.h"
#include "boo/reference/compare.h"

namespace boo::reference::gpu {

// `count` elements of `dtype` at `ptr`, uniform in [lo, hi), a function of (seed, index) only.
core::Status fill_uniform(void* ptr, core::DType dtype, int64_t count, uint64_t seed, void* stream,
                          double lo = -1.0, double hi = 1.0);

struct GemmRefPointers {
  const void* a = nullptr;
  const void* b = nullptr;
  const void* c = nullptr;
  const void* bias = nullptr;
  const float* alpha_vector = nullptr;
  float scale = 1.0f;  // scaleA * scaleB
};

// The problem's D in fp32, packed as [batch][N][M] (M fastest), fp32 accumulation.
core::Status gemm_reference(const ops::GemmProblem& p, const GemmRefPointers& in, float* out,
                            void* stream);

// Error of D (the problem's layout and type) against a packed fp32 reference; synchronizes.
core::Expected<ErrorStats> compare_gemm_output(const ops::GemmProblem& p, const void* d,
                                               const float* ref, void* stream);

// D = act(D + bias) in place over the problem's M x N x batch entries (bias may be null).
core::Status bias_activation(const ops::GemmProblem& p, void* d, const void* bias,
                             ops::Activation act, void* stream);

// y = act(y + bias) in place over a forward convolution's output (p.y_desc(): either layout,
// packed), bias per output channel (K values of p.dtype, may be null), act = p.activation: the
// pass a cuDNN user adds where cuDNN has no fused epilogue (gelu). Asynchronous on `stream`.
core::Status conv_bias_activation(const ops::ConvProblem& p, void* y, const void* bias,
                                  void* stream);

// The convolution's output tensor (y forward, x backward data, w backward weight: what
// `p.direction` computes) in fp32, PACKED in the logical row-major order of that tensor's dims,
// whatever the problem's layouts: [N][K][out spatial] forward, [N][C][in spatial] backward data,
// [K][C / groups][filter spatial] backward weight, spatial dims outermost first (D, H, W), last
// fastest. Inputs are read from `in` through their descriptors' strides (x_desc(), w_desc(),
// y_desc(): any layout); the output's own pointer in `in` is ignored. Sums in fp64 on the GPU,
// one thread per output element (backward weight splits its long sums over threads and adds
// the parts in a fixed order); the forward adds the bias and applies the activation. `out`
// holds the output's element count of floats. Asynchronous on `stream`.
core::Status conv_reference(const ops::ConvProblem& p, const dispatch::ConvPointers& in, float* out,
                            void* stream);

// Error of the output tensor `out` (the problem's layout and dtype, read through its strides)
// against a packed fp32 reference in conv_reference's order; synchronizes.
core::Expected<ErrorStats> compare_conv_output(const ops::ConvProblem& p, const void* out,
                                               const float* ref, void* stream);

core::Status launch_empty(void* stream);
// One thread that keeps the stream busy for `us` microseconds: work enqueued behind it starts
// when it ends, whatever its launch cost on the host.
core::Status launch_hold(double us, void* stream);

// Reads `bytes` (a multiple of 16) of `buf` once, leaving them in L2 as clean lines; `sink`
// (16 bytes) is written only to keep the loads.
core::Status read_sweep(const void* buf, int64_t bytes, void* sink, void* stream);

// How the vendor baselines time their candidates as the benchmark times a winner (DESIGN.md
// §7). Before each timed sample, a read of 128 MiB (2.5x an H100's and H200's 50 MB L2, ~45 us
// at 3 TB/s) evicts the operands (cold L2).
constexpr int64_t kColdSweepBytes = int64_t{128} << 20;
// Sweeps (2.5 ms at 3 TB/s) that bring an idle GPU to its boost clock before timing: the first
// cuDNN algorithm timed from idle measured 80.6 us, the same one later 53.3 us.
constexpr int kClockRampSweeps = 64;
// kClockRampSweeps read sweeps of `bytes` of `buf` (nothing where `bytes` is 0).
core::Status ramp_clocks(const void* buf, int64_t bytes, void* sink, void* stream);
// What precedes a timed sample: a hold of `hold_us` (the host enqueues the sample meanwhile, so
// the sample times the GPU, not the library's host overhead), then a read sweep of `bytes` of
// `buf` (none where `bytes` is 0: a warm L2).
core::Status before_cold_sample(double hold_us, const void* buf, int64_t bytes, void* sink,
                                void* stream);

}  // namespace boo::reference::gpu
