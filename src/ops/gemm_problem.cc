#include "boo/ops/gemm_problem.h"

#include <algorithm>

#include "boo/core/strings.h"
#include "boo/core/tensor.h"

namespace boo::ops {
namespace {

using core::DType;
using core::invalid_argument;
using core::Status;

bool is_16bit(DType t) { return t == DType::kF16 || t == DType::kBF16; }

// Elements one operand's buffer spans: ld * (cols - 1) + rows + stride * (batch - 1). `name` is
// the operand's letter (A, B, C, D); its fields are ld<x> and stride_<x>.
Status check_span(std::string_view name, int64_t rows, int64_t cols, int64_t ld, int64_t stride,
                  int64_t batch) {
  int64_t span = 0;
  int64_t a = 0;
  int64_t b = 0;
  if (__builtin_mul_overflow(ld, cols - 1, &a) || __builtin_mul_overflow(stride, batch - 1, &b) ||
      __builtin_add_overflow(a, rows, &span) || __builtin_add_overflow(span, b, &span)) {
    const std::string x = core::to_lower(name);
    return invalid_argument(std::string(name) + ": buffer size overflows 64 bits (ld" + x + " " +
                            std::to_string(ld) + " x " + std::to_string(cols) +
                            " columns + stride_" + x + " " + std::to_string(stride) +
                            " x batch_count " + std::to_string(batch) + ")");
  }
  return Status::ok();
}

std::string number_text(double v) {
  std::string s = core::format_double(v);
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";  // hipBLASLt prints 1.0
  return s;
}

std::string_view scale_name(ScaleMode s) { return s == ScaleMode::kScalar ? "scalar" : "none"; }

}  // namespace

std::string_view hipblaslt_type_name(DType t) {
  switch (t) {
    case DType::kF32:
      return "f32_r";
    case DType::kF16:
      return "f16_r";
    case DType::kBF16:
      return "bf16_r";
    case DType::kF8E4M3:
      return "f8_r";
    case DType::kF8E5M2:
      return "bf8_r";
  }
  return "?";
}

std::string_view hipblaslt_compute_name(core::MathMode m) {
  return m == core::MathMode::kTF32 ? "c_xf32_r" : "c_f32_r";
}

std::string_view hipblaslt_activation_name(Activation a) {
  switch (a) {
    case Activation::kNone:
      return "none";
    case Activation::kRelu:
      return "relu";
    case Activation::kGeluTanh:
      return "gelu";
    case Activation::kGelu:
      return "gelu_erf";
    case Activation::kSilu:
      return "swish";
    case Activation::kSigmoid:
      return "sigmoid";
    case Activation::kTanh:
      return "tanh";
    case Activation::kRelu6:
      return "relu6";
  }
  return "?";
}

Status GemmProblem::validate() const {
  BOO_RETURN_IF_ERROR(core::require_at_least("M", m, 1));
  BOO_RETURN_IF_ERROR(core::require_at_least("N", n, 1));
  BOO_RETURN_IF_ERROR(core::require_at_least("K", k, 1));
  BOO_RETURN_IF_ERROR(core::require_at_least("batch_count", batch, 1));
  BOO_RETURN_IF_ERROR(core::require_at_least("call_count", call_count, 1));
  const char* a_why =
      trans_a == Transpose::kN ? "rows of A = M with transA N" : "rows of A = K with transA T";
  const char* b_why =
      trans_b == Transpose::kN ? "rows of B = K with transB N" : "rows of B = N with transB T";
  BOO_RETURN_IF_ERROR(core::require_at_least("lda", lda, a_rows(), a_why));
  if (b_windows && trans_b != Transpose::kN) {
    return invalid_argument("overlapping windows of B need transB N");
  }
  BOO_RETURN_IF_ERROR(core::require_at_least("ldb", ldb, b_windows ? 1 : b_rows(), b_why));
  BOO_RETURN_IF_ERROR(core::require_at_least("ldc", ldc, m, "rows of C = M"));
  BOO_RETURN_IF_ERROR(core::require_at_least("ldd", ldd, m, "rows of D = M"));
  BOO_RETURN_IF_ERROR(core::require_at_least("stride_a", stride_a, 0));
  BOO_RETURN_IF_ERROR(core::require_at_least("stride_b", stride_b, 0));
  BOO_RETURN_IF_ERROR(core::require_at_least("stride_c", stride_c, 0));
  if (batch > 1) {
    int64_t d_matrix = 0;
    if (__builtin_mul_overflow(ldd, n, &d_matrix)) {
      return invalid_argument("ldd " + std::to_string(ldd) + " x N " + std::to_string(n) +
                              " overflows 64 bits");
    }
    BOO_RETURN_IF_ERROR(core::require_at_least(
        "stride_d", stride_d, d_matrix, "ldd x N, so that the batch's outputs do not overlap"));
  } else {
    BOO_RETURN_IF_ERROR(core::require_at_least("stride_d", stride_d, 0));
  }
  BOO_RETURN_IF_ERROR(check_span("A", a_rows(), a_cols(), lda, stride_a, batch));
  BOO_RETURN_IF_ERROR(check_span("B", b_rows(), b_cols(), ldb, stride_b, batch));
  BOO_RETURN_IF_ERROR(check_span("C", m, n, ldc, stride_c, batch));
  BOO_RETURN_IF_ERROR(check_span("D", m, n, ldd, stride_d, batch));
  int64_t mnk = 0;
  if (__builtin_mul_overflow(m, n, &mnk) || __builtin_mul_overflow(mnk, k, &mnk) ||
      __builtin_mul_overflow(mnk, batch, &mnk)) {
    return invalid_argument("M " + std::to_string(m) + " x N " + std::to_string(n) + " x K " +
                            std::to_string(k) + " x batch_count " + std::to_string(batch) +
                            " overflows 64 bits");
  }

  const std::string types = "a_type " + std::string(hipblaslt_type_name(a_type)) + ", b_type " +
                            std::string(hipblaslt_type_name(b_type));
  if (core::is_fp8(a_type) != core::is_fp8(b_type) || (!core::is_fp8(a_type) && a_type != b_type)) {
    return core::unsupported("mixed input types are not supported (" + types + ")");
  }
  if (c_type != d_type) {
    return core::unsupported("c_type " + std::string(hipblaslt_type_name(c_type)) +
                             " differs from d_type " + std::string(hipblaslt_type_name(d_type)) +
                             "; boo requires C and D of one type");
  }
  if (core::is_fp8(d_type)) {
    return core::unsupported("d_type " + std::string(hipblaslt_type_name(d_type)) +
                             ": fp8 outputs are not supported (use bf16, fp16 or fp32)");
  }
  if (a_type == DType::kF32 && d_type != DType::kF32) {
    return core::unsupported("d_type " + std::string(hipblaslt_type_name(d_type)) +
                             " with fp32 inputs: the output of an fp32 GEMM is fp32");
  }
  if (is_16bit(a_type) && d_type != a_type && d_type != DType::kF32) {
    return core::unsupported("d_type " + std::string(hipblaslt_type_name(d_type)) + " with " +
                             types + ": the output is the input type or fp32");
  }
  if (math == core::MathMode::kTF32 && a_type != DType::kF32) {
    return invalid_argument("compute_type c_xf32_r (tf32) needs fp32 inputs (" + types + ")");
  }
  if (bias && bias_type != DType::kF32 && bias_type != d_type) {
    return core::unsupported("bias_type " + std::string(hipblaslt_type_name(bias_type)) +
                             ": the bias is fp32 or the output type " +
                             std::string(hipblaslt_type_name(d_type)));
  }
  return Status::ok();
}

double GemmProblem::flops() const {
  return 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k) *
         static_cast<double>(batch);
}

int64_t GemmProblem::min_bytes() const {
  auto copies = [&](int64_t stride) { return stride == 0 ? int64_t{1} : batch; };
  int64_t bytes = m * k * copies(stride_a) * core::dtype_bytes(a_type) +
                  (b_windows ? std::min(k * n, ldb * (n - 1) + k) : k * n) * copies(stride_b) *
                      core::dtype_bytes(b_type) +
                  m * n * batch * core::dtype_bytes(d_type);
  if (reads_c()) bytes += m * n * copies(stride_c) * core::dtype_bytes(c_type);
  if (bias) bytes += m * core::dtype_bytes(bias_type);
  if (alpha_vector) bytes += m * 4;
  return bytes;
}

std::string GemmProblem::key() const {
  auto t = [](Transpose x) { return x == Transpose::kN ? "n" : "t"; };
  auto dn = [](DType x) { return std::string(core::dtype_name(x)); };
  std::string s = "gemm_" + dn(a_type) + "." + dn(b_type) + "." + dn(c_type) + "." + dn(d_type);
  s += math == core::MathMode::kTF32 ? "_tf32_" : "_f32acc_";
  s += std::string(t(trans_a)) + t(trans_b);
  s += "_m" + std::to_string(m) + "n" + std::to_string(n) + "k" + std::to_string(k);
  s += "_b" + std::to_string(batch);
  s += "_ld" + std::to_string(lda) + "." + std::to_string(ldb) + "." + std::to_string(ldc) + "." +
       std::to_string(ldd);
  s += "_st" + std::to_string(stride_a) + "." + std::to_string(stride_b) + "." +
       std::to_string(stride_c) + "." + std::to_string(stride_d);
  s += "_alpha" + core::format_double(alpha) + (alpha_vector ? "vec" : "");
  s += "_beta" + core::format_double(beta);
  s += "_scale" + std::string(scale_name(scale_a)) + "." + std::string(scale_name(scale_b));
  s += bias ? "_bias." + dn(bias_type) : std::string("_nobias");
  s += "." + std::string(activation_name(activation));
  if (b_windows) s += "_bwindows";
  return s;
}

std::string GemmProblem::to_command() const {
  auto tr = [](Transpose x) { return x == Transpose::kN ? "N" : "T"; };
  auto b = [](bool v) { return v ? "true" : "false"; };
  std::string s = "- {function: matmul";
  s += ", M: " + std::to_string(m) + ", N: " + std::to_string(n) + ", K: " + std::to_string(k);
  s += ", lda: " + std::to_string(lda) + ", ldb: " + std::to_string(ldb) +
       ", ldc: " + std::to_string(ldc) + ", ldd: " + std::to_string(ldd);
  s += ", stride_a: " + std::to_string(stride_a) + ", stride_b: " + std::to_string(stride_b) +
       ", stride_c: " + std::to_string(stride_c) + ", stride_d: " + std::to_string(stride_d);
  s += ", alpha: " + number_text(alpha) + ", beta: " + number_text(beta);
  s += std::string(", transA: ") + tr(trans_a) + ", transB: " + tr(trans_b);
  s += ", batch_count: " + std::to_string(batch);
  s += ", scaleA: " + std::to_string(static_cast<int>(scale_a)) +
       ", scaleB: " + std::to_string(static_cast<int>(scale_b));
  s += std::string(", scaleAlpha_vector: ") + b(alpha_vector) +
       ", gradient: false, use_e: false, bias_vector: " + b(bias) + ", bias_source: d";
  s += ", a_type: " + std::string(hipblaslt_type_name(a_type)) +
       ", b_type: " + std::string(hipblaslt_type_name(b_type)) +
       ", c_type: " + std::string(hipblaslt_type_name(c_type)) +
       ", d_type: " + std::string(hipblaslt_type_name(d_type));
  s += ", scale_type: f32_r, bias_type: " + std::string(hipblaslt_type_name(bias_type));
  s += ", compute_type: " + std::string(hipblaslt_compute_name(math));
  s += ", activation_type: " + std::string(hipblaslt_activation_name(activation));
  s += ", call_count: " + std::to_string(call_count) + "}";
  return s;
}

}  // namespace boo::ops
