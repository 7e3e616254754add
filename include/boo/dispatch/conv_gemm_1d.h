// conv.gemm_1d: a 1D channels-last forward convolution with dilation 1 is a GEMM over windows of
// its own input, read in place. With NWC x, KSC w and NWC y (column-major BLAS convention), the
// window of output column w is the S*C elements of x starting at pixel w*u - P, all contiguous:
//
//   interior  y_n^T (K x Wi) = w (K x SC) . X_n (SC x Wi),  X_n's column j at pixel (w0 + j)*u - P,
//             ldb = u*C
//
// over the Wi output columns w0..w1 whose windows lie inside the input, batched over the images.
// Where u < S consecutive windows overlap (ldb < SC: GemmProblem::b_windows; TMA reads such a
// view, bench/probes/tma_overlap.cu). Each edge column (whose window reaches into the padding)
// is one more GEMM over the taps that land in the input, with the images as its columns:
//
//   edge w    y[:, w, :]^T (K x N) = w[:, s0:s1] (K x (s1-s0)C) . x[:, w*u - P + s0 ...]^T,
//             ldb = W*C, ldd = Wo*K
//
// Bias and activation are every GEMM's epilogue. The GEMMs run on the GEMM algorithms, with
// their persistent schedulers (this predates conv.sm90_implicit's own persistent kernel, which
// now runs the public 1D line about as fast).
#pragma once

#include <vector>

#include "boo/core/status.h"
#include "boo/dispatch/conv_gemm_1x1.h"
#include "boo/ops/conv_problem.h"

namespace boo::dispatch {

// At most this many edge columns (one GEMM launch each): a wider padding goes elsewhere.
inline constexpr int kConvGemm1dMaxEdges = 8;

// Whether conv.gemm_1d takes the problem, or why not (unsupported, naming the field).
core::Status conv_gemm_1d_supports(const ops::ConvProblem& p);

// The GEMMs that compute the problem: the interior columns first, then one per edge column.
core::Expected<std::vector<ConvAsGemm>> conv_as_gemm_1d(const ops::ConvProblem& p);

}  // namespace boo::dispatch
