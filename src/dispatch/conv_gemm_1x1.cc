#include "boo/dispatch/conv_gemm_1x1.h"

#include <string>

namespace boo::dispatch {
namespace {

using ops::ConvDirection;
using ops::Transpose;

core::Status why_not(const ops::ConvProblem& p) {
  auto no = [](const std::string& why) { return core::unsupported("conv.gemm_1x1: " + why); };
  if (p.groups != 1) return no("groups must be 1 (got " + std::to_string(p.groups) + ")");
  for (size_t i = 0; i < p.filter.size(); ++i) {
    if (p.filter[i] != 1)
      return no("the filter must be 1x1 (size " + std::to_string(p.filter[i]) + ")");
    if (p.stride[i] != 1)
      return no("the stride must be 1 (got " + std::to_string(p.stride[i]) + ")");
    if (p.padding[i] != 0) {
      return no("the padding must be 0 (got " + std::to_string(p.padding[i]) + ")");
    }
  }
  if (p.in_layout != p.out_layout) return no("input and output layouts must match");
  const bool last = p.in_layout == core::Layout::kChannelsLast;
  if (!last && p.direction == ConvDirection::kForward && p.bias) {
    return no("a channels-first output's per-channel bias is per GEMM column");
  }
  if (!last && p.direction == ConvDirection::kBackwardWeight && p.n != 1) {
    return no("channels-first backward weight sums over images (N = " + std::to_string(p.n) +
              "); only N = 1 is one GEMM");
  }
  return core::Status::ok();
}

}  // namespace

core::Expected<ConvAsGemm> conv_as_gemm_1x1(const ops::ConvProblem& p) {
  BOO_RETURN_IF_ERROR(p.validate());
  BOO_RETURN_IF_ERROR(why_not(p));
  int64_t pixels = 1;
  for (int64_t s : p.input) pixels *= s;
  const int64_t c = p.c;
  const int64_t k = p.k;
  ops::GemmProblem g;
  g.a_type = g.b_type = g.c_type = g.d_type = g.bias_type = p.dtype;
  g.math = p.math;
  g.alpha = 1.0;
  g.beta = 0.0;
  const bool forward = p.direction == ConvDirection::kForward;
  g.bias = forward && p.bias;
  g.activation = forward ? p.activation : ops::Activation::kNone;
  ConvAsGemm out;
  if (p.in_layout == core::Layout::kChannelsLast) {
    const int64_t np = p.n * pixels;
    switch (p.direction) {
      case ConvDirection::kForward:  // y^T = w . x^T
        out = {g, 'w', 'x', 'y'};
        out.gemm.m = k, out.gemm.n = np, out.gemm.k = c;
        out.gemm.trans_a = Transpose::kT, out.gemm.lda = c;
        out.gemm.trans_b = Transpose::kN, out.gemm.ldb = c;
        out.gemm.ldd = out.gemm.ldc = k;
        break;
      case ConvDirection::kBackwardData:  // dx^T = w^T . dy^T
        out = {g, 'w', 'y', 'x'};
        out.gemm.m = c, out.gemm.n = np, out.gemm.k = k;
        out.gemm.trans_a = Transpose::kN, out.gemm.lda = c;
        out.gemm.trans_b = Transpose::kN, out.gemm.ldb = k;
        out.gemm.ldd = out.gemm.ldc = c;
        break;
      case ConvDirection::kBackwardWeight:  // dw^T = x^T . dy
        out = {g, 'x', 'y', 'w'};
        out.gemm.m = c, out.gemm.n = k, out.gemm.k = np;
        out.gemm.trans_a = Transpose::kN, out.gemm.lda = c;
        out.gemm.trans_b = Transpose::kT, out.gemm.ldb = k;
        out.gemm.ldd = out.gemm.ldc = c;
        break;
    }
    return out;
  }
  // Channels-first: image n's x is a C x P row-major matrix (column-major P x C).
  switch (p.direction) {
    case ConvDirection::kForward:  // y_n^T = x_n^T . w^T, batched over images
      out = {g, 'x', 'w', 'y'};
      out.gemm.m = pixels, out.gemm.n = k, out.gemm.k = c, out.gemm.batch = p.n;
      out.gemm.trans_a = Transpose::kN, out.gemm.lda = pixels, out.gemm.stride_a = c * pixels;
      out.gemm.trans_b = Transpose::kN, out.gemm.ldb = c, out.gemm.stride_b = 0;
      out.gemm.ldd = out.gemm.ldc = pixels;
      out.gemm.stride_d = out.gemm.stride_c = k * pixels;
      break;
    case ConvDirection::kBackwardData:  // dx_n^T = dy_n^T . w
      out = {g, 'y', 'w', 'x'};
      out.gemm.m = pixels, out.gemm.n = c, out.gemm.k = k, out.gemm.batch = p.n;
      out.gemm.trans_a = Transpose::kN, out.gemm.lda = pixels, out.gemm.stride_a = k * pixels;
      out.gemm.trans_b = Transpose::kT, out.gemm.ldb = c, out.gemm.stride_b = 0;
      out.gemm.ldd = out.gemm.ldc = pixels;
      out.gemm.stride_d = out.gemm.stride_c = c * pixels;
      break;
    case ConvDirection::kBackwardWeight:  // one image: dw^T = x_0 . dy_0^T
      out = {g, 'x', 'y', 'w'};
      out.gemm.m = c, out.gemm.n = k, out.gemm.k = pixels;
      out.gemm.trans_a = Transpose::kT, out.gemm.lda = pixels;
      out.gemm.trans_b = Transpose::kN, out.gemm.ldb = pixels;
      out.gemm.ldd = out.gemm.ldc = c;
      break;
  }
  return out;
}

}  // namespace boo::dispatch
