// Chooses and runs a layer norm kernel per problem (DESIGN.md §3 `layernorm.rowwise`, §5), in
// order: a tuning-DB row; the best-ranked configs of the default rule set that fit the problem
// (cols, vector width, pointer alignment), by a memory-time model; the fallback config (vec 1,
// stream), which runs every valid problem. Plans are cached per problem and pointer alignment.
#pragma once

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "boo/codegen/abi.h"
#include "boo/codegen/gemm_codegen.h"
#include "boo/dispatch/gemm_algorithms.h"
#include "boo/dispatch/gemm_dispatcher.h"
#include "boo/dispatch/tuning_db.h"
#include "boo/jit/kernel_cache.h"
#include "boo/ops/layernorm_problem.h"
#include "boo/runtime/cuda.h"
#include "boo/space/layernorm_rowwise.h"

namespace boo::dispatch {

inline constexpr std::string_view kLayerNormRowwise = "layernorm.rowwise";

// Device pointers of one layer norm call (ABI BooLayerNormArgs): packed rows x cols tensors,
// cols-long weight/bias/dweight/dbias, rows-long fp32 mean/rstd. Null where the problem does
// not use the tensor.
struct LayerNormPointers {
  const void* x = nullptr;
  const void* weight = nullptr;
  const void* bias = nullptr;
  void* y = nullptr;
  float* mean = nullptr;
  float* rstd = nullptr;
  const void* dy = nullptr;
  void* dx = nullptr;
  void* dweight = nullptr;
  void* dbias = nullptr;

  // The largest power of two up to 16 that divides every non-null tensor address (bytes).
  int64_t alignment() const;
};

struct LayerNormPlan {
  ops::LayerNormProblem problem;
  std::string algorithm;  // kLayerNormRowwise
  std::string config;     // the config's name()
  int64_t workspace_bytes = 0;
  std::shared_ptr<const jit::LoadedKernel> kernel;
  std::vector<std::string> explanation;  // why this choice, for --explain
};

struct LayerNormCandidate {
  std::string config;  // a space::LayerNormRowwiseConfig name
  double predicted_us = 0.0;
  std::string reason;  // "tuning DB row", "heuristic: predicted ...", "fallback"
};

struct LayerNormProblemHash {
  size_t operator()(const ops::LayerNormProblem& p) const;
};

// The C argument struct for a problem and pointers.
BooLayerNormArgs make_layernorm_args(const ops::LayerNormProblem& p, const LayerNormPointers& ptrs,
                                     int device, int sm_count);

// Analytical time of one config on a problem (bytes over bandwidth, scaled by the share of
// lanes and of the GPU the config keeps busy, plus the passes it re-reads and the reduction
// of the backward's partial sums); exposed for tests and --explain.
double predict_layernorm_us(const ops::LayerNormProblem& p, const space::LayerNormRowwiseConfig& c,
                            const DeviceModel& d, std::string* why = nullptr);

class LayerNormDispatcher {
 public:
  LayerNormDispatcher(jit::KernelCache& cache, const TuningDb* db, DeviceModel model,
                      DispatchOptions options = {});

  // The plan for a problem whose pointers are aligned to `pointer_alignment` bytes.
  core::Expected<const LayerNormPlan*> plan(const ops::LayerNormProblem& p,
                                            int64_t pointer_alignment = 16);
  // The configs dispatch tries, in order (nothing compiled), with notes. `boo preload` compiles
  // the first of them.
  core::Expected<std::vector<LayerNormCandidate>> candidates(const ops::LayerNormProblem& p,
                                                             std::vector<std::string>* notes,
                                                             int64_t pointer_alignment = 16) const;
  core::Expected<codegen::KernelSource> source(const LayerNormCandidate& c) const;
  // A plan for one specific candidate (compiling it if needed), outside the plan cache: for
  // sweeps that time several configs of one problem (`boo driver --top`).
  core::Expected<std::unique_ptr<LayerNormPlan>> plan_for(const ops::LayerNormProblem& p,
                                                          const LayerNormCandidate& c,
                                                          int64_t pointer_alignment = 16);
  // Launches a plan (asynchronous).
  core::Status run(const LayerNormPlan& plan, const LayerNormPointers& ptrs, void* stream,
                   bool dry_run = false);
  // plan() + run().
  core::Status layernorm(const ops::LayerNormProblem& p, const LayerNormPointers& ptrs,
                         void* stream);

 private:
  core::Status try_config(const ops::LayerNormProblem& p, const LayerNormCandidate& c,
                          int64_t pointer_alignment, LayerNormPlan& plan);

  jit::KernelCache& cache_;
  const TuningDb* db_;
  DeviceModel model_;
  DispatchOptions options_;
  int device_ = 0;
  // Keyed by the problem and the pointer alignment (a plan for 16-byte pointers may use vector
  // accesses that 2-byte pointers do not allow).
  std::unordered_map<ops::LayerNormProblem, std::unique_ptr<LayerNormPlan>, LayerNormProblemHash>
      plans_[5];  // index: log2 of the alignment (1, 2, 4, 8, 16 bytes)
  runtime::Workspace workspace_;
};

}  // namespace boo::dispatch
