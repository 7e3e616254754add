// Layer norm configs to CUDA source: one translation unit per kernel exporting the C entry
// points of abi.h over BooLayerNormArgs (DESIGN.md §4).
#pragma once

#include "boo/codegen/gemm_codegen.h"
#include "boo/core/status.h"
#include "boo/space/layernorm_rowwise.h"

namespace boo::codegen {

// layernorm.rowwise (kernels/layernorm_rowwise.cuh); check_layernorm_rowwise must hold. The
// translation unit instantiates boo_kernels::LayerNormRowwiseRunner<T, kBackward, kVec,
// kThreads, kRows, kItems> and names the kernel config.name().
core::Expected<KernelSource> layernorm_rowwise_source(const space::LayerNormRowwiseConfig& config);

}  // namespace boo::codegen
