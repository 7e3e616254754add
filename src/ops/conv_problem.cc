#include "boo/ops/conv_problem.h"

#include <algorithm>
#include <string_view>

#include "boo/core/strings.h"

namespace boo::ops {
namespace {

using core::DType;
using core::invalid_argument;
using core::Layout;
using core::Status;

// MIOpen flag names per spatial dim, outermost first, for the last `dims` of D, H, W.
struct SpatialFlags {
  const char* input[3];
  const char* filter[3];
  const char* pad[3];
  const char* stride[3];
  const char* dilation[3];
  const char* out_pad[3];
};
constexpr SpatialFlags kFlags = {{"-!", "-H", "-W"}, {"-@", "-y", "-x"}, {"-$", "-p", "-q"},
                                 {"-#", "-u", "-v"}, {"-^", "-l", "-j"}, {"-%", "-Y", "-X"}};

// Flag for spatial index i of a problem with `dims` spatial dims (1D uses the W flags).
const char* flag_at(const char* const (&names)[3], int dims, size_t i) {
  return names[3 - dims + static_cast<int>(i)];
}

std::string_view dtype_command(DType t) {
  switch (t) {
    case DType::kF16:
      return "convfp16";
    case DType::kBF16:
      return "convbfp16";
    default:
      return "conv";
  }
}

std::string join_x(const std::vector<int64_t>& v) {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) out += (i ? "x" : "") + std::to_string(v[i]);
  return out;
}

}  // namespace

std::string_view conv_direction_name(ConvDirection d) {
  switch (d) {
    case ConvDirection::kForward:
      return "fwd";
    case ConvDirection::kBackwardData:
      return "bwd";
    case ConvDirection::kBackwardWeight:
      return "wrw";
  }
  return "?";
}

std::vector<int64_t> ConvProblem::output() const {
  std::vector<int64_t> out(input.size());
  for (size_t i = 0; i < input.size(); ++i) {
    const int64_t span = input[i] + 2 * padding[i] - dilation[i] * (filter[i] - 1) - 1;
    // Floor division that stays correct for a negative span (reported by validate()).
    out[i] = (span >= 0 ? span / stride[i] : -((-span + stride[i] - 1) / stride[i])) + 1;
  }
  return out;
}

Status ConvProblem::validate_fields() const {
  if (spatial_dims < 1 || spatial_dims > 3) {
    return invalid_argument("--spatial_dim: must be 1, 2 or 3, got " +
                            std::to_string(spatial_dims));
  }
  const size_t dims = static_cast<size_t>(spatial_dims);
  if (input.size() != dims || filter.size() != dims || stride.size() != dims ||
      padding.size() != dims || dilation.size() != dims) {
    return core::internal_error("ConvProblem spatial vectors do not have spatial_dims entries");
  }
  BOO_RETURN_IF_ERROR(core::require_at_least("-n", n, 1));
  BOO_RETURN_IF_ERROR(core::require_at_least("-c", c, 1));
  BOO_RETURN_IF_ERROR(core::require_at_least("-k", k, 1));
  BOO_RETURN_IF_ERROR(core::require_at_least("-g", groups, 1));
  for (size_t i = 0; i < dims; ++i) {
    BOO_RETURN_IF_ERROR(
        core::require_at_least(flag_at(kFlags.input, spatial_dims, i), input[i], 1));
    BOO_RETURN_IF_ERROR(
        core::require_at_least(flag_at(kFlags.filter, spatial_dims, i), filter[i], 1));
    BOO_RETURN_IF_ERROR(
        core::require_at_least(flag_at(kFlags.stride, spatial_dims, i), stride[i], 1));
    BOO_RETURN_IF_ERROR(
        core::require_at_least(flag_at(kFlags.pad, spatial_dims, i), padding[i], 0));
    BOO_RETURN_IF_ERROR(
        core::require_at_least(flag_at(kFlags.dilation, spatial_dims, i), dilation[i], 1));
    // Keep 2 * pad + dilation * filter far from overflow before computing the output size.
    constexpr int64_t kMaxExtent = int64_t{1} << 40;
    for (const auto& [names, v] :
         {std::pair{&kFlags.input, input[i]}, std::pair{&kFlags.filter, filter[i]},
          std::pair{&kFlags.pad, padding[i]}, std::pair{&kFlags.dilation, dilation[i]},
          std::pair{&kFlags.stride, stride[i]}}) {
      if (v > kMaxExtent) {
        return invalid_argument(std::string(flag_at(*names, spatial_dims, i)) + " " +
                                std::to_string(v) + ": spatial sizes above 2^40 are not supported");
      }
    }
    int64_t dilated = 0;
    if (__builtin_mul_overflow(dilation[i], filter[i] - 1, &dilated) || dilated > kMaxExtent) {
      return invalid_argument(
          std::string(flag_at(kFlags.filter, spatial_dims, i)) + " " + std::to_string(filter[i]) +
          " with " + flag_at(kFlags.dilation, spatial_dims, i) + " " + std::to_string(dilation[i]) +
          ": a dilated filter above 2^40 is not supported");
    }
  }
  if (c % groups != 0) {
    return invalid_argument("-c " + std::to_string(c) + " is not divisible by -g " +
                            std::to_string(groups));
  }
  if (k % groups != 0) {
    return invalid_argument("-k " + std::to_string(k) + " is not divisible by -g " +
                            std::to_string(groups));
  }
  return Status::ok();
}

Status ConvProblem::validate() const {
  BOO_RETURN_IF_ERROR(validate_fields());
  const size_t dims = static_cast<size_t>(spatial_dims);
  const std::vector<int64_t> out = output();
  for (size_t i = 0; i < dims; ++i) {
    if (out[i] < 1) {
      return invalid_argument(
          "output size " + std::to_string(out[i]) + " <= 0 along " +
          flag_at(kFlags.input, spatial_dims, i) + " " + std::to_string(input[i]) +
          ": the dilated filter (" + flag_at(kFlags.filter, spatial_dims, i) + " " +
          std::to_string(filter[i]) + ", dilation " + std::to_string(dilation[i]) +
          ") is larger than the padded input (padding " + std::to_string(padding[i]) + ")");
    }
  }
  // Element counts of every tensor, and their total in bytes, must fit in 64 bits. The dims are
  // checked before a TensorDesc is built: its strides would overflow first.
  auto spatial_flags = [&](const char* const(&names)[3], const std::vector<int64_t>& v) {
    std::string s;
    for (size_t i = 0; i < v.size(); ++i) {
      s += std::string(" ") + flag_at(names, spatial_dims, i) + " " + std::to_string(v[i]);
    }
    return s;
  };
  auto with_spatial = [](std::vector<int64_t> dims, const std::vector<int64_t>& spatial) {
    dims.insert(dims.end(), spatial.begin(), spatial.end());
    return dims;
  };
  const std::string nc = "-n " + std::to_string(n) + " -c " + std::to_string(c);
  const std::string kcg =
      "-k " + std::to_string(k) + " -c " + std::to_string(c) + " -g " + std::to_string(groups);
  struct Operand {
    const char* name;
    std::vector<int64_t> dims;
    std::string flags;
  };
  const Operand operands[] = {
      {"input", with_spatial({n, c}, input), nc + spatial_flags(kFlags.input, input)},
      {"filter", with_spatial({k, c / groups}, filter), kcg + spatial_flags(kFlags.filter, filter)},
      {"output", with_spatial({n, k}, out),
       "-n " + std::to_string(n) + " -k " + std::to_string(k) + " (output sizes " + join_x(out) +
           ")"}};
  const int64_t elem_bytes = core::dtype_bytes(dtype);
  int64_t total = bias ? k : 0;
  for (const Operand& o : operands) {
    auto count = core::checked_product(o.dims);
    int64_t bytes = 0;
    if (!count || __builtin_add_overflow(total, *count, &total) ||
        __builtin_mul_overflow(total, elem_bytes, &bytes)) {
      return invalid_argument(std::string(o.name) + " tensor " + core::format_shape(o.dims) +
                              " of " + o.flags +
                              ": element count (or all operands' bytes) overflows 64 bits");
    }
  }
  if (core::is_fp8(dtype)) {
    return core::unsupported("fp8 convolutions are not supported (dtype " +
                             std::string(core::dtype_name(dtype)) + ")");
  }
  if (math == core::MathMode::kTF32 && dtype != DType::kF32) {
    return invalid_argument("--math tf32 applies to fp32 convolutions only (this one is " +
                            std::string(core::dtype_name(dtype)) + ")");
  }
  if ((bias || activation != Activation::kNone) &&
      (direction != ConvDirection::kForward || transposed)) {
    return invalid_argument(
        "-b/--activation: bias and activation are fused into the forward pass of -m conv only "
        "(this problem is " +
        std::string(conv_direction_name(direction)) + (transposed ? " of -m trans" : "") + ")");
  }
  return Status::ok();
}

core::TensorDesc ConvProblem::x_desc() const {
  return core::make_nc_spatial_tensor(dtype, n, c, input, in_layout);
}

core::TensorDesc ConvProblem::w_desc() const {
  return core::make_nc_spatial_tensor(dtype, k, c / groups, filter, fil_layout);
}

core::TensorDesc ConvProblem::y_desc() const {
  return core::make_nc_spatial_tensor(dtype, n, k, output(), out_layout);
}

double ConvProblem::flops() const {
  double f =
      2.0 * static_cast<double>(n) * static_cast<double>(k) * static_cast<double>(c / groups);
  for (int64_t o : output()) f *= static_cast<double>(o);
  for (int64_t r : filter) f *= static_cast<double>(r);
  return f;
}

namespace {

// How many of `size` input positions along one dimension some output position's tap reaches:
// a strided 1x1 reads one pixel in `stride`, and a window that does not fit again leaves the
// last pixels unread. Exact; where counting would take over 2^24 steps, `size`.
int64_t positions_read(int64_t size, int64_t out, int64_t filter, int64_t stride, int64_t pad,
                       int64_t dilation) {
  if (out <= 0 || size <= 0) return size;
  if (dilation == 1 && stride <= filter) {  // windows touch or overlap: one run of positions
    const int64_t lo = std::max<int64_t>(0, -pad);
    const int64_t hi = std::min(size - 1, (out - 1) * stride - pad + filter - 1);
    return std::max<int64_t>(0, hi - lo + 1);
  }
  if (out * filter > (int64_t{1} << 24)) return size;
  std::vector<bool> read(static_cast<size_t>(size), false);
  for (int64_t q = 0; q < out; ++q) {
    for (int64_t r = 0; r < filter; ++r) {
      const int64_t h = q * stride - pad + r * dilation;
      if (h >= 0 && h < size) read[static_cast<size_t>(h)] = true;
    }
  }
  return std::count(read.begin(), read.end(), true);
}

}  // namespace

int64_t ConvProblem::min_bytes() const {
  int64_t x_elements = x_desc().element_count();
  // x is read where the pass reads it (forward, backward weight): only the pixels some tap
  // reaches need to cross HBM. Backward data writes all of dx, zeros included.
  if (!transposed && direction != ConvDirection::kBackwardData) {
    const std::vector<int64_t> out = output();
    int64_t read = 1, all = 1;
    for (size_t i = 0; i < input.size(); ++i) {
      read *= positions_read(input[i], out[i], filter[i], stride[i], padding[i], dilation[i]);
      all *= input[i];
    }
    if (all > 0) x_elements = x_elements / all * read;
  }
  const int64_t elements =
      x_elements + w_desc().element_count() + y_desc().element_count() + (bias ? k : 0);
  return elements * core::dtype_bytes(dtype);
}

std::string ConvProblem::key() const {
  static constexpr char kInLetters[] = "dhw";
  static constexpr char kFilLetters[] = "zyx";
  const int first = 3 - spatial_dims;
  std::string s = "conv" + std::to_string(spatial_dims) + "d_" +
                  std::string(core::dtype_name(dtype)) +
                  (math == core::MathMode::kTF32 ? "_tf32_" : "_f32acc_") +
                  std::string(conv_direction_name(direction)) + (transposed ? ".trans" : "") +
                  "_n" + std::to_string(n) + "c" + std::to_string(c);
  for (int i = 0; i < spatial_dims; ++i) s += kInLetters[first + i] + std::to_string(input[i]);
  s += "_k" + std::to_string(k);
  for (int i = 0; i < spatial_dims; ++i) s += kFilLetters[first + i] + std::to_string(filter[i]);
  s += "_s" + join_x(stride) + "p" + join_x(padding) + "d" + join_x(dilation);
  s += "_g" + std::to_string(groups) + "_" +
       core::to_lower(core::layout_name(in_layout, spatial_dims)) + "." +
       core::to_lower(core::layout_name(fil_layout, spatial_dims)) + "." +
       core::to_lower(core::layout_name(out_layout, spatial_dims));
  s += std::string(bias ? "_bias." : "_nobias.") + std::string(activation_name(activation));
  return s;
}

std::string ConvProblem::to_command() const {
  // A transposed problem prints the command of the transposed convolution the user wrote:
  // input/output and C/K swap back, and the output padding is what makes the sizes agree.
  const std::vector<int64_t> out = output();
  const std::vector<int64_t>& in_sizes = transposed ? out : input;
  const int64_t in_c = transposed ? k : c;
  const int64_t out_c = transposed ? c : k;
  const Layout cmd_in = transposed ? out_layout : in_layout;
  const Layout cmd_out = transposed ? in_layout : out_layout;
  int forw = direction == ConvDirection::kForward        ? 1
             : direction == ConvDirection::kBackwardData ? 2
                                                         : 4;
  if (transposed && direction != ConvDirection::kBackwardWeight) forw = 3 - forw;

  // MIOpen has no 1D flags: a 1D problem is a 2D one with H = 1 (DESIGN.md §2).
  const int cmd_dims = spatial_dims == 1 ? 2 : spatial_dims;
  auto at = [&](const std::vector<int64_t>& v, int i, int64_t unit) {
    return spatial_dims == 1 ? (i == 0 ? unit : v[0]) : v[i];
  };
  std::string s(dtype_command(dtype));
  if (spatial_dims == 3) s += " --spatial_dim 3";
  s += " -n " + std::to_string(n) + " -c " + std::to_string(in_c);
  for (int i = 0; i < cmd_dims; ++i) {
    s += std::string(" ") + kFlags.input[3 - cmd_dims + i] + " " +
         std::to_string(at(in_sizes, i, 1));
  }
  s += " -k " + std::to_string(out_c);
  for (int i = 0; i < cmd_dims; ++i) {
    s +=
        std::string(" ") + kFlags.filter[3 - cmd_dims + i] + " " + std::to_string(at(filter, i, 1));
  }
  for (int i = 0; i < cmd_dims; ++i) {
    s += std::string(" ") + kFlags.pad[3 - cmd_dims + i] + " " + std::to_string(at(padding, i, 0));
  }
  for (int i = 0; i < cmd_dims; ++i) {
    s +=
        std::string(" ") + kFlags.stride[3 - cmd_dims + i] + " " + std::to_string(at(stride, i, 1));
  }
  for (int i = 0; i < cmd_dims; ++i) {
    s += std::string(" ") + kFlags.dilation[3 - cmd_dims + i] + " " +
         std::to_string(at(dilation, i, 1));
  }
  if (transposed) {
    s += " -m trans";
    for (int i = 0; i < cmd_dims; ++i) {
      // input_m = (out_m - 1) * s - 2p + d (f - 1) + 1 + output_pad.
      int64_t pad_out = 0;
      if (spatial_dims != 1 || i == 1) {
        const int j = spatial_dims == 1 ? 0 : i;
        pad_out = input[j] -
                  ((out[j] - 1) * stride[j] - 2 * padding[j] + dilation[j] * (filter[j] - 1) + 1);
      }
      s += std::string(" ") + kFlags.out_pad[3 - cmd_dims + i] + " " + std::to_string(pad_out);
    }
  } else {
    s += " -m conv";
  }
  s += " -g " + std::to_string(groups) + " -F " + std::to_string(forw);
  if (bias) s += " -b 1";
  if (activation != Activation::kNone) {
    s += " --activation " + std::string(activation_name(activation));
  }
  if (dtype == DType::kF32) s += " --math " + std::string(core::math_mode_name(math));
  s += " --in_layout " + core::layout_name(cmd_in, cmd_dims) + " --out_layout " +
       core::layout_name(cmd_out, cmd_dims) + " --fil_layout " +
       core::layout_name(fil_layout, cmd_dims);
  return s;
}

}  // namespace boo::ops
