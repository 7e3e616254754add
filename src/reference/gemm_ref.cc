#include "boo/reference/gemm_ref.h"

#include "boo/core/parallel.h"
#include "boo/reference/activation.h"

namespace boo::reference {

int64_t gemm_operand_elements(const ops::GemmProblem& p, char operand) {
  int64_t rows = p.m, cols = p.n, ld = p.ldd, stride = p.stride_d;
  if (operand == 'A') rows = p.a_rows(), cols = p.a_cols(), ld = p.lda, stride = p.stride_a;
  if (operand == 'B') rows = p.b_rows(), cols = p.b_cols(), ld = p.ldb, stride = p.stride_b;
  if (operand == 'C') ld = p.ldc, stride = p.stride_c;
  return ld * (cols - 1) + rows + stride * (p.batch - 1);
}

core::Status gemm(const ops::GemmProblem& p, const GemmOperands& in, HostTensor& d) {
  BOO_RETURN_IF_ERROR(p.validate());
  auto too_small = [&](const HostTensor* t, int64_t need) {
    return t == nullptr || static_cast<int64_t>(t->data.size()) < need;
  };
  if (too_small(in.a, gemm_operand_elements(p, 'A')) ||
      too_small(in.b, gemm_operand_elements(p, 'B')) ||
      too_small(&d, gemm_operand_elements(p, 'D')) ||
      (p.reads_c() && too_small(in.c, gemm_operand_elements(p, 'C'))) ||
      (p.bias && too_small(in.bias, p.m)) || (p.alpha_vector && too_small(in.alpha_vector, p.m))) {
    return core::internal_error("gemm reference: an operand is missing or smaller than its span");
  }
  const bool ta = p.trans_a == ops::Transpose::kT;
  const bool tb = p.trans_b == ops::Transpose::kT;
  // Element (i, k) of op(A) is A[i + k lda] (N) or A[k + i lda] (T).
  const int64_t a_si = ta ? p.lda : 1, a_sk = ta ? 1 : p.lda;
  const int64_t b_sk = tb ? p.ldb : 1, b_sj = tb ? 1 : p.ldb;
  const double scale = in.scale_a * in.scale_b;
  core::parallel_for(p.batch * p.n, [&](int64_t begin, int64_t end) {
    for (int64_t bj = begin; bj < end; ++bj) {
      const int64_t batch = bj / p.n;
      const int64_t j = bj % p.n;
      const double* a = in.a->data.data() + batch * p.stride_a;
      const double* b = in.b->data.data() + batch * p.stride_b + j * b_sj;
      for (int64_t i = 0; i < p.m; ++i) {
        double acc = 0.0;
        const double* ai = a + i * a_si;
        for (int64_t k = 0; k < p.k; ++k) acc += ai[k * a_sk] * b[k * b_sk];
        double alpha = p.alpha;
        if (p.alpha_vector) alpha *= in.alpha_vector->data[i];
        double v = alpha * scale * acc;
        if (p.reads_c()) v += p.beta * in.c->data[batch * p.stride_c + i + j * p.ldc];
        if (p.bias) v += in.bias->data[i];
        d.data[batch * p.stride_d + i + j * p.ldd] = apply_activation(p.activation, v);
      }
    }
  });
  return core::Status::ok();
}

}  // namespace boo::reference
