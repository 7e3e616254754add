// The sm_90a warpgroup tensor-core primitives that conv.split_wgrad's wgmma kernel uses
// (wgmma.mma_async, PTX ISA 9.7.15): four warps (a warpgroup) multiply a 64 x 16 A by a 16 x 64
// B into a 64 x 64 fp32 accumulator, 32 registers a thread.
//   - A in registers: warp w of the warpgroup holds rows 16 w to 16 w + 15 in mma.sync's m16n8k16
//     A layout (mma_sync.cuh: a[0] row g, k 2t and 2t + 1; a[1] row g + 8; a[2], a[3] k + 8).
//   - B in shared memory, described by a 64-bit matrix descriptor (wgmma_desc_sw128), here
//     MN-major ("transposed": n contiguous), 64 n wide, 128-byte swizzled rows of k.
//   - The accumulator: d[4 i + 0], d[4 i + 1] = row 16 w + g, columns 8 i + 2t and 8 i + 2t + 1;
//     d[4 i + 2], d[4 i + 3] = row 16 w + g + 8 (g = lane / 4, t = lane % 4).
// The operand and accumulator registers must not be touched between an mma and the wait that
// retires it (wgmma_wait); wgmma_fence orders register writes before the next mma.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

namespace boo_kernels {

// The descriptor of an MN-major operand 64 elements wide (n) of 16-bit type in the 128-byte
// swizzled layout: a row of 128 bytes per k, its 16-byte vector c at c ^ (row % 8), rows in a
// buffer that starts at a 1024-byte boundary. The swizzle is applied to the address, so the
// operand may start at any row (measured on an H100 for shifts of 1 to 24 rows with base offset
// 0: bench/results/2026-11-27-wgmma-desc-probe.cu); 8-row groups are 1024 bytes apart.
__device__ __forceinline__ uint64_t wgmma_desc_sw128(uint32_t smem_address) {
  return static_cast<uint64_t>((smem_address & 0x3FFFF) >> 4) | uint64_t{1} << 16 |
         static_cast<uint64_t>(1024 >> 4) << 32 | uint64_t{1} << 62;
}

__device__ __forceinline__ void wgmma_fence() {
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
}
__device__ __forceinline__ void wgmma_commit() {
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}
template <int kPending>
__device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(kPending) : "memory");
}
// Generic-proxy writes to shared memory (cp.async, st.shared) made visible to wgmma's reads (the
// async proxy); before the barrier that publishes them.
__device__ __forceinline__ void fence_proxy_async_shared() {
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}

// Keeps the compiler from moving accumulator reads or writes across an asynchronous mma.
__device__ __forceinline__ void wgmma_hold(float (&d)[32]) {
#pragma unroll
  for (int i = 0; i < 32; ++i) asm volatile("" : "+f"(d[i])::"memory");
}

#define BOO_WGMMA_D32                                                                           \
  "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, " \
  "%20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}"
#define BOO_WGMMA_D32_OPERANDS(d)                                                                 \
  "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
      "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]),    \
      "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]),  \
      "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]),  \
      "+f"(d[29]), "+f"(d[30]), "+f"(d[31])

// d (+)= a b: A from registers, B MN-major from shared memory; `accumulate` 0 overwrites d.
template <class T>
__device__ __forceinline__ void wgmma_m64n64k16_rs(float (&d)[32], const uint32_t (&a)[4],
                                                   uint64_t b, int accumulate) {
  if constexpr (std::is_same_v<T, __half>) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %37, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 " BOO_WGMMA_D32
        ", {%32, %33, %34, %35}, %36, p, 1, 1, 1;\n}\n"
        : BOO_WGMMA_D32_OPERANDS(d)
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(accumulate));
  } else {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %37, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 " BOO_WGMMA_D32
        ", {%32, %33, %34, %35}, %36, p, 1, 1, 1;\n}\n"
        : BOO_WGMMA_D32_OPERANDS(d)
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(accumulate));
  }
}

#undef BOO_WGMMA_D32
#undef BOO_WGMMA_D32_OPERANDS

}  // namespace boo_kernels
