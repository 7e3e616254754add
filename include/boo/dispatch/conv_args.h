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

  // Whether the tensors and the bias are 16-byte aligned (as GemmPointers::aligned_16; dispatch
  // plans workspaces with such stand-ins).
  bool aligned_16() const;
};

// Sizes, strides and pointers of `p` in the 3-entry spatial form of BooConvArgs (a 2D problem
// has D = 1, a 1D problem also H = 1). `p` must be valid.
// The ABI's 3-entry spatial form: `v` (spatial_dims entries, outermost first) right-aligned into
// `out`, the entries in front set to `fill` (1 for extents, 0 for padding).
void conv_spatial3(const std::vector<int64_t>& v, int64_t fill, int64_t out[3]);
// Strides of a [N, C, spatial...] descriptor as (N, C, D, H, W); a missing spatial dim (extent
// 1) gets the stride of the dim outside it, which no index ever multiplies by more than 0.
void conv_strides5(const core::TensorDesc& t, int64_t out[5]);

BooConvArgs make_conv_args(const ops::ConvProblem& p, const ConvPointers& ptrs, int device,
                           int sm_count);

}  // namespace boo::dispatch
