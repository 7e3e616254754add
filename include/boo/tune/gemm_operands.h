// One GEMM problem's operands on the GPU and the numerics gate of DESIGN.md §8 for it.
// Inputs are random (uniform in [-1, 1], made on the device, fresh per seed); outputs are
// poisoned with NaN before a checked run, so an unwritten element fails the check. The
// reference is the fp64 CPU reference when the problem is small enough, else the
// fp32-accumulating GPU reference.
#pragma once

#include <optional>
#include <string>

#include "boo/core/status.h"
#include "boo/dispatch/gemm_dispatcher.h"
#include "boo/ops/gemm_problem.h"
#include "boo/reference/compare.h"
#include "boo/runtime/cuda.h"
#include "boo/tune/numerics.h"

namespace boo::tune {

class GemmOperands {
 public:
  static core::Expected<GemmOperands> create(const ops::GemmProblem& p, uint64_t seed,
                                             void* stream);
  // Pointers with `d` as the output (each backend writes its own output buffer).
  dispatch::GemmPointers pointers(void* d) const;
  // A fresh output buffer of the problem's D span.
  core::Expected<runtime::DeviceBuffer> make_output() const;
  const ops::GemmProblem& problem() const { return problem_; }
  float scale() const { return scale_; }  // scaleA * scaleB (1 without fp8 scales)

  const runtime::DeviceBuffer& a() const { return a_; }
  const runtime::DeviceBuffer& b() const { return b_; }
  const runtime::DeviceBuffer& c() const { return c_; }
  const runtime::DeviceBuffer& bias() const { return bias_; }
  const runtime::DeviceBuffer& alpha_vector() const { return alpha_vector_; }

 private:
  ops::GemmProblem problem_;
  runtime::DeviceBuffer a_, b_, c_, bias_, alpha_vector_, alpha_scale_;
  float scale_ = 1.0f;
};

// D's M x N x batch values copied to the host, packed as [batch][N][M] (synchronizes).
core::Expected<std::vector<double>> download_gemm_output(const ops::GemmProblem& p, const void* d);

// Relative Frobenius tolerance of §8 for the problem's output precision: bf16 1e-2, fp16 5e-3,
// fp32 with tf32 math 1e-3, fp32 outputs of 16-bit or fp8 inputs 1e-3, exact fp32 1e-5.
double gemm_tolerance(const ops::GemmProblem& p);

// The reference output of a problem, computed once and compared against any number of outputs.
class GemmReference {
 public:
  // CPU fp64 when the problem has at most `cpu_max_flops`, else GPU fp32-accumulating.
  static core::Expected<GemmReference> compute(const GemmOperands& ops, void* stream,
                                               double cpu_max_flops = 2e9);
  core::Expected<reference::ErrorStats> compare(const GemmOperands& ops, const void* d,
                                                void* stream) const;
  const std::string& name() const { return name_; }  // "cpu fp64" or "gpu fp32-acc"

 private:
  std::string name_;
  std::vector<double> host_;      // packed [batch][N][M] (CPU reference)
  runtime::DeviceBuffer device_;  // packed fp32 (GPU reference)
};

using GemmNumerics = Numerics;

// The gate (judge_numerics with gemm_tolerance): no NaN/Inf, error <= tolerance, and <= 2x the
// vendor's error when there is one.
GemmNumerics judge_gemm(const ops::GemmProblem& p, const reference::ErrorStats& boo,
                        const std::optional<reference::ErrorStats>& vendor,
                        const std::string& reference_name);

}  // namespace boo::tune
