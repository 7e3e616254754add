#include "boo/parse/cublaslt_log.h"

#include <map>
#include <set>
#include <string>

#include "boo/core/strings.h"

namespace boo::parse {
namespace {

using core::DType;
using core::Expected;
using core::invalid_argument;
using core::Status;
using core::unsupported;

using KeyValues = std::map<std::string, std::string, std::less<>>;

// Splits `k=v k=[a=1 b=2] ...` into top-level pairs; bracketed values keep their content.
Expected<KeyValues> split_pairs(std::string_view text, std::string_view where) {
  KeyValues out;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && text[i] == ' ') ++i;
    if (i >= text.size()) break;
    const size_t eq = text.find('=', i);
    const size_t space = text.find(' ', i);
    if (eq == std::string_view::npos || (space != std::string_view::npos && space < eq)) {
      const size_t end = space == std::string_view::npos ? text.size() : space;
      return invalid_argument(std::string(where) + ": expected key=value, got " +
                              core::quote(text.substr(i, end - i)));
    }
    std::string key(text.substr(i, eq - i));
    i = eq + 1;
    std::string value;
    if (i < text.size() && text[i] == '[') {
      const size_t close = text.find(']', i);
      // A '[' before the ']' opens the next key's brackets: this key's are not closed.
      const size_t reopen = text.find('[', i + 1);
      if (close == std::string_view::npos || reopen < close) {
        return invalid_argument(std::string(where) + ": truncated: '" + key +
                                "=[' has no closing ']'");
      }
      value = std::string(text.substr(i + 1, close - i - 1));
      i = close + 1;
    } else {
      const size_t end = text.find(' ', i);
      value = std::string(text.substr(i, end == std::string_view::npos ? end : end - i));
      i = end == std::string_view::npos ? text.size() : end;
    }
    if (!out.emplace(key, value).second) {
      return invalid_argument(std::string(where) + ": key '" + key + "' appears twice");
    }
  }
  return out;
}

Expected<DType> read_type(std::string_view field, std::string_view v) {
  if (v == "R_32F") return DType::kF32;
  if (v == "R_16F") return DType::kF16;
  if (v == "R_16BF") return DType::kBF16;
  if (v == "R_8F_E4M3") return DType::kF8E4M3;
  if (v == "R_8F_E5M2") return DType::kF8E5M2;
  return unsupported(std::string(field) + " type=" + std::string(v) +
                     ": boo supports R_32F, R_16F, R_16BF, R_8F_E4M3 and R_8F_E5M2");
}

struct Layout {
  DType type;
  int64_t rows;
  int64_t cols;
  int64_t ld;
  bool row_major;
  int64_t batch;
  int64_t stride;
};

Expected<Layout> read_layout(const KeyValues& all, std::string_view name) {
  const std::string desc = std::string(name) + "desc";
  auto it = all.find(desc);
  if (it == all.end()) return invalid_argument("missing " + desc + "=[...]");
  BOO_ASSIGN_OR_RETURN(KeyValues kv, split_pairs(it->second, desc));
  Layout l{};
  for (const char* required : {"type", "rows", "cols", "ld"}) {
    if (!kv.count(required)) {
      return invalid_argument(desc + ": missing " + required + "=");
    }
  }
  BOO_ASSIGN_OR_RETURN(l.type, read_type(desc, kv["type"]));
  BOO_ASSIGN_OR_RETURN(l.rows, core::parse_int(desc + " rows", kv["rows"]));
  BOO_ASSIGN_OR_RETURN(l.cols, core::parse_int(desc + " cols", kv["cols"]));
  BOO_ASSIGN_OR_RETURN(l.ld, core::parse_int(desc + " ld", kv["ld"]));
  l.row_major = kv.count("order") && kv["order"] == "ORDER_ROW";
  if (kv.count("order") && kv["order"] != "ORDER_ROW" && kv["order"] != "ORDER_COL") {
    return unsupported(desc + " order=" + kv["order"] + ": only ORDER_COL and ORDER_ROW");
  }
  l.batch = 1;
  l.stride = 0;
  if (kv.count("batchCount")) {
    BOO_ASSIGN_OR_RETURN(l.batch, core::parse_int(desc + " batchCount", kv["batchCount"]));
  }
  if (kv.count("stridedBatchOffset")) {
    BOO_ASSIGN_OR_RETURN(l.stride,
                         core::parse_int(desc + " stridedBatchOffset", kv["stridedBatchOffset"]));
  }
  return l;
}

Expected<ops::Transpose> read_op(const KeyValues& cd, std::string_view key) {
  auto it = cd.find(key);
  if (it == cd.end() || it->second == "OP_N") return ops::Transpose::kN;
  if (it->second == "OP_T") return ops::Transpose::kT;
  return unsupported("computeDesc " + std::string(key) + "=" + it->second +
                     ": only OP_N and OP_T are supported");
}

}  // namespace

bool is_cublaslt_line(std::string_view line) {
  return line.find("[cublasLt]") != std::string_view::npos;
}

bool is_cublaslt_matmul_line(std::string_view line) {
  return is_cublaslt_line(line) && line.find("[cublasLtMatmul]") != std::string_view::npos;
}

Expected<ParsedCommand> parse_cublaslt_line(std::string_view line) {
  constexpr std::string_view kTag = "[cublasLtMatmul]";
  const size_t tag = line.find(kTag);
  if (!is_cublaslt_line(line) || tag == std::string_view::npos) {
    return invalid_argument(
        "not a cublasLtMatmul trace line (expected '[cublasLt]...["
        "cublasLtMatmul]')");
  }
  BOO_ASSIGN_OR_RETURN(KeyValues all,
                       split_pairs(core::trim(line.substr(tag + kTag.size())), "cublasLtMatmul"));
  ParsedCommand out;
  BOO_ASSIGN_OR_RETURN(Layout a, read_layout(all, "A"));
  BOO_ASSIGN_OR_RETURN(Layout b, read_layout(all, "B"));
  BOO_ASSIGN_OR_RETURN(Layout c, read_layout(all, "C"));
  BOO_ASSIGN_OR_RETURN(Layout d, read_layout(all, "D"));
  if (!all.count("computeDesc")) return invalid_argument("missing computeDesc=[...]");
  BOO_ASSIGN_OR_RETURN(KeyValues cd, split_pairs(all["computeDesc"], "computeDesc"));

  ops::GemmProblem g;
  BOO_ASSIGN_OR_RETURN(g.trans_a, read_op(cd, "transa"));
  BOO_ASSIGN_OR_RETURN(g.trans_b, read_op(cd, "transb"));
  // A row-major stored matrix is the column-major transpose: flip its op.
  auto flip = [](ops::Transpose t) {
    return t == ops::Transpose::kN ? ops::Transpose::kT : ops::Transpose::kN;
  };
  // The layouts as logged, for messages.
  auto logged = [](std::string_view desc, const Layout& l) {
    return std::string(desc) + " rows=" + std::to_string(l.rows) +
           " cols=" + std::to_string(l.cols);
  };
  const std::string a_logged = logged("Adesc", a) + (a.row_major ? " ORDER_ROW" : "") +
                               (g.trans_a == ops::Transpose::kT ? " (transa=OP_T)" : "");
  const std::string b_logged = logged("Bdesc", b) + (b.row_major ? " ORDER_ROW" : "") +
                               (g.trans_b == ops::Transpose::kT ? " (transb=OP_T)" : "");
  if (a.row_major) {
    std::swap(a.rows, a.cols);
    g.trans_a = flip(g.trans_a);
  }
  if (b.row_major) {
    std::swap(b.rows, b.cols);
    g.trans_b = flip(g.trans_b);
  }
  if (c.row_major || d.row_major) {
    return unsupported("Cdesc/Ddesc order=ORDER_ROW: row-major outputs are not supported");
  }
  g.m = d.rows;
  g.n = d.cols;
  g.k = g.trans_a == ops::Transpose::kN ? a.cols : a.rows;
  const int64_t a_m = g.trans_a == ops::Transpose::kN ? a.rows : a.cols;
  const int64_t b_k = g.trans_b == ops::Transpose::kN ? b.rows : b.cols;
  const int64_t b_n = g.trans_b == ops::Transpose::kN ? b.cols : b.rows;
  if (a_m != g.m || b_k != g.k || b_n != g.n || c.rows != g.m || c.cols != g.n) {
    return invalid_argument("inconsistent layouts: " + logged("Ddesc", d) + " (M x N) but " +
                            a_logged + " gives op(A) " + std::to_string(a_m) + "x" +
                            std::to_string(g.k) + ", " + b_logged + " gives op(B) " +
                            std::to_string(b_k) + "x" + std::to_string(b_n) + ", " +
                            logged("Cdesc", c));
  }
  g.lda = a.ld;
  g.ldb = b.ld;
  g.ldc = c.ld;
  g.ldd = d.ld;
  g.batch = d.batch;
  for (const auto& [desc, l] :
       {std::pair{"Adesc", &a}, std::pair{"Bdesc", &b}, std::pair{"Cdesc", &c}}) {
    if (l->batch != d.batch) {
      return invalid_argument(std::string("batchCount differs between layouts: ") + desc +
                              " batchCount=" + std::to_string(l->batch) +
                              ", Ddesc batchCount=" + std::to_string(d.batch));
    }
  }
  g.stride_a = a.stride;
  g.stride_b = b.stride;
  g.stride_c = c.stride;
  g.stride_d = d.stride;
  g.a_type = a.type;
  g.b_type = b.type;
  g.c_type = c.type;
  g.d_type = d.type;

  const std::string compute = cd.count("computeType") ? cd["computeType"] : "COMPUTE_32F";
  if (compute == "COMPUTE_32F" || compute == "COMPUTE_32F_PEDANTIC") {
    g.math = core::MathMode::kF32;
  } else if (compute == "COMPUTE_32F_FAST_TF32") {
    g.math = core::MathMode::kTF32;
  } else {
    return unsupported("computeDesc computeType=" + compute +
                       ": boo accumulates in fp32 (COMPUTE_32F, COMPUTE_32F_FAST_TF32)");
  }
  if (cd.count("scaleType") && cd["scaleType"] != "R_32F") {
    return unsupported("computeDesc scaleType=" + cd["scaleType"] + ": alpha and beta are R_32F");
  }
  for (const char* mode : {"aScaleMode", "bScaleMode"}) {
    if (cd.count(mode) && cd[mode] != "SCALAR_32F") {
      return unsupported(std::string("computeDesc ") + mode + "=" + cd[mode] +
                         ": block and vector scaling are not supported");
    }
  }
  g.scale_a = cd.count("aScalePointer") ? ops::ScaleMode::kScalar : ops::ScaleMode::kNone;
  g.scale_b = cd.count("bScalePointer") ? ops::ScaleMode::kScalar : ops::ScaleMode::kNone;

  const std::string epilogue = cd.count("epilogue") ? cd["epilogue"] : "EPILOGUE_DEFAULT";
  static const std::map<std::string, std::pair<bool, ops::Activation>, std::less<>> kEpilogues = {
      {"EPILOGUE_DEFAULT", {false, ops::Activation::kNone}},
      {"EPILOGUE_RELU", {false, ops::Activation::kRelu}},
      {"EPILOGUE_BIAS", {true, ops::Activation::kNone}},
      {"EPILOGUE_RELU_BIAS", {true, ops::Activation::kRelu}},
      {"EPILOGUE_GELU", {false, ops::Activation::kGeluTanh}},
      {"EPILOGUE_GELU_BIAS", {true, ops::Activation::kGeluTanh}},
  };
  auto ep = kEpilogues.find(epilogue);
  if (ep == kEpilogues.end()) {
    return unsupported("computeDesc epilogue=" + epilogue +
                       ": supported are DEFAULT, RELU, BIAS, RELU_BIAS, GELU, GELU_BIAS");
  }
  g.bias = ep->second.first;
  g.activation = ep->second.second;
  g.bias_type = g.d_type;  // cuBLASLt's default bias type is the output type
  if (cd.count("biasDataType")) {
    BOO_ASSIGN_OR_RETURN(g.bias_type, read_type("computeDesc biasDataType", cd["biasDataType"]));
  }

  if (all.count("alpha")) {
    BOO_ASSIGN_OR_RETURN(g.alpha, core::parse_double("alpha", all["alpha"]));
  } else {
    g.alpha = 1.0;
    out.notes.push_back("cuBLASLt logs do not record alpha; alpha = 1 assumed");
  }
  const std::string beta = all.count("beta") ? all["beta"] : "0";
  if (beta == "?") {
    g.beta = 0.0;
    out.notes.push_back("beta=? (a device pointer) in the log; beta = 0 assumed");
  } else {
    BOO_ASSIGN_OR_RETURN(g.beta, core::parse_double("beta", beta));
  }
  BOO_RETURN_IF_ERROR(g.validate());
  out.problems.push_back(std::move(g));
  return out;
}

}  // namespace boo::parse
