// CPU reference layer norm with fp64 math over rows x cols (LayerNormProblem::rows/cols):
//   mean = sum(x) / cols, var = sum((x - mean)^2) / cols (biased, as PyTorch),
//   rstd = 1 / sqrt(var + eps), xhat = (x - mean) rstd, y = xhat [* w + b].
// Backward (g = dy [* w]):
//   dx = rstd (g - mean(g) - xhat mean(g xhat)), dweight = sum_rows dy xhat, dbias = sum_rows dy.
// Tensors are packed row-major; x, y, dy, dx have rows*cols values; w, b, dw, db have cols.
#pragma once

#include <vector>

#include "boo/core/status.h"
#include "boo/ops/layernorm_problem.h"
#include "boo/reference/host_tensor.h"

namespace boo::reference {

// `weight` and `bias` are needed when the problem is affine.
core::Status layernorm_forward(const ops::LayerNormProblem& p, const HostTensor& x,
                               const HostTensor* weight, const HostTensor* bias, HostTensor& y,
                               std::vector<double>& mean, std::vector<double>& rstd);

// Computes the outputs that are not null; `weight` is needed for dx of an affine problem.
core::Status layernorm_backward(const ops::LayerNormProblem& p, const HostTensor& dy,
                                const HostTensor& x, const std::vector<double>& mean,
                                const std::vector<double>& rstd, const HostTensor* weight,
                                HostTensor* dx, HostTensor* dweight, HostTensor* dbias);

}  // namespace boo::reference
