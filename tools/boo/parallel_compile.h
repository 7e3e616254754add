// Compiles kernel sources into the cache on a pool of threads, with one progress line per
// kernel ("[3/12 00:41 elapsed, ~02:10 left] compiled NAME (41.2 s)"). Shared by `boo preload`
// and `boo space-check`.
#pragma once

#include <string>
#include <vector>

#include "boo/codegen/gemm_codegen.h"
#include "boo/jit/kernel_cache.h"

namespace boo::cli {

struct CompileResult {
  std::string name;
  core::Expected<jit::CacheOutcome> outcome = core::internal_error("not run");
  double seconds = 0.0;
};

std::vector<CompileResult> compile_parallel(jit::KernelCache& cache,
                                            const std::vector<codegen::KernelSource>& sources,
                                            int jobs);

// Parallel compiles this machine can afford: cores, and one per 4 GB of memory (nvcc takes
// about 3.5 GB for a CUTLASS sm90 instance).
int default_compile_jobs();

}  // namespace boo::cli
