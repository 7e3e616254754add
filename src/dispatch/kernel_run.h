// One call of a loaded kernel's boo_run entry point, its return code as a Status (private to
// src/dispatch: the GEMM, convolution and layer norm dispatchers share it).
#pragma once

#include <mutex>
#include <set>
#include <string>

#include "boo/codegen/abi.h"
#include "boo/core/log.h"
#include "boo/core/status.h"
#include "boo/jit/kernel_cache.h"

namespace boo::dispatch {

// Launches `kernel` (asynchronous) on `args` with the workspace `ws` of `ws_bytes`; `config`
// names the kernel in the error ("<config> cannot run these arguments: <why>" when it refuses
// them, "<config> failed: <why>" on a CUDA error).
inline core::Status run_kernel(const jit::LoadedKernel& kernel, const void* args, void* ws,
                               int64_t ws_bytes, void* stream, const std::string& config) {
  char why[256] = {0};
  const int32_t rc = kernel.run(args, ws, ws_bytes, stream, why, sizeof(why));
  if (rc == BOO_OK) return core::Status::ok();
  if (rc == BOO_UNSUPPORTED)
    return core::unsupported(config + " cannot run these arguments: " + why);
  return core::unavailable(config + " failed: " + why);
}

// Warns once per config on stderr where a candidate did not compile (jit::KernelCache warns
// when the compile fails, not when a later run finds the failure cached): dispatch then takes the
// next one, which can be far slower, and only --explain said so (H200, 2026-11-28: a stream-K
// kernel that did not compile left 255 x 255 x 65536 on the fallback at 9980 us instead of 43;
// bench/results/2026-11-28-pad-launches-h200.md). Other refusals stay in the explanation.
inline void warn_if_not_compiled(const std::string& config, const core::Status& s) {
  if (!jit::is_compile_failure(s)) return;
  static std::mutex mu;
  static std::set<std::string> said;
  {
    std::lock_guard<std::mutex> lock(mu);
    if (!said.insert(config).second) return;
  }
  core::log_warn(config + " did not compile; dispatch takes the next candidate, which may be " +
                 "much slower (" + s.message() + ")");
}

}  // namespace boo::dispatch
