#include "boo/space/gemm_class.h"

#include "boo/core/strings.h"

namespace boo::space {
namespace {

using core::DType;
using core::Expected;

Expected<DType> parse_type(std::string_view t) {
  auto d = core::dtype_from_name(t);
  if (!d) return core::invalid_argument("unknown type " + core::quote(t));
  return *d;
}

}  // namespace

std::string act_token(ops::Activation a) {
  std::string s(ops::activation_name(a));
  for (char& ch : s) ch = ch == '_' ? '-' : ch;
  return s;
}

Expected<ops::Activation> parse_act_token(std::string_view t) {
  std::string s(t);
  for (char& ch : s) ch = ch == '-' ? '_' : ch;
  auto a = ops::activation_from_name(s);
  if (!a) return core::invalid_argument("unknown activation " + core::quote(t));
  return *a;
}

std::string GemmClass::name() const {
  auto dn = [](DType t) { return std::string(core::dtype_name(t)); };
  std::string s = dn(a) + "." + dn(b) + "." + (has_c ? dn(d) : "void") + "." + dn(d);
  s += math == core::MathMode::kTF32 ? "_tf32_" : "_f32acc_";
  s += trans_a == ops::Transpose::kT ? "t" : "n";
  s += trans_b == ops::Transpose::kT ? "t" : "n";
  s += bias ? "_bias." + dn(bias_type) : std::string("_nobias");
  s += "." + act_token(activation);
  if (alpha_vector) s += "_avec";
  if (scaled) s += "_scaled";
  return s;
}

Expected<GemmClass> GemmClass::parse_name(std::string_view text) {
  const auto bad = [&](const std::string& why) {
    return core::invalid_argument("GEMM class " + core::quote(text) + ": " + why);
  };
  const std::vector<std::string_view> parts = core::split(text, '_');
  if (parts.size() < 4 || parts.size() > 6) return bad("expected 4 to 6 '_'-separated fields");
  GemmClass c;
  const std::vector<std::string_view> types = core::split(parts[0], '.');
  if (types.size() != 4) return bad("expected types a.b.c.d");
  BOO_ASSIGN_OR_RETURN(c.a, parse_type(types[0]));
  BOO_ASSIGN_OR_RETURN(c.b, parse_type(types[1]));
  BOO_ASSIGN_OR_RETURN(c.d, parse_type(types[3]));
  c.has_c = types[2] != "void";
  if (c.has_c && types[2] != types[3]) return bad("C must be void or D's type");
  if (parts[1] == "tf32") {
    c.math = core::MathMode::kTF32;
  } else if (parts[1] != "f32acc") {
    return bad("expected f32acc or tf32");
  }
  if (parts[2].size() != 2) return bad("expected transposes like tn");
  for (int i = 0; i < 2; ++i) {
    const char t = parts[2][i];
    if (t != 't' && t != 'n') return bad("expected transposes like tn");
    (i == 0 ? c.trans_a : c.trans_b) = t == 't' ? ops::Transpose::kT : ops::Transpose::kN;
  }
  const std::vector<std::string_view> epi = core::split(parts[3], '.');
  if (epi.size() == 3 && epi[0] == "bias") {
    c.bias = true;
    BOO_ASSIGN_OR_RETURN(c.bias_type, parse_type(epi[1]));
  } else if (!(epi.size() == 2 && epi[0] == "nobias")) {
    return bad("expected bias.<type>.<act> or nobias.<act>");
  }
  BOO_ASSIGN_OR_RETURN(c.activation, parse_act_token(epi.back()));
  for (size_t i = 4; i < parts.size(); ++i) {
    if (parts[i] == "avec" && !c.alpha_vector && !c.scaled) {
      c.alpha_vector = true;
    } else if (parts[i] == "scaled" && !c.scaled) {
      c.scaled = true;
    } else {
      return bad("unexpected field " + core::quote(parts[i]));
    }
  }
  if (c.name() != text) return bad("not in canonical form (expected " + c.name() + ")");
  return c;
}

GemmClass gemm_class_of(const ops::GemmProblem& p) {
  GemmClass c;
  c.a = p.a_type;
  c.b = p.b_type;
  c.d = p.d_type;
  c.has_c = p.reads_c();
  c.math = p.math;
  c.trans_a = p.trans_a;
  c.trans_b = p.trans_b;
  c.bias = p.bias;
  c.bias_type = p.bias ? p.bias_type : DType::kF32;
  c.activation = p.activation;
  c.alpha_vector = p.alpha_vector;
  c.scaled = p.scale_a != ops::ScaleMode::kNone || p.scale_b != ops::ScaleMode::kNone;
  return c;
}

std::vector<GemmClass> sample_gemm_classes() {
  std::vector<GemmClass> out;
  const ops::Transpose ts[] = {ops::Transpose::kN, ops::Transpose::kT};
  for (DType t : {DType::kBF16, DType::kF16, DType::kF32}) {
    for (ops::Transpose ta : ts) {
      for (ops::Transpose tb : ts) {
        for (int epi = 0; epi < 4; ++epi) {
          GemmClass c;
          c.a = c.b = c.d = t;
          c.math = t == DType::kF32 ? core::MathMode::kTF32 : core::MathMode::kF32;
          c.trans_a = ta;
          c.trans_b = tb;
          c.has_c = epi == 1;
          c.bias = epi >= 2;
          c.bias_type = c.bias ? t : DType::kF32;  // meaningful only with a bias
          c.activation = epi == 3 ? ops::Activation::kGeluTanh : ops::Activation::kNone;
          out.push_back(c);
        }
      }
    }
  }
  GemmClass f32out;
  f32out.d = DType::kF32;
  f32out.bias = true;
  f32out.bias_type = DType::kF32;
  f32out.activation = ops::Activation::kSilu;
  out.push_back(f32out);
  return out;
}

}  // namespace boo::space
