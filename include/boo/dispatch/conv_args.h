// The tensors of one convolution and the C argument struct (codegen/abi.h BooConvArgs) a conv
// kernel object takes for them. Shared by dispatch, the driver, the tests and the baselines.
#pragma once

#include "boo/codegen/abi.h"
#include "boo/ops/conv_problem.h"

namespace boo::dispatch {

// Device pointers of x, w and y in the problem's layouts (which one is written depends on the
// direction: y forward, x backward data, w backward weight) and the bias (forward, K values).
struct ConvPointers {
  void* x = nullptr;
  void* w = nullptr;
  void* y = nullptr;
  const void* bias = nullptr;
};

// Sizes, strides and pointers of `p` in the 3-entry spatial form of BooConvArgs (a 2D problem
// has D = 1, a 1D problem also H = 1). `p` must be valid.
BooConvArgs make_conv_args(const ops::ConvProblem& p, const ConvPointers& ptrs, int device,
                           int sm_count);

}  // namespace boo::dispatch
