// Chooses and runs a convolution kernel per problem (DESIGN.md §3, §5), in order: a tuning-DB
// row; conv.padded_channels where C or K is not a 16-byte vector; conv.gemm_1x1 (the GEMM
// dispatcher's plan for a 1x1 convolution that is a GEMM); conv.gemm_1d (1D forward
// convolutions as GEMMs over windows of the input) where predicted faster than conv.sm90_implicit;
// the best-ranked conv.sm90_implicit configs (a failed compile or a kernel that rejects the
// problem moves on to the next); conv.depthwise (forward, G = C); conv.grouped where its dense
// expansion is predicted faster than conv.direct; conv.direct, which runs every valid problem.
// Plans are cached per problem.
#pragma once

#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "boo/dispatch/conv_args.h"
#include "boo/dispatch/conv_gemm_1d.h"
#include "boo/dispatch/conv_gemm_1x1.h"
#include "boo/dispatch/gemm_dispatcher.h"
#include "boo/space/conv_sm90.h"

namespace boo::dispatch {

inline constexpr std::string_view kConvGemm1x1 = "conv.gemm_1x1";
inline constexpr std::string_view kConvGemm1d = "conv.gemm_1d";
inline constexpr std::string_view kConvSm90Implicit = "conv.sm90_implicit";
inline constexpr std::string_view kConvPaddedChannels = "conv.padded_channels";
inline constexpr std::string_view kConvGrouped = "conv.grouped";
inline constexpr std::string_view kConvSplitWgrad = "conv.split_wgrad";
inline constexpr std::string_view kConvDepthwise = "conv.depthwise";
inline constexpr std::string_view kConvPointwise = "conv.pointwise";
inline constexpr std::string_view kConvSm90Taps = "conv.sm90_taps";
inline constexpr std::string_view kConvDirect = "conv.direct";

struct ConvPlan {
  ops::ConvProblem problem;
  std::string algorithm;  // one of the kConv* names
  std::string config;     // the kernel config (conv.gemm_1x1, conv.gemm_1d: the GEMMs' algorithms
                          // and configs)
  int64_t workspace_bytes = 0;
  std::shared_ptr<const jit::LoadedKernel> kernel;  // conv kernels
  // conv.gemm_1x1 (one GEMM), conv.gemm_1d (the interior, then the edge columns): the GEMMs and
  // their plans (owned by the GEMM dispatcher).
  std::vector<const GemmPlan*> gemms;
  std::vector<ConvAsGemm> mappings;
  std::vector<std::string> explanation;  // why this choice, for --explain
};

struct ConvCandidate {
  std::string algorithm;  // one of the kConv* names
  std::string config;     // empty for conv.gemm_1x1 and conv.gemm_1d (the GEMM dispatcher chooses)
  double predicted_us = 0.0;
  std::string reason;
};

struct ConvProblemHash {
  size_t operator()(const ops::ConvProblem& p) const;
};

// Whether conv.sm90_implicit can take the problem at all (before any compile), or why not.
core::Status conv_sm90_supports(const ops::ConvProblem& p);
// Analytical time of one conv.sm90_implicit config (waves of output tiles, tile efficiency by
// schedule, the tiles' L2 traffic, bytes moved, layout copies); exposed for tests and reports.
double predict_conv_sm90_us(const ops::ConvProblem& p, const space::ConvSm90Config& c,
                            const DeviceModel& d, std::string* why = nullptr);

// conv.padded_channels: conv.sm90_implicit's configs behind copies that pad C and K with zeros
// to 16-byte vectors (kernels/conv_relayout.cuh). Whether it applies (groups = 1, C or K not a
// multiple of the vector, the rest of conv.sm90_implicit's limits), the padded problem its inner
// kernel computes (channels-last), and its analytical time (the inner kernel plus the copies).
core::Status conv_padded_supports(const ops::ConvProblem& p);
ops::ConvProblem padded_problem(const ops::ConvProblem& p);
double predict_conv_padded_us(const ops::ConvProblem& p, const space::ConvSm90Config& c,
                              const DeviceModel& d, std::string* why = nullptr);
// Its space-to-depth variant (configs with space_to_depth; kernels/conv_space_to_depth.cuh):
// strided forward problems with fewer channels than a 64-byte k-block, and the stride-1
// blocked problem it runs (blocked channels padded to the k-block, K padded to the vector).
core::Status conv_space_to_depth_supports(const ops::ConvProblem& p);
ops::ConvProblem space_to_depth_problem(const ops::ConvProblem& p);

// conv.split_wgrad: conv.sm90_implicit's backward-weight configs split over the images
// (wgrad_splits; kernels/conv_split_wgrad.cuh). Whether it applies (backward weight that
// conv.sm90_implicit takes, at least 4 images) and its analytical time (the slices' tiles as one
// grid, the host's launches, the fp32 reduction).
core::Status conv_split_wgrad_supports(const ops::ConvProblem& p);
double predict_conv_split_wgrad_us(const ops::ConvProblem& p, const space::ConvSm90Config& c,
                                   const DeviceModel& d, std::string* why = nullptr);

// conv.grouped (1 < G < C): conv.sm90_implicit's configs (dense_groups) over the dense problem
// whose filter is the block-diagonal expansion of the grouped one (kernels/conv_grouped.cuh).
// Whether it applies, the dense problem (groups = 1), and its analytical time (G times the
// grouped work, plus the filter expansion).
core::Status conv_grouped_supports(const ops::ConvProblem& p);
ops::ConvProblem dense_problem(const ops::ConvProblem& p);
double predict_conv_grouped_us(const ops::ConvProblem& p, const space::ConvSm90Config& c,
                               const DeviceModel& d, std::string* why = nullptr);

// Whether conv.depthwise takes the problem (forward, G = C > 1, K a multiple of C), or why not;
// its analytical time (memory-bound, plus layout copies).
core::Status conv_depthwise_supports(const ops::ConvProblem& p);
double predict_conv_depthwise_us(const ops::ConvProblem& p, const DeviceModel& d,
                                 std::string* why = nullptr);

// Whether conv.pointwise takes the problem (forward 1x1, stride 1, no padding, groups 1, C and
// K at most 64), or why not; its analytical time (x and y streamed once, or the FMAs of a
// pixel per thread, whichever is longer; plus layout copies).
core::Status conv_pointwise_supports(const ops::ConvProblem& p);
double predict_conv_pointwise_us(const ops::ConvProblem& p, const DeviceModel& d,
                                 std::string* why = nullptr);

// Whether conv.grouped's direct kernel takes the problem (forward, 16-bit, 1 < G < C, C/G and K/G
// multiples of 8 up to 32), or why not; its analytical time (x and y streamed once, or its
// tensor-core steps, whichever is longer; plus layout copies).
core::Status conv_grouped_direct_supports(const ops::ConvProblem& p);
// Whether that kernel runs as its TMA kernel (kernels/conv_grouped_tma.cuh), as dispatch models.
bool grouped_tma_applies(const ops::ConvProblem& p);
double predict_conv_grouped_direct_us(const ops::ConvProblem& p, const DeviceModel& d,
                                      std::string* why = nullptr);

// Whether conv.split_wgrad's direct kernel takes the problem (backward weight, 16-bit or fp32 in
// tf32 math, groups 1, C and K multiples of 8), or why not; its analytical time (its mma.sync steps
// per SM, the fp32 slices written and summed, plus layout copies).
core::Status conv_split_wgrad_direct_supports(const ops::ConvProblem& p);
double predict_conv_split_wgrad_direct_us(const ops::ConvProblem& p, const DeviceModel& d,
                                          std::string* why = nullptr);

// Whether conv.padded_channels' direct kernel takes the problem (forward, 16-bit, groups 1, C at
// most 16 and not a multiple of 8, K a multiple of 8, unit dilation along W, each filter row's
// reduction within 512 elements), or why not; its analytical time (its mma.sync steps, or x and y
// streamed once, whichever is longer; plus layout copies).
core::Status conv_few_channels_supports(const ops::ConvProblem& p);
double predict_conv_few_channels_us(const ops::ConvProblem& p, const DeviceModel& d,
                                    std::string* why = nullptr);

// Whether conv.sm90_taps takes the problem (16-bit, groups 1, stride 1, a 1D or 2D filter of at
// most 9 taps; forward with C = 64 and K a multiple of 64, or backward data with K = 64, C a
// multiple of 64 and padding within the dilated filter's reach), or why not; its analytical time
// (its wgmma per SM at a share of the tensor peak, or x and y streamed once, whichever is
// longer; plus a fixed cost and layout copies).
core::Status conv_sm90_taps_supports(const ops::ConvProblem& p);
double predict_conv_sm90_taps_us(const ops::ConvProblem& p, const DeviceModel& d,
                                 std::string* why = nullptr);

// The GEMMs a convolution is under conv.gemm_1x1 or conv.gemm_1d (`algorithm`), or why not.
core::Expected<std::vector<ConvAsGemm>> conv_as_gemms(std::string_view algorithm,
                                                      const ops::ConvProblem& p);

// The workspace `plan`'s kernel needs for the pointers in `args`: the planned bytes where x, w,
// y and the bias are 16-byte aligned (like the stand-ins dispatch plans with), else the kernel's
// own answer for these pointers, never less than planned (tensors that are not 16-byte aligned,
// views into larger ones, take the channels-last copies, which need room); an error naming the
// kernel's reason where it takes no tensors at these addresses.
core::Expected<int64_t> conv_workspace_for(const ConvPlan& plan, const BooConvArgs& args);

class ConvDispatcher {
 public:
  ConvDispatcher(jit::KernelCache& cache, const TuningDb* db, GemmDispatcher& gemm,
                 DispatchOptions options = {});

  core::Expected<const ConvPlan*> plan(const ops::ConvProblem& p);
  // The kernels dispatch would try, in order (nothing compiled), with notes on algorithms that
  // do not apply. `boo preload` compiles from this list.
  core::Expected<std::vector<ConvCandidate>> candidates(const ops::ConvProblem& p,
                                                        std::vector<std::string>* notes) const;
  // Kernel source of a conv kernel candidate (not conv.gemm_1x1).
  core::Expected<codegen::KernelSource> source(const ConvCandidate& c) const;
  // Launches a plan (asynchronous).
  core::Status run(const ConvPlan& plan, const ConvPointers& ptrs, void* stream,
                   bool dry_run = false);
  core::Status conv(const ops::ConvProblem& p, const ConvPointers& ptrs, void* stream);

 private:
  core::Status try_kernel(const ops::ConvProblem& p, const ConvCandidate& c, ConvPlan& plan);
  core::Expected<std::unique_ptr<ConvPlan>> choose(const ops::ConvProblem& p);
  // conv.gemm_1d's time: each of its GEMMs at the GEMM heuristic's first pick; and the number
  // of edge columns.
  core::Expected<std::pair<double, int>> predict_conv_gemm_1d_us(const ops::ConvProblem& p) const;

  jit::KernelCache& cache_;
  const TuningDb* db_;
  GemmDispatcher& gemm_;
  DispatchOptions options_;
  int device_ = 0;
  std::unordered_map<ops::ConvProblem, std::unique_ptr<ConvPlan>, ConvProblemHash> plans_;
  runtime::Workspace workspace_;
};

}  // namespace boo::dispatch
