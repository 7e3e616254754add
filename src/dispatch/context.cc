#include "boo/dispatch/context.h"

#include "boo/core/env.h"

namespace boo::dispatch {

core::Expected<DeviceModel> device_model_from_environment(int sm_count) {
  DeviceModel model;
  if (sm_count > 0) model.sm_count = sm_count;
  BOO_ASSIGN_OR_RETURN(const int64_t gbs, core::env_int("BOO_MODEL_BANDWIDTH_GBS", 0));
  if (gbs > 0) model.bandwidth_gbs = static_cast<double>(gbs);
  return model;
}

core::Expected<std::unique_ptr<Context>> Context::create(DispatchOptions options, int sm_count) {
  auto ctx = std::make_unique<Context>();
  BOO_ASSIGN_OR_RETURN(jit::CacheOptions cache, jit::CacheOptions::from_environment());
  BOO_ASSIGN_OR_RETURN(jit::CompilerOptions compiler, jit::CompilerOptions::from_environment());
  ctx->cache = std::make_unique<jit::KernelCache>(std::move(cache), std::move(compiler));
  BOO_ASSIGN_OR_RETURN(TuningDb db, TuningDb::from_environment());
  ctx->tuning_db = std::make_unique<TuningDb>(std::move(db));
  BOO_ASSIGN_OR_RETURN(DeviceModel model, device_model_from_environment(sm_count));
  // A forced config names one kernel: a GEMM's goes to the GEMM dispatcher (conv.gemm_1x1 uses
  // it), a convolution's to the convolution dispatcher, a layer norm's to the layer norm one.
  DispatchOptions gemm_options = options;
  const bool conv_config = options.force_config.rfind("conv.", 0) == 0;
  const bool layernorm_config = options.force_config.rfind("layernorm.", 0) == 0;
  if (conv_config || layernorm_config) gemm_options.force_config.clear();
  DispatchOptions layernorm_options = options;
  if (!layernorm_config) layernorm_options.force_config.clear();
  DispatchOptions conv_options = options;
  if (layernorm_config) conv_options.force_config.clear();
  ctx->gemm =
      std::make_unique<GemmDispatcher>(*ctx->cache, ctx->tuning_db.get(), model, gemm_options);
  ctx->conv = std::make_unique<ConvDispatcher>(*ctx->cache, ctx->tuning_db.get(), *ctx->gemm,
                                               std::move(conv_options));
  ctx->layernorm = std::make_unique<LayerNormDispatcher>(*ctx->cache, ctx->tuning_db.get(), model,
                                                         std::move(layernorm_options));
  return ctx;
}

}  // namespace boo::dispatch
