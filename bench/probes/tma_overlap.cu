// Probe: does a TMA tiled tensor map accept a row stride smaller than a row (overlapping rows,
// the view of a 1D NWC convolution's im2col matrix), and does a load through it read the
// overlapping addresses?
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <vector>

__global__ void load_box(const __grid_constant__ CUtensorMap tm, int c0, int c1, uint16_t* out) {
  __shared__ alignas(128) uint16_t smem[8 * 64];
  __shared__ alignas(8) uint64_t bar;
  const uint32_t bar_addr = static_cast<uint32_t>(__cvta_generic_to_shared(&bar));
  const uint32_t smem_addr = static_cast<uint32_t>(__cvta_generic_to_shared(smem));
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar_addr));
    asm volatile("fence.mbarrier_init.release.cluster;");
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar_addr),
                 "r"(8 * 64 * 2));
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, "
        "{%2, %3}], [%4];" ::"r"(smem_addr),
        "l"(&tm), "r"(c0), "r"(c1), "r"(bar_addr)
        : "memory");
  }
  uint32_t done = 0;
  while (!done) {
    asm volatile(
        "{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0; selp.u32 %0, 1, 0, "
        "p; }"
        : "=r"(done)
        : "r"(bar_addr));
  }
  for (int i = threadIdx.x; i < 8 * 64; i += blockDim.x) out[i] = smem[i];
}

int main() {
  const int n = 4096;
  std::vector<uint16_t> h(n);
  for (int i = 0; i < n; ++i) h[i] = static_cast<uint16_t>(i);
  uint16_t *d = nullptr, *o = nullptr;
  cudaMalloc(&d, n * 2);
  cudaMalloc(&o, 8 * 64 * 2);
  cudaMemcpy(d, h.data(), n * 2, cudaMemcpyHostToDevice);
  using Encode =
      CUresult (*)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*, const cuuint64_t*,
                   const cuuint64_t*, const cuuint32_t*, const cuuint32_t*, CUtensorMapInterleave,
                   CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult q;
  cudaGetDriverEntryPoint("cuTensorMapEncodeTiled", &fn, cudaEnableDefault, &q);
  if (fn == nullptr) {
    std::printf("probe: no cuTensorMapEncodeTiled\n");
    return 1;
  }
  // Rows of 192 elements, each starting 64 elements after the one before (stride 128 B).
  for (int stride_elems : {64, 256}) {
    CUtensorMap tm;
    cuuint64_t dims[2] = {192, 20};
    cuuint64_t strides[1] = {static_cast<cuuint64_t>(stride_elems) * 2};
    cuuint32_t box[2] = {64, 8};
    cuuint32_t estr[2] = {1, 1};
    CUresult r = reinterpret_cast<Encode>(fn)(
        &tm, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, d, dims, strides, box, estr,
        CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_NONE,
        CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    std::printf("probe: row stride %d elements, row 192: encode %s (%d)\n", stride_elems,
                r == CUDA_SUCCESS ? "ok" : "REJECTED", static_cast<int>(r));
    if (r != CUDA_SUCCESS) continue;
    load_box<<<1, 128>>>(tm, 64, 2, o);
    cudaError_t e = cudaDeviceSynchronize();
    std::vector<uint16_t> got(8 * 64);
    cudaMemcpy(got.data(), o, got.size() * 2, cudaMemcpyDeviceToHost);
    int bad = 0;
    for (int r8 = 0; r8 < 8; ++r8)
      for (int c = 0; c < 64; ++c)
        bad += got[r8 * 64 + c] != static_cast<uint16_t>((2 + r8) * stride_elems + 64 + c);
    std::printf("probe: load %s, %d of 512 elements wrong\n", cudaGetErrorString(e), bad);
  }
  return 0;
}
