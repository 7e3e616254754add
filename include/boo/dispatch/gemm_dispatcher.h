// Chooses and runs a GEMM kernel per problem (DESIGN.md §5): an exact tuning-DB row, else the
// best-ranked configs of the algorithms that support the problem (a failed compile moves on
// to the next), else the fallback. Plans are cached per problem, so a repeated call costs a
// hash lookup and the kernel's launch.
#pragma once

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "boo/dispatch/gemm_algorithms.h"
#include "boo/dispatch/tuning_db.h"
#include "boo/jit/kernel_cache.h"
#include "boo/runtime/cuda.h"

namespace boo::dispatch {

struct GemmPointers {
  const void* a = nullptr;
  const void* b = nullptr;
  const void* c = nullptr;
  void* d = nullptr;
  const void* bias = nullptr;
  const float* alpha_vector = nullptr;
  const float* alpha_scale = nullptr;  // device scalar: scaleA * scaleB

  // Whether the matrix operands and the bias are 16-byte aligned (TMA's requirement).
  bool aligned_16() const;
};

struct GemmPlan {
  ops::GemmProblem problem;
  std::string algorithm;
  std::string config;
  int splits = 1;
  int swizzle = 1;
  int raster = 0;  // 0 heuristic, 1 along M, 2 along N
  int64_t workspace_bytes = 0;
  std::shared_ptr<const jit::LoadedKernel> kernel;
  std::vector<std::string> explanation;  // why this choice, for --explain
};

struct GemmProblemHash {
  size_t operator()(const ops::GemmProblem& p) const;
};

struct DispatchOptions {
  space::RuleSet rules = space::RuleSet::kDefault;
  int max_compile_attempts = 3;  // heuristic candidates tried before the fallback
  std::string force_config;      // use exactly this config (tests, `boo driver --config`)
  // Rank conv.grouped's dense expansion in heuristic dispatch (its GPU numerics list,
  // tests/gpu/conv_grouped.txt, passed on an H100 on 2026-11-23); BOO_CONV_GROUPED=0 turns it
  // off. Forced configs and tuning-DB rows use it either way.
  bool rank_conv_grouped = true;
  // The same for conv.split_wgrad (tests/gpu/conv_split_wgrad.txt; BOO_CONV_SPLIT_WGRAD=0).
  bool rank_conv_split_wgrad = true;
  // conv.depthwise's backward passes (tests/gpu/conv_depthwise_backward.txt passed on an H100
  // on 2026-11-24, 23/23); BOO_CONV_DEPTHWISE_BACKWARD=0 turns them off. Forced configs use
  // them either way.
  bool rank_conv_depthwise_backward = true;
  // conv.pointwise (tests/gpu/conv_pointwise.txt passed on an H100 on 2026-11-25, 13/13);
  // BOO_CONV_POINTWISE=0 turns it off. Forced configs use it either way.
  bool rank_conv_pointwise = true;
  // conv.grouped's direct kernel (narrow groups, kernels/conv_grouped_direct.cuh);
  // BOO_CONV_GROUPED_DIRECT=0 turns it off (and BOO_CONV_GROUPED=0, which turns off all of
  // conv.grouped). Forced configs use it either way.
  bool rank_conv_grouped_direct = true;
  // conv.split_wgrad's direct kernel (kernels/conv_wgrad_direct.cuh); BOO_CONV_WGRAD_DIRECT=0
  // turns it off (and BOO_CONV_SPLIT_WGRAD=0, which turns off all of conv.split_wgrad),
  // BOO_CONV_WGRAD_DIRECT=first puts it first wherever it applies (its GPU list, A/B timing).
  // Forced configs use it either way.
  bool rank_conv_wgrad_direct = true;
  bool conv_wgrad_direct_first = false;
  // conv.padded_channels' direct kernel for few input channels (kernels/conv_few_channels.cuh);
  // BOO_CONV_FEW_CHANNELS=0 turns it off, =first puts it first wherever it applies (its GPU
  // list, A/B timing). Forced configs use it either way.
  bool rank_conv_few_channels = true;
  bool conv_few_channels_first = false;
  // conv.sm90_taps (stride-1 forward layers with C = 64, kernels/conv_taps_wgmma.cuh);
  // BOO_CONV_TAPS=0 turns it off, =first puts it first wherever it applies (its GPU list, A/B
  // timing). Forced configs use it either way.
  bool rank_conv_taps = true;
  bool conv_taps_first = false;
  // conv.gemm_1d (1D forward convolutions as GEMMs over windows of the input), ranked against
  // conv.sm90_implicit by the models; BOO_CONV_GEMM_1D=0 turns it off, BOO_CONV_GEMM_1D=first
  // puts it first wherever it applies (its GPU list, A/B timing). Forced GEMM configs use it
  // either way.
  bool rank_conv_gemm_1d = true;
  bool conv_gemm_1d_first = false;
  // conv.sm90_implicit's persistent configs ("_coop", "_pingpong"), ranked with the others by
  // the model; BOO_CONV_PERSISTENT=0 leaves them out; =first ranks them ahead of the
  // non-persistent ones, =coop or =pingpong that schedule's alone (their GPU list,
  // tests/gpu/conv_persistent.txt, and A/B timing). Forced configs use them either way.
  bool rank_conv_persistent = true;
  enum class PersistentFirst { kNo, kAny, kCooperative, kPingpong };
  PersistentFirst conv_persistent_first = PersistentFirst::kNo;
};

// The C argument struct for a plan's problem and pointers (device, SM count filled in).
BooGemmArgs make_gemm_args(const GemmPlan& plan, const GemmPointers& ptrs, int device,
                           int sm_count);

// One config dispatch would try, in order, and why it is on the list.
struct GemmCandidate {
  const GemmAlgorithm* algorithm = nullptr;
  std::string config;
  std::string reason;         // "tuning DB row", "heuristic: predicted 12.3 us; ...", "fallback"
  double predicted_us = 0.0;  // the heuristic's time (0 for forced, tuning-DB and fallback rows)
};

class GemmDispatcher {
 public:
  GemmDispatcher(jit::KernelCache& cache, const TuningDb* db, DeviceModel model,
                 DispatchOptions options = {});

  // The plan for a problem: cached, else chosen now (compiling what it needs). With
  // `aligned_pointers` false the plan also takes operand pointers aligned only to their element
  // size (gemm.sm90 needs 16 bytes; see GemmPointers::aligned_16).
  core::Expected<const GemmPlan*> plan(const ops::GemmProblem& p, bool aligned_pointers = true);
  // The configs dispatch tries for a problem, in order (nothing is compiled), plus the notes
  // on algorithms that do not apply. `boo preload` compiles from this list.
  core::Expected<std::vector<GemmCandidate>> candidates(const ops::GemmProblem& p,
                                                        std::vector<std::string>* notes,
                                                        bool aligned_pointers = true) const;
  // Kernel source of a candidate.
  core::Expected<codegen::KernelSource> source(const GemmCandidate& c) const {
    return c.algorithm->source(c.config);
  }
  // A plan for one specific candidate (compiling it if needed), outside the plan cache: for
  // sweeps that time several configs of one problem.
  core::Expected<std::unique_ptr<GemmPlan>> plan_for(const ops::GemmProblem& p,
                                                     const GemmCandidate& c);
  // Launches a plan on a stream (asynchronous).
  core::Status run(const GemmPlan& plan, const GemmPointers& ptrs, void* stream,
                   bool dry_run = false);
  // plan() + run(): the hot path of a framework call. `dry_run` does all host work but the
  // kernel launch (to measure the host time spent before it).
  core::Status gemm(const ops::GemmProblem& p, const GemmPointers& ptrs, void* stream,
                    bool dry_run = false);

  const std::vector<std::unique_ptr<GemmAlgorithm>>& algorithms() const { return algorithms_; }
  const DeviceModel& device_model() const { return model_; }

 private:
  core::Expected<std::unique_ptr<GemmPlan>> choose(const ops::GemmProblem& p,
                                                   bool aligned_pointers);
  const GemmAlgorithm* algorithm_named(std::string_view name) const;
  core::Status try_candidate(const ops::GemmProblem& p, const GemmAlgorithm& algo,
                             const std::string& config, GemmPlan& plan,
                             bool aligned_pointers = true);

  jit::KernelCache& cache_;
  const TuningDb* db_;
  DeviceModel model_;
  DispatchOptions options_;
  int device_ = 0;
  std::vector<std::unique_ptr<GemmAlgorithm>> algorithms_;  // the fallback last
  std::unordered_map<ops::GemmProblem, std::unique_ptr<GemmPlan>, GemmProblemHash> plans_;
  // Plans for operand pointers that are not all 16-byte aligned.
  std::unordered_map<ops::GemmProblem, std::unique_ptr<GemmPlan>, GemmProblemHash>
      misaligned_plans_;
  runtime::Workspace workspace_;
};

}  // namespace boo::dispatch
