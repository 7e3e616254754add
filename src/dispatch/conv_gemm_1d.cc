#include "boo/dispatch/conv_gemm_1d.h"

#include <algorithm>
#include <string>

namespace boo::dispatch {
namespace {

using ops::ConvDirection;
using ops::Transpose;

core::Status no(const std::string& why) { return core::unsupported("conv.gemm_1d: " + why); }

// The output columns whose windows lie inside the input: [first, last] (last < first: none).
struct Interior {
  int64_t first = 0;
  int64_t last = -1;
};

Interior interior_of(const ops::ConvProblem& p) {
  const int64_t w = p.input[0], s = p.filter[0], u = p.stride[0], pad = p.padding[0];
  const int64_t out = p.output()[0];
  Interior i;
  i.first = (pad + u - 1) / u;  // w * u - P >= 0
  // w * u - P + S - 1 <= W - 1
  i.last = w - s + pad >= 0 ? std::min(out - 1, (w - s + pad) / u) : -1;
  return i;
}

}  // namespace

core::Status conv_gemm_1d_supports(const ops::ConvProblem& p) {
  BOO_RETURN_IF_ERROR(p.validate());
  if (p.spatial_dims != 1) {
    return no("the convolution must be 1D (" + std::to_string(p.spatial_dims) + "D)");
  }
  if (p.direction != ConvDirection::kForward || p.transposed) return no("forward only");
  if (p.groups != 1) return no("groups must be 1 (got " + std::to_string(p.groups) + ")");
  if (p.dilation[0] != 1) {
    return no("the dilation must be 1 (got " + std::to_string(p.dilation[0]) +
              "): dilated taps are not one contiguous window");
  }
  const core::Layout last = core::Layout::kChannelsLast;
  if (p.in_layout != last || p.fil_layout != last || p.out_layout != last) {
    return no("input, filter and output must be channels-last (NWC, KXC)");
  }
  const bool sixteen = p.dtype == core::DType::kBF16 || p.dtype == core::DType::kF16;
  if (!sixteen && !(p.dtype == core::DType::kF32 && p.math == core::MathMode::kTF32)) {
    return no("bf16, fp16 or tf32 only (got " + std::string(core::dtype_name(p.dtype)) + ")");
  }
  const int64_t bytes = core::dtype_bytes(p.dtype);
  if ((p.c * bytes) % 16 != 0 || (p.k * bytes) % 16 != 0) {
    return no("C and K must be 16-byte vectors (C=" + std::to_string(p.c) +
              " K=" + std::to_string(p.k) + ")");
  }
  const Interior in = interior_of(p);
  if (in.last < in.first) return no("no output column's window lies inside the input");
  const int64_t edges = in.first + (p.output()[0] - 1 - in.last);
  if (edges > kConvGemm1dMaxEdges) {
    return no(std::to_string(edges) + " edge columns, more than " +
              std::to_string(kConvGemm1dMaxEdges));
  }
  // Every edge window must reach the input (a window of padding only has no GEMM).
  const int64_t w = p.input[0], s = p.filter[0], u = p.stride[0], pad = p.padding[0];
  for (int64_t col : {int64_t{0}, p.output()[0] - 1}) {
    if (col * u - pad + s - 1 < 0 || col * u - pad > w - 1) {
      return no("output column " + std::to_string(col) + " sees padding only");
    }
  }
  return core::Status::ok();
}

core::Expected<std::vector<ConvAsGemm>> conv_as_gemm_1d(const ops::ConvProblem& p) {
  BOO_RETURN_IF_ERROR(conv_gemm_1d_supports(p));
  const int64_t c = p.c, k = p.k, w = p.input[0], s = p.filter[0], u = p.stride[0];
  const int64_t pad = p.padding[0], out = p.output()[0];
  // The filter taps [tap, tap + taps) against every output channel; the N side is set below.
  auto over_taps = [&](int64_t tap, int64_t taps) {
    ConvAsGemm m{{}, 'w', 'x', 'y'};
    ops::GemmProblem& g = m.gemm;
    g.a_type = g.b_type = g.c_type = g.d_type = g.bias_type = p.dtype;
    g.math = p.math;
    g.bias = p.bias;
    g.activation = p.activation;
    g.m = k;
    g.k = taps * c;
    g.trans_a = Transpose::kT;
    g.lda = s * c;
    g.trans_b = Transpose::kN;
    m.a_offset = tap * c;
    return m;
  };
  // The interior: its columns are the output pixels, u pixels apart in x, batched over images.
  const Interior in = interior_of(p);
  ConvAsGemm interior = over_taps(0, s);
  interior.gemm.n = in.last - in.first + 1;
  interior.gemm.ldb = interior.gemm.n > 1 ? u * c : interior.gemm.k;
  interior.gemm.b_windows = interior.gemm.ldb < interior.gemm.k;
  interior.gemm.ldc = interior.gemm.ldd = k;
  interior.gemm.batch = p.n;
  interior.gemm.stride_b = w * c;
  interior.gemm.stride_c = interior.gemm.stride_d = out * k;
  interior.b_offset = (in.first * u - pad) * c;
  interior.d_offset = in.first * k;
  std::vector<ConvAsGemm> gemms = {interior};
  for (int64_t col = 0; col < out; ++col) {
    if (col == in.first) col = in.last + 1;
    if (col >= out) break;
    const int64_t tap_first = std::max<int64_t>(0, pad - col * u);
    const int64_t tap_last = std::min<int64_t>(s - 1, w - 1 + pad - col * u);
    // One output column of every image: the images are the GEMM's N (B's columns one image
    // apart, D's one output image apart), not a batch of N = 1 GEMMs (16.1 us on gemm.skinny's
    // GEMV loop for the public line's edge, H100, 2026-11-26).
    ConvAsGemm edge = over_taps(tap_first, tap_last - tap_first + 1);
    edge.gemm.n = p.n;
    edge.gemm.ldb = w * c;
    edge.gemm.ldc = edge.gemm.ldd = out * k;
    edge.b_offset = (col * u - pad + tap_first) * c;
    edge.d_offset = col * k;
    gemms.push_back(edge);
  }
  for (const ConvAsGemm& m : gemms) BOO_RETURN_IF_ERROR(m.gemm.validate());
  return gemms;
}

}  // namespace boo::dispatch
