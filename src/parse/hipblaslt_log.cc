#include "boo/parse/hipblaslt_log.h"

#include <set>

#include "boo/core/strings.h"
#include "boo/core/tensor.h"

namespace boo::parse {
namespace {

using core::DType;
using core::Expected;
using core::invalid_argument;
using core::Status;
using core::unsupported;

// Benchmark settings of hipblaslt-bench and solution identifiers: not part of the problem.
const std::set<std::string, std::less<>> kIgnoredFields = {
    "flush",         "rotating",          "cold_iters",  "iters",
    "any_stride",    "print_kernel_info", "algo_method", "solution_index",
    "solution_Name", "kernel_name",       "aux_type"};

class Fields {
 public:
  explicit Fields(FlowMapping m) : m_(std::move(m)) {}

  bool has(std::string_view k) const { return m_.values.count(std::string(k)) > 0; }
  std::string_view raw(std::string_view k) {
    used_.insert(std::string(k));
    return m_.values.at(std::string(k));
  }
  Expected<std::string_view> required(std::string_view k) {
    if (!has(k)) return invalid_argument("missing field '" + std::string(k) + "'");
    return raw(k);
  }
  Expected<int64_t> get_int(std::string_view k, int64_t fallback) {
    if (!has(k)) return fallback;
    return core::parse_int(k, raw(k));
  }
  Expected<double> get_double(std::string_view k, double fallback) {
    if (!has(k)) return fallback;
    return core::parse_double(k, raw(k));
  }
  Expected<bool> get_bool(std::string_view k, bool fallback) {
    if (!has(k)) return fallback;
    return core::parse_bool(k, raw(k));
  }
  // The first field nobody read, if any.
  Status check_all_used() const {
    for (const std::string& k : m_.order) {
      if (!used_.count(k) && !kIgnoredFields.count(k)) {
        return invalid_argument("unknown field '" + k + "' (value " + core::quote(m_.values.at(k)) +
                                ")");
      }
    }
    return Status::ok();
  }

 private:
  FlowMapping m_;
  std::set<std::string, std::less<>> used_;
};

Expected<DType> read_type(std::string_view field, std::string_view v) {
  if (v == "f32_r") return DType::kF32;
  if (v == "f16_r") return DType::kF16;
  if (v == "bf16_r") return DType::kBF16;
  if (v == "f8_r" || v == "f8_ocp_r") return DType::kF8E4M3;
  if (v == "bf8_r" || v == "bf8_ocp_r") return DType::kF8E5M2;
  if (v == "f8_fnuz_r" || v == "bf8_fnuz_r") {
    return unsupported(std::string(field) + " " + std::string(v) +
                       ": FNUZ fp8 (AMD gfx942) has no NVIDIA equivalent");
  }
  if (v == "f64_r" || v == "i8_r" || v == "i32_r" || v == "f6_r" || v == "bf6_r" || v == "f4_r" ||
      v == "f32_c" || v == "f64_c" || v == "xf32_r") {
    return unsupported(std::string(field) + " " + std::string(v) +
                       ": boo supports f32_r, f16_r, bf16_r, f8_r and bf8_r");
  }
  return invalid_argument(std::string(field) + ": unknown type " + core::quote(v));
}

Expected<ops::Transpose> read_trans(std::string_view field, std::string_view v) {
  if (v == "N" || v == "n") return ops::Transpose::kN;
  if (v == "T" || v == "t") return ops::Transpose::kT;
  return invalid_argument(std::string(field) + ": expected N or T, got " + core::quote(v));
}

Expected<ops::ScaleMode> read_scale(std::string_view field, int64_t v) {
  if (v == 0) return ops::ScaleMode::kNone;
  if (v == 1) return ops::ScaleMode::kScalar;
  if (v == 2) {
    return unsupported(std::string(field) +
                       " 2: per-row/per-column vector scales are not "
                       "supported (per-tensor scales are: 1)");
  }
  if (v >= 3) {
    return unsupported(std::string(field) + " " + std::to_string(v) +
                       ": block scaling (MX formats) is not supported");
  }
  return invalid_argument(std::string(field) + ": expected 0 (none) or 1 (scalar), got " +
                          std::to_string(v));
}

Expected<ops::Activation> read_activation(std::string_view v) {
  using ops::Activation;
  if (v == "none") return Activation::kNone;
  if (v == "relu") return Activation::kRelu;
  if (v == "gelu" || v == "gelu_tanh") return Activation::kGeluTanh;  // hipBLASLt's is tanh
  if (v == "gelu_erf") return Activation::kGelu;
  if (v == "swish" || v == "silu") return Activation::kSilu;
  if (v == "sigmoid") return Activation::kSigmoid;
  if (v == "tanh") return Activation::kTanh;
  if (v == "relu6") return Activation::kRelu6;
  if (v == "clamp") return unsupported("activation_type clamp is not supported");
  return invalid_argument("activation_type: unknown activation " + core::quote(v));
}

Status require_false(Fields& f, std::string_view field, std::string_view what) {
  BOO_ASSIGN_OR_RETURN(const bool v, f.get_bool(field, false));
  if (v) return unsupported(std::string(field) + " true: " + std::string(what));
  return Status::ok();
}

Status require_zero(Fields& f, std::string_view field, std::string_view what) {
  BOO_ASSIGN_OR_RETURN(const double v, f.get_double(field, 0.0));
  if (v != 0.0) {
    return unsupported(std::string(field) + " " + core::format_double(v) + ": " +
                       std::string(what));
  }
  return Status::ok();
}

Expected<ParsedCommand> parse_fields(Fields& f) {
  ParsedCommand out;
  ops::GemmProblem g;
  BOO_ASSIGN_OR_RETURN(std::string_view function, f.required("function"));
  if (function != "matmul") {
    return unsupported("function " + core::quote(function) + ": only matmul is supported");
  }
  BOO_ASSIGN_OR_RETURN(std::string_view m_text, f.required("M"));
  BOO_ASSIGN_OR_RETURN(g.m, core::parse_int("M", m_text));
  BOO_ASSIGN_OR_RETURN(std::string_view n_text, f.required("N"));
  BOO_ASSIGN_OR_RETURN(g.n, core::parse_int("N", n_text));
  BOO_ASSIGN_OR_RETURN(std::string_view k_text, f.required("K"));
  BOO_ASSIGN_OR_RETURN(g.k, core::parse_int("K", k_text));
  BOO_ASSIGN_OR_RETURN(std::string_view ta, f.required("transA"));
  BOO_ASSIGN_OR_RETURN(g.trans_a, read_trans("transA", ta));
  BOO_ASSIGN_OR_RETURN(std::string_view tb, f.required("transB"));
  BOO_ASSIGN_OR_RETURN(g.trans_b, read_trans("transB", tb));
  BOO_ASSIGN_OR_RETURN(std::string_view at, f.required("a_type"));
  BOO_ASSIGN_OR_RETURN(g.a_type, read_type("a_type", at));
  BOO_ASSIGN_OR_RETURN(std::string_view bt, f.required("b_type"));
  BOO_ASSIGN_OR_RETURN(g.b_type, read_type("b_type", bt));
  // Without d_type, the output is the input type (bf16 for fp8 inputs).
  g.d_type = core::is_fp8(g.a_type) ? DType::kBF16 : g.a_type;
  if (f.has("d_type")) {
    BOO_ASSIGN_OR_RETURN(g.d_type, read_type("d_type", f.raw("d_type")));
  }
  g.c_type = g.d_type;
  if (f.has("c_type")) {
    BOO_ASSIGN_OR_RETURN(g.c_type, read_type("c_type", f.raw("c_type")));
  }

  BOO_ASSIGN_OR_RETURN(g.lda, f.get_int("lda", g.a_rows()));
  BOO_ASSIGN_OR_RETURN(g.ldb, f.get_int("ldb", g.b_rows()));
  BOO_ASSIGN_OR_RETURN(g.ldc, f.get_int("ldc", g.m));
  BOO_ASSIGN_OR_RETURN(g.ldd, f.get_int("ldd", g.ldc));
  BOO_ASSIGN_OR_RETURN(g.batch, f.get_int("batch_count", 1));
  BOO_ASSIGN_OR_RETURN(const int64_t batch_mode, f.get_int("batch_mode", 0));
  if (batch_mode != 0) {
    return unsupported("batch_mode " + std::to_string(batch_mode) +
                       ": only strided batches (0) are supported");
  }
  // Packed strides when a batched line leaves them out.
  const bool batched = g.batch > 1;
  auto packed = [&](int64_t ld, int64_t cols) -> Expected<int64_t> {
    if (!batched) return int64_t{0};
    return core::checked_mul(ld, cols);
  };
  BOO_ASSIGN_OR_RETURN(const int64_t pa, packed(g.lda, g.a_cols()));
  BOO_ASSIGN_OR_RETURN(const int64_t pb, packed(g.ldb, g.b_cols()));
  BOO_ASSIGN_OR_RETURN(const int64_t pc, packed(g.ldc, g.n));
  BOO_ASSIGN_OR_RETURN(const int64_t pd, packed(g.ldd, g.n));
  BOO_ASSIGN_OR_RETURN(g.stride_a, f.get_int("stride_a", pa));
  BOO_ASSIGN_OR_RETURN(g.stride_b, f.get_int("stride_b", pb));
  BOO_ASSIGN_OR_RETURN(g.stride_c, f.get_int("stride_c", pc));
  BOO_ASSIGN_OR_RETURN(g.stride_d, f.get_int("stride_d", pd));

  BOO_ASSIGN_OR_RETURN(g.alpha, f.get_double("alpha", 1.0));
  BOO_ASSIGN_OR_RETURN(g.beta, f.get_double("beta", 0.0));
  BOO_RETURN_IF_ERROR(require_zero(f, "alphai", "complex alpha is not supported"));
  BOO_RETURN_IF_ERROR(require_zero(f, "betai", "complex beta is not supported"));
  BOO_ASSIGN_OR_RETURN(const int64_t sa, f.get_int("scaleA", 0));
  BOO_ASSIGN_OR_RETURN(g.scale_a, read_scale("scaleA", sa));
  BOO_ASSIGN_OR_RETURN(const int64_t sb, f.get_int("scaleB", 0));
  BOO_ASSIGN_OR_RETURN(g.scale_b, read_scale("scaleB", sb));
  BOO_RETURN_IF_ERROR(require_zero(f, "scaleC", "scaling C is not supported"));
  BOO_RETURN_IF_ERROR(require_zero(f, "scaleD", "scaling D (fp8 outputs) is not supported"));
  BOO_RETURN_IF_ERROR(require_false(f, "swizzleA", "AMD's swizzled layouts are not supported"));
  BOO_RETURN_IF_ERROR(require_false(f, "swizzleB", "AMD's swizzled layouts are not supported"));
  BOO_ASSIGN_OR_RETURN(g.alpha_vector, f.get_bool("scaleAlpha_vector", false));
  BOO_RETURN_IF_ERROR(
      require_false(f, "gradient", "backward epilogues (DGELU, DRELU, BGRAD) are not supported"));
  BOO_RETURN_IF_ERROR(require_false(f, "use_e", "auxiliary (E) outputs are not supported"));
  BOO_ASSIGN_OR_RETURN(g.bias, f.get_bool("bias_vector", false));
  if (f.has("bias_source") && f.raw("bias_source") != "d") {
    return unsupported("bias_source " + core::quote(f.raw("bias_source")) +
                       ": only a bias added to D ('d') is supported");
  }
  BOO_RETURN_IF_ERROR(require_zero(f, "bias_stride", "a per-batch bias is not supported"));
  if (f.has("scale_type") && f.raw("scale_type") != "f32_r") {
    return unsupported("scale_type " + core::quote(f.raw("scale_type")) +
                       ": alpha and beta are f32_r");
  }
  g.bias_type = g.d_type;
  if (f.has("bias_type")) {
    BOO_ASSIGN_OR_RETURN(g.bias_type, read_type("bias_type", f.raw("bias_type")));
  }
  if (f.has("compute_type")) {
    const std::string_view ct = f.raw("compute_type");
    if (ct == "c_f32_r" || ct == "f32_r") {
      g.math = core::MathMode::kF32;
    } else if (ct == "c_xf32_r" || ct == "xf32_r") {
      g.math = core::MathMode::kTF32;
    } else {
      return unsupported("compute_type " + core::quote(ct) +
                         ": boo accumulates in fp32 (c_f32_r) or uses tf32 (c_xf32_r)");
    }
  }
  if (f.has("activation_type")) {
    BOO_ASSIGN_OR_RETURN(g.activation, read_activation(f.raw("activation_type")));
  }
  BOO_ASSIGN_OR_RETURN(g.call_count, f.get_int("call_count", 1));
  BOO_RETURN_IF_ERROR(f.check_all_used());
  BOO_RETURN_IF_ERROR(g.validate());
  if (core::is_fp8(g.a_type) || core::is_fp8(g.b_type)) {
    out.notes.push_back(
        "f8_r/bf8_r read as OCP e4m3/e5m2 (NVIDIA fp8); hipBLASLt on gfx942 "
        "(MI300) writes f8_r for FNUZ fp8 too");
  }
  out.problems.push_back(std::move(g));
  return out;
}

}  // namespace

Expected<ParsedCommand> parse_hipblaslt_line(std::string_view line) {
  BOO_ASSIGN_OR_RETURN(FlowMapping m, parse_flow_mapping(line));
  Fields f(std::move(m));
  return parse_fields(f);
}

}  // namespace boo::parse
