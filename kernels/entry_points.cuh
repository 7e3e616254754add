// The C entry points of abi.h for a runner type (a struct with static supports, workspace and
// run over one argument struct). Every generated translation unit expands one macro once.
#pragma once

#include <cuda_runtime.h>

#include <cstdio>

#include "abi.h"

namespace boo_kernels {

inline void write_why(char* why, int32_t len, const char* text) {
  if (why != nullptr && len > 0) std::snprintf(why, static_cast<size_t>(len), "%s", text);
}

// Stand-in for a wrapper's workspace while it plans (supports, workspace): 256-byte aligned,
// never dereferenced.
template <class T = char>
inline T* planning_workspace() {
  return reinterpret_cast<T*>(uintptr_t{1} << 20);
}

// A runner's supports() from its reject(): BOO_OK when nothing is rejected, else
// BOO_UNSUPPORTED with the reason in `why`.
inline int32_t reject_verdict(const char* rejected, char* why, int32_t len) {
  if (rejected == nullptr) return BOO_OK;
  write_why(why, len, rejected);
  return BOO_UNSUPPORTED;
}

// BOO_OK, or BOO_ERROR with the CUDA error's text in `why` (after launches: cudaGetLastError()).
inline int32_t cuda_result(cudaError_t e, char* why, int32_t len) {
  if (e == cudaSuccess) return BOO_OK;
  write_why(why, len, cudaGetErrorString(e));
  return BOO_ERROR;
}

// Launches `kernel` (with `shared_bytes` of dynamic shared memory) as a programmatic dependent
// launch: its blocks may start while the kernel before it on `stream` finishes, and must call
// cudaGridDependencySynchronize() before they read that kernel's output (it returns once that
// kernel has completed and its writes are visible). A failed launch's error is returned and
// cleared.
template <class... Params, class... Args>
cudaError_t launch_dependent_shared(void (*kernel)(Params...), dim3 grid, dim3 block,
                                    size_t shared_bytes, cudaStream_t stream, Args... args) {
  cudaLaunchConfig_t config = {};
  config.gridDim = grid;
  config.blockDim = block;
  config.dynamicSmemBytes = shared_bytes;
  config.stream = stream;
  cudaLaunchAttribute attribute[1];
  attribute[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute[0].val.programmaticStreamSerializationAllowed = 1;
  config.attrs = attribute;
  config.numAttrs = 1;
  const cudaError_t e = cudaLaunchKernelEx(&config, kernel, args...);
  if (e != cudaSuccess) (void)cudaGetLastError();
  return e;
}
template <class... Params, class... Args>
cudaError_t launch_dependent(void (*kernel)(Params...), dim3 grid, dim3 block, cudaStream_t stream,
                             Args... args) {
  return launch_dependent_shared(kernel, grid, block, 0, stream, args...);
}
// An ordinary launch, or a programmatic dependent one where `dependent`.
template <class... Params, class... Args>
cudaError_t launch_maybe_dependent(bool dependent, void (*kernel)(Params...), dim3 grid, dim3 block,
                                   cudaStream_t stream, Args... args) {
  if (dependent) return launch_dependent(kernel, grid, block, stream, args...);
  kernel<<<grid, block, 0, stream>>>(args...);
  return cudaGetLastError();
}

}  // namespace boo_kernels

// The four entry points for a runner over one argument struct of abi.h (BooGemmArgs with
// BOO_KIND_GEMM, BooConvArgs with BOO_KIND_CONV).
#define BOO_ENTRY_POINTS(Runner, kName, kKind, Args)                                     \
  extern "C" int32_t boo_info(BooKernelInfo* info) {                                     \
    info->abi_version = BOO_ABI_VERSION;                                                 \
    info->kind = kKind;                                                                  \
    info->name = kName;                                                                  \
    return BOO_OK;                                                                       \
  }                                                                                      \
  extern "C" int32_t boo_supports(const void* args, char* why, int32_t len) {            \
    return Runner::supports(*static_cast<const Args*>(args), why, len);                  \
  }                                                                                      \
  extern "C" int64_t boo_workspace(const void* args) {                                   \
    return Runner::workspace(*static_cast<const Args*>(args));                           \
  }                                                                                      \
  extern "C" int32_t boo_run(const void* args, void* ws, int64_t ws_bytes, void* stream, \
                             char* why, int32_t len) {                                   \
    return Runner::run(*static_cast<const Args*>(args), ws, ws_bytes, stream, why, len); \
  }

#define BOO_GEMM_ENTRY_POINTS(Runner, kName) \
  BOO_ENTRY_POINTS(Runner, kName, BOO_KIND_GEMM, BooGemmArgs)
#define BOO_CONV_ENTRY_POINTS(Runner, kName) \
  BOO_ENTRY_POINTS(Runner, kName, BOO_KIND_CONV, BooConvArgs)
#define BOO_LAYERNORM_ENTRY_POINTS(Runner, kName) \
  BOO_ENTRY_POINTS(Runner, kName, BOO_KIND_LAYERNORM, BooLayerNormArgs)
