#include "boo/dispatch/conv_dgrad_phases.h"

#include <cstdio>

#include "../../kernels/conv_dgrad_phases_plan.cuh"
#include "boo/dispatch/conv_dispatcher.h"

namespace boo::dispatch {
namespace {

using ops::ConvDirection;

// Each spatial dimension's phases (boo_kernels::dgrad_phase), outermost dimension first.
std::vector<std::vector<boo_kernels::DgradPhase>> phases_by_dim(const ops::ConvProblem& p) {
  const std::vector<int64_t> out = p.output();
  std::vector<std::vector<boo_kernels::DgradPhase>> dims(p.filter.size());
  for (size_t i = 0; i < p.filter.size(); ++i) {
    for (int64_t a = 0; a < p.stride[i]; ++a) {
      dims[i].push_back(boo_kernels::dgrad_phase(p.input[i], out[i], p.filter[i], p.stride[i],
                                                 p.padding[i], p.dilation[i], a));
    }
  }
  return dims;
}

// Whether the runner stacks the phases (boo_kernels::dgrad_stack_pays), and each dimension's
// stack; BooConvArgs' three dimensions (D, H, W), the missing ones of extent 1.
bool stacked(const ops::ConvProblem& p, boo_kernels::DgradStack st[3]) {
  const std::vector<int64_t> out = p.output();
  const size_t dims = p.filter.size();
  int64_t filter[3], stride[3];
  for (int d = 0; d < 3; ++d) {
    const int i = d - (3 - static_cast<int>(dims));
    filter[d] = i >= 0 ? p.filter[i] : 1;
    stride[d] = i >= 0 ? p.stride[i] : 1;
    st[d] = i >= 0 ? boo_kernels::dgrad_stack(p.input[i], out[i], p.filter[i], p.stride[i],
                                              p.padding[i], p.dilation[i])
                   : boo_kernels::dgrad_stack(1, 1, 1, 1, 0, 1);
  }
  return boo_kernels::dgrad_stack_pays(st, filter, stride, p.c);
}

// The forward convolution a phase (or the stacked phases) runs over dy: K channels in, C out,
// channels-last, no epilogue; the caller sets the filter, padding and dilation.
ops::ConvProblem phase_problem(const ops::ConvProblem& p) {
  ops::ConvProblem f = p;
  f.direction = ConvDirection::kForward;
  f.c = p.k;
  f.k = p.c;
  f.bias = false;
  f.activation = ops::Activation::kNone;
  f.input = p.output();
  f.in_layout = f.fil_layout = f.out_layout = core::Layout::kChannelsLast;
  for (int64_t& s : f.stride) s = 1;
  return f;
}

}  // namespace

bool channels_aligned(const ops::ConvProblem& p) {
  const int64_t vector = 16 / core::dtype_bytes(p.dtype);
  return p.c % vector == 0 && p.k % vector == 0;
}

ops::ConvProblem channel_padded(const ops::ConvProblem& p) {
  return channels_aligned(p) ? p : padded_problem(p);
}

std::vector<ops::ConvProblem> dgrad_phase_problems(const ops::ConvProblem& p) {
  boo_kernels::DgradStack st[3];
  if (stacked(p, st)) {
    // One convolution, every phase's C side by side along its output channels.
    ops::ConvProblem f = phase_problem(p);
    for (int64_t s : p.stride) f.k *= s;
    const size_t dims = p.filter.size();
    for (size_t i = 0; i < dims; ++i) {
      const boo_kernels::DgradStack& d = st[3 - dims + i];
      f.filter[i] = d.taps;
      f.padding[i] = d.lower;
      f.dilation[i] = 1;
    }
    return {f};
  }
  const auto dims = phases_by_dim(p);
  int64_t count = 1;
  for (const auto& d : dims) count *= static_cast<int64_t>(d.size());
  std::vector<ops::ConvProblem> out;
  for (int64_t q = 0; q < count; ++q) {
    ops::ConvProblem f = phase_problem(p);
    bool meets = true;
    int64_t rest = q;
    for (size_t i = dims.size(); i-- > 0;) {
      const boo_kernels::DgradPhase& ph = dims[i][rest % dims[i].size()];
      rest /= static_cast<int64_t>(dims[i].size());
      meets = meets && ph.taps > 0 && ph.outputs > 0;
      f.filter[i] = ph.taps > 0 ? ph.taps : 1;
      f.padding[i] = ph.lower;
      f.dilation[i] = ph.dilation;
    }
    if (meets) out.push_back(f);
  }
  return out;
}

core::Status conv_dgrad_phases_supports(const ops::ConvProblem& p) {
  BOO_RETURN_IF_ERROR(p.validate());
  auto no = [](const std::string& why) {
    return core::unsupported("conv.sm90_implicit's stride phases: " + why);
  };
  if (p.direction != ConvDirection::kBackwardData) return no("backward data only");
  if (p.groups != 1) return no("groups = 1 only");
  bool strided = false;
  for (int64_t s : p.stride) {
    if (s > boo_kernels::kDgradMaxStride) return no("stride " + std::to_string(s) + " is above 3");
    strided = strided || s > 1;
  }
  if (!strided && p.dtype != core::DType::kF32) {
    return no("unit-stride 16-bit backward data runs on CUTLASS's own dgrad");
  }
  // Channels that are not 16-byte vectors are padded by the channels-last copies first
  // (conv.padded_channels' configs).
  for (const ops::ConvProblem& f : dgrad_phase_problems(channel_padded(p))) {
    if (const core::Status s = conv_sm90_supports(f); !s.is_ok()) {
      return no("a phase's forward convolution: " + s.message());
    }
  }
  return core::Status::ok();
}

double predict_conv_dgrad_phases_us(const ops::ConvProblem& p, const space::ConvSm90Config& c,
                                    const DeviceModel& d, std::string* why) {
  space::ConvSm90Config forward = c;
  forward.dgrad_phases = false;
  forward.cls.direction = ConvDirection::kForward;
  double us = 0.0;
  const ops::ConvProblem q = channel_padded(p);
  const std::vector<ops::ConvProblem> phases = dgrad_phase_problems(q);
  for (const ops::ConvProblem& f : phases) us += predict_conv_sm90_us(f, forward, d, nullptr);
  boo_kernels::DgradStack st[3];
  const bool one = stacked(q, st);
  // The turned filters (read and written), the gather (the buffers read, dx written) unless
  // one phase writes dx itself (stride 1; a phase that computes positions outside dx still
  // gathers).
  bool in_place = true;
  for (int64_t s : p.stride) in_place = in_place && s == 1;
  for (const auto& dim : phases_by_dim(p)) {
    in_place = in_place && dim.front().skip == 0 && dim.front().tail == 0;
  }
  int64_t bytes = core::dtype_bytes(p.dtype) * (2 * q.w_desc().element_count() +
                                                (in_place ? 0 : 2 * q.x_desc().element_count()));
  if (!channels_aligned(p)) {  // the padding copies: dy in, dx out
    bytes += core::dtype_bytes(p.dtype) * (p.y_desc().element_count() + q.y_desc().element_count() +
                                           p.x_desc().element_count() + q.x_desc().element_count());
  }
  const double copies =
      static_cast<double>(bytes) / (d.bandwidth_gbs * 1e3) + (in_place ? 1 : 2) * d.launch_us;
  if (why != nullptr) {
    char text[160];
    std::snprintf(text, sizeof(text),
                  "%s as forward convolutions: %.1f us, + %.1f us turned filters and gather",
                  one ? "stride phases stacked in one"
                      : (std::to_string(phases.size()) + " stride phases").c_str(),
                  us, copies);
    *why = text;
  }
  return us + copies;
}

std::vector<space::ConvSm90Config> dgrad_phases_space(const ops::ConvProblem& p,
                                                      space::RuleSet rules) {
  space::ConvClass forward = space::conv_class_of(p);
  forward.direction = ConvDirection::kForward;
  std::vector<space::ConvSm90Config> out = space::conv_sm90_space(forward, rules);
  for (space::ConvSm90Config& c : out) {
    c.cls = space::conv_class_of(p);
    c.dgrad_phases = true;
  }
  return out;
}

}  // namespace boo::dispatch
