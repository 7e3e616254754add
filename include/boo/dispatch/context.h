// The default bundle of what dispatch needs — kernel cache, tuning database, GEMM and
// convolution dispatchers — built from the environment for the CLI and Python (DESIGN.md §1: no
// singletons; a Context is an object its owner passes around).
#pragma once

#include <memory>

#include "boo/dispatch/conv_dispatcher.h"
#include "boo/dispatch/gemm_dispatcher.h"
#include "boo/dispatch/layernorm_dispatcher.h"
#include "boo/dispatch/tuning_db.h"
#include "boo/jit/kernel_cache.h"

namespace boo::dispatch {

// The model Context::create gives the dispatchers: the defaults (an H100 SXM's), the device's SM
// count where `sm_count` > 0, and BOO_MODEL_BANDWIDTH_GBS (a positive integer, GB/s) for the HBM
// bandwidth where it is set (for A/B runs of the model's picks; a value that is not a positive
// integer is an error that names the variable). Not the device's own bandwidth: the model's 3350
// GB/s is fitted to measured picks, and the H200's 4814 GB/s picked 0.93x as fast over the 22
// moved picks timed on 2026-12-03 (bench/results/2026-12-03-device-bandwidth-h200.md). Not its L2
// size either: the model's 50 MiB was fitted alongside, and another size was never timed.
core::Expected<DeviceModel> device_model_from_environment(int sm_count);

struct Context {
  std::unique_ptr<jit::KernelCache> cache;
  std::unique_ptr<TuningDb> tuning_db;
  std::unique_ptr<GemmDispatcher> gemm;
  std::unique_ptr<ConvDispatcher> conv;  // uses `gemm` for conv.gemm_1x1
  std::unique_ptr<LayerNormDispatcher> layernorm;

  // Reads BOO_CACHE_*, BOO_JIT, BOO_NVCC, BOO_CUTLASS_DIR, BOO_TUNING_SPEC_PATH; the device
  // model is device_model_from_environment(sm_count) (sm_count: the current GPU's, 0 without
  // one).
  static core::Expected<std::unique_ptr<Context>> create(DispatchOptions options = {},
                                                         int sm_count = 0);
};

}  // namespace boo::dispatch
