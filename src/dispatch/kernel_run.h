// One call of a loaded kernel's boo_run entry point, its return code as a Status (private to
// src/dispatch: the GEMM, convolution and layer norm dispatchers share it).
#pragma once

#include <string>

#include "boo/codegen/abi.h"
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

}  // namespace boo::dispatch
