// GEMM configs to CUDA source: one self-contained translation unit per kernel, exporting the
// C entry points of abi.h (DESIGN.md §4).
#pragma once

#include <string>

#include "boo/core/status.h"
#include "boo/space/gemm_class.h"
#include "boo/space/gemm_skinny.h"
#include "boo/space/gemm_sm90.h"

namespace boo::codegen {

struct KernelSource {
  std::string name;  // the kernel's name: its cache folder and boo_info's answer
  std::string text;  // the .cu file
};

// CUTLASS 3 sm90 instance (check_gemm_sm90 must hold).
core::Expected<KernelSource> gemm_sm90_source(const space::GemmSm90Config& config);
// The decode kernel (N or M at most 32).
core::Expected<KernelSource> gemm_skinny_source(const space::GemmSkinnyConfig& config);
// The always-correct SIMT kernel for any class.
core::Expected<KernelSource> gemm_fallback_source(const space::GemmClass& cls);
inline constexpr std::string_view kGemmFallbackPrefix = "gemm.fallback_";

}  // namespace boo::codegen
