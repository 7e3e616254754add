// CPU reference convolutions with fp64 accumulation, for every ConvProblem: 1D/2D/3D, groups,
// stride, padding, dilation, any layout per tensor (the HostTensors' strides), bias and
// activation in the forward pass. Results are exact sums in double, not rounded to the dtype.
#pragma once

#include "boo/core/status.h"
#include "boo/ops/conv_problem.h"
#include "boo/reference/host_tensor.h"

namespace boo::reference {

// y = act(conv(x, w) + bias). `bias` (K values) may be null when the problem has none.
core::Status conv_forward(const ops::ConvProblem& p, const HostTensor& x, const HostTensor& w,
                          const HostTensor* bias, HostTensor& y);
// dx = conv_transpose(dy, w): the adjoint of the forward convolution in x.
core::Status conv_backward_data(const ops::ConvProblem& p, const HostTensor& dy,
                                const HostTensor& w, HostTensor& dx);
// dw = correlation of x and dy: the adjoint of the forward convolution in w.
core::Status conv_backward_weight(const ops::ConvProblem& p, const HostTensor& x,
                                  const HostTensor& dy, HostTensor& dw);

}  // namespace boo::reference
