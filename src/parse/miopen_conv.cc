#include "boo/parse/miopen_conv.h"

#include <array>

#include "boo/core/strings.h"
#include "boo/parse/flags.h"

namespace boo::parse {
namespace {

using core::DType;
using core::Expected;
using core::invalid_argument;
using core::Status;
using ops::ConvDirection;
using ops::ConvProblem;

constexpr std::string_view kOps[] = {"conv",     "convfp16", "convbfp16", "convfp32",
                                     "convint8", "convfp8",  "convbfp8"};

// MIOpen's conv_driver.hpp table (names, letters and defaults), plus boo's --activation and
// --math. Flags that change the result in ways boo does not model are kUsed and rejected when
// set to anything but their default (pad_val, tensor_vect, vector_length, cast types).
const std::vector<FlagSpec>& conv_flags() {
  static const std::vector<FlagSpec> kFlags = with_run_flags({
      {"in_layout", 'I', ""},
      {"out_layout", 'O', ""},
      {"fil_layout", 'f', ""},
      {"spatial_dim", '_', "2"},
      {"forw", 'F', "0"},
      {"batchsize", 'n', "100"},
      {"in_channels", 'c', "3"},
      {"in_d", '!', "32"},
      {"in_h", 'H', "32"},
      {"in_w", 'W', "32"},
      {"out_channels", 'k', "32"},
      {"fil_d", '@', "3"},
      {"fil_h", 'y', "3"},
      {"fil_w", 'x', "3"},
      {"conv_stride_d", '#', "1"},
      {"conv_stride_h", 'u', "1"},
      {"conv_stride_w", 'v', "1"},
      {"pad_d", '$', "0"},
      {"pad_h", 'p', "0"},
      {"pad_w", 'q', "0"},
      {"pad_val", 'r', "0"},
      {"trans_output_pad_d", '%', "0"},
      {"trans_output_pad_h", 'Y', "0"},
      {"trans_output_pad_w", 'X', "0"},
      {"dilation_d", '^', "1"},
      {"dilation_h", 'l', "1"},
      {"dilation_w", 'j', "1"},
      {"group_count", 'g', "1"},
      {"mode", 'm', "conv"},
      {"pad_mode", 'z', "default"},
      {"bias", 'b', "0"},
      {"tensor_vect", 'Z', "0"},
      {"vector_length", 'L', "1"},
      {"in_cast_type", 'U', "-1"},
      {"out_cast_type", 'T', "-1"},
      {"wei_cast_type", 'R', "-1"},
      {"activation", '\0', "none"},
      {"math", '\0', ""},
      {"verification_cache", 'C', "", FlagUse::kIgnored},
      {"search", 's', "0", FlagUse::kIgnored},
      {"printconv", 'P', "1", FlagUse::kIgnored},
      {"dump_output", 'o', "0", FlagUse::kIgnored},
      {"in_data", 'd', "", FlagUse::kIgnored},
      {"weights", 'e', "", FlagUse::kIgnored},
      {"in_bias", 'a', "", FlagUse::kIgnored},
      {"dout_data", 'D', "", FlagUse::kIgnored},
      {"solution", 'S', "-1", FlagUse::kIgnored},
      {"gpualloc", 'G', "0", FlagUse::kIgnored},
      {"init_output_nan", 'N', "0", FlagUse::kIgnored},
      {"tuning_policy", '&', "0", FlagUse::kIgnored},
      {"math_type", 'M', "1", FlagUse::kIgnored},
      {"gpubuffer_check", '~', "0", FlagUse::kIgnored},
  });
  return kFlags;
}

// Spatial flag names (outermost first) for 2D and 3D commands.
struct Spatial {
  std::array<const char*, 3> in{"in_d", "in_h", "in_w"};
  std::array<const char*, 3> fil{"fil_d", "fil_h", "fil_w"};
  std::array<const char*, 3> pad{"pad_d", "pad_h", "pad_w"};
  std::array<const char*, 3> stride{"conv_stride_d", "conv_stride_h", "conv_stride_w"};
  std::array<const char*, 3> dil{"dilation_d", "dilation_h", "dilation_w"};
  std::array<const char*, 3> out_pad{"trans_output_pad_d", "trans_output_pad_h",
                                     "trans_output_pad_w"};
};

Expected<std::vector<int64_t>> read_spatial(const FlagValues& f,
                                            const std::array<const char*, 3>& names, int dims) {
  std::vector<int64_t> v;
  for (int i = 3 - dims; i < 3; ++i) {
    BOO_ASSIGN_OR_RETURN(int64_t x, f.get_int(names[i]));
    v.push_back(x);
  }
  return v;
}

Expected<core::Layout> read_layout(const FlagValues& f, std::string_view name, int dims) {
  const std::string text = [&] {
    std::string t(f.get(name));
    for (char& ch : t) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    return t.empty() ? (dims == 3 ? std::string("NCDHW") : std::string("NCHW")) : t;
  }();
  auto layout = core::parse_layout(text, dims);
  if (!layout) return layout.status().with_context(f.spelled(name) + ": ");
  return layout;
}

Status require_default(const FlagValues& f, std::string_view name, std::string_view what) {
  if (f.get(name) != f.get_default(name)) {
    return core::unsupported(f.spelled(name) + " " + std::string(f.get(name)) + ": " +
                             std::string(what) + " is not supported");
  }
  return Status::ok();
}

Expected<DType> dtype_of(std::string_view op) {
  if (op == "conv" || op == "convfp32") return DType::kF32;
  if (op == "convfp16") return DType::kF16;
  if (op == "convbfp16") return DType::kBF16;
  return core::unsupported(std::string(op) +
                           ": only fp32 (conv), fp16 (convfp16) and bf16 (convbfp16) "
                           "convolutions are supported");
}

}  // namespace

std::span<const std::string_view> miopen_conv_ops() { return kOps; }

Expected<ParsedCommand> parse_miopen_conv(std::string_view op, std::span<const std::string> args) {
  ParsedCommand out;
  BOO_ASSIGN_OR_RETURN(const DType dtype, dtype_of(op));
  BOO_ASSIGN_OR_RETURN(const FlagValues f, parse_flags(conv_flags(), args, &out.notes));
  BOO_ASSIGN_OR_RETURN(out.run, read_run_options(f));

  BOO_ASSIGN_OR_RETURN(const int64_t dim_flag, f.get_int("spatial_dim"));
  if (dim_flag != 2 && dim_flag != 3) {
    return invalid_argument(f.spelled("spatial_dim") +
                            ": must be 2 or 3 (write a 1D convolution as 2D with -H 1 -y 1), "
                            "got " +
                            std::to_string(dim_flag));
  }
  const int cmd_dims = static_cast<int>(dim_flag);
  if (cmd_dims == 2) {
    // A depth flag on a 2D command: MIOpenDriver ignores it too, but say so.
    const Spatial depth;
    for (const auto* names :
         {&depth.in, &depth.fil, &depth.pad, &depth.stride, &depth.dil, &depth.out_pad}) {
      const char* name = (*names)[0];
      if (f.given(name) && f.get(name) != f.get_default(name)) {
        out.notes.push_back(f.spelled(name) + " " + std::string(f.get(name)) +
                            ": a depth flag of a 2D command (--spatial_dim 2) is ignored");
      }
    }
  }
  BOO_RETURN_IF_ERROR(require_default(f, "pad_val", "a padding value other than 0"));
  BOO_RETURN_IF_ERROR(require_default(f, "tensor_vect", "a vectorized tensor layout"));
  BOO_RETURN_IF_ERROR(require_default(f, "vector_length", "a vectorized tensor layout"));
  for (const char* cast : {"in_cast_type", "out_cast_type", "wei_cast_type"}) {
    BOO_RETURN_IF_ERROR(require_default(f, cast, "an fp8 cast of an operand"));
  }

  const std::string mode(f.get("mode"));
  if (mode != "conv" && mode != "trans") {
    return invalid_argument(f.spelled("mode") + ": expected conv or trans, got " +
                            core::quote(mode));
  }
  const bool trans = mode == "trans";

  BOO_ASSIGN_OR_RETURN(const int64_t forw, f.get_int("forw"));
  if (forw < 0 || forw > 7) {
    return invalid_argument(f.spelled("forw") +
                            ": expected 0-7 (1 forward, 2 backward data, 4 backward weight, "
                            "sums of them, 0 all three), got " +
                            std::to_string(forw));
  }
  const int64_t dirs = forw == 0 ? 7 : forw;

  ConvProblem p;  // as written on the command line (before 1D folding and mirroring)
  p.spatial_dims = cmd_dims;
  p.dtype = dtype;
  BOO_ASSIGN_OR_RETURN(p.n, f.get_int("batchsize"));
  BOO_ASSIGN_OR_RETURN(p.c, f.get_int("in_channels"));
  BOO_ASSIGN_OR_RETURN(p.k, f.get_int("out_channels"));
  BOO_ASSIGN_OR_RETURN(p.groups, f.get_int("group_count"));
  const Spatial names;
  BOO_ASSIGN_OR_RETURN(p.input, read_spatial(f, names.in, cmd_dims));
  BOO_ASSIGN_OR_RETURN(p.filter, read_spatial(f, names.fil, cmd_dims));
  BOO_ASSIGN_OR_RETURN(p.padding, read_spatial(f, names.pad, cmd_dims));
  BOO_ASSIGN_OR_RETURN(p.stride, read_spatial(f, names.stride, cmd_dims));
  BOO_ASSIGN_OR_RETURN(p.dilation, read_spatial(f, names.dil, cmd_dims));
  BOO_ASSIGN_OR_RETURN(std::vector<int64_t> out_pad, read_spatial(f, names.out_pad, cmd_dims));
  BOO_ASSIGN_OR_RETURN(p.in_layout, read_layout(f, "in_layout", cmd_dims));
  BOO_ASSIGN_OR_RETURN(p.out_layout, read_layout(f, "out_layout", cmd_dims));
  BOO_ASSIGN_OR_RETURN(p.fil_layout, read_layout(f, "fil_layout", cmd_dims));

  // --math: tf32 (default for fp32, as cuDNN and PyTorch do) or fp32 (exact).
  if (f.given("math")) {
    auto m = core::math_mode_from_name(f.get("math"));
    if (!m) {
      return invalid_argument("--math: expected tf32 or fp32, got " + core::quote(f.get("math")));
    }
    if (dtype != DType::kF32) {
      return invalid_argument("--math " + std::string(f.get("math")) +
                              ": applies to fp32 convolutions (conv) only, not " + std::string(op));
    }
    p.math = *m;
  } else {
    p.math = dtype == DType::kF32 ? core::MathMode::kTF32 : core::MathMode::kF32;
  }

  BOO_ASSIGN_OR_RETURN(const int64_t bias, f.get_int("bias"));
  if (bias != 0 && bias != 1) {
    return invalid_argument(f.spelled("bias") + ": expected 0 or 1, got " + std::to_string(bias));
  }
  p.bias = bias == 1;
  const auto act = ops::activation_from_name(f.get("activation"));
  if (!act) {
    return invalid_argument(
        "--activation: expected one of none, relu, gelu, gelu_tanh, silu, "
        "sigmoid, tanh, relu6, got " +
        core::quote(f.get("activation")));
  }
  p.activation = *act;
  const bool fused = p.bias || p.activation != ops::Activation::kNone;
  if (fused && trans) {
    return core::unsupported(
        "-b/--activation with -m trans: boo fuses bias and activation into "
        "the forward pass of -m conv only");
  }
  if (fused && !(dirs & 1)) {
    return invalid_argument(
        "-b/--activation: bias and activation are fused into the forward pass, "
        "but -F " +
        std::to_string(forw) + " asks for no forward pass");
  }
  if (fused && dirs != 1) {
    out.notes.push_back(
        "-b/--activation apply to the forward problem; the backward problems of "
        "-F " +
        std::to_string(forw) + " are plain convolutions");
  }

  // MIOpen's pad_mode (driver-side): same/valid recompute the padding of -m conv when all
  // dilations or all filter sizes are 1.
  const std::string pad_mode(f.get("pad_mode"));
  if (pad_mode != "default" && pad_mode != "same" && pad_mode != "valid") {
    return invalid_argument(f.spelled("pad_mode") + ": expected default, same or valid, got " +
                            core::quote(pad_mode));
  }
  BOO_RETURN_IF_ERROR(f.respelled(p.validate_fields()));
  auto all_one = [](const std::vector<int64_t>& v) {
    for (int64_t x : v)
      if (x != 1) return false;
    return true;
  };
  if (!trans && pad_mode != "default" && (all_one(p.dilation) || all_one(p.filter))) {
    for (size_t i = 0; i < p.padding.size(); ++i) {
      if (pad_mode == "valid") {
        p.padding[i] = 0;
      } else {
        const int64_t rem = p.input[i] % p.stride[i];
        const int64_t pad = rem == 0 ? std::max<int64_t>(p.filter[i] - p.stride[i], 0)
                                     : std::max<int64_t>(p.filter[i] - rem, 0);
        p.padding[i] = pad / 2;
      }
    }
  }

  // A 2D command with H = 1, a 1-tall filter, no H padding, H stride and dilation 1 is 1D. The
  // output padding only counts for -m trans: -m conv ignores it, as MIOpenDriver does.
  if (cmd_dims == 2 && p.input[0] == 1 && p.filter[0] == 1 && p.padding[0] == 0 &&
      p.stride[0] == 1 && p.dilation[0] == 1 && (!trans || out_pad[0] == 0)) {
    p.spatial_dims = 1;
    for (auto* v : {&p.input, &p.filter, &p.padding, &p.stride, &p.dilation, &out_pad}) {
      v->erase(v->begin());
    }
  }

  if (trans) {
    // The transposed convolution is the backward-data pass of the convolution that maps its
    // output (out_m = s (in - 1) + d (f - 1) + 1 - 2 p + output_pad) back to its input.
    const int first = 3 - (p.spatial_dims == 1 ? 1 : cmd_dims);
    ConvProblem m = p;
    m.c = p.k;
    m.k = p.c;
    m.in_layout = p.out_layout;
    m.out_layout = p.in_layout;
    for (size_t i = 0; i < p.input.size(); ++i) {
      const std::string pad_flag = f.spelled(names.out_pad[first + i]);
      if (out_pad[i] < 0 || out_pad[i] >= p.stride[i]) {
        return invalid_argument(pad_flag +
                                ": the output padding of -m trans must be >= 0 and "
                                "smaller than the stride " +
                                std::to_string(p.stride[i]) + ", got " +
                                std::to_string(out_pad[i]));
      }
      // validate_fields() bounds every term by 2^40; the products can still overflow.
      int64_t grown = 0;
      int64_t dilated = 0;
      if (__builtin_mul_overflow(p.stride[i], p.input[i] - 1, &grown) ||
          __builtin_mul_overflow(p.dilation[i], p.filter[i] - 1, &dilated) ||
          __builtin_add_overflow(grown, dilated, &m.input[i]) ||
          __builtin_add_overflow(m.input[i], 1 - 2 * p.padding[i] + out_pad[i], &m.input[i])) {
        return invalid_argument("output size of -m trans overflows 64 bits along " +
                                f.spelled(names.in[first + i]) + " " + std::to_string(p.input[i]) +
                                " and " + f.spelled(names.stride[first + i]) + " " +
                                std::to_string(p.stride[i]));
      }
      if (m.input[i] < 1) {
        return invalid_argument("output size " + std::to_string(m.input[i]) + " <= 0 along " +
                                f.spelled(names.in[first + i]) + " " + std::to_string(p.input[i]) +
                                " of -m trans: the padding " + std::to_string(p.padding[i]) +
                                " is larger than the output");
      }
    }
    m.transposed = true;
    p = m;
  }

  for (int bit : {1, 2, 4}) {
    if (!(dirs & bit)) continue;
    ConvProblem q = p;
    if (bit == 1) q.direction = trans ? ConvDirection::kBackwardData : ConvDirection::kForward;
    if (bit == 2) q.direction = trans ? ConvDirection::kForward : ConvDirection::kBackwardData;
    if (bit == 4) q.direction = ConvDirection::kBackwardWeight;
    if (bit != 1) {
      q.bias = false;
      q.activation = ops::Activation::kNone;
    }
    BOO_RETURN_IF_ERROR(q.validate());
    out.problems.push_back(std::move(q));
  }
  return out;
}

}  // namespace boo::parse
