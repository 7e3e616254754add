// CPU reference GEMM with fp64 accumulation, for every GemmProblem:
//   D[b](i, j) = act(alpha_i * scale_a * scale_b * sum_k op(A[b])(i, k) op(B[b])(k, j)
//                    + beta * C[b](i, j) + bias[i])
// with alpha_i = alpha * alpha_vector[i] when the problem has an alpha vector, else alpha.
// Operands are 1-D HostTensors holding each buffer's whole span (leading dims and strides as in
// the problem). Only D's M x N x batch entries are written.
#pragma once

#include "boo/core/status.h"
#include "boo/ops/gemm_problem.h"
#include "boo/reference/host_tensor.h"

namespace boo::reference {

struct GemmOperands {
  const HostTensor* a = nullptr;
  const HostTensor* b = nullptr;
  const HostTensor* c = nullptr;             // needed when beta != 0
  const HostTensor* bias = nullptr;          // M values, when the problem has a bias
  const HostTensor* alpha_vector = nullptr;  // M values, when the problem has one
  double scale_a = 1.0;                      // per-tensor scales (fp8), 1 when absent
  double scale_b = 1.0;
};

// Elements of the buffer holding operand 'A', 'B', 'C' or 'D' (span of all batches).
int64_t gemm_operand_elements(const ops::GemmProblem& p, char operand);

core::Status gemm(const ops::GemmProblem& p, const GemmOperands& in, HostTensor& d);

}  // namespace boo::reference
