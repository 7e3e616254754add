// The models of boo's own convolution kernels, beside the conv dispatcher (conv_dispatcher.cc):
// for each of conv.depthwise, conv.pointwise, conv.grouped's direct kernels, conv.split_wgrad's
// direct kernels (mma.sync, wgmma, fp32 1x1), conv.sm90_taps and conv.padded_channels' direct
// kernel, whether it takes a problem and its predicted time, with the constants fitted to the
// measurements they cite.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

#include "../../kernels/conv_depthwise_rolling_plan.cuh"
#include "../../kernels/conv_few_channels_boxes.cuh"
#include "../../kernels/conv_grouped_plan.cuh"
#include "../../kernels/conv_taps_plan.cuh"
#include "../../kernels/conv_wgrad_1x1_plan.cuh"
#include "boo/dispatch/conv_args.h"
#include "boo/dispatch/conv_dispatcher.h"
#include "conv_model_util.h"

namespace boo::dispatch {
namespace {

using conv_model::ceil_div;
using conv_model::planes_of;
using conv_model::product;
using conv_model::relayout_bytes;
using ops::ConvDirection;

// conv.depthwise (kernels/conv_depthwise.cuh, tiled kernel): the share of the copy bandwidth
// its loads and stores reach, and the filter taps times output elements it applies per second
// on 132 SMs. Fitted on an H100 (bench/results/2026-11-23-conv-depthwise-h100.md: predicted /
// measured from 0.8 to 1.2 on six of its eight problems, 1.66 on the 7x7 one and 0.59 on the
// NCHW one, whose layout copies cost more than modelled); the kernel is bound by its
// instructions more than by HBM so far.
constexpr double kDepthwiseBandwidthShare = 0.4;
constexpr double kDepthwiseTapRate = 2.2e12;
// Its row kernel (kernels/conv_depthwise_rows.cuh), where it applies: fitted on an H100 over
// bench/workloads/conv_depthwise.txt (bench/results/2026-11-27-conv-depthwise-rows-h100.md: the
// public 3x3 at 61% of its floor, 5x5 and 7x7 layers at 5.2-5.7e12 taps per second).
constexpr double kDepthwiseRowsBandwidthShare = 0.6;
constexpr double kDepthwiseRowsTapRate = 5.5e12;
// Its rolling kernel (kernels/conv_depthwise_rolling.cuh: 3x3, stride 1), where it applies: the
// taps it computes (its plan's segments take 2 steps more than their rows, its strips are 8
// columns wide) at a rate a 16-bit vector of two channels sets (fp32: one channel, half the
// rate), and the share of the copy bandwidth its loads and stores reach. Fitted on an H200
// (bench/results/2026-11-29-depthwise-rolling-h200.md: six lines from 7x7 to 112x112, predicted
// / measured 0.88-1.14).
constexpr double kDepthwiseRollingBandwidthShare = 0.72;
constexpr double kDepthwiseRollingTapRate = 7.5e12;
// conv.pointwise (kernels/conv_pointwise.cuh). The tensor-core kernel (16-bit types): a fixed
// cost past the launch (a block's filter tables and the first tile's latency) and the share of
// the copy bandwidth it streams at, fitted on an H100 over tests/gpu/conv_pointwise.txt (16.5 us
// for the 27.5 MB of the public C = 35 line, 10.6-10.9 us for 7.5-8.4 MB, 8.1 us for 1.6 MB;
// bench/results/2026-11-27-conv-pointwise-h100.md). The fp32 kernel: the share its staged loads
// and stores reach (0.35 at C = K = 35, 2026-11-25), and its FMAs per second on 132 SMs (an
// estimate: a quarter of the issue slots read the filter from shared memory).
constexpr double kPointwiseMmaFixedUs = 4.5;
constexpr double kPointwiseMmaBandwidthShare = 0.9;
constexpr double kPointwiseBandwidthShare = 0.35;
constexpr double kPointwiseFmaRate = 18e12;
// conv.grouped's direct kernel (kernels/conv_grouped_direct.cuh): the share of the copy
// bandwidth it reaches (0.37 fitted on an H100: 42.7 us for the 51.4 MB of the public ResNeXt
// line, bench/results/2026-11-25-conv-grouped-direct-h100.md) and its mma.sync FLOPs per second
// on 132 SMs (an estimate: a ldmatrix.x4 of 512 bytes per 4096-FLOP mma bounds it near 150
// TFLOP/s).
constexpr double kGroupedDirectBandwidthShare = 0.37;
constexpr double kGroupedDirectMmaRate = 100e12;
// Its TMA kernel (kernels/conv_grouped_tma.cuh): the share of the copy bandwidth it reaches on
// an H100 (0.58: 29.3 us for the public ResNeXt line's 51.4 MB, 29.7 for an fp16 G = 64 layer
// of 51.5 MB; bench/results/2026-11-27-conv-grouped-tma-h100.md). Its small-plane layers meet the
// mma rate above (n64 c1024 7x7: 19 us measured, 18.5 predicted).
constexpr double kGroupedTmaBandwidthShare = 0.58;
// conv.split_wgrad's direct kernel (kernels/conv_wgrad_direct.cuh): its mma.sync FLOPs per
// second on 132 SMs, counting the padded steps, and a fixed cost per pixel tile (fitted on an
// H100 to the public n64 c64 56x56 3x3 line on 128- and 256-pixel tiles, 71.1 and 63.5 us; 37%
// of the tensor pipe: 3 warps a scheduler at 166 registers), and the share of the copy
// bandwidth its slices' fp32 partials move at (written, then read by the reduction, mostly in
// L2; bench/results/2026-11-26-conv-wgrad-direct-h100.md).
constexpr double kWgradDirectMmaRate = 358e12;
// Its tf32 form (fp32 layers; m16n8k8 with 64-bit shared loads): half the 16-bit tensor rate
// and twice the shared-memory loads per FLOP (an estimate), and the whole tf32 prediction times
// kWgradDirectTf32Fit: the geometric mean of measured / predicted on the seven NHWC lines of
// bench/results/2026-11-29-wgrad-tf32-h200.md with the operands rounded (1.03-1.38; H200).
constexpr double kWgradDirectTf32MmaRate = 150e12;
constexpr double kWgradDirectTf32Fit = 1.16;
// Its shared memory: 200 KB a block (kWgradMaxShared).
constexpr int64_t kWgradDirectMaxShared = 200 * 1024;
// Its wgmma kernel (kernels/conv_wgrad_wgmma.cuh; stride 1, C and K multiples of 64, at most 9
// taps): a fixed cost (two launches and the first tile), per tile and SM a cost per KB staged and
// per GFLOP of wgmma issued, and per MB of fp32 slices written and read; least squares on an H100.
struct WgmmaWgradCosts {
  double fixed_us, us_per_kb, us_per_gflop, us_per_slice_mb;
};
// Tiles staged by cp.async (rows wider than one tile): over the 22 channels-last lines the
// kernel took in bench/results/2026-11-27-conv-wgrad-wgmma-ab-h100.csv, all of them staged by
// cp.async then (within 10% on 20: public line 50.0 us predicted, 51.1 measured).
constexpr WgmmaWgradCosts kWgmmaWgradCopied = {10.7, 0.0296, 128.4, 0.191};
// Tiles staged by TMA (whole rows), the reduction launched as a programmatic dependent: over the
// 18 channels-last lines it stages so in bench/results/2026-11-27-conv-wgrad-pdl-ab-h100.csv
// (medians of 2 repeats; within 5% on 13, 10% on 17: public line 41.3 us predicted, 42.5
// measured). The copies hide under the wgmma: a cost per KB fits near zero, so the model has none.
constexpr WgmmaWgradCosts kWgmmaWgradTma = {9.99, 0.0, 176.5, 0.2417};
constexpr double kWgradDirectTileUs = 1.03;
constexpr double kWgradDirectPartialShare = 1.5;
// Its fp32 1x1 kernel (kernels/conv_wgrad_1x1.cuh): a fixed cost a tile (two barriers, the
// rounding pass, the first loads' latency), the bytes a block of 4 or more warps stages per us
// and an SM's at most, the latency of 32 slices summed in the reduction, and a fixed cost past
// the two launches. Fitted on an H200 to 12 lines of bench/results/2026-11-29-forced-lines-h200.md
// (the wgrad1x1 call: 56.4 us for n32 c256 56x56 k64, 23.6 for n8 c1000 7x7 k520, 6.5-13.6 for
// small ones; within about 15% on 10 of them) and to n64 c16 56x56 k16 on one one-warp block an
// SM (66.1 us: 4.8 us a 128-pixel tile); the sum's latency from that line on 13 one-warp blocks
// an SM and 1716 slices (24.2 us).
constexpr double kOneByOneWgradTileUs = 1.0;
constexpr double kOneByOneWgradCopyRate = 25e3;  // bytes per us
constexpr double kOneByOneWgradSmRate = 30e3;
constexpr double kOneByOneWgradSumUs = 0.05;
constexpr double kOneByOneWgradFixedUs = 0.5;
// conv.sm90_taps (kernels/conv_taps_wgmma.cuh): its wgmma's share of the 16-bit tensor peak per
// SM while a tile's taps issue; a warpgroup's epilogue (bias, activation, stmatrix, the TMA store
// reading the stage), which runs under the other warpgroup's mma where those take longer; a fixed
// cost past the launch (the filter and the first boxes of every block at once); the share of the
// copy bandwidth its boxes move x and y at (an estimate). Fitted on an H100 to n64 and n32 c64
// 56x56 3x3 (7 and 4 tiles a block: 30.5 and 21.0 us) and the 1D n32 W 4096 x3 (5 tiles of 3
// taps: 16.3 us); within 10% on K = 128 and 256, 14x14 and row pieces, 11% under on 112x112;
// fp16 64x64 +bias +silu measured 1.75x it (bench/results/2026-11-27-conv-taps-h100.md). Not
// refit since the mma runs in turns at the width the tiles need (scaled by n / 256 here): on an
// H200 its predictions were 0.90-1.10 of 18 lines' times, 224-wide rows in 120-position pieces
// 0.90 (2026-11-30-taps-turns-h200.md).
constexpr double kTapsMmaShare = 0.795;
constexpr double kTapsEpilogueUs = 2.14;
constexpr double kTapsBandwidthShare = 0.80;
constexpr double kTapsFixedUs = 5.3;
// Backward data first turns the filter around in the workspace: one small kernel more, which
// the main kernel, a programmatic dependent launch, overlaps with its set-up and first boxes
// (the public n64 c64 56x56 3x3 backward data: 33.7-34.9 us against 30.5 forward with the two
// launched apart, 32.2-32.5 overlapped; bench/results/2026-11-27-conv-taps-h100.md,
// 2026-11-27-conv-taps-dgrad-pdl-h100.md).
constexpr double kTapsTurnUs = 1.6;

// conv.padded_channels' direct kernel (kernels/conv_few_channels.cuh), fitted on an H200
// (bench/results/2026-11-26-conv-few-channels-h200.md): a fixed cost beyond the launch, the
// block's filter set-up per batch of 2048 weights (eight loads in flight a thread), and per
// tile a block walks: per warp step (four mma.sync of 16 output channels), per staged input
// element a thread, per 16-byte output vector a thread. (The per-tile costs come from the C = 3
// stem with the staging, the mma and the stores each left out in turn.) The step cost, 0.11 us
// on mma.sync, is 0.08 on warpgroup MMA: the stem went 122.3 -> 107.9 us (12 tiles a block; the
// other seven lines 2-13% faster, bench/results/2026-11-29-few-wgmma-h200.md).
constexpr double kFewChannelsFixedUs = 4.25;
constexpr double kFewChannelsSetupUs = 1.04;
constexpr double kFewChannelsStepUs = 0.08;
constexpr double kFewChannelsStageUs = 0.118;
constexpr double kFewChannelsStoreUs = 0.216;
// With TMA (2026-11-29-few-tma-h200.md) the next tile's input is copied under this one's MMA and
// the output goes out as one box: the stem 116.5 -> 84.5 us, fitted as these shares of the
// staging and store costs (where the kernel's plan takes each path).
// The epilogue's predicated stores (2026-11-30-weak-picks-h200.md) took the stem to 69-74 us
// (predicted 84.8) and small element-staged lines 4% down on the geometric mean. Not refit: 19
// other lines are predicted within 0.75-1.18x of their times, in both directions, and the stem is
// picked anyway.
constexpr double kFewChannelsTmaStageShare = 0.5;
constexpr double kFewChannelsTmaStoreShare = 0.6;

}  // namespace

core::Status conv_depthwise_supports(const ops::ConvProblem& p) {
  BOO_RETURN_IF_ERROR(p.validate());
  if (p.groups < 2 || p.groups != p.c) {
    return core::unsupported("conv.depthwise does not apply: groups (" + std::to_string(p.groups) +
                             ") is not C (" + std::to_string(p.c) + ")");
  }
  if (p.direction == ConvDirection::kBackwardWeight && product(p.filter) > 64) {
    return core::unsupported("conv.depthwise: backward weight takes at most 64 filter taps");
  }
  if (p.direction == ConvDirection::kBackwardData) {
    // The forward kernel on dy with the filter flipped (kernels/conv_depthwise.cuh).
    if (p.k != p.c) {
      return core::unsupported("conv.depthwise: backward data needs K = C (multiplier 1)");
    }
    for (size_t i = 0; i < p.filter.size(); ++i) {
      if (p.stride[i] != 1) {
        return core::unsupported("conv.depthwise: backward data needs stride 1");
      }
      if (p.padding[i] > p.dilation[i] * (p.filter[i] - 1)) {
        return core::unsupported(
            "conv.depthwise: backward data needs padding within the dilated filter");
      }
    }
  }
  if (core::is_fp8(p.dtype)) return core::unsupported("conv.depthwise: no fp8 convolutions");
  return core::Status::ok();
}

namespace {

// A direct kernel of ours: x read once and y written once at `share` of the copy bandwidth (the
// filter stays on chip), or its arithmetic (`compute_us`), whichever is longer; plus the layout
// copies of tensors that are not channels-last, and a launch.
double predict_direct_us(const ops::ConvProblem& p, const DeviceModel& d, double share,
                         double compute_us, const char* kernel, const char* arithmetic,
                         std::string* why, bool in_place = false) {
  const double memory_us = static_cast<double>(p.min_bytes()) / (share * d.bandwidth_gbs * 1e3);
  const int64_t copies = in_place ? 0 : relayout_bytes(p);
  const double copy_us =
      copies > 0 ? static_cast<double>(copies) / (d.bandwidth_gbs * 1e3) + d.launch_us : 0.0;
  if (why != nullptr) {
    char text[160];
    std::snprintf(text, sizeof(text), "%s, %.1f us memory, %.1f us %s%s", kernel, memory_us,
                  compute_us, arithmetic, copies > 0 ? ", + layout copies" : "");
    *why = text;
  }
  return std::max(memory_us, compute_us) + copy_us + d.launch_us;
}

}  // namespace

// Whether conv.depthwise runs its row kernel: DepthwiseRows::fits in
// kernels/conv_depthwise_rows.cuh on the packed channels-last tensors the kernel sees (backward
// data is the forward convolution of dy, with K = C and stride 1).
bool depthwise_rows_apply(const ops::ConvProblem& p) {
  if (p.direction == ConvDirection::kBackwardWeight) return false;
  const int64_t vector = 8 / static_cast<int64_t>(core::dtype_bytes(p.dtype));
  const int64_t width = p.filter.back();
  const int64_t stride = p.direction == ConvDirection::kForward ? p.stride.back() : 1;
  const int64_t m = p.k / p.c;
  const bool multiplier = m == 1 || (m == 2 && (width == 3 || width == 5));
  const bool filter = width == 3 || width == 5 || width == 7 || (width == 9 && stride == 1);
  if (!(p.groups == p.c && p.k % p.c == 0 && multiplier && p.k % vector == 0 &&
        p.dilation.back() == 1 && (stride == 1 || stride == 2) && filter)) {
    return false;
  }
  // The filter rows and the staged filter (fp32, for at most 64 vectors of channels a block)
  // within the kernel's limits.
  int64_t taps = 1;
  for (size_t i = 0; i < p.filter.size(); ++i) {
    if (i + 1 < p.filter.size() && p.filter[i] > 64) return false;
    taps *= p.filter[i];
  }
  const int64_t vectors = p.k / vector;
  const int64_t chunks = (vectors + 63) / 64;
  return taps * ((vectors + chunks - 1) / chunks) * vector * 4 <= 96 * 1024;
}

namespace {

// The output of conv.depthwise's forward kernels: y, or dx for backward data (the forward pass
// over dy).
std::vector<int64_t> depthwise_kernel_output(const ops::ConvProblem& p) {
  return p.direction == ConvDirection::kForward ? p.output() : p.input;
}

}  // namespace

// Whether conv.depthwise runs its rolling kernel: DepthwiseRolling::fits in
// kernels/conv_depthwise_rolling.cuh on the channels-last tensors the kernel sees (multiplier 1,
// a 3x3 filter of depth 1, stride 1 and no dilation along H and W, 4-byte channel vectors;
// backward data is the forward convolution of dy).
bool depthwise_rolling_apply(const ops::ConvProblem& p) {
  const size_t d = p.filter.size();
  if (p.direction == ConvDirection::kBackwardWeight || d < 2 || p.groups != p.c || p.k != p.c ||
      p.k % (4 / static_cast<int64_t>(core::dtype_bytes(p.dtype))) != 0) {
    return false;
  }
  for (size_t i = 0; i < d; ++i) {
    const bool plane = i + 2 >= d;  // H and W
    if (plane && (p.filter[i] != 3 || p.stride[i] != 1 || p.dilation[i] != 1)) return false;
    if (!plane && p.filter[i] != 1) return false;
  }
  // The kernel's images (batch x output depth) and (image, segment, strip) items are ints
  // (DepthwiseRolling::fits; its blocks are ints too, fewer than the items).
  const std::vector<int64_t> out = depthwise_kernel_output(p);
  const int64_t images = planes_of(p, out);
  if (images > std::numeric_limits<int32_t>::max() / 4) return false;
  const int64_t strips = ceil_div(out.back(), boo_kernels::kRollOutputs);
  return images * strips * out[out.size() - 2] + boo_kernels::kRollThreads <=
         std::numeric_limits<int32_t>::max();
}

// Whether conv.depthwise's forward pass runs its plane kernel on the caller's tensors:
// DepthwisePlanes::fits in kernels/conv_depthwise_planes.cuh (packed NCHW x and y, "same"
// filters 3-9 wide along W, W in whole 16-byte vectors).
bool depthwise_planes_apply(const ops::ConvProblem& p) {
  if (p.direction != ConvDirection::kForward || p.groups != p.c || p.k % p.c != 0) return false;
  if (p.in_layout != core::Layout::kChannelsFirst || p.out_layout != core::Layout::kChannelsFirst) {
    return false;
  }
  const int64_t width = p.filter.back();
  const int64_t vector = 16 / core::dtype_bytes(p.dtype);
  return (width == 3 || width == 5 || width == 7 || width == 9) && p.stride.back() == 1 &&
         p.dilation.back() == 1 && p.padding.back() == (width - 1) / 2 &&
         p.input.back() % vector == 0;
}

namespace {

// The rolling kernel's taps: its output's (y forward, dx for backward data, the forward pass
// over dy) times the 9 of the filter, with the steps its plan's segments add above and below and
// the columns its last strip computes past the image, in 16-bit-vector units (an fp32 tap counts
// twice).
double depthwise_rolling_taps(const ops::ConvProblem& p, const DeviceModel& d) {
  const std::vector<int64_t> out = depthwise_kernel_output(p);
  const int64_t out_h = out[out.size() - 2], out_w = out.back();
  const int64_t images = planes_of(p, out);
  const int64_t bytes = static_cast<int64_t>(core::dtype_bytes(p.dtype));
  const boo_kernels::RollingPlan plan =
      boo_kernels::rolling_plan(p.k, 4 / bytes, images, out_h, out_w, d.sm_count);
  const double steps =
      static_cast<double>(plan.segments) * (plan.rows + boo_kernels::kRollTaps - 1);
  const double columns = static_cast<double>(plan.strips) * boo_kernels::kRollOutputs;
  return static_cast<double>(images * p.k) * boo_kernels::kRollTaps * boo_kernels::kRollTaps *
         steps * columns * (bytes == 4 ? 2.0 : 1.0);
}

}  // namespace

double predict_conv_depthwise_us(const ops::ConvProblem& p, const DeviceModel& d,
                                 std::string* why) {
  double taps =
      static_cast<double>(p.y_desc().element_count()) * static_cast<double>(product(p.filter));
  const bool planes = depthwise_planes_apply(p);
  const bool rolling = !planes && depthwise_rolling_apply(p);
  const bool rows = planes || (!rolling && depthwise_rows_apply(p));
  if (rolling) taps = depthwise_rolling_taps(p, d);
  const double share = rolling ? kDepthwiseRollingBandwidthShare
                       : rows  ? kDepthwiseRowsBandwidthShare
                               : kDepthwiseBandwidthShare;
  const double rate = rolling ? kDepthwiseRollingTapRate
                      : rows  ? kDepthwiseRowsTapRate
                              : kDepthwiseTapRate;
  return predict_direct_us(p, d, share, taps / (rate * d.sm_count / 132.0) * 1e6,
                           planes    ? "direct depthwise kernel (NCHW planes)"
                           : rolling ? "direct depthwise kernel (rolling rows)"
                           : rows    ? "direct depthwise kernel (rows)"
                                     : "direct depthwise kernel",
                           "taps", why, planes);
}

core::Status conv_pointwise_supports(const ops::ConvProblem& p) {
  BOO_RETURN_IF_ERROR(p.validate());
  if (p.direction != ConvDirection::kForward) {
    return core::unsupported("conv.pointwise runs the forward pass only");
  }
  bool pointwise = p.groups == 1;
  for (size_t i = 0; i < p.filter.size(); ++i) {
    pointwise = pointwise && p.filter[i] == 1 && p.stride[i] == 1 && p.padding[i] == 0;
  }
  if (!pointwise) {
    return core::unsupported(
        "conv.pointwise does not apply: it needs a 1x1 filter, stride 1, no padding and groups "
        "1");
  }
  if (p.c > 64 || p.k > 64) {
    return core::unsupported("conv.pointwise does not apply: C=" + std::to_string(p.c) +
                             " K=" + std::to_string(p.k) + " (it takes at most 64 of each)");
  }
  if (core::is_fp8(p.dtype)) return core::unsupported("conv.pointwise: no fp8 convolutions");
  return core::Status::ok();
}

double predict_conv_pointwise_us(const ops::ConvProblem& p, const DeviceModel& d,
                                 std::string* why) {
  // 16-bit types multiply on tensor cores, whose time hides under the memory's; fp32 on CUDA
  // cores.
  if (p.dtype != core::DType::kF32) {
    return kPointwiseMmaFixedUs + predict_direct_us(p, d, kPointwiseMmaBandwidthShare, 0.0,
                                                    "super-row streaming 1x1 kernel (mma.sync)",
                                                    "FMAs", why);
  }
  const double fmas = static_cast<double>(p.n * product(p.input)) * static_cast<double>(p.c) *
                      static_cast<double>((p.k + 7) / 8 * 8);
  return predict_direct_us(p, d, kPointwiseBandwidthShare,
                           fmas / (kPointwiseFmaRate * d.sm_count / 132.0) * 1e6,
                           "pixel-streaming 1x1 kernel", "FMAs", why);
}

namespace {

// conv_grouped_direct_supports, with the TMA plan of the kernel conv.grouped's runner launches in
// `*tma` (tma->tiles > 0 where it is the TMA kernel).
core::Status grouped_direct_status(const ops::ConvProblem& p, boo_kernels::GroupedTmaPlan* tma) {
  *tma = boo_kernels::GroupedTmaPlan{};
  BOO_RETURN_IF_ERROR(p.validate());
  const std::string head = "conv.grouped's direct kernel does not apply: ";
  if (p.direction != ConvDirection::kForward) {
    return core::unsupported(head + "it runs the forward pass only");
  }
  if (p.groups < 2 || p.groups == p.c) {
    return core::unsupported(head + "groups = " + std::to_string(p.groups));
  }
  if (p.dtype != core::DType::kF16 && p.dtype != core::DType::kBF16) {
    return core::unsupported(head + "it runs fp16 and bf16 only");
  }
  const int64_t cg = p.c / p.groups, kg = p.k / p.groups;
  if (cg % 8 != 0 || kg % 8 != 0 || cg > 32 || kg > 32) {
    return core::unsupported(head + "C/G = " + std::to_string(cg) + " and K/G = " +
                             std::to_string(kg) + " (it takes multiples of 8 up to 32)");
  }
  // The runner's plans (kernels/conv_grouped_plan.cuh) on the problem's sizes.
  boo_kernels::GroupedPlan plan{};
  if (const char* e = boo_kernels::grouped_direct_plan(
          make_conv_args(p, ConvPointers{}, /*device=*/0, /*sm_count=*/132), &plan, tma)) {
    return core::unsupported(head + e);
  }
  return core::Status::ok();
}

}  // namespace

core::Status conv_grouped_direct_supports(const ops::ConvProblem& p) {
  boo_kernels::GroupedTmaPlan tma{};
  return grouped_direct_status(p, &tma);
}

// Whether conv.grouped's direct kernel runs its TMA kernel: the kernel's own plan
// (grouped_tma_plan) takes 1D and 2D layers whose blocks hold 64 output channels (K/G divides
// 64, K/G >= C/G, and 64 / (K/G) groups divide G) and whose tiles fit its shared memory; the
// rest run the cp.async kernel.
bool grouped_tma_applies(const ops::ConvProblem& p) {
  boo_kernels::GroupedTmaPlan tma{};
  return grouped_direct_status(p, &tma).is_ok() && tma.tiles > 0;
}

double predict_conv_grouped_direct_us(const ops::ConvProblem& p, const DeviceModel& d,
                                      std::string* why) {
  // The mma steps: output pixels (in m-tiles of 16) x K/G (n-tiles of 8) x the reduction in
  // steps of 16 (taps x C/G, rounded up), per group.
  const int64_t cg = p.c / p.groups, kg = p.k / p.groups;
  const double steps = static_cast<double>((product(p.filter) * cg + 15) / 16);
  const double flops = static_cast<double>(p.n * product(p.output()) * p.groups) *
                       static_cast<double>(kg) * steps * 16.0 * 2.0;
  const bool tma = grouped_tma_applies(p);
  return predict_direct_us(p, d, tma ? kGroupedTmaBandwidthShare : kGroupedDirectBandwidthShare,
                           flops / (kGroupedDirectMmaRate * d.sm_count / 132.0) * 1e6,
                           tma ? "per-group mma.sync kernel (TMA)" : "per-group mma.sync kernel",
                           "tensor-core steps", why);
}

core::Status conv_split_wgrad_direct_supports(const ops::ConvProblem& p) {
  BOO_RETURN_IF_ERROR(p.validate());
  const std::string head = "conv.split_wgrad's direct kernel does not apply: ";
  if (p.direction != ConvDirection::kBackwardWeight) {
    return core::unsupported(head + "backward weight only");
  }
  if (p.groups > 1) {
    // A block's 64 channels of dy and of x hold the same whole groups
    // (kernels/conv_wgrad_direct.cuh, wgrad_plan).
    const int64_t cg = p.c / p.groups;
    if (core::dtype_bytes(p.dtype) != 2 || p.c != p.k || p.c % 64 != 0 || cg % 8 != 0 ||
        64 % cg != 0) {
      return core::unsupported(head + "groups = " + std::to_string(p.groups) +
                               " (grouped layers need fp16 or bf16, C = K a multiple of 64 and "
                               "C/G in 8, 16, 32 or 64)");
    }
  }
  if (p.dtype == core::DType::kF32 && p.math != core::MathMode::kTF32) {
    return core::unsupported(head + "fp32 runs in tf32 only (--math fp32 asks for fp32 products)");
  }
  if (p.dtype != core::DType::kF16 && p.dtype != core::DType::kBF16 &&
      p.dtype != core::DType::kF32) {
    return core::unsupported(head + "it runs fp16, bf16 and tf32 only");
  }
  if (p.c % 8 != 0 || p.k % 8 != 0) {
    return core::unsupported(head + "C = " + std::to_string(p.c) +
                             " and K = " + std::to_string(p.k) + " (it takes multiples of 8)");
  }
  return core::Status::ok();
}

namespace {

// The reason text of conv.split_wgrad's direct kernels: the tiling, then `costs`.
std::string wgrad_reason(int64_t tiles, int64_t slices, int64_t chunks, const std::string& costs,
                         bool copies) {
  return std::to_string(tiles) + " pixel tiles in " + std::to_string(slices) + " slices x " +
         std::to_string(chunks) + " chunks: " + costs + (copies ? ", + layout copies" : "");
}

// The wgmma kernel's time where it takes `p` (the plan of kernels/conv_wgrad_wgmma.cuh,
// wgmma_wgrad_plan, spelled again for the host), or a negative value.
double predict_wgmma_wgrad_us(const ops::ConvProblem& p, const DeviceModel& d, double copy_us,
                              std::string* why) {
  const size_t dims = p.filter.size();
  const int64_t taps = product(p.filter);
  if (p.dtype == core::DType::kF32 || p.groups != 1) return -1.0;  // 16-bit, dense only
  if (p.c % 64 != 0 || p.k % 64 != 0 || taps > 9) return -1.0;
  for (int64_t s : p.stride) {
    if (s != 1) return -1.0;
  }
  if (dims == 3 && (p.filter[0] != 1 || p.padding[0] != 0)) return -1.0;
  const std::vector<int64_t> out = p.output();
  const int64_t fh = dims >= 2 ? p.filter[dims - 2] : 1, fw = p.filter.back();
  const int64_t dh = dims >= 2 ? p.dilation[dims - 2] : 1, dw = p.dilation.back();
  const int64_t ho = dims >= 2 ? out[dims - 2] : 1, wo = out.back();
  const int64_t reach_w = (fw - 1) * dw;
  if (reach_w + 16 > 256) return -1.0;
  const int64_t groups = ceil_div(taps, 3);
  const int64_t tiles_w = ceil_div(wo, 256 - reach_w), tw = ceil_div(wo, tiles_w);
  const int64_t pitch = tw + reach_w;
  // Tiles of whole rows (at most 256 pixels and rows a TMA box) are staged by TMA, in 2 stages
  // as the others.
  int64_t tiles_h = 0, staged = 0, y_pixels = 0, shared = 0;
  bool tma = false;
  for (int64_t rows = std::clamp<int64_t>(256 / pitch, 1, ho); rows >= 1; --rows) {
    tiles_h = ceil_div(ho, rows);
    const int64_t th = ceil_div(ho, tiles_h);
    y_pixels = ceil_div(th * pitch, 16) * 16;
    const int64_t x =
        std::max((th + (fh - 1) * dh) * pitch, y_pixels + (fh - 1) * dh * pitch + reach_w);
    const int64_t x_pixels = ceil_div(x, 8) * 8;
    tma = tiles_w == 1 && pitch <= 256 && th + (fh - 1) * dh <= 256;
    staged = (x_pixels + y_pixels) * 128;
    // The alignment slack, two stages, the pixels' table and an mbarrier a stage.
    shared = 1024 + 2 * (ceil_div(x_pixels * 128, 1024) + ceil_div(y_pixels * 128, 1024)) * 1024 +
             4 * x_pixels + 2 * 8;
    if (shared <= 220 * 1024) break;
  }
  if (shared > 220 * 1024) return -1.0;
  const int64_t tiles = planes_of(p, out) * tiles_h * tiles_w;
  const int64_t chunks = (p.k / 64) * (p.c / 64);
  const int64_t per_sm =
      std::max<int64_t>(1, std::min<int64_t>(232448 / (shared + 1024), 3 / groups));
  const int64_t walkers = std::min(tiles, std::max<int64_t>(1, d.sm_count * per_sm / chunks));
  const int64_t rounds = ceil_div(tiles, walkers) * ceil_div(chunks * walkers, d.sm_count * per_sm);
  const WgmmaWgradCosts& cost = tma ? kWgmmaWgradTma : kWgmmaWgradCopied;
  const double tile_us =
      static_cast<double>(staged) / 1e3 * cost.us_per_kb +
      2.0 * static_cast<double>(y_pixels * 64 * 64 * 3 * groups) / 1e9 * cost.us_per_gflop;
  const double slices_mb = 2.0 * static_cast<double>(walkers * p.k * p.c * taps) * 4.0 / 1e6;
  const double compute_us = static_cast<double>(rounds) * tile_us;
  const double reduce_us = slices_mb * cost.us_per_slice_mb;
  if (why != nullptr) {
    char costs[120];
    std::snprintf(costs, sizeof(costs),
                  "%.1f us wgmma tiles (%lld KB staged each%s), %.1f us fp32 slices", compute_us,
                  static_cast<long long>(staged / 1024), tma ? " by TMA" : "", reduce_us);
    *why = wgrad_reason(tiles, walkers, chunks, costs, copy_us > 0);
  }
  return cost.fixed_us + compute_us + reduce_us + copy_us;
}

// The fp32 1x1 kernel's time where it takes `p` (kernels/conv_wgrad_1x1_plan.cuh's plan), or a
// negative value: per slice its tiles, each a fixed cost and its staged bytes at a block's copy
// rate (fewer than 4 warps copy slower) or its share of the SM's; the slices' fp32 partials
// written and summed (a thread sums slices / 8 of them, 4 loads in flight); two launches.
double predict_onebyone_wgrad_us(const ops::ConvProblem& p, const DeviceModel& d, double copy_us,
                                 std::string* why) {
  if (p.dtype != core::DType::kF32 || p.groups != 1) return -1.0;
  for (size_t i = 0; i < p.filter.size(); ++i) {
    if (p.filter[i] != 1 || p.stride[i] != 1 || p.padding[i] != 0) return -1.0;
  }
  const std::vector<int64_t> out = p.output();
  boo_kernels::OneByOneWgradPlan plan{};
  if (boo_kernels::onebyone_wgrad_plan(p.n * product(out), p.k, p.c, static_cast<int>(d.sm_count),
                                       &plan) != nullptr) {
    return -1.0;
  }
  const int64_t blocks = int64_t{plan.chunks} * plan.slices;
  const int64_t resident = std::clamp<int64_t>(ceil_div(blocks, d.sm_count), 1, plan.per_sm);
  const double block_rate =
      kOneByOneWgradCopyRate * std::min(1.0, static_cast<double>(plan.warps) / 4.0);
  const double rate = std::min(block_rate, kOneByOneWgradSmRate / static_cast<double>(resident));
  const double tile_bytes = static_cast<double>(plan.tile) * (plan.cb + plan.kb) * 4.0;
  const double tile_us = kOneByOneWgradTileUs + tile_bytes / rate;
  const int64_t rounds = ceil_div(plan.tiles, plan.slices) *
                         ceil_div(blocks, d.sm_count * static_cast<int64_t>(plan.per_sm));
  const double compute_us = static_cast<double>(rounds) * tile_us;
  const double memory_us = static_cast<double>(p.min_bytes()) *
                           static_cast<double>(std::max(plan.k_chunks, plan.c_chunks)) /
                           (d.bandwidth_gbs * 1e3);
  const double partial_bytes =
      2.0 * static_cast<double>(plan.slices) * 4.0 * static_cast<double>(plan.total);
  const double reduce_us =
      std::max(partial_bytes / (kWgradDirectPartialShare * d.bandwidth_gbs * 1e3),
               static_cast<double>(ceil_div(plan.slices, 32)) * kOneByOneWgradSumUs);
  if (why != nullptr) {
    char costs[160];
    std::snprintf(costs, sizeof(costs),
                  "1x1 tf32 kernel, %d-pixel tiles, %lld a slice: %.1f us, %.1f us memory, %.1f "
                  "us fp32 slices",
                  plan.tile, static_cast<long long>(ceil_div(plan.tiles, plan.slices)), compute_us,
                  memory_us, reduce_us);
    *why = wgrad_reason(plan.tiles, plan.slices, plan.chunks, costs, copy_us > 0);
  }
  return std::max(compute_us, memory_us) + reduce_us + copy_us + 2.0 * d.launch_us +
         kOneByOneWgradFixedUs;
}

}  // namespace

double predict_conv_split_wgrad_direct_us(const ops::ConvProblem& p, const DeviceModel& d,
                                          std::string* why) {
  const int64_t copies = relayout_bytes(p);
  const double copy_us =
      copies > 0 ? static_cast<double>(copies) / (d.bandwidth_gbs * 1e3) + d.launch_us : 0.0;
  if (const double wide = predict_wgmma_wgrad_us(p, d, copy_us, why); wide >= 0.0) return wide;
  if (const double flat = predict_onebyone_wgrad_us(p, d, copy_us, why); flat >= 0.0) return flat;
  // Elsewhere the mma.sync kernel's plan (kernels/conv_wgrad_direct.cuh, wgrad_plan): blocks of 32
  // or 64 output channels by at most 64 input channels and 3 taps a warp for 12 warps; tiles of up
  // to 256 output pixels of one plane where every slice walks at least 4 of them, else 128 or
  // fewer (rounded up to 16), as many as two stages of the tile's x and dy fit in shared memory;
  // a slice of the tiles per SM and chunk, each slice's dw in fp32. Grouped layers run each k
  // chunk against its own c chunk only, and store C/G of each row.
  auto round16 = [&](int64_t v) { return ceil_div(v, 16) * 16; };
  const int64_t taps = product(p.filter);
  const int64_t kb = p.k <= 32 ? 32 : 64, k_chunks = ceil_div(p.k, kb);
  const int64_t c_split = ceil_div(p.c, 64), cb = round16(ceil_div(p.c, c_split));
  const int64_t c_chunks = p.groups > 1 ? 1 : c_split;
  const int64_t per_block = 3 * (12 / (cb / 16));
  const int64_t taps_block = std::min(taps, per_block);
  const int64_t tap_chunks = ceil_div(taps, taps_block);
  const int64_t chunks = k_chunks * c_chunks * tap_chunks;
  const bool tf32 = p.dtype == core::DType::kF32;
  // Shared-memory rows (elements) of x and dy (wgrad_row).
  auto row = [&](int64_t channels) {
    const int64_t units = ceil_div(channels, 8);
    return tf32 ? channels + 8 : (units % 2 == 1 ? units : units + 1) * 8;
  };
  const int64_t elem = tf32 ? 4 : 2;
  const size_t dims = p.filter.size();
  const std::vector<int64_t> out = p.output();
  const int64_t ho = dims >= 2 ? out[dims - 2] : 1, wo = out.back();
  const int64_t planes = planes_of(p, out);
  // (In double: the input tile's extents are bounded by 2^41 each, their product is not.)
  auto reach = [&](size_t i, int64_t extent) {
    return static_cast<double>(extent - 1) * static_cast<double>(p.stride[i]) +
           static_cast<double>(p.filter[i] - 1) * static_cast<double>(p.dilation[i]) + 1.0;
  };
  const double id = dims == 3 ? reach(0, 1) : 1.0;
  int64_t th = 0, tw = 0, tiles = 0;
  for (int64_t most = 256; most >= 16; most /= 2) {
    const int64_t tiles_w = ceil_div(wo, std::min<int64_t>(most, 64));
    tw = ceil_div(wo, tiles_w);
    const int64_t tiles_h = ceil_div(ho, std::max<int64_t>(1, most / tw));
    th = ceil_div(ho, tiles_h);
    tiles = planes * tiles_h * tiles_w;
    const double points = id * (dims >= 2 ? reach(dims - 2, th) : 1.0) * reach(dims - 1, tw);
    const double pixels = static_cast<double>(round16(th * tw));
    const double bytes =
        16.0 + 16.0 * std::ceil(points / 4.0) + 32.0 * std::ceil(pixels / 4.0) +
        2.0 * static_cast<double>(elem) *
            (points * static_cast<double>(row(cb)) + pixels * static_cast<double>(row(kb)));
    if (bytes > static_cast<double>(kWgradDirectMaxShared)) continue;
    if (most > 128 && tiles * chunks < 4 * d.sm_count) continue;
    break;
  }
  const int64_t slices = std::min(tiles, std::max<int64_t>(1, d.sm_count / chunks));
  const int64_t waves = ceil_div(chunks * slices, d.sm_count);
  // Each warp's taps in threes: a block's tile costs its pixels x kb x cb x 3 (taps / 3) steps,
  // and a fixed cost (its copies' set-up, two barriers).
  const double tile_flops = 2.0 * static_cast<double>(round16(th * tw) * kb * cb) *
                            static_cast<double>(ceil_div(taps_block, 3) * 3);
  // Grouped plans cost what the dense plan's steps cost: a warp skips the m-tiles outside its
  // groups, but ResNeXt's n64 c256 28x28 G = 32 measured 66.6 us, near the dense steps' time
  // (H200, 2026-11-30, bench/results/2026-11-30-grouped-wgrad-h200.md).
  const double rate = tf32 ? kWgradDirectTf32MmaRate : kWgradDirectMmaRate;
  const double tile_us = tile_flops / (rate / 132.0) * 1e6 + kWgradDirectTileUs;
  const double compute_us = static_cast<double>(waves * ceil_div(tiles, slices)) * tile_us;
  const double partial_bytes =
      2.0 * static_cast<double>(slices) * static_cast<double>(p.k * (p.c / p.groups) * taps) * 4.0;
  const double reduce_us = partial_bytes / (kWgradDirectPartialShare * d.bandwidth_gbs * 1e3);
  const double memory_us =
      static_cast<double>(p.min_bytes()) *
      static_cast<double>((p.groups > 1 ? 1 : std::max(k_chunks, c_chunks)) * tap_chunks) /
      (d.bandwidth_gbs * 1e3);
  if (why != nullptr) {
    char costs[120];
    std::snprintf(costs, sizeof(costs), "%.1f us %smma.sync, %.1f us memory, %.1f us fp32 slices",
                  compute_us, tf32 ? "tf32 " : "", memory_us, reduce_us);
    *why = wgrad_reason(tiles, slices, chunks, costs, copies > 0);
  }
  const double fit = tf32 ? kWgradDirectTf32Fit : 1.0;
  return fit * (std::max(compute_us, memory_us) + reduce_us) + copy_us + 2.0 * d.launch_us;
}

namespace {

// conv.sm90_taps' plan (kernels/conv_taps_plan.cuh, the kernel's own) for `p`: backward data
// runs as the forward pass over dy into dx, its tiles covering the input's extent. Null where
// the plan is made, else why not.
const char* taps_host_plan(const ops::ConvProblem& p, int sm_count, boo_kernels::TapsPlan* t) {
  const size_t dims = p.filter.size();
  const bool dgrad = p.direction == ConvDirection::kBackwardData;
  const std::vector<int64_t> out = dgrad ? p.input : p.output();
  const int64_t out_w = out[dims - 1], out_h = dims >= 2 ? out[dims - 2] : 1;
  const int64_t fw = p.filter[dims - 1], fh = dims >= 2 ? p.filter[dims - 2] : 1;
  const int64_t reach_w = (fw - 1) * p.dilation[dims - 1];
  const int64_t reach_h = dims >= 2 ? (fh - 1) * p.dilation[dims - 2] : 0;
  const int64_t chunks = ceil_div(dgrad ? p.c : p.k, boo_kernels::kTapsChannels);
  const int64_t planes = planes_of(p, out);
  if (boo_kernels::taps_one_row(p.filter.data(), p.stride.data(), p.padding.data(),
                                static_cast<int>(dims), planes * out_h * out_w)) {
    return boo_kernels::taps_tile_plan(1, 1, planes * out_h * out_w, 1, 1, 0, 0,
                                       static_cast<int>(chunks), sm_count, t);
  }
  return boo_kernels::taps_tile_plan(planes, out_h, out_w, static_cast<int>(fh),
                                     static_cast<int>(fw), reach_h, reach_w,
                                     static_cast<int>(chunks), sm_count, t);
}

}  // namespace

core::Status conv_sm90_taps_supports(const ops::ConvProblem& p) {
  BOO_RETURN_IF_ERROR(p.validate());
  const std::string head = "conv.sm90_taps does not apply: ";
  const bool dgrad = p.direction == ConvDirection::kBackwardData;
  if (p.direction == ConvDirection::kBackwardWeight) {
    return core::unsupported(head + "forward and backward data only");
  }
  if (p.groups != 1) return core::unsupported(head + "groups = " + std::to_string(p.groups));
  if (p.dtype != core::DType::kF16 && p.dtype != core::DType::kBF16) {
    return core::unsupported(head + "it runs fp16 and bf16 only");
  }
  // Backward data runs as the forward pass over dy: its K is that pass's C.
  const int64_t reduced = dgrad ? p.k : p.c, produced = dgrad ? p.c : p.k;
  if (reduced % 8 != 0 || reduced > boo_kernels::kTapsChannels || produced % 8 != 0) {
    return core::unsupported(
        head + "C = " + std::to_string(p.c) + " and K = " + std::to_string(p.k) +
        (dgrad ? " (backward data: it takes K a multiple of 8 up to 64 and C a multiple of 8)"
               : " (it takes C a multiple of 8 up to 64 and K a multiple of 8)"));
  }
  const size_t dims = p.filter.size();
  for (size_t i = 0; i < dims; ++i) {
    if (p.stride[i] != 1) return core::unsupported(head + "it needs stride 1");
    const bool depth = dims == 3 && i == 0;
    if (depth && (p.filter[i] != 1 || p.padding[i] != 0)) {
      return core::unsupported(head + "it takes 1D and 2D filters (depth 1, no depth padding)");
    }
    if (dgrad && p.padding[i] > p.dilation[i] * (p.filter[i] - 1)) {
      return core::unsupported(head +
                               "backward data needs padding within the dilated filter's reach");
    }
  }
  boo_kernels::TapsPlan plan{};
  if (const char* e = taps_host_plan(p, 132, &plan)) {
    // The kernel's words, less its name (the head has it).
    std::string why = e;
    for (const std::string_view name : {"conv.sm90_taps: ", "conv.sm90_taps "}) {
      if (why.rfind(name, 0) == 0) why = why.substr(name.size());
    }
    return core::unsupported(head + why);
  }
  return core::Status::ok();
}

double predict_conv_sm90_taps_us(const ops::ConvProblem& p, const DeviceModel& d,
                                 std::string* why) {
  boo_kernels::TapsPlan t{};
  if (taps_host_plan(p, d.sm_count, &t) != nullptr) return std::numeric_limits<double>::infinity();
  // The busiest SM's tiles, each up to 4 m64nNk16 wgmma a tap (N = t.n positions), two warpgroups
  // taking turns: a tile costs its mma, or half of its mma and epilogue where the epilogue (as
  // n) is the longer.
  // (Every chunk of K in each block: each tile's mma and epilogue once a chunk.)
  const double per_sm =
      static_cast<double>(ceil_div(t.tiles, t.slices) * boo_kernels::taps_tile_chunks(t));
  // (k16 steps past the reduced channels are skipped: C = 40 takes 3 of 4.)
  const int64_t steps = ceil_div(p.direction == ConvDirection::kBackwardData ? p.k : p.c, 16);
  const double mma_us = 2.0 * 64 * t.n * 16 * steps * static_cast<double>(t.taps) /
                        (kTapsMmaShare * d.tflops_16bit * 1e12 / d.sm_count) * 1e6;
  const double epilogue_us = kTapsEpilogueUs * t.n / 256.0;
  const double compute_us = per_sm * std::max(mma_us, (mma_us + epilogue_us) / 2.0) + kTapsFixedUs +
                            (p.direction == ConvDirection::kBackwardData ? kTapsTurnUs : 0.0);
  std::string text;
  const double us = predict_direct_us(p, d, kTapsBandwidthShare, compute_us, "", "wgmma", &text);
  if (why != nullptr) {
    *why = std::to_string(t.tiles) + " tiles of " + std::to_string(t.th) + " x " +
           std::to_string(t.pitch) + " positions (" + std::to_string(t.n) + " computed) x " +
           std::to_string(t.k_chunks) + " chunks of 64 channels" +
           (t.all_chunks ? ", every chunk in each block" : "") +
           (t.out_ring == 2 ? " (outputs through a ring of two buffers)" : "") + text;
  }
  return us;
}

namespace {

// The channels of one staged input point in conv.padded_channels' direct kernel: C, or C + 1
// (a zero channel) where C and the stride along W are odd.
int64_t few_channels_point(const ops::ConvProblem& p) {
  return p.c % 2 == 0 || p.stride.back() % 2 == 0 ? p.c : p.c + 1;
}

// The reduction elements of one filter row: S taps x few_channels_point, rounded up to even.
int64_t few_channels_row(const ops::ConvProblem& p) {
  const int64_t cs = few_channels_point(p);
  return (p.filter.back() * cs + 1) / 2 * 2;
}

}  // namespace

core::Status conv_few_channels_supports(const ops::ConvProblem& p) {
  BOO_RETURN_IF_ERROR(p.validate());
  const std::string head = "conv.padded_channels' direct kernel does not apply: ";
  if (p.direction != ConvDirection::kForward) {
    return core::unsupported(head + "it runs the forward pass only");
  }
  if (p.groups != 1) return core::unsupported(head + "groups = " + std::to_string(p.groups));
  if (p.dtype != core::DType::kF16 && p.dtype != core::DType::kBF16) {
    return core::unsupported(head + "it runs fp16 and bf16 only");
  }
  if (p.c % 8 == 0 || p.c > 16 || p.k % 8 != 0) {
    return core::unsupported(head + "C = " + std::to_string(p.c) +
                             " and K = " + std::to_string(p.k) +
                             " (it takes C up to 16, not a multiple of 8, and K a multiple of 8)");
  }
  if (p.dilation.back() != 1) {
    return core::unsupported(head + "dilation " + std::to_string(p.dilation.back()) +
                             " along W (it takes 1)");
  }
  const int64_t rows = product(p.filter) / p.filter.back();
  if (rows * few_channels_row(p) > 512) {
    return core::unsupported(head + "the filter's reduction exceeds 512 elements");
  }
  return core::Status::ok();
}

double predict_conv_few_channels_us(const ops::ConvProblem& p, const DeviceModel& d,
                                    std::string* why) {
  // The kernel's plan (kernels/conv_few_channels.cuh, few_channels_plan): blocks of up to 64
  // output channels, tiles of at most 256 output pixels of one plane (128 or 64 where fewer than
  // two blocks an SM would have one; few_squarer_tiles' cut), two blocks an SM, each walking its
  // share of the tiles.
  const std::vector<int64_t> out = p.output();
  const int64_t ho = out.size() >= 2 ? out[out.size() - 2] : 1, wo = out.back();
  const int64_t planes = planes_of(p, out);
  const int64_t chunks = ceil_div(p.k, 64), kb = std::min<int64_t>(p.k, 64);
  const size_t dims = p.filter.size();
  const int64_t fs = p.filter.back(), fr = dims >= 2 ? p.filter[dims - 2] : 1;
  const int64_t ft = dims == 3 ? p.filter[0] : 1;
  const int64_t stride_h = dims >= 2 ? p.stride[dims - 2] : 1;
  const int64_t reach_h = (fr - 1) * (dims >= 2 ? p.dilation[dims - 2] : 1) + 1;
  const int64_t reach_w = (fs - 1) * p.dilation.back() + 1;
  int64_t th = 1, tw = 1, tiles = 1;
  for (int most = 256; most >= 64; most /= 2) {
    const boo_kernels::FewTiling t =
        boo_kernels::few_squarer_tiles(ho, wo, most, stride_h, p.stride.back(), reach_h, reach_w);
    tw = t.tw;
    th = t.th;
    tiles = planes * t.tiles_h * t.tiles_w;
    if (tiles * chunks >= 2 * d.sm_count) break;
  }
  const int64_t rows = ft * fr, lp = few_channels_row(p), steps = ceil_div(rows * lp, 16);
  const int64_t cs = few_channels_point(p);
  const int64_t ih = (th - 1) * stride_h + reach_h;
  const int64_t iw = (tw - 1) * p.stride.back() + reach_w;
  const int64_t id = dims == 3 ? (ft - 1) * p.dilation[0] + 1 : 1;
  const double staged = static_cast<double>(id * ih * (iw * cs + 2)) / 256.0;
  const double vectors = static_cast<double>(th * tw * kb / 8) / 256.0;
  const int64_t blocks = std::min<int64_t>(tiles * chunks, 2 * d.sm_count);
  const int64_t per_block = ceil_div(tiles * chunks, blocks);
  // The kernel's TMA paths (few_channels_plan): staging where x's rows are whole 16-byte vectors
  // and pixels start at even elements (the origin's odd element leads each filter row); beside
  // it, the output box where a block keeps 64 output channels.
  boo_kernels::FewBoxes boxes;
  int lead = 0, lp_tma = 0;
  const bool tma_x = boo_kernels::few_tma_staging(
      p.input.back(), static_cast<int>(p.c), static_cast<int>(fs), p.stride.back(),
      p.padding.back(), static_cast<int>(tw), static_cast<int>(ih), static_cast<int>(id), &lead,
      &lp_tma, &boxes);
  const bool tma_y = tma_x && kb == 64;
  const double tile_us = kFewChannelsStepUs * static_cast<double>(steps * ceil_div(kb, 16)) +
                         kFewChannelsStageUs * staged * (tma_x ? kFewChannelsTmaStageShare : 1.0) +
                         kFewChannelsStoreUs * vectors * (tma_y ? kFewChannelsTmaStoreShare : 1.0);
  const double setup_us =
      kFewChannelsFixedUs +
      kFewChannelsSetupUs * static_cast<double>(ceil_div(kb * rows * fs * p.c, 2048));
  const double compute_us = setup_us + static_cast<double>(per_block) * tile_us;
  return predict_direct_us(p, d, 1.0, compute_us, "few-channel warpgroup-MMA kernel",
                           "set-up and tiles", why);
}

}  // namespace boo::dispatch
