// What every CUTLASS-backed runner does around its launch (gemm_sm90.cuh, conv_sm90.cuh): cache
// the last arguments' Params (a repeated call skips building TMA descriptors), prepare the
// workspace, set the kernel's dynamic shared memory once, and launch.
#pragma once

#include <cuda_runtime.h>

#include <cstring>
#include <mutex>

#include "cutlass/cutlass.h"
#include "cutlass/device_kernel.h"
#include "entry_points.cuh"

namespace boo_kernels {

// The last ABI arguments of a runner, the workspace they were prepared in, and their Params.
template <class Args, class Params>
struct CutlassParamsCache {
  std::mutex mu;
  bool valid = false;
  Args args{};
  void* workspace = nullptr;
  Params params{};
  bool smem_set = false;

  bool matches(const Args& a, void* ws) const {
    return valid && workspace == ws && std::memcmp(&args, &a, sizeof(Args)) == 0;
  }
  void store(const Args& a, void* ws, const Params& p) {
    params = p;
    args = a;
    workspace = ws;
    valid = true;
  }
};

// Checks that `ws` holds what `args` need and initializes it (stream-K/split-K state).
template <class Adapter, class Kernel, class Arguments>
int32_t prepare_cutlass_workspace(const Arguments& args, void* ws, int64_t ws_bytes, cudaStream_t s,
                                  char* why, int32_t len) {
  if (Adapter::get_workspace_size(args) > static_cast<size_t>(ws_bytes)) {
    write_why(why, len, "workspace too small");
    return BOO_ERROR;
  }
  if (Kernel::initialize_workspace(args, ws, s) != cutlass::Status::kSuccess) {
    write_why(why, len, "CUTLASS initialize_workspace failed");
    return BOO_ERROR;
  }
  return BOO_OK;
}

// Launches `params` (after the once-per-process shared-memory attribute), unless `dry_run`; as a
// programmatic dependent of the kernel before it where `dependent`.
template <class Adapter, class Kernel, class Params>
int32_t launch_cutlass(Params& params, bool& smem_set, bool dry_run, cudaStream_t s, char* why,
                       int32_t len, bool dependent = false) {
  if (!smem_set) {
    constexpr int kSmem = Kernel::SharedStorageSize;
    if (kSmem >= (48 << 10)) {
      const cudaError_t e = cudaFuncSetAttribute(
          cutlass::device_kernel<Kernel>, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem);
      if (e != cudaSuccess) return cuda_result(e, why, len);
    }
    smem_set = true;
  }
  if (dry_run) return BOO_OK;
  // CUTLASS reads cudaGetLastError after its launch: an earlier launch error left in the runtime
  // by someone else (not a sticky fault, which fails everything anyway) would read as this
  // kernel's. Clear it first.
  (void)cudaGetLastError();
  if (Adapter::run(params, s, nullptr, dependent) != cutlass::Status::kSuccess) {
    const cudaError_t e = cudaGetLastError();
    write_why(why, len, e != cudaSuccess ? cudaGetErrorString(e) : "CUTLASS run failed");
    return BOO_ERROR;
  }
  return BOO_OK;
}

}  // namespace boo_kernels
