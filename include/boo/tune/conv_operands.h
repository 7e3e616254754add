// One convolution's operands on the GPU and the numerics gate of DESIGN.md §8 for it: the conv
// twin of gemm_operands.h. Inputs are random (uniform in [-1, 1], made on the device, fresh per
// seed) in the problem's layouts; which tensors are inputs depends on the direction (x and w
// forward, dy and w backward data, x and dy backward weight). The reference is the fp64 CPU
// reference when the problem is small enough, else the fp64-accumulating GPU reference
// (reference/gpu_reference.h conv_reference).
//
// Host copies of the output ("logical order") hold its values in the row-major order of the
// output descriptor's logical dims, whatever the layout: [N][K][out spatial] forward,
// [N][C][in spatial] backward data, [K][C / groups][filter spatial] backward weight.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "boo/core/status.h"
#include "boo/core/tensor.h"
#include "boo/dispatch/conv_args.h"
#include "boo/ops/conv_problem.h"
#include "boo/reference/compare.h"
#include "boo/reference/host_tensor.h"
#include "boo/runtime/cuda.h"
#include "boo/tune/numerics.h"

namespace boo::tune {

class ConvOperands {
 public:
  static core::Expected<ConvOperands> create(const ops::ConvProblem& p, uint64_t seed,
                                             void* stream);
  // The direction's inputs, with `out` as the output tensor (y forward, x backward data, w
  // backward weight; each backend writes its own output buffer).
  dispatch::ConvPointers pointers(void* out) const;
  // A fresh (unfilled) buffer of the output tensor's span.
  core::Expected<runtime::DeviceBuffer> make_output() const;
  const ops::ConvProblem& problem() const { return problem_; }

  // Input buffers in the problem's layouts; empty for the tensor the direction writes (and the
  // bias without p.bias). y() is dy in the backward directions.
  const runtime::DeviceBuffer& x() const { return x_; }
  const runtime::DeviceBuffer& w() const { return w_; }
  const runtime::DeviceBuffer& y() const { return y_; }
  const runtime::DeviceBuffer& bias() const { return bias_; }

 private:
  ops::ConvProblem problem_;
  runtime::DeviceBuffer x_, w_, y_, bias_;
};

// The descriptor of the tensor `p.direction` computes: y_desc() forward, x_desc() backward data,
// w_desc() backward weight.
core::TensorDesc conv_output_desc(const ops::ConvProblem& p);

// The values of `t` in the logical row-major order of its dims, read through its strides.
std::vector<double> logical_values(const reference::HostTensor& t);

// The output tensor at `out` (the problem's layout and dtype) copied to the host in logical order
// (synchronizes the device).
core::Expected<std::vector<double>> download_conv_output(const ops::ConvProblem& p,
                                                         const void* out);

// Relative Frobenius tolerance of §8 for the problem's precision: bf16 1e-2, fp16 5e-3, fp32 with
// tf32 math 1e-3, exact fp32 1e-5.
double conv_tolerance(const ops::ConvProblem& p);

// The reference output of a problem, computed once and compared against any number of outputs.
class ConvReference {
 public:
  // CPU fp64 when the problem has at most `cpu_max_flops` (ops::ConvProblem::flops()), else the
  // GPU reference (fp64 sums, fp32 result).
  static core::Expected<ConvReference> compute(const ConvOperands& ops, void* stream,
                                               double cpu_max_flops = 2e9);
  // Error of the output tensor at `out` (the problem's layout and dtype); synchronizes.
  core::Expected<reference::ErrorStats> compare(const ConvOperands& ops, const void* out,
                                                void* stream) const;
  const std::string& name() const { return name_; }  // "cpu fp64" or "gpu fp64-acc"

 private:
  std::string name_;
  std::vector<double> host_;      // logical order (CPU reference)
  runtime::DeviceBuffer device_;  // packed fp32 in logical order (GPU reference)
};

using ConvNumerics = Numerics;

// The gate (judge_numerics with conv_tolerance): no NaN/Inf, error <= tolerance, and <= 2x the
// vendor's error when there is one.
ConvNumerics judge_conv(const ops::ConvProblem& p, const reference::ErrorStats& boo,
                        const std::optional<reference::ErrorStats>& vendor,
                        const std::string& reference_name);

}  // namespace boo::tune
