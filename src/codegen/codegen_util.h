// Helpers shared by the source generators of src/codegen/ (an internal header, not part of the
// public API): type and functor names for generated code and the common ending of every
// translation unit.
#pragma once

#include <string>

#include "boo/codegen/gemm_codegen.h"
#include "boo/core/dtype.h"
#include "boo/core/status.h"
#include "boo/ops/activation.h"

namespace boo::codegen {

// The CUTLASS element type ("cutlass::bfloat16_t", "cutlass::half_t", "float" (run as tf32 by
// the sm90 builders), "cutlass::float_e4m3_t", ...).
std::string cutlass_type(core::DType t);

// The CUDA type of an element ("__nv_bfloat16", "__half", "float", "__nv_fp8_e4m3", ...), as
// boo's own kernels (kernels/convert.cuh) take it.
std::string cuda_type(core::DType t);

// CUTLASS's epilogue functor for an activation, or "" for none (or one CUTLASS lacks).
std::string cutlass_activation(ops::Activation a);

// "true" or "false", for template arguments.
std::string bool_text(bool b);

// The translation unit named `name`: a header line, the ABI and `body`, with every embedded
// include (kernels/*.cuh, abi.h) inlined so that the text alone fixes the kernel (and its cache
// hash).
core::Expected<KernelSource> finish(std::string name, const std::string& body);

}  // namespace boo::codegen
