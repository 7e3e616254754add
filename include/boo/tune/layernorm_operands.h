// One layer norm's operands on the GPU and the numerics gate of DESIGN.md §8 for it: the layer
// norm twin of gemm_operands.h and conv_operands.h. Inputs are random (uniform in [-1, 1],
// rounded to the dtype, fresh per seed), made on the host (reference::make_inputs) and uploaded:
// the reference is the fp64 CPU reference, which costs O(rows x cols) and so runs for every size.
// A backward problem also gets the forward's fp32 mean and rstd of x as inputs, as a training
// step saves them.
//
// A backend writes all the problem's outputs into one buffer (make_output): y, mean, rstd for the
// forward; the asked-for of dx, dweight, dbias for the backward; each at a 256-byte aligned
// offset.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "boo/core/status.h"
#include "boo/dispatch/layernorm_dispatcher.h"
#include "boo/ops/layernorm_problem.h"
#include "boo/reference/compare.h"
#include "boo/reference/problem_data.h"
#include "boo/runtime/cuda.h"
#include "boo/tune/numerics.h"

namespace boo::tune {

// One output of a layer norm inside a backend's output buffer.
struct LayerNormOutput {
  std::string name;  // y, mean, rstd, dx, dweight, dbias
  core::DType dtype;
  int64_t elements = 0;
  int64_t offset = 0;  // bytes from the buffer's start
};

// The outputs of a problem, in the order above, and the buffer size they need.
std::vector<LayerNormOutput> layernorm_outputs(const ops::LayerNormProblem& p);
int64_t layernorm_output_bytes(const ops::LayerNormProblem& p);

// One output inside the buffer `out` copied to the host and decoded from its dtype
// (synchronizes the device: the backends run on non-blocking streams).
core::Expected<std::vector<double>> download_layernorm_output(const LayerNormOutput& o,
                                                              const void* out);

class LayerNormOperands {
 public:
  static core::Expected<LayerNormOperands> create(const ops::LayerNormProblem& p, uint64_t seed,
                                                  void* stream);
  // The inputs, with the outputs inside `out` (a buffer of make_output()).
  dispatch::LayerNormPointers pointers(void* out) const;
  core::Expected<runtime::DeviceBuffer> make_output() const;
  const ops::LayerNormProblem& problem() const { return problem_; }
  // The host inputs (x, weight, bias, dy as in reference::make_inputs) and the forward's mean
  // and rstd in fp64 (backward problems).
  const reference::ProblemData& host() const { return host_; }
  const std::vector<double>& mean() const { return mean_; }
  const std::vector<double>& rstd() const { return rstd_; }

 private:
  ops::LayerNormProblem problem_;
  reference::ProblemData host_;
  std::vector<double> mean_, rstd_;
  runtime::DeviceBuffer x_, weight_, bias_, dy_, mean_dev_, rstd_dev_;
};

// Relative Frobenius tolerance of §8 by dtype: bf16 1e-2, fp16 5e-3, fp32 1e-5.
double layernorm_tolerance(const ops::LayerNormProblem& p);

// The fp64 reference outputs of a problem, computed once and compared against any number of
// output buffers.
class LayerNormReference {
 public:
  static core::Expected<LayerNormReference> compute(const LayerNormOperands& ops);
  // The error of each output in `out` (synchronizes), worst first by relative error.
  core::Expected<std::vector<std::pair<std::string, reference::ErrorStats>>> compare_each(
      const LayerNormOperands& ops, const void* out) const;
  // The worst of compare_each (its relative error; counts of NaN/Inf summed over the outputs).
  core::Expected<reference::ErrorStats> compare(const LayerNormOperands& ops,
                                                const void* out) const;
  const std::string& name() const { return name_; }  // "cpu fp64"

 private:
  std::string name_ = "cpu fp64";
  reference::ProblemData data_;  // inputs and reference outputs
};

// The gradients of L = sum(y * dy) with respect to x, weight and bias by central finite
// differences of the fp64 forward (y = (x - mean) rstd [* weight + bias], as
// reference::layernorm_forward computes it), for the parts `p.parts` asks for (the others stay
// empty). `data` holds the inputs of reference::make_inputs (x, weight, bias, dy). Per value v
// the step is h = 2^-10 max(1, |v|) (about 1e-3; v +- h is exact in fp64 for 16- and 32-bit
// inputs) and two central differences, at h and h / 2, are combined by Richardson
// extrapolation, (4 D(h/2) - D(h)) / 3, so that the truncation error is O(h^4), far below fp32's
// tolerance. Moving x[r][c] changes only row r, so each difference re-evaluates that row's part
// of L (cols work: rows x cols^2 in all); weight[c] and bias[c] change only column c of y (rows
// work each). Needs no GPU.
struct LayerNormGradients {
  std::vector<double> dx;       // rows * cols, packed row-major
  std::vector<double> dweight;  // cols
  std::vector<double> dbias;    // cols
};
core::Expected<LayerNormGradients> layernorm_fd_gradients(const ops::LayerNormProblem& p,
                                                          const reference::ProblemData& data);

// Backward problems: the error of the dx, dweight and dbias in `out` against
// layernorm_fd_gradients of the operands' inputs (the gradient of L = sum(y * dy) with respect
// to x, weight and bias), for problems of at most `max_elements` x values and at most `max_work`
// rows x cols^2 (the cost of the x differences: 2^28 took 2.5 s on 2 cores). The worst
// relative error over the outputs, aggregated as LayerNormReference::compare does. Larger
// problems give a resource_limit status and forward problems an unsupported one: the caller
// reports them as not checked.
core::Expected<reference::ErrorStats> layernorm_finite_difference_error(
    const LayerNormOperands& ops, const void* out, int64_t max_elements = 1 << 16,
    int64_t max_work = int64_t{1} << 30);

// The gate (judge_numerics with layernorm_tolerance; there is no vendor library for layer norms).
Numerics judge_layernorm(const ops::LayerNormProblem& p, const reference::ErrorStats& boo,
                         const std::string& reference_name);

}  // namespace boo::tune
