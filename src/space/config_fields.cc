#include "boo/space/config_fields.h"

namespace boo::space {
namespace {

using core::DType;

std::string dtype_text(DType t) { return std::string(core::dtype_name(t)); }

std::string math_text(core::MathMode m) { return m == core::MathMode::kTF32 ? "tf32" : "f32acc"; }

std::string shape_text(int a, int b) { return std::to_string(a) + "x" + std::to_string(b); }

std::string shape_text(int a, int b, int c) { return shape_text(a, b) + "x" + std::to_string(c); }

void append(ConfigFields& to, const ConfigFields& from) {
  to.insert(to.end(), from.begin(), from.end());
}

}  // namespace

ConfigFields gemm_class_fields(const GemmClass& c) {
  const std::string types = dtype_text(c.a) + "." + dtype_text(c.b) + "." +
                            (c.has_c ? dtype_text(c.d) : "void") + "." + dtype_text(c.d);
  std::string trans;
  trans += c.trans_a == ops::Transpose::kT ? 't' : 'n';
  trans += c.trans_b == ops::Transpose::kT ? 't' : 'n';
  return {{"types", types},
          {"math", math_text(c.math)},
          {"trans", trans},
          {"bias", c.bias ? dtype_text(c.bias_type) : "none"},
          {"act", act_token(c.activation)},
          {"alpha", c.alpha_vector ? "per-row" : "scalar"},
          {"scale", c.scaled ? "per-tensor" : "none"}};
}

ConfigFields conv_class_fields(const ConvClass& c) {
  // Spelled as in ConvClass::name() (CUTLASS's words for the three directions).
  const char* direction = c.direction == ops::ConvDirection::kForward        ? "fprop"
                          : c.direction == ops::ConvDirection::kBackwardData ? "dgrad"
                                                                             : "wgrad";
  return {{"dtype", dtype_text(c.dtype)},
          {"math", math_text(c.math)},
          {"direction", direction},
          {"dims", std::to_string(c.spatial_dims)},
          {"bias", c.bias ? "per-channel" : "none"},
          {"act", act_token(c.activation)}};
}

ConfigFields config_fields(const GemmSm90Config& c) {
  ConfigFields f = {{"algorithm", c.unaligned ? "gemm.sm90_unaligned" : "gemm.sm90"}};
  append(f, gemm_class_fields(c.cls));
  std::string scheduler = "persistent";
  if (c.scheduler == GemmScheduler::kStreamK) scheduler = "streamk";
  if (c.scheduler == GemmScheduler::kSplitK) scheduler = "splitk";
  if (c.scheduler == GemmScheduler::kSplitKParallel) scheduler = "psplitk";
  const char* raster = c.raster == GemmRaster::kAlongM   ? "along-m"
                       : c.raster == GemmRaster::kAlongN ? "along-n"
                                                         : "heuristic";
  append(f, {{"tile", shape_text(c.tile_m, c.tile_n, c.tile_k)},
             {"cluster", shape_text(c.cluster_m, c.cluster_n)},
             {"schedule", c.schedule == GemmSchedule::kCooperative ? "coop" : "pingpong"},
             {"scheduler", scheduler},
             {"operands", c.swap_ab ? "swapped" : "as-given"},
             {"splits", std::to_string(c.splits)},
             {"swizzle", std::to_string(c.swizzle)},
             {"raster", raster}});
  return f;
}

ConfigFields config_fields(const GemmSkinnyConfig& c) {
  ConfigFields f = {{"algorithm", "gemm.skinny"}};
  append(f, gemm_class_fields(c.cls));
  append(f, {{"narrow", c.narrow_m ? "m" : "n"},
             {"loop", c.stream ? "stream" : "split"},
             {c.stream ? "warps" : "splits", c.splits == 0 ? "auto" : std::to_string(c.splits)}});
  return f;
}

ConfigFields config_fields(const ConvSm90Config& c) {
  ConfigFields f = {{"algorithm", "conv.sm90_implicit"}};
  append(f, conv_class_fields(c.cls));
  const char* schedule = c.schedule == ConvSchedule::kCooperative ? "coop_persistent"
                         : c.schedule == ConvSchedule::kPingpong  ? "pingpong_persistent"
                                                                  : "basic";
  append(f, {{"schedule", schedule},
             {"tile", shape_text(c.tile_m, c.tile_n, c.tile_k)},
             {"cluster", shape_text(c.cluster_m, c.cluster_n)}});
  return f;
}

ConfigFields config_fields(const LayerNormRowwiseConfig& c) {
  return {{"algorithm", "layernorm.rowwise"},
          {"dtype", dtype_text(c.dtype)},
          {"direction", c.backward ? "bwd" : "fwd"},
          {"vec", std::to_string(c.vec)},
          {"threads", std::to_string(c.threads)},
          {"rows", std::to_string(c.rows)},
          {"items", c.items == 0 ? "stream" : std::to_string(c.items)}};
}

ConfigFields config_fields(std::string_view algorithm, const GemmClass& c) {
  ConfigFields f = {{"algorithm", std::string(algorithm)}};
  append(f, gemm_class_fields(c));
  return f;
}

ConfigFields config_fields(std::string_view algorithm, const ConvClass& c) {
  ConfigFields f = {{"algorithm", std::string(algorithm)}};
  append(f, conv_class_fields(c));
  return f;
}

std::string format_fields(const ConfigFields& fields) {
  std::string out;
  for (const auto& [key, value] : fields) {
    if (!out.empty()) out += ' ';
    out += key + "=" + value;
  }
  return out;
}

std::vector<GemmClass> representative_gemm_classes() {
  std::vector<GemmClass> out;
  for (DType t : {DType::kBF16, DType::kF16}) {
    for (const char* trans : {"tn", "nn", "nt", "tt"}) {
      GemmClass c;
      c.a = c.b = c.d = t;
      c.trans_a = trans[0] == 't' ? ops::Transpose::kT : ops::Transpose::kN;
      c.trans_b = trans[1] == 't' ? ops::Transpose::kT : ops::Transpose::kN;
      out.push_back(c);
    }
    GemmClass fused;
    fused.a = fused.b = fused.d = t;
    fused.bias = true;
    fused.bias_type = t;
    fused.activation = ops::Activation::kRelu;
    out.push_back(fused);
  }
  GemmClass tf32;
  tf32.a = tf32.b = tf32.d = DType::kF32;
  tf32.math = core::MathMode::kTF32;
  out.push_back(tf32);
  GemmClass fp8;
  fp8.a = fp8.b = DType::kF8E4M3;
  fp8.d = DType::kBF16;
  fp8.scaled = true;
  out.push_back(fp8);
  return out;
}

std::vector<ConvClass> representative_conv_classes() {
  std::vector<ConvClass> out;
  for (DType t : {DType::kBF16, DType::kF16}) {
    for (ops::ConvDirection d : {ops::ConvDirection::kForward, ops::ConvDirection::kBackwardData,
                                 ops::ConvDirection::kBackwardWeight}) {
      ConvClass c;
      c.dtype = t;
      c.direction = d;
      out.push_back(c);
    }
    ConvClass fused;
    fused.dtype = t;
    fused.bias = true;
    fused.activation = ops::Activation::kRelu;
    out.push_back(fused);
  }
  ConvClass tf32;
  tf32.dtype = DType::kF32;
  tf32.math = core::MathMode::kTF32;
  out.push_back(tf32);
  return out;
}

}  // namespace boo::space
