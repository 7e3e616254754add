// conv.gemm_1x1 (DESIGN.md §3): a 1x1, stride-1, unpadded convolution is a GEMM over the
// packed tensors themselves, in all three directions, so it runs on the GEMM algorithms with
// all their schedulers (split-K for backward weight's long reduction included).
//
// With P pixels per image (the product of the spatial sizes) and the filter K x C (a 1x1 filter
// is the same memory in KCRS and KRSC), column-major BLAS convention:
//   channels-last (NHWC, NDHWC, NWC): one GEMM over all N*P pixels
//     forward          y^T (K x NP) = w (K x C)   . x^T (C x NP)    bias per row (K)
//     backward data   dx^T (C x NP) = w^T (C x K) . dy^T (K x NP)
//     backward weight dw^T (C x K)  = x^T (C x NP) . dy (NP x K)    reduction over N*P
//   channels-first (NCHW, NCDHW, NCW): a GEMM per image, batched (w broadcast)
//     forward          y_n^T (P x K) = x_n^T (P x C) . w^T (C x K)  (no bias: it would be per
//                                                                     column)
//     backward data   dx_n^T (P x C) = dy_n^T (P x K) . w (K x C)
//     backward weight only for N = 1 (the images' products must be summed)
#pragma once

#include "boo/core/status.h"
#include "boo/ops/conv_problem.h"
#include "boo/ops/gemm_problem.h"

namespace boo::dispatch {

struct ConvAsGemm {
  ops::GemmProblem gemm;
  // The convolution tensor behind each GEMM operand: 'x', 'w', 'y' (dx, dw, dy in the backward
  // directions keep the names of the tensors they have the shape of). The bias stays the bias.
  char a = 'x';
  char b = 'w';
  char d = 'y';
  // Element offsets of the operands into their tensors (conv.gemm_1d: the first window of B and
  // of D, the first tap of A).
  int64_t a_offset = 0;
  int64_t b_offset = 0;
  int64_t d_offset = 0;
};

// The GEMM that computes the problem, or why it is not one (unsupported, naming the field).
core::Expected<ConvAsGemm> conv_as_gemm_1x1(const ops::ConvProblem& p);

}  // namespace boo::dispatch
