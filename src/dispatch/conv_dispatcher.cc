#include "boo/dispatch/conv_dispatcher.h"

#include "boo/core/env.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <optional>

#include "boo/codegen/conv_codegen.h"
#include "boo/dispatch/conv_dgrad_phases.h"
#include "boo/dispatch/gemm_algorithms.h"
#include "conv_model_util.h"
#include "kernel_run.h"

namespace boo::dispatch {
namespace {

using conv_model::ceil_div;
using conv_model::product;
using conv_model::relayout_bytes;
using ops::ConvDirection;

constexpr double kNoLimit = 1e300;
// conv.split_wgrad: the slice counts dispatch tries; the host time of one slice's launch
// (CUTLASS params, event and stream calls: 6 us was an estimate; on an H100 the slices measured
// at least 9.4 us each, 78.6 us for 8 on the public 3x3 line and 255 us for 16 on an n32 c64
// 112x112 3x3, bench/results/2026-11-26-conv-wgrad-direct-h100.md).
constexpr int kSplitChoices[] = {4, 8, 16};
constexpr double kSplitLaunchUs = 10.0;

ConvPointers fake_pointers(const ops::ConvProblem& p) {
  // Distinct, 256-byte aligned stand-ins: shapes and strides are checked before the real
  // pointers exist; those are checked at launch.
  ConvPointers f;
  char* base = reinterpret_cast<char*>(uintptr_t{1} << 20);
  f.x = base;
  f.w = base + 256;
  f.y = base + 512;
  f.bias = p.bias ? base + 768 : nullptr;
  return f;
}

core::Status check_class_of(const std::string& config, std::string_view prefix,
                            const ops::ConvProblem& p) {
  const std::string cls = space::conv_class_of(p).name();
  const std::string want = std::string(prefix) + cls;
  if (config.rfind(want, 0) == 0 && (config.size() == want.size() || config[want.size()] == '_')) {
    return core::Status::ok();
  }
  return core::invalid_argument(config + " is not a config of this problem's class " + cls +
                                " (expected a name starting with " + want + ")");
}

}  // namespace

size_t ConvProblemHash::operator()(const ops::ConvProblem& p) const {
  // The key spells every field of the problem (DESIGN.md §2).
  return std::hash<std::string>{}(p.key());
}

namespace {

// What conv.sm90_implicit needs besides 16-byte channel vectors (conv.padded_channels pads
// those): one group, a class with code, a unit stride for backward data, TMA im2col's limits.
core::Status conv_sm90_limits(const ops::ConvProblem& p, std::string_view name) {
  BOO_RETURN_IF_ERROR(p.validate());
  const std::string head = std::string(name) + ": ";
  if (p.groups != 1) {
    return core::unsupported(head + "groups = 1 only (CUTLASS's can_implement)");
  }
  if (core::Status s = space::check_conv_sm90_class(space::conv_class_of(p)); !s.is_ok()) {
    return core::unsupported(head + s.message());
  }
  if (p.direction == ConvDirection::kBackwardData) {
    for (int64_t s : p.stride) {
      if (s != 1) {
        return core::unsupported(head + "backward data with stride " + std::to_string(s) +
                                 " (CUTLASS 4.2's sm90 dgrad is unit-stride)");
      }
    }
  }
  // TMA im2col: padding at most 65536 (1D), 256 (2D), 16 (3D); the dilated filter extent
  // below 2^(16/dims) - 1 (cutlass/conv/collective/sm90_implicit_gemm_gmma_ss_warpspecialized).
  const int dims = p.spatial_dims;
  const int64_t pad_limit = dims == 1 ? 65536 : dims == 2 ? 256 : 16;
  const int64_t offset_limit = (int64_t{1} << (16 / dims)) - 1;
  for (int i = 0; i < dims; ++i) {
    if (p.padding[i] > pad_limit) {
      return core::unsupported(head + "padding " + std::to_string(p.padding[i]) +
                               " beyond TMA im2col's limit " + std::to_string(pad_limit));
    }
    if ((p.filter[i] - 1) * p.dilation[i] >= offset_limit) {
      return core::unsupported(head + "dilated filter extent beyond TMA im2col's " +
                               std::to_string(offset_limit));
    }
  }
  return core::Status::ok();
}

int64_t channel_vector(const ops::ConvProblem& p) { return 16 / core::dtype_bytes(p.dtype); }

}  // namespace

core::Status conv_sm90_supports(const ops::ConvProblem& p) {
  BOO_RETURN_IF_ERROR(conv_sm90_limits(p, kConvSm90Implicit));
  const int64_t align = channel_vector(p);
  if (p.c % align != 0 || p.k % align != 0) {
    return core::unsupported("conv.sm90_implicit: C and K must be multiples of " +
                             std::to_string(align) + " (16 bytes, TMA); C=" + std::to_string(p.c) +
                             " K=" + std::to_string(p.k) + " (conv.padded_channels pads them)");
  }
  return core::Status::ok();
}

core::Status conv_padded_supports(const ops::ConvProblem& p) {
  BOO_RETURN_IF_ERROR(p.validate());
  const int64_t align = channel_vector(p);
  if (p.c % align == 0 && p.k % align == 0) {
    return core::unsupported("conv.padded_channels does not apply: C=" + std::to_string(p.c) +
                             " and K=" + std::to_string(p.k) + " are multiples of " +
                             std::to_string(align));
  }
  return conv_sm90_limits(p, kConvPaddedChannels);
}

ops::ConvProblem padded_problem(const ops::ConvProblem& p) {
  const int64_t align = channel_vector(p);
  ops::ConvProblem q = p;
  q.c = (p.c + align - 1) / align * align;
  q.k = (p.k + align - 1) / align * align;
  q.in_layout = q.fil_layout = q.out_layout = core::Layout::kChannelsLast;
  return q;
}

core::Status conv_grouped_supports(const ops::ConvProblem& p) {
  BOO_RETURN_IF_ERROR(p.validate());
  if (p.groups < 2 || p.groups == p.c) {
    return core::unsupported("conv.grouped does not apply: groups = " + std::to_string(p.groups) +
                             (p.groups == p.c ? " is C (depthwise)" : ""));
  }
  return conv_sm90_limits(dense_problem(p), kConvGrouped);
}

ops::ConvProblem dense_problem(const ops::ConvProblem& p) {
  ops::ConvProblem q = p;
  q.groups = 1;
  return q;
}

double predict_conv_grouped_us(const ops::ConvProblem& p, const space::ConvSm90Config& c,
                               const DeviceModel& d, std::string* why) {
  // The dense problem (G times the work), plus expanding the filter (or copying dw's blocks
  // out) through the workspace.
  const ops::ConvProblem q = dense_problem(p);
  space::ConvSm90Config inner = c;
  inner.dense_groups = false;
  const bool padded = conv_padded_supports(q).is_ok();
  const double us =
      padded ? predict_conv_padded_us(q, inner, d, why) : predict_conv_sm90_us(q, inner, d, why);
  const int64_t bytes =
      (q.w_desc().element_count() + p.w_desc().element_count()) * core::dtype_bytes(p.dtype);
  if (why != nullptr) {
    *why = "dense block-diagonal filter (" + std::to_string(p.groups) + "x the work): " + *why;
  }
  return us + static_cast<double>(bytes) / (d.bandwidth_gbs * 1e3) + d.launch_us;
}

core::Status conv_split_wgrad_supports(const ops::ConvProblem& p) {
  BOO_RETURN_IF_ERROR(p.validate());
  if (p.direction != ConvDirection::kBackwardWeight) {
    return core::unsupported("conv.split_wgrad does not apply: backward weight only");
  }
  if (const core::Status s = conv_sm90_supports(p); !s.is_ok()) {
    return core::unsupported("conv.split_wgrad: " + s.message());
  }
  if (p.n < kSplitChoices[0]) {
    return core::unsupported("conv.split_wgrad: N = " + std::to_string(p.n) + " is below " +
                             std::to_string(kSplitChoices[0]) + " slices");
  }
  return core::Status::ok();
}

double predict_conv_split_wgrad_us(const ops::ConvProblem& p, const space::ConvSm90Config& c,
                                   const DeviceModel& d, std::string* why) {
  // The slices run side by side: their tiles share the SMs as one grid of S times the tiles,
  // each with 1/S of the reduction; then the fp32 slices are read once and dw written. The host
  // issues a launch per slice, which bounds the time from below.
  const int splits = c.wgrad_splits;
  ops::ConvProblem slice = p;
  slice.n = (p.n + splits - 1) / splits;
  space::ConvSm90Config inner = c;
  inner.wgrad_splits = 0;
  std::string inner_why;
  const double slice_us = predict_conv_sm90_us(slice, inner, d, &inner_why) - d.launch_us;
  const int64_t taps = product(p.filter);
  auto blocks = [](int64_t x, int64_t t) { return (x + t - 1) / t; };
  const int64_t tiles = blocks(p.k, c.tile_m) * blocks(p.c * taps, c.tile_n);
  const int64_t waves_one = blocks(tiles, d.sm_count);
  const int64_t waves_all = blocks(tiles * splits, d.sm_count);
  const double gpu_us = slice_us * static_cast<double>(waves_all) / static_cast<double>(waves_one);
  const double host_us = splits * kSplitLaunchUs;
  const int64_t reduce_bytes = p.k * p.c * taps * (4 * splits + core::dtype_bytes(p.dtype));
  const double reduce_us =
      static_cast<double>(reduce_bytes) / (d.bandwidth_gbs * 1e3) + d.launch_us;
  if (why != nullptr) {
    char text[160];
    std::snprintf(text, sizeof(text),
                  "%d slices side by side: %.1f us on the GPU, %.1f us of launches, %.1f us "
                  "reduction",
                  splits, gpu_us, host_us, reduce_us);
    *why = text;
  }
  return std::max(gpu_us, host_us) + reduce_us + d.launch_us;
}

core::Status conv_space_to_depth_supports(const ops::ConvProblem& p) {
  BOO_RETURN_IF_ERROR(conv_padded_supports(p));
  auto no = [](const std::string& why) {
    return core::unsupported("space-to-depth does not apply: " + why);
  };
  if (p.direction != ConvDirection::kForward) return no("forward only");
  bool strided = false;
  for (size_t i = 0; i < p.stride.size(); ++i) {
    if (p.dilation[i] != 1) return no("dilation " + std::to_string(p.dilation[i]));
    strided = strided || p.stride[i] > 1;
  }
  if (!strided) return no("stride 1");
  // Worth it while the channels leave most of a 64-byte k-block empty.
  if (p.c * core::dtype_bytes(p.dtype) >= 64) {
    return no("C = " + std::to_string(p.c) + " fills a k-block");
  }
  return core::Status::ok();
}

ops::ConvProblem space_to_depth_problem(const ops::ConvProblem& p) {
  ops::ConvProblem q = padded_problem(p);
  const std::vector<int64_t> out = p.output();
  int64_t blocks = 1;
  for (size_t i = 0; i < p.stride.size(); ++i) {
    const int64_t taps = (p.filter[i] + p.stride[i] - 1) / p.stride[i];
    blocks *= p.stride[i];
    q.filter[i] = taps;
    q.input[i] = out[i] + taps - 1;
    q.stride[i] = 1;
    q.padding[i] = 0;
  }
  const int64_t k_block = 64 / core::dtype_bytes(p.dtype);
  q.c = (blocks * p.c + k_block - 1) / k_block * k_block;
  return q;
}

double predict_conv_padded_us(const ops::ConvProblem& p, const space::ConvSm90Config& c,
                              const DeviceModel& d, std::string* why) {
  if (c.dgrad_phases) return predict_conv_dgrad_phases_us(p, c, d, why);
  if (c.space_to_depth) {
    // The blocked problem, plus writing x' (and reading x) and the output's channel padding.
    const ops::ConvProblem q = space_to_depth_problem(p);
    const double inner = predict_conv_sm90_us(q, c, d, why);
    const ops::ConvProblem k_only = padded_problem(p);
    int64_t bytes = p.x_desc().element_count() + q.x_desc().element_count();
    if (k_only.k != p.k) bytes += p.y_desc().element_count() + k_only.y_desc().element_count();
    const double copy_us =
        static_cast<double>(bytes * core::dtype_bytes(p.dtype)) / (d.bandwidth_gbs * 1e3) +
        2 * d.launch_us;
    if (why != nullptr) {
      *why = "space-to-depth to C=" + std::to_string(q.c) + ", " + std::to_string(q.filter.back()) +
             "-tap filter: " + *why + " + copies";
    }
    return inner + copy_us;
  }
  // The padded problem on conv.sm90_implicit, plus the copies: each input read in its own
  // layout and written padded, the output read padded and written back (and the bias).
  const ops::ConvProblem q = padded_problem(p);
  const double inner = predict_conv_sm90_us(q, c, d, why);
  const int64_t bytes =
      core::dtype_bytes(p.dtype) *
      (p.x_desc().element_count() + q.x_desc().element_count() + p.w_desc().element_count() +
       q.w_desc().element_count() + p.y_desc().element_count() + q.y_desc().element_count());
  const double copy_us = static_cast<double>(bytes) / (d.bandwidth_gbs * 1e3) + 3 * d.launch_us;
  if (why != nullptr) {
    *why = "channels padded to C=" + std::to_string(q.c) + " K=" + std::to_string(q.k) + ": " +
           *why + " + padding copies";
  }
  return inner + copy_us;
}

double predict_conv_sm90_us(const ops::ConvProblem& p, const space::ConvSm90Config& c,
                            const DeviceModel& d, std::string* why) {
  if (c.dgrad_phases) return predict_conv_dgrad_phases_us(p, c, d, why);
  // The implicit GEMM's extents (M x N, reduction R as the k-loop walks it).
  const int64_t taps = product(p.filter);
  const int64_t out_px = p.n * product(p.output());
  const int64_t in_px = p.n * product(p.input);
  auto blocks = [](int64_t x, int64_t t) { return (x + t - 1) / t; };
  int64_t m = 0, n = 0, r = 0;
  switch (p.direction) {
    case ConvDirection::kForward:
      m = out_px, n = p.k, r = taps * blocks(p.c, c.tile_k) * c.tile_k;
      break;
    case ConvDirection::kBackwardData:
      m = in_px, n = p.c, r = taps * blocks(p.k, c.tile_k) * c.tile_k;
      break;
    case ConvDirection::kBackwardWeight:
      m = p.k, n = p.c * taps, r = blocks(out_px, c.tile_k) * c.tile_k;
      break;
  }
  const int64_t tiles = blocks(m, c.tile_m) * blocks(n, c.tile_n);
  // Two CTAs share an SM where conv_sm90_coresident_stages gave the config its stages: the
  // busiest SM runs ceil(tiles / SMs) tiles either way, two side by side at half the rate each.
  const int ctas = c.stages > 0 && c.stages == space::conv_sm90_coresident_stages(c) ? 2 : 1;
  const int64_t waves = blocks(tiles, d.sm_count);
  const double area = static_cast<double>(c.tile_m) * c.tile_n;
  const double peak =
      (p.dtype == core::DType::kF32 ? d.tflops_tf32 : d.tflops_16bit) * 1e12 / d.sm_count;
  double efficiency = 0.0;
  double load_us = 0.0;  // the operand tiles' traffic from L2 into every CTA
  double fill_us = 0.0;  // the pipeline's fill and the last epilogue, beyond the launch
  if (p.direction == ConvDirection::kBackwardWeight) {
    // One consumer warpgroup: a 128x128 tile reaches ~75% of the SM's MMA rate, smaller tiles
    // less (fewer MMAs per byte staged). The overlap of one CTA's epilogue with the other's
    // mainloop (1.26x on the public 3x3 problems) is not modelled, so that the order among
    // tile shapes stays the one that measured best.
    efficiency = 0.75 * std::pow(std::min(1.0, area / (128.0 * 128.0)), 0.35);
  } else {
    // Forward and backward data, fitted to the three schedules on six problem classes of the
    // public list (bench/results/2026-11-26-conv-coop-h100.md): the SM's MMA rate falls
    // slowly with the tile (76% at 128x256 on the cooperative kernel); the non-persistent
    // one-consumer kernel runs 0.85x as fast per tile (137.8 against 110.3 us on the same
    // 128x128 tiles of the dilated 3x3); a pingpong tile counts twice its area (two in flight
    // per SM) at 80% (its epilogue runs under the other warpgroup's MMAs: 104.3 us on 128x128
    // tiles there, 264.6 against 283.3 on the public 1D line); and the tiles' loads from L2 cap
    // the rate where N is small (the 3x3 with K = 64: each input pixel is loaded for nine
    // taps): about 9.6 TB/s over all SMs, 12.5 with pingpong's tiles (2026-11-26). Where the
    // GEMM is 64 wide (K = 64 forward, C = 64 backward data) the tiles draw less, refitted on H100
    // 2026-11-27 to 128x64 pingpong and 256x64 cooperative tiles of seven such 3x3 layers, one
    // process each (bench/results/2026-11-27-conv-implicit-k64-h100.md): 9.6 TB/s with pingpong's
    // tiles and 8.0 with cooperative ones; 27 taps of a 3D filter draw 8.7 and 7.6 (the public 3D
    // line: 130 us on pingpong tiles, 123 on cooperative ones). The wider tiles' rates predicted
    // the public 3x3 at 35.3 us against 43.3 measured.
    // Pingpong's rate over wider GEMMs was 12.5 TB/s until 2026-11-30. Then 128x64 pingpong
    // tiles ran the public NCHW n64 c256 14x14 k256 3x3 (N = 256) channels-last in 26.85 us:
    // 347 MB of tiles, at least 12.9 TB/s counting the fill and the launch. 12.5 had ranked
    // 128x128 first, which measured 30.5-31.4 us (H200, bench/results/2026-11-30-nchw-h200.md).
    // At 16 that is the only #1 pick that changes among the 462 commands of the conv lists.
    const bool pingpong = c.schedule == space::ConvSchedule::kPingpong;
    const bool volume = p.input.size() == 3;
    const double tiles_in_flight = pingpong ? 2.0 : 1.0;
    efficiency = (pingpong ? 0.80 : 0.76) *
                 std::pow(std::min(1.0, tiles_in_flight * area / (128.0 * 256.0)), 0.2) *
                 (c.persistent() ? 1.0 : 0.85);
    const double tb_per_s = n > 64     ? (pingpong ? 16.0 : 9.6)
                            : pingpong ? (volume ? 8.7 : 9.6)
                                       : (volume ? 7.6 : 8.0);
    load_us = static_cast<double>(tiles) * (c.tile_m + c.tile_n) * static_cast<double>(r) *
              core::dtype_bytes(p.dtype) / (tb_per_s * 1e6 * d.sm_count / 132.0);
    fill_us = 3.0;
  }
  const double tile_us = 2.0 * area * static_cast<double>(r) / (peak * efficiency) * 1e6;
  // A reduction channel count below the k-block (C = 8 in 32-wide k-blocks) leaves most of each
  // TMA im2col box beyond the tensor: measured 5.2x the modelled time on the padded C = 3 stem
  // (bench/results/2026-11-23-conv-padded-h100.md), 1.3x the k-block's empty share.
  const int64_t reduced = p.direction == ConvDirection::kForward        ? p.c
                          : p.direction == ConvDirection::kBackwardData ? p.k
                                                                        : c.tile_k;
  // (Too strict for k-blocks at least half full: C = 40 in 64-wide blocks measured 65.3 us
  // against 71.4 us in 32-wide ones on the padded C = 35 1x1, 2026-11-23-conv-stages-h100.md;
  // relaxing it moves 16 problems of the GPU lists to tiles not yet measured there.)
  const double sparse =
      reduced < c.tile_k ? 1.3 * static_cast<double>(c.tile_k) / static_cast<double>(reduced) : 1.0;
  const double compute_us = std::max(static_cast<double>(waves) * tile_us * sparse, load_us);
  const double memory_us = static_cast<double>(p.min_bytes()) / (d.bandwidth_gbs * 1e3);
  const int64_t copies = relayout_bytes(p);
  const double copy_us =
      copies > 0 ? static_cast<double>(copies) / (d.bandwidth_gbs * 1e3) + d.launch_us : 0.0;
  // No model of cluster multicast yet: a small penalty keeps 1x1 clusters first.
  const double cluster = 1.0 + 0.02 * (c.cluster_m * c.cluster_n - 1);
  // Compute and memory overlap, but not perfectly: a tenth of the smaller one shows. Where the
  // problem is memory-bound this ranks the tile that wastes fewer MMAs first (the padded C = 35
  // 1x1: t128x64x32 with 4 stages 71.4 us, t128x128x64 81.1 us,
  // 2026-11-23-conv-stages-h100.md).
  const double us =
      (std::max(compute_us, memory_us) + 0.1 * std::min(compute_us, memory_us)) * cluster +
      copy_us + d.launch_us + fill_us;
  if (why != nullptr) {
    char text[256];
    std::snprintf(text, sizeof(text),
                  "%lld tiles of %dx%d in %lld waves, %d per SM, %.1f us compute, %.1f us "
                  "memory%s",
                  static_cast<long long>(tiles), c.tile_m, c.tile_n, static_cast<long long>(waves),
                  ctas, compute_us, memory_us, copies > 0 ? ", + layout copies" : "");
    *why = text;
  }
  return us;
}

namespace {

// The direct kernels of our own (codegen::kConvOwnKernels: one config per class, named prefix +
// class name, a source per class): forced configs, tuning-DB rows and sources treat them alike.
// Whether one takes the problem (conv.direct takes every valid one).
core::Status own_supports(std::string_view algorithm, const ops::ConvProblem& p) {
  if (algorithm == kConvDepthwise) return conv_depthwise_supports(p);
  if (algorithm == kConvPointwise) return conv_pointwise_supports(p);
  if (algorithm == kConvGrouped) return conv_grouped_direct_supports(p);
  if (algorithm == kConvSplitWgrad) return conv_split_wgrad_direct_supports(p);
  if (algorithm == kConvPaddedChannels) return conv_few_channels_supports(p);
  if (algorithm == kConvSm90Taps) return conv_sm90_taps_supports(p);
  return core::Status::ok();
}

// A candidate the heuristic ranks, with its predicted time and why (what --explain shows).
ConvCandidate predicted(std::string_view algorithm, std::string config, double us,
                        const std::string& why) {
  char head[64];
  std::snprintf(head, sizeof(head), "heuristic: predicted %.1f us; ", us);
  return {std::string(algorithm), std::move(config), us, head + why};
}

// The candidate of a direct kernel of ours (one config per class: prefix + the problem's class).
ConvCandidate own_candidate(std::string_view algorithm, std::string_view prefix,
                            const ops::ConvProblem& p, const DeviceModel& model,
                            double (*predict)(const ops::ConvProblem&, const DeviceModel&,
                                              std::string*)) {
  std::string why;
  const double us = predict(p, model, &why);
  return predicted(algorithm, std::string(prefix) + space::conv_class_of(p).name(), us, why);
}

}  // namespace

ConvDispatcher::ConvDispatcher(jit::KernelCache& cache, const TuningDb* db, GemmDispatcher& gemm,
                               DispatchOptions options)
    : cache_(cache), db_(db), gemm_(gemm), options_(std::move(options)) {
  // "0" leaves an algorithm out of heuristic dispatch (to compare, or to step around a bug);
  // "first" ranks it first wherever it applies (to check it on a list); "1" is the default.
  // Another value is named in a warning and ignored.
  const auto off = [](const char* name, bool* rank) {
    if (core::env_choice(name, {"0", "1"}) == "0") *rank = false;
  };
  const auto off_or_first = [](const char* name, bool* rank, bool* first) {
    const auto v = core::env_choice(name, {"0", "1", "first"});
    if (v == "0") *rank = false;
    if (v == "first") *first = true;
  };
  off("BOO_CONV_GROUPED", &options_.rank_conv_grouped);
  off("BOO_CONV_SPLIT_WGRAD", &options_.rank_conv_split_wgrad);
  off("BOO_CONV_DEPTHWISE_BACKWARD", &options_.rank_conv_depthwise_backward);
  off("BOO_CONV_POINTWISE", &options_.rank_conv_pointwise);
  off("BOO_CONV_GROUPED_DIRECT", &options_.rank_conv_grouped_direct);
  off_or_first("BOO_CONV_WGRAD_DIRECT", &options_.rank_conv_wgrad_direct,
               &options_.conv_wgrad_direct_first);
  off_or_first("BOO_CONV_FEW_CHANNELS", &options_.rank_conv_few_channels,
               &options_.conv_few_channels_first);
  off_or_first("BOO_CONV_TAPS", &options_.rank_conv_taps, &options_.conv_taps_first);
  off_or_first("BOO_CONV_GEMM_1D", &options_.rank_conv_gemm_1d, &options_.conv_gemm_1d_first);
  if (auto env = core::env_choice("BOO_CONV_PERSISTENT", {"0", "1", "first", "coop", "pingpong"});
      env == "0") {
    options_.rank_conv_persistent = false;
  } else if (env && env != "1") {
    using First = DispatchOptions::PersistentFirst;
    options_.conv_persistent_first = *env == "first"  ? First::kAny
                                     : *env == "coop" ? First::kCooperative
                                                      : First::kPingpong;
  }
}

core::Expected<std::vector<ConvCandidate>> ConvDispatcher::candidates(
    const ops::ConvProblem& p, std::vector<std::string>* notes) const {
  BOO_RETURN_IF_ERROR(p.validate());
  std::vector<ConvCandidate> out;
  auto note = [&](std::string text) {
    if (notes != nullptr) notes->push_back(std::move(text));
  };
  const auto gemm_1x1 = conv_as_gemm_1x1(p);
  const core::Status sm90 = conv_sm90_supports(p);
  const core::Status padded = conv_padded_supports(p);
  const core::Status windows = conv_gemm_1d_supports(p);
  // Backward data that CUTLASS's dgrad does not take (strided, tf32): forward stride phases.
  const core::Status phases = sm90.is_ok() ? core::unsupported("") : conv_dgrad_phases_supports(p);
  const std::string& forced = options_.force_config;
  if (!forced.empty()) {
    if (forced.rfind("gemm.", 0) == 0) {
      if (gemm_1x1) {
        out.push_back({std::string(kConvGemm1x1), "", 0.0, "forced GEMM config"});
      } else if (windows.is_ok()) {
        out.push_back({std::string(kConvGemm1d), "", 0.0, "forced GEMM config"});
      } else {
        return core::unsupported("--config " + forced + ": " + gemm_1x1.status().message() + "; " +
                                 windows.message());
      }
      return out;
    }
    if (forced.rfind(space::kConvSm90Prefix, 0) == 0) {
      // A config with a wrapper of its own names its algorithm, which must take the problem.
      auto parsed = space::ConvSm90Config::parse_name(forced);
      const bool split = parsed && parsed->wgrad_splits > 0;
      if (split || (parsed && parsed->dense_groups)) {
        const core::Status g = split ? conv_split_wgrad_supports(p) : conv_grouped_supports(p);
        if (!g.is_ok()) return core::unsupported("--config " + forced + ": " + g.message());
        if (core::Status s = check_class_of(forced, space::kConvSm90Prefix, p); !s.is_ok()) {
          return core::invalid_argument("--config " + s.message());
        }
        out.push_back({std::string(split ? kConvSplitWgrad : kConvGrouped), forced, 0.0, "forced"});
        return out;
      }
      if (parsed && parsed->dgrad_phases) {
        if (!phases.is_ok()) {
          return core::unsupported(
              "--config " + forced + ": " +
              (sm90.is_ok() ? "conv.sm90_implicit's own dgrad takes it" : phases.message()));
        }
        if (core::Status s = check_class_of(forced, space::kConvSm90Prefix, p); !s.is_ok()) {
          return core::invalid_argument("--config " + s.message());
        }
        out.push_back({std::string(channels_aligned(p) ? kConvSm90Implicit : kConvPaddedChannels),
                       forced, 0.0, "forced"});
        return out;
      }
      // Channels that are not 16-byte vectors run the same config behind the padding copies.
      if (!sm90.is_ok() && !padded.is_ok()) {
        return core::unsupported("--config " + forced + ": " + sm90.message());
      }
      if (core::Status s = check_class_of(forced, space::kConvSm90Prefix, p); !s.is_ok()) {
        return core::invalid_argument("--config " + s.message());
      }
      out.push_back({std::string(sm90.is_ok() ? kConvSm90Implicit : kConvPaddedChannels), forced,
                     0.0, "forced"});
      return out;
    }
    for (const codegen::ConvOwnKernel& own : codegen::kConvOwnKernels) {
      if (forced.rfind(own.prefix, 0) != 0) continue;
      if (const core::Status d = own_supports(own.name, p); !d.is_ok()) {
        return core::unsupported("--config " + forced + ": " + d.message());
      }
      if (core::Status s = check_class_of(forced, own.prefix, p); !s.is_ok()) {
        return core::invalid_argument("--config " + s.message());
      }
      out.push_back({std::string(own.name), forced, 0.0, "forced"});
      return out;
    }
    return core::invalid_argument("--config " + forced +
                                  ": no convolution algorithm has configs named like this");
  }
  if (db_ != nullptr) {
    if (const TuningRow* row = db_->find(p.key())) {
      const bool usable =
          (row->algorithm == kConvSm90Implicit && (sm90.is_ok() || phases.is_ok()) &&
           check_class_of(row->config, space::kConvSm90Prefix, p).is_ok()) ||
          (row->algorithm == kConvPaddedChannels && (padded.is_ok() || phases.is_ok()) &&
           check_class_of(row->config, space::kConvSm90Prefix, p).is_ok()) ||
          (row->algorithm == kConvSplitWgrad && conv_split_wgrad_supports(p).is_ok() &&
           check_class_of(row->config, space::kConvSm90Prefix, p).is_ok()) ||
          (row->algorithm == kConvGrouped && conv_grouped_supports(p).is_ok() &&
           check_class_of(row->config, space::kConvSm90Prefix, p).is_ok()) ||
          std::any_of(std::begin(codegen::kConvOwnKernels), std::end(codegen::kConvOwnKernels),
                      [&](const codegen::ConvOwnKernel& own) {
                        return row->algorithm == own.name && own_supports(own.name, p).is_ok() &&
                               check_class_of(row->config, own.prefix, p).is_ok();
                      }) ||
          (row->algorithm == kConvGemm1x1 && gemm_1x1.has_value()) ||
          (row->algorithm == kConvGemm1d && windows.is_ok());
      const bool gemms = row->algorithm == kConvGemm1x1 || row->algorithm == kConvGemm1d;
      if (usable) {
        out.push_back({row->algorithm, gemms ? "" : row->config, row->time_us, "tuning DB row"});
      } else {
        note("tuning DB row names " + row->algorithm + ", which does not apply here");
      }
    } else {
      note("tuning DB: no row for this problem");
    }
  }
  // conv.sm90_implicit's space for the problem's class, less the persistent configs where
  // BOO_CONV_PERSISTENT=0 leaves them out.
  // (The stride phases' configs where those run the problem instead.)
  const auto sm90_space = [&] {
    std::vector<space::ConvSm90Config> configs =
        phases.is_ok() ? dgrad_phases_space(p, options_.rules)
                       : space::conv_sm90_space(space::conv_class_of(p), options_.rules);
    if (!options_.rank_conv_persistent) {
      std::erase_if(configs, [](const space::ConvSm90Config& c) { return c.persistent(); });
    }
    return configs;
  };
  // Whether BOO_CONV_PERSISTENT=first|coop|pingpong ranks this config ahead of the others.
  const auto persistent_first = [&](const space::ConvSm90Config& c) {
    using First = DispatchOptions::PersistentFirst;
    switch (options_.conv_persistent_first) {
      case First::kNo:
        return false;
      case First::kAny:
        return c.persistent();
      case First::kCooperative:
        return c.schedule == space::ConvSchedule::kCooperative;
      case First::kPingpong:
        return c.schedule == space::ConvSchedule::kPingpong;
    }
    return false;
  };
  // conv.split_wgrad's configs built on c: one per slice count the batch allows.
  const auto split_variants = [&](const space::ConvSm90Config& c) {
    std::vector<space::ConvSm90Config> variants;
    space::ConvSm90Config v = c;
    // The slices already run side by side: two CTAs per SM measured slower (80.6 us ->
    // 120.4 us on the public 3x3 backward weight, 2026-11-23-conv-stages-h100.md).
    v.stages = 0;
    for (int splits : kSplitChoices) {
      v.wgrad_splits = splits;
      if (p.n >= splits) variants.push_back(v);
    }
    return variants;
  };
  // The configs of conv.sm90_implicit's space for the problem's class, best predicted first,
  // as candidates of `algorithm` (conv.sm90_implicit itself, or behind the padding copies).
  // `at_most`: leave the list out when its best is not predicted below this.
  auto add_ranked = [&](std::string_view algorithm, double at_most) {
    const bool pad_channels = algorithm == kConvPaddedChannels;
    const bool dense = algorithm == kConvGrouped;
    const bool split = algorithm == kConvSplitWgrad;
    const DeviceModel& model = gemm_.device_model();
    const bool s2d = pad_channels && conv_space_to_depth_supports(p).is_ok();
    std::vector<ConvCandidate> ranked;
    std::vector<bool> preferred;  // per entry of `ranked`: BOO_CONV_PERSISTENT's schedules
    for (const space::ConvSm90Config& c : sm90_space()) {
      // The configs this algorithm builds from c: c itself (and its space-to-depth twin), or
      // one per slice count the batch allows (split), or c with the dense expansion.
      std::vector<space::ConvSm90Config> variants;
      space::ConvSm90Config v = c;
      v.dense_groups = dense;
      if (split) {
        variants = split_variants(c);
      } else {
        variants.push_back(v);
        v.space_to_depth = true;
        if (s2d) variants.push_back(v);
      }
      for (const space::ConvSm90Config& config : variants) {
        std::string why;
        const double us = split          ? predict_conv_split_wgrad_us(p, config, model, &why)
                          : dense        ? predict_conv_grouped_us(p, config, model, &why)
                          : pad_channels ? predict_conv_padded_us(p, config, model, &why)
                                         : predict_conv_sm90_us(p, config, model, &why);
        ranked.push_back(predicted(algorithm, config.name(), us, why));
        preferred.push_back(persistent_first(config));
      }
    }
    if (options_.conv_persistent_first != DispatchOptions::PersistentFirst::kNo) {
      // Ahead by construction: shift the others past the slowest preferred prediction.
      double shift = 0.0;
      for (size_t i = 0; i < ranked.size(); ++i) {
        if (preferred[i]) shift = std::max(shift, ranked[i].predicted_us);
      }
      for (size_t i = 0; i < ranked.size(); ++i) {
        if (!preferred[i]) ranked[i].predicted_us += shift;
      }
    }
    note(std::string(algorithm) + ": " + std::to_string(ranked.size()) + " valid configs in the " +
         std::string(space::rule_set_name(options_.rules)) + " rule set");
    std::stable_sort(ranked.begin(), ranked.end(),
                     [](const ConvCandidate& a, const ConvCandidate& b) {
                       return a.predicted_us < b.predicted_us;
                     });
    if (!ranked.empty() && ranked.front().predicted_us >= at_most) {
      char text[128];
      std::snprintf(text, sizeof(text), "%.1f us, not below %.1f us", ranked.front().predicted_us,
                    at_most);
      note(std::string(algorithm) + " left out: its best config is predicted at " + text);
      return;
    }
    const size_t keep = std::min(ranked.size(), static_cast<size_t>(options_.max_compile_attempts));
    out.insert(out.end(), ranked.begin(), ranked.begin() + static_cast<std::ptrdiff_t>(keep));
  };
  // The best predicted time over conv.sm90_implicit's space for the problem's class.
  const auto best_sm90 = [&](double (*predict)(const ops::ConvProblem&,
                                               const space::ConvSm90Config&, const DeviceModel&,
                                               std::string*)) {
    double best = kNoLimit;
    for (const space::ConvSm90Config& c : sm90_space()) {
      best = std::min(best, predict(p, c, gemm_.device_model(), nullptr));
    }
    return best;
  };
  // The best predicted time of conv.split_wgrad's configs.
  const auto best_split_wgrad = [&] {
    double best = kNoLimit;
    for (const space::ConvSm90Config& c : sm90_space()) {
      for (const space::ConvSm90Config& v : split_variants(c)) {
        best = std::min(best, predict_conv_split_wgrad_us(p, v, gemm_.device_model(), nullptr));
      }
    }
    return best;
  };
  // The best predicted time of conv.padded_channels' configs (with their space-to-depth twins).
  const auto best_padded = [&] {
    double best = best_sm90(predict_conv_padded_us);
    if (conv_space_to_depth_supports(p).is_ok()) {
      for (space::ConvSm90Config c : sm90_space()) {
        c.space_to_depth = true;
        best = std::min(best, predict_conv_padded_us(p, c, gemm_.device_model(), nullptr));
      }
    }
    return best;
  };
  // A few channels that are not 16-byte vectors (C = 35): conv.pointwise's streaming kernel
  // comes before the padded configs where it is predicted faster than their best; otherwise
  // after the tensor-core algorithms.
  const core::Status pointwise = conv_pointwise_supports(p);
  ConvCandidate pointwise_candidate;
  bool pointwise_first = false;
  if (!pointwise.is_ok()) {
    note(pointwise.message());
  } else if (!options_.rank_conv_pointwise) {
    note("conv.pointwise is not ranked: BOO_CONV_POINTWISE=0 leaves it out");
  } else {
    pointwise_candidate = own_candidate(kConvPointwise, codegen::kConvPointwisePrefix, p,
                                        gemm_.device_model(), &predict_conv_pointwise_us);
    if (padded.is_ok()) pointwise_first = pointwise_candidate.predicted_us < best_padded();
    if (pointwise_first) out.push_back(pointwise_candidate);
  }
  // A few input channels (the C = 3 stems): conv.padded_channels' direct kernel comes before the
  // padded configs where it is predicted faster than their best (or they do not apply), else
  // after them.
  ConvCandidate few_channels;
  bool few_channels_first = false;
  if (const core::Status f = conv_few_channels_supports(p); !f.is_ok()) {
    if (padded.is_ok()) note(f.message());
  } else if (!options_.rank_conv_few_channels) {
    note(
        "conv.padded_channels' direct kernel is not ranked: BOO_CONV_FEW_CHANNELS=0 leaves it out");
  } else {
    few_channels = own_candidate(kConvPaddedChannels, codegen::kConvFewChannelsPrefix, p,
                                 gemm_.device_model(), &predict_conv_few_channels_us);
    few_channels_first = options_.conv_few_channels_first || !padded.is_ok() ||
                         few_channels.predicted_us < best_padded();
    if (few_channels_first) out.push_back(few_channels);
  }
  // Channels that are not 16-byte vectors make the GEMM of a 1x1 convolution unaligned (the
  // slow GEMM paths): padding them first is faster.
  if (padded.is_ok() || (phases.is_ok() && !channels_aligned(p))) {
    add_ranked(kConvPaddedChannels, kNoLimit);
  } else {
    note(padded.message());
  }
  if (!few_channels.algorithm.empty() && !few_channels_first) out.push_back(few_channels);
  // A channels-first forward 1x1 convolution's GEMM has the image's pixel count as its leading
  // dimension: for 14x14 and 7x7 images (196 and 49 pixels) that is not whole 16 bytes of a 16-bit
  // type, and the GEMM runs on gemm.sm90_unaligned (x copied into a padded buffer, y written
  // element by element). Four such NCHW bf16 layers measured 1.4x to 5.7x slower that way than on
  // the channels-last copies around conv.sm90_implicit (H200, bench/results/
  // 2026-11-28-loads-ahead-h200.md), so the GEMM goes after the implicit kernel there.
  const bool gemm_1x1_late = gemm_1x1 && sm90.is_ok() && p.direction == ConvDirection::kForward &&
                             p.in_layout != core::Layout::kChannelsLast &&
                             core::dtype_bytes(p.dtype) == 2 &&
                             !gemm_sm90_alignment(gemm_1x1->gemm).is_ok();
  // The GEMM heuristic's first pick (with a predicted time) for conv.gemm_1x1's GEMM, if any.
  const auto gemm_1x1_pick = [&]() -> std::optional<GemmCandidate> {
    auto picks = gemm_.candidates(gemm_1x1->gemm, nullptr);
    if (!picks) return std::nullopt;
    const auto pick = std::find_if(picks->begin(), picks->end(),
                                   [](const GemmCandidate& x) { return x.predicted_us > 0.0; });
    if (pick == picks->end()) return std::nullopt;
    return *pick;
  };
  // conv.split_wgrad's direct kernel (backward weight): built before the GEMM, which it may
  // precede.
  const core::Status direct_supports = conv_split_wgrad_direct_supports(p);
  const bool rank_direct =
      direct_supports.is_ok() && options_.rank_conv_wgrad_direct && options_.rank_conv_split_wgrad;
  ConvCandidate wgrad_direct;
  if (rank_direct) {
    wgrad_direct = own_candidate(kConvSplitWgrad, codegen::kConvSplitWgradDirectPrefix, p,
                                 gemm_.device_model(), &predict_conv_split_wgrad_direct_us);
  }
  // A 1x1 backward weight whose GEMM would run on gemm.sm90_unaligned (fp32: both operands
  // transposed into K-major copies for tf32) takes the direct kernel first where it is predicted
  // faster than the GEMM's first pick: on four such fp32 lines the direct kernel measured
  // 1.10-1.46x faster (H200, bench/results/2026-11-29-forced-lines-h200.md), its 1x1 kernel
  // faster still. (Where gemm.skinny's split loop would gather both MN-major operands its model
  // predicts it slow, so the copied GEMM or the direct kernel wins there: 333 us measured on
  // n64 c16 56x56 k16 against the 1x1 kernel's 24.) With BOO_CONV_WGRAD_DIRECT=first it goes
  // before the GEMM wherever it applies.
  bool direct_before_gemm = gemm_1x1 && rank_direct && options_.conv_wgrad_direct_first;
  if (direct_before_gemm) {
    wgrad_direct.reason += "; first: BOO_CONV_WGRAD_DIRECT=first";
    out.push_back(wgrad_direct);
  } else if (gemm_1x1 && rank_direct && p.direction == ConvDirection::kBackwardWeight) {
    if (const std::optional<GemmCandidate> pick = gemm_1x1_pick()) {
      direct_before_gemm = pick->config.rfind(space::kGemmSm90UnalignedPrefix, 0) == 0 &&
                           wgrad_direct.predicted_us < pick->predicted_us;
      if (direct_before_gemm) {
        char text[160];
        std::snprintf(text, sizeof(text),
                      "; before conv.gemm_1x1, whose GEMM runs behind copies on "
                      "gemm.sm90_unaligned (predicted %.1f us)",
                      pick->predicted_us);
        wgrad_direct.reason += text;
        out.push_back(wgrad_direct);
      }
    }
  }
  // conv.sm90_taps (C of at most 64): ranked below; on a 1x1 layer reducing fewer than 64
  // channels, where the GEMM's single k-block is partly zeros, it goes before conv.gemm_1x1 where
  // it is predicted faster than the GEMM's first pick. (H200, bench/results/
  // 2026-12-01-taps-channels-h200.md and 2026-12-03-taps-chunks-h200.md: C 16 -> K 96 at
  // 112x112 59.2 us against the GEMM's 82.4, C 24 -> 144 at 56x56 29.0 against 44.1; C 40 -> 240
  // at 28x28 15.2 against 17.5, the GEMM first there as the model says (15.5 against 14.8
  // predicted). With C = 64 the GEMM measured faster: 39.3 against 40.9 us at K 256, 23.8
  // against 24.9 at K 128, 16.5 against 17.3 at K 64, backward data K 64 -> C 256 39.3 against
  // 41.9.)
  // The GEMM's model is optimistic on these GEMMs of one partial k-block (K = C < 64, rows of
  // 32-112 bytes): on 27 layers reducing 16-56 channels (one a backward data) measured over
  // predicted 1.07-1.77x, geometric mean 1.31, where conv.sm90_taps' model is within 20% (H200,
  // bench/results/2026-12-03-taps-ring-h200.md call 3, 2026-12-03-stages-h200.md). The
  // comparison takes the GEMM's prediction times 1.33, the factor that picks best over those 27:
  // the pick's time over the faster one's 1.104 -> 1.006 (geometric mean), the worst 1.45x ->
  // 1.14x. Fitted, not held out: 1.35, fitted on the first 17, lost 1.2x on two of the last ten
  // (C 40 -> K 240 at 25088 pixels, whose taps prediction is 1.34x the GEMM's).
  constexpr double kOneBlockGemmError = 1.33;
  ConvCandidate taps;
  bool taps_first = false;
  if (const core::Status t = conv_sm90_taps_supports(p); !t.is_ok()) {
    if (sm90.is_ok() && p.direction == ConvDirection::kForward) note(t.message());
  } else if (!options_.rank_conv_taps) {
    note("conv.sm90_taps is not ranked: BOO_CONV_TAPS=0 leaves it out");
  } else {
    taps = own_candidate(kConvSm90Taps, codegen::kConvSm90TapsPrefix, p, gemm_.device_model(),
                         &predict_conv_sm90_taps_us);
    const int64_t reduced = p.direction == ConvDirection::kBackwardData ? p.k : p.c;
    if (gemm_1x1 && !gemm_1x1_late && !options_.conv_taps_first && reduced < 64) {
      if (const std::optional<GemmCandidate> pick = gemm_1x1_pick()) {
        taps_first = taps.predicted_us < kOneBlockGemmError * pick->predicted_us;
        if (taps_first) {
          char text[160];
          std::snprintf(text, sizeof(text),
                        "; before conv.gemm_1x1 (its GEMM predicted %.1f us, %.1f with the "
                        "model's error on one partial k-block)",
                        pick->predicted_us, kOneBlockGemmError * pick->predicted_us);
          taps.reason += text;
          out.push_back(taps);
        }
      }
    }
  }
  ConvCandidate gemm_1x1_candidate;
  if (gemm_1x1) {
    // The GEMM algorithms have persistent, stream-K and split-K schedulers that the
    // non-persistent implicit GEMM lacks, and no im2col: first choice where they apply.
    gemm_1x1_candidate = {
        std::string(kConvGemm1x1), "", 0.0,
        "1x1, stride 1, no padding: the convolution is the GEMM " + gemm_1x1->gemm.key()};
    if (gemm_1x1_late) {
      gemm_1x1_candidate.reason +=
          " (after conv.sm90_implicit: its channels-first leading dimension is not whole 16 "
          "bytes)";
    } else {
      out.push_back(gemm_1x1_candidate);
    }
  } else {
    note(std::string(kConvGemm1x1) + " does not apply: " + gemm_1x1.status().message());
  }
  // conv.split_wgrad: its direct kernel first where it is predicted faster than every
  // conv.sm90_implicit config, split or not; the split configs before the unsplit ones only
  // where they are predicted faster than the best of those.
  const core::Status split_wgrad = conv_split_wgrad_supports(p);
  const bool rank_split = split_wgrad.is_ok() && options_.rank_conv_split_wgrad;
  bool wgrad_direct_first = direct_before_gemm;
  if (!direct_supports.is_ok()) {
    if (p.direction == ConvDirection::kBackwardWeight) note(direct_supports.message());
  } else if (!rank_direct) {
    note(std::string("conv.split_wgrad's direct kernel is not ranked: ") +
         (options_.rank_conv_split_wgrad ? "BOO_CONV_WGRAD_DIRECT=0" : "BOO_CONV_SPLIT_WGRAD=0") +
         " leaves it out");
  } else if (!direct_before_gemm) {
    double others = sm90.is_ok() ? best_sm90(predict_conv_sm90_us) : kNoLimit;
    if (rank_split) others = std::min(others, best_split_wgrad());
    // Grouped layers: against the dense block-diagonal expansion.
    if (conv_grouped_supports(p).is_ok() && options_.rank_conv_grouped) {
      others = std::min(others, best_sm90(predict_conv_grouped_us));
    }
    wgrad_direct_first = options_.conv_wgrad_direct_first || wgrad_direct.predicted_us < others;
    if (wgrad_direct_first) out.push_back(wgrad_direct);
  }
  if (!split_wgrad.is_ok()) {
    if (p.direction == ConvDirection::kBackwardWeight) note(split_wgrad.message());
  } else if (!options_.rank_conv_split_wgrad) {
    note("conv.split_wgrad is not ranked: BOO_CONV_SPLIT_WGRAD=0 leaves it out");
  } else {
    add_ranked(kConvSplitWgrad, best_sm90(predict_conv_sm90_us));
  }
  // conv.gemm_1d before conv.sm90_implicit where its GEMMs (each the GEMM heuristic's first
  // pick) are predicted faster than the implicit kernel's best config, after it otherwise.
  ConvCandidate gemm_1d;
  if (!windows.is_ok()) {
    if (p.spatial_dims == 1) note(windows.message());
  } else if (!options_.rank_conv_gemm_1d) {
    note("conv.gemm_1d is not ranked: BOO_CONV_GEMM_1D=0 leaves it out");
  } else {
    auto predicted_gemms = predict_conv_gemm_1d_us(p);
    if (!predicted_gemms) {
      note("conv.gemm_1d: " + predicted_gemms.status().message());
      if (options_.conv_gemm_1d_first) {
        gemm_1d = {std::string(kConvGemm1d), "", 0.0, "first: BOO_CONV_GEMM_1D=first"};
      }
    } else {
      char text[160];
      std::snprintf(text, sizeof(text),
                    "1D windows of the input as GEMMs: predicted %.1f us (the interior and %d "
                    "edge columns)",
                    predicted_gemms->first, predicted_gemms->second);
      gemm_1d = {std::string(kConvGemm1d), "", predicted_gemms->first, text};
    }
  }
  // Both predictions on one footing since conv.sm90_implicit's persistent kernel: on the public
  // n32 c512 w4096 k512 x3 line it measured 283.5 us (predicted 296.8), conv.gemm_1d 288.4
  // (predicted 294.3; H100, bench/results/2026-11-26-conv-coop-h100.md). (The non-persistent
  // kernel had measured 377.7 there, which a 1.27x reading of its prediction made up for.)
  // Below ten launches' worth of work the single implicit kernel wins: on the 20 lines of
  // tests/gpu/conv_gemm_1d.txt (implicit predicted 3 to 22 us) it was faster on 19, by 0.4 to
  // 29 us (conv.gemm_1d pays a launch per edge column and the persistent GEMM's fixed cost;
  // H100, 2026-11-26, bench/results/2026-11-26-conv-gemm-1d-h100.md).
  const double launch_us = gemm_.device_model().launch_us;
  const double implicit_us = sm90.is_ok() ? best_sm90(predict_conv_sm90_us) : kNoLimit;
  const bool gemm_1d_first =
      !gemm_1d.algorithm.empty() &&
      (options_.conv_gemm_1d_first || !sm90.is_ok() ||
       (implicit_us >= 10.0 * launch_us && gemm_1d.predicted_us < implicit_us));
  if (gemm_1d_first) out.push_back(gemm_1d);
  // conv.sm90_taps before conv.sm90_implicit where it is predicted faster than its best config,
  // after it otherwise (before conv.gemm_1x1 above where it beat the GEMM's first pick).
  if (!taps.algorithm.empty() && !taps_first) {
    taps_first = options_.conv_taps_first || taps.predicted_us < implicit_us;
    // BOO_CONV_TAPS=first: ahead of everything, the GEMM algorithms included.
    if (options_.conv_taps_first) {
      out.insert(out.begin(), taps);
    } else if (taps_first) {
      out.push_back(taps);
    }
  }
  if (sm90.is_ok() || (phases.is_ok() && channels_aligned(p))) {
    if (!sm90.is_ok()) note(sm90.message() + "; its configs run as forward stride phases");
    add_ranked(kConvSm90Implicit, kNoLimit);
  } else {
    note(sm90.message());
    if (p.direction == ConvDirection::kBackwardData) {
      note(phases.is_ok() ? std::string("conv.padded_channels runs its configs as forward stride "
                                        "phases behind the padding copies")
                          : phases.message());
    }
  }
  if (gemm_1x1_late) out.push_back(gemm_1x1_candidate);
  if (!taps.algorithm.empty() && !taps_first) out.push_back(taps);
  if (!wgrad_direct.algorithm.empty() && !wgrad_direct_first) out.push_back(wgrad_direct);
  if (!gemm_1d.algorithm.empty() && !gemm_1d_first) out.push_back(gemm_1d);
  if (pointwise.is_ok() && options_.rank_conv_pointwise && !pointwise_first) {
    out.push_back(pointwise_candidate);
  }
  if (const core::Status d = conv_depthwise_supports(p); !d.is_ok()) {
    note(d.message());
  } else if (p.direction != ConvDirection::kForward && !options_.rank_conv_depthwise_backward) {
    note(
        "conv.depthwise's backward passes are not ranked: BOO_CONV_DEPTHWISE_BACKWARD=0 leaves "
        "them out");
  } else {
    out.push_back(own_candidate(kConvDepthwise, codegen::kConvDepthwisePrefix, p,
                                gemm_.device_model(), &predict_conv_depthwise_us));
  }
  // Roughly 10 TFLOP/s of fp32 FMAs for a thread per output element.
  const double direct_us = p.flops() / 10e12 * 1e6;
  // conv.grouped: the direct kernel for narrow groups, and the dense expansion (G times the
  // work). The direct kernel comes first where it is predicted faster than the expansion's best
  // config (or the expansion is out), else after it.
  const core::Status grouped = conv_grouped_supports(p);
  const bool rank_dense = grouped.is_ok() && options_.rank_conv_grouped;
  ConvCandidate direct_grouped;
  bool direct_first = false;
  if (const core::Status narrow = conv_grouped_direct_supports(p); !narrow.is_ok()) {
    if (p.groups > 1 && p.groups < p.c) note(narrow.message());
  } else if (!options_.rank_conv_grouped_direct || !options_.rank_conv_grouped) {
    note(std::string("conv.grouped's direct kernel is not ranked: ") +
         (options_.rank_conv_grouped ? "BOO_CONV_GROUPED_DIRECT=0" : "BOO_CONV_GROUPED=0") +
         " leaves it out");
  } else {
    direct_grouped = own_candidate(kConvGrouped, codegen::kConvGroupedDirectPrefix, p,
                                   gemm_.device_model(), &predict_conv_grouped_direct_us);
    direct_first = !rank_dense || direct_grouped.predicted_us < best_sm90(predict_conv_grouped_us);
    if (direct_first) out.push_back(direct_grouped);
  }
  if (!grouped.is_ok()) {
    note(grouped.message());
  } else if (!options_.rank_conv_grouped) {
    note("conv.grouped is not ranked: BOO_CONV_GROUPED=0 leaves it out");
  } else {
    // Where the dense expansion beats conv.direct, which measured 3.4x its model on the G = 32
    // ResNeXt layer (638 us, bench/results/2026-11-23-conv-h100.md).
    add_ranked(kConvGrouped, 3.4 * direct_us);
  }
  if (!direct_grouped.algorithm.empty() && !direct_first) out.push_back(direct_grouped);
  out.push_back({std::string(kConvDirect),
                 std::string(codegen::kConvDirectPrefix) + space::conv_class_of(p).name(),
                 direct_us, "fallback: always correct"});
  return out;
}

core::Expected<codegen::KernelSource> ConvDispatcher::source(const ConvCandidate& c) const {
  // conv.grouped has configs of both kinds: its direct kernel's and conv.sm90_implicit's.
  const bool own_config =
      std::any_of(std::begin(codegen::kConvOwnKernels), std::end(codegen::kConvOwnKernels),
                  [&](const codegen::ConvOwnKernel& own) {
                    return c.algorithm == own.name && c.config.rfind(own.prefix, 0) == 0;
                  });
  if (!own_config && (c.algorithm == kConvSm90Implicit || c.algorithm == kConvPaddedChannels ||
                      c.algorithm == kConvGrouped || c.algorithm == kConvSplitWgrad)) {
    BOO_ASSIGN_OR_RETURN(space::ConvSm90Config config, space::ConvSm90Config::parse_name(c.config));
    return codegen::conv_sm90_source(config);
  }
  for (const codegen::ConvOwnKernel& own : codegen::kConvOwnKernels) {
    if (c.algorithm != own.name || c.config.rfind(own.prefix, 0) != 0) continue;
    BOO_ASSIGN_OR_RETURN(
        space::ConvClass cls,
        space::ConvClass::parse_name(std::string_view(c.config).substr(own.prefix.size())));
    return own.source(cls);
  }
  return core::invalid_argument(c.algorithm + " " + c.config + " has no kernel source of its own");
}

core::Status ConvDispatcher::try_kernel(const ops::ConvProblem& p, const ConvCandidate& c,
                                        ConvPlan& plan) {
  BOO_ASSIGN_OR_RETURN(codegen::KernelSource src, source(c));
  BOO_ASSIGN_OR_RETURN(plan.kernel, cache_.get(src));
  if (plan.kernel->kind != BOO_KIND_CONV) {
    return core::internal_error(c.config + ": the kernel object is not a convolution kernel");
  }
  const BooConvArgs args =
      make_conv_args(p, fake_pointers(p), device_, gemm_.device_model().sm_count);
  char why[256] = {0};
  if (plan.kernel->supports(&args, why, sizeof(why)) != BOO_OK) {
    return core::unsupported(c.config + " rejects the problem: " + why);
  }
  plan.workspace_bytes = plan.kernel->workspace(&args);
  if (plan.workspace_bytes < 0) return core::unsupported(c.config + ": no workspace size");
  plan.algorithm = c.algorithm;
  plan.config = c.config;
  return core::Status::ok();
}

core::Expected<std::vector<ConvAsGemm>> conv_as_gemms(std::string_view algorithm,
                                                      const ops::ConvProblem& p) {
  if (algorithm == kConvGemm1d) return conv_as_gemm_1d(p);
  BOO_ASSIGN_OR_RETURN(ConvAsGemm one, conv_as_gemm_1x1(p));
  return std::vector<ConvAsGemm>{one};
}

core::Expected<std::pair<double, int>> ConvDispatcher::predict_conv_gemm_1d_us(
    const ops::ConvProblem& p) const {
  BOO_ASSIGN_OR_RETURN(std::vector<ConvAsGemm> gemms, conv_as_gemm_1d(p));
  double us = 0.0;
  for (const ConvAsGemm& m : gemms) {
    BOO_ASSIGN_OR_RETURN(std::vector<GemmCandidate> c, gemm_.candidates(m.gemm, nullptr));
    const auto ranked = std::find_if(c.begin(), c.end(),
                                     [](const GemmCandidate& x) { return x.predicted_us > 0.0; });
    if (ranked == c.end()) return core::unsupported("no GEMM heuristic pick for " + m.gemm.key());
    us += ranked->predicted_us;
  }
  return std::make_pair(us, static_cast<int>(gemms.size()) - 1);
}

core::Expected<std::unique_ptr<ConvPlan>> ConvDispatcher::choose(const ops::ConvProblem& p) {
  auto plan = std::make_unique<ConvPlan>();
  plan->problem = p;
  std::vector<std::string>& why = plan->explanation;
  BOO_ASSIGN_OR_RETURN(std::vector<ConvCandidate> list, candidates(p, &why));
  core::Status last = core::Status::ok();
  for (const ConvCandidate& c : list) {
    if (c.algorithm == kConvGemm1x1 || c.algorithm == kConvGemm1d) {
      // The GEMMs this convolution is, each planned by the GEMM dispatcher.
      auto mappings = conv_as_gemms(c.algorithm, p);
      std::vector<const GemmPlan*> plans;
      std::string configs;
      last = mappings.status();
      for (size_t i = 0; mappings && i < mappings->size() && last.is_ok(); ++i) {
        auto gp = gemm_.plan((*mappings)[i].gemm);
        last = gp.status();
        if (!gp) break;
        plans.push_back(*gp);
        const std::string config = (*gp)->algorithm + " " + (*gp)->config;
        if (i == 0) configs = config;
        if (i == 1) configs += ", edges " + config;
        if (i > 1) configs += ", " + config;
        for (const std::string& line : (*gp)->explanation) why.push_back("  gemm: " + line);
      }
      if (!last.is_ok()) {
        why.push_back("skipped " + c.algorithm + ": " + last.message());
        if (!options_.force_config.empty()) return last;
        continue;
      }
      plan->algorithm = c.algorithm;
      plan->config = configs;
      plan->gemms = std::move(plans);
      plan->mappings = std::move(*mappings);
      why.push_back("chose " + c.algorithm + " -> " + plan->config + " (" + c.reason + ")");
      return plan;
    }
    last = try_kernel(p, c, *plan);
    if (last.is_ok()) {
      why.push_back("chose " + c.config + " (" + c.reason + ")");
      return plan;
    }
    why.push_back("skipped " + c.config + ": " + last.message());
    warn_if_not_compiled(c.config, last);
    if (!options_.force_config.empty()) return last;
  }
  return core::unavailable("no convolution kernel could be built for " + p.key() + ": " +
                           last.message());
}

core::Expected<const ConvPlan*> ConvDispatcher::plan(const ops::ConvProblem& p) {
  auto it = plans_.find(p);
  if (it != plans_.end()) return it->second.get();
  BOO_ASSIGN_OR_RETURN(std::unique_ptr<ConvPlan> plan, choose(p));
  const ConvPlan* out = plan.get();
  plans_.emplace(p, std::move(plan));
  return out;
}

core::Status ConvDispatcher::run(const ConvPlan& plan, const ConvPointers& ptrs, void* stream,
                                 bool dry_run) {
  if (plan.algorithm == kConvGemm1x1 || plan.algorithm == kConvGemm1d) {
    const int64_t bytes = core::dtype_bytes(plan.problem.dtype);
    for (size_t i = 0; i < plan.mappings.size(); ++i) {
      const ConvAsGemm& m = plan.mappings[i];
      auto tensor = [&](char which, int64_t offset) -> void* {
        void* base = which == 'x' ? ptrs.x : which == 'w' ? ptrs.w : ptrs.y;
        return static_cast<char*>(base) + offset * bytes;
      };
      GemmPointers g;
      g.a = tensor(m.a, m.a_offset);
      g.b = tensor(m.b, m.b_offset);
      g.d = tensor(m.d, m.d_offset);
      g.bias = plan.problem.bias ? ptrs.bias : nullptr;
      const GemmPlan* gp = plan.gemms[i];
      if (!g.aligned_16()) {
        BOO_ASSIGN_OR_RETURN(gp, gemm_.plan(m.gemm, false));
      }
      BOO_RETURN_IF_ERROR(gemm_.run(*gp, g, stream, dry_run));
    }
    return core::Status::ok();
  }
  BooConvArgs args = make_conv_args(plan.problem, ptrs, device_, gemm_.device_model().sm_count);
  args.dry_run = dry_run ? 1 : 0;
  BOO_ASSIGN_OR_RETURN(const int64_t bytes, conv_workspace_for(plan, args));
  void* ws = nullptr;
  if (bytes > 0) {
    BOO_ASSIGN_OR_RETURN(ws, workspace_.reserve(bytes));
  }
  return run_kernel(*plan.kernel, &args, ws, bytes, stream, plan.config);
}

core::Expected<int64_t> conv_workspace_for(const ConvPlan& plan, const BooConvArgs& args) {
  if (ConvPointers{args.x, args.w, args.y, args.bias}.aligned_16()) return plan.workspace_bytes;
  const int64_t need = plan.kernel->workspace(&args);
  if (need < 0) {
    char why[256] = {0};
    plan.kernel->supports(&args, why, sizeof(why));
    return core::unsupported(plan.config + " takes no tensors at these addresses: " +
                             (why[0] != 0 ? std::string(why) : "no workspace size"));
  }
  return std::max(need, plan.workspace_bytes);
}

core::Status ConvDispatcher::conv(const ops::ConvProblem& p, const ConvPointers& ptrs,
                                  void* stream) {
  BOO_ASSIGN_OR_RETURN(const ConvPlan* plan, this->plan(p));
  return run(*plan, ptrs, stream);
}

}  // namespace boo::dispatch
