// GemmProblem: D = act(alpha * scaleA * scaleB * op(A) op(B) + beta * C + bias), in the
// column-major BLAS convention of hipBLASLt and cuBLASLt logs: op(A) is M x K, op(B) is K x N,
// C and D are M x N, all column-major with leading dimensions lda..ldd; batch_count matrices
// spaced by stride_a..stride_d elements. The bias vector has M entries (one per row of D).
#pragma once

#include <cstdint>
#include <string>

#include "boo/core/dtype.h"
#include "boo/core/status.h"
#include "boo/ops/activation.h"

namespace boo::ops {

enum class Transpose : uint8_t { kN, kT };

// How a per-tensor operand scale is given (hipBLASLt's scaleA / scaleB fields).
enum class ScaleMode : uint8_t {
  kNone = 0,    // no scale (1.0)
  kScalar = 1,  // one fp32 scale for the whole tensor
};

struct GemmProblem {
  int64_t m = 1;
  int64_t n = 1;
  int64_t k = 1;
  Transpose trans_a = Transpose::kN;
  Transpose trans_b = Transpose::kN;
  int64_t lda = 1;
  int64_t ldb = 1;
  int64_t ldc = 1;
  int64_t ldd = 1;
  int64_t batch = 1;
  int64_t stride_a = 0;
  int64_t stride_b = 0;
  int64_t stride_c = 0;
  int64_t stride_d = 0;
  double alpha = 1.0;
  double beta = 0.0;
  bool alpha_vector = false;  // hipBLASLt scaleAlpha_vector: alpha is a length-M vector
  core::DType a_type = core::DType::kF32;
  core::DType b_type = core::DType::kF32;
  core::DType c_type = core::DType::kF32;
  core::DType d_type = core::DType::kF32;
  core::MathMode math = core::MathMode::kF32;  // compute type: fp32 accumulation, or tf32
  ScaleMode scale_a = ScaleMode::kNone;
  ScaleMode scale_b = ScaleMode::kNone;
  bool bias = false;
  core::DType bias_type = core::DType::kF32;
  Activation activation = Activation::kNone;
  // B's columns are windows of one buffer that may overlap: ldb may be less than K (transB N
  // only). The im2col matrix of a 1D convolution read in place (conv.gemm_1d); no hipBLASLt
  // line has it, so to_log_line() of such a problem does not parse back.
  bool b_windows = false;
  int64_t call_count = 1;  // weight of the problem in a workload; not part of key()

  bool operator==(const GemmProblem&) const = default;

  // Messages name the hipBLASLt field (M, lda, stride_a, a_type, ...) and the value.
  core::Status validate() const;

  // Rows and columns of the stored (not transposed) A and B.
  int64_t a_rows() const { return trans_a == Transpose::kN ? m : k; }
  int64_t a_cols() const { return trans_a == Transpose::kN ? k : m; }
  int64_t b_rows() const { return trans_b == Transpose::kN ? k : n; }
  int64_t b_cols() const { return trans_b == Transpose::kN ? n : k; }
  bool reads_c() const { return beta != 0.0; }

  double flops() const;       // 2 M N K batch (the epilogue is not counted)
  int64_t min_bytes() const;  // A, B, D (and C when beta != 0, bias, alpha vector) once each

  // e.g. gemm_bf16.bf16.bf16.bf16_f32acc_tn_m4096n8192k4096_b1_ld4096.4096.4096.4096_...
  std::string key() const;
  // A hipBLASLt log line (`- {function: matmul, ...}`) that parses back to an equal problem.
  std::string to_command() const;
};

}  // namespace boo::ops

namespace boo::ops {

// hipBLASLt spellings: "bf16_r", "f16_r", "f32_r", "f8_r" (OCP e4m3), "bf8_r" (OCP e5m2).
std::string_view hipblaslt_type_name(core::DType t);
// Compute types: "c_f32_r" (fp32 accumulation), "c_xf32_r" (tf32 inputs, fp32 accumulation).
std::string_view hipblaslt_compute_name(core::MathMode m);
// hipBLASLt activation_type spellings: "none", "relu", "gelu" (tanh approximation, as hipBLASLt
// and cuBLASLt compute it), "swish", "sigmoid", "tanh", "relu6"; boo adds "gelu_erf".
std::string_view hipblaslt_activation_name(Activation a);

}  // namespace boo::ops
