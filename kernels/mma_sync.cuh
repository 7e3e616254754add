// The sm_80 primitives that gemm.skinny, conv.pointwise and conv.grouped's direct kernel share:
// warp-level tensor-core MMA (mma.sync, the m16n8k16 shape with fp32 accumulators), fragment
// loads from shared memory (ldmatrix) and asynchronous 16-byte copies from global to shared
// memory (cp.async). Fragments (PTX ISA, row.col), with g = lane / 4 and t = lane % 4: A
// (16 x 16) a[0] = row g, columns 2t and 2t + 1; a[1] = row g + 8; a[2], a[3] = the same rows,
// columns 2t + 8 and 2t + 9. B (16 x 8) b[0] = rows 2t and 2t + 1 of column g; b[1] = rows
// 2t + 8 and 2t + 9. C (16 x 8) c[0], c[1] = row g, columns 2t and 2t + 1; c[2], c[3] = row
// g + 8.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <cstdint>
#include <type_traits>

namespace boo_kernels {

// c += a b with fp16 (MT = __half) or bf16 (otherwise) operands.
template <class MT>
__device__ __forceinline__ void mma_16816(float (&c)[4], const uint32_t (&a)[4],
                                          const uint32_t (&b)[2]) {
  if constexpr (std::is_same_v<MT, __half>) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
        "{%8, %9}, {%0, %1, %2, %3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  } else {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
        "{%8, %9}, {%0, %1, %2, %3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  }
}

// The k8 form: c += a b over 8 of k, with a = A's a[0], a[1] (rows g and g + 8, columns 2t and
// 2t + 1) and b = B's b[0] (rows 2t and 2t + 1 of column g).
template <class MT>
__device__ __forceinline__ void mma_1688(float (&c)[4], const uint32_t (&a)[2], uint32_t b) {
  if constexpr (std::is_same_v<MT, __half>) {
    asm volatile(
        "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5}, {%6}, "
        "{%0, %1, %2, %3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(b));
  } else {
    asm volatile(
        "mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5}, {%6}, "
        "{%0, %1, %2, %3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(b));
  }
}

// The fp8 form (m16n8k32, sm_89 and later): c += a b over 32 of k with e4m3 or e5m2 operands
// (TA, TB: __nv_fp8_e4m3 or __nv_fp8_e5m2, each on its own). Fragments as the 16-bit forms',
// four elements to a register where those hold two: a[0] = row g, columns 4t .. 4t + 3; a[1] =
// row g + 8; a[2], a[3] = the same rows, columns 4t + 16 .. 4t + 19. b[0] = rows 4t .. 4t + 3 of
// column g; b[1] = rows 4t + 16 .. 4t + 19.
template <class TA, class TB>
__device__ __forceinline__ void mma_16832_fp8(float (&c)[4], const uint32_t (&a)[4],
                                              const uint32_t (&b)[2]) {
  constexpr bool kA4 = std::is_same_v<TA, __nv_fp8_e4m3>;
  constexpr bool kB4 = std::is_same_v<TB, __nv_fp8_e4m3>;
  static_assert(kA4 || std::is_same_v<TA, __nv_fp8_e5m2>, "fp8 operands only");
  static_assert(kB4 || std::is_same_v<TB, __nv_fp8_e5m2>, "fp8 operands only");
#define BOO_MMA_16832(types)                                                            \
  asm volatile("mma.sync.aligned.m16n8k32.row.col.f32." types                           \
               ".f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n" \
               : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])                         \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]))
  if constexpr (kA4 && kB4) {
    BOO_MMA_16832("e4m3.e4m3");
  } else if constexpr (kA4) {
    BOO_MMA_16832("e4m3.e5m2");
  } else if constexpr (kB4) {
    BOO_MMA_16832("e5m2.e4m3");
  } else {
    BOO_MMA_16832("e5m2.e5m2");
  }
#undef BOO_MMA_16832
}

// The tf32 form (m16n8k8, fp32 operand bits: the tensor cores read their top 19 bits, as
// warpgroup MMA does). Fragments (PTX ISA), g = lane / 4, t = lane % 4: A (16 x 8) a[0] = row
// g, column t; a[1] = row g + 8, column t; a[2], a[3] = the same rows, column t + 4. B (8 x 8)
// b[0] = row t of column g; b[1] = row t + 4. C as the 16-bit forms'.
__device__ __forceinline__ void mma_1688_tf32(float (&c)[4], const uint32_t (&a)[4],
                                              const uint32_t (&b)[2]) {
  asm volatile(
      "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
      "{%8, %9}, {%0, %1, %2, %3};\n"
      : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

// The 16-byte shared-memory vectors at `s` + i `pitch` bytes (16-byte aligned), for i = first,
// first + step, ... below end, rounded to tf32 in place (to nearest even: cvt.rn, sm_90, as
// CUTLASS's tf32 converter there; the low 13 bits are left undefined, which mma.sync does not
// read), four loads in flight. The loads and stores are volatile asm, so they stay after a
// cp_async_wait (also volatile asm) that precedes them: the vectors must be the thread's own
// cp.async copies that have landed.
__device__ __forceinline__ void round_tf32_vectors(uint32_t s, int pitch, int first, int end,
                                                   int step) {
  for (int i = first; i < end; i += 4 * step) {
    uint32_t v[4][4] = {};
#pragma unroll
    for (int u = 0; u < 4; ++u) {
      if (i + u * step >= end) break;
      asm volatile("ld.shared.v4.b32 {%0, %1, %2, %3}, [%4];\n"
                   : "=r"(v[u][0]), "=r"(v[u][1]), "=r"(v[u][2]), "=r"(v[u][3])
                   : "r"(s + (i + u * step) * pitch));
    }
#pragma unroll
    for (int u = 0; u < 4; ++u) {
#pragma unroll
      for (uint32_t& e : v[u]) asm("cvt.rn.tf32.f32 %0, %1;\n" : "=r"(e) : "f"(__uint_as_float(e)));
    }
#pragma unroll
    for (int u = 0; u < 4; ++u) {
      if (i + u * step >= end) break;
      asm volatile("st.shared.v4.b32 [%0], {%1, %2, %3, %4};\n" ::"r"(s + (i + u * step) * pitch),
                   "r"(v[u][0]), "r"(v[u][1]), "r"(v[u][2]), "r"(v[u][3])
                   : "memory");
    }
  }
}

// 16 bytes global -> shared, bypassing L1; bytes past `src_bytes` (0..16) are zero-filled.
__device__ __forceinline__ void cp_async_16(void* smem, const void* gmem, int src_bytes) {
  const uint32_t s = static_cast<uint32_t>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(s), "l"(gmem),
               "r"(src_bytes));
}

__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n"); }

template <int kPending>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending));
}

// Four (x4) or two (x2) 8 x 8 matrices of 16-bit elements from shared memory: lanes 8 i to
// 8 i + 7 give the 16-byte rows of matrix i, and lane (g, t) receives row g, elements 2t and
// 2t + 1 of each matrix (r[i] from matrix i). With A's matrices ordered (rows 0-7, k 0-7),
// (rows 8-15, k 0-7), (rows 0-7, k 8-15), (rows 8-15, k 8-15), r is mma_16816's a; with B stored
// n-major (a row per output column n, its k contiguous), two matrices (k 0-7, k 8-15) are its b.
// `s`: a shared-memory address (shared_address).
__device__ __forceinline__ uint32_t shared_address(const void* smem) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(smem));
}

__device__ __forceinline__ void ldmatrix_x4(uint32_t (&r)[4], uint32_t s) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(s));
}

// The same, transposed: lane (g, t) receives elements 2t and 2t + 1 of column g (rows 2t and
// 2t + 1 of the 16-byte rows the lanes gave). For operands stored k-major (a row per k, its m or
// n contiguous): matrices (m 0-7, k 0-7), (m 8-15, k 0-7), (m 0-7, k 8-15), (m 8-15, k 8-15)
// give mma_16816's a; (k 0-7, n 0-7), (k 8-15, n 0-7) its b.
__device__ __forceinline__ void ldmatrix_x4_trans(uint32_t (&r)[4], uint32_t s) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(s));
}

__device__ __forceinline__ void ldmatrix_x2(uint32_t (&r)[2], uint32_t s) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];\n"
               : "=r"(r[0]), "=r"(r[1])
               : "r"(s));
}

// Four 8 x 8 matrices of 16-bit elements to shared memory, transposed: lane (g, t) gives
// elements 2t and 2t + 1 of row g of matrix i in r[i] (an mma accumulator's layout), and lanes
// 8 i to 8 i + 7 the addresses of the 16-byte rows matrix i's columns 0 to 7 are stored to.
__device__ __forceinline__ void stmatrix_x4_trans(uint32_t s, const uint32_t (&r)[4]) {
  asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1, %2, %3, %4};\n" ::"r"(s),
               "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3])
               : "memory");
}

// Two such matrices: r[0] and r[1], lanes 0 to 15 giving the addresses.
__device__ __forceinline__ void stmatrix_x2_trans(uint32_t s, const uint32_t (&r)[2]) {
  asm volatile("stmatrix.sync.aligned.m8n8.x2.trans.shared.b16 [%0], {%1, %2};\n" ::"r"(s),
               "r"(r[0]), "r"(r[1])
               : "memory");
}

// Two values rounded to T, the first in the low half (one cvt for bf16x2 and f16x2).
template <class T>
__device__ __forceinline__ uint32_t pack_pair(float lo, float hi) {
  if constexpr (std::is_same_v<T, __half>) {
    const __half2 v = __floats2half2_rn(lo, hi);
    return *reinterpret_cast<const uint32_t*>(&v);
  } else {
    const __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
    return *reinterpret_cast<const uint32_t*>(&v);
  }
}

// A 32-bit load from shared memory (`s`: shared_address), kept in program order.
__device__ __forceinline__ uint32_t lds32(uint32_t s) {
  uint32_t v;
  asm volatile("ld.shared.b32 %0, [%1];\n" : "=r"(v) : "r"(s));
  return v;
}

// A 32-bit store to shared memory (`s`: shared_address) where `store` is non-zero: one
// predicated st.shared, no branch (an epilogue's stores past its tile's pixels).
__device__ __forceinline__ void sts32_if(uint32_t s, uint32_t v, int store) {
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %2, 0;\n@p st.shared.b32 [%0], %1;\n}\n" ::"r"(s),
               "r"(v), "r"(store)
               : "memory");
}

// A 64-bit load from shared memory (`s`: shared_address, 8-byte aligned) into lo, hi.
__device__ __forceinline__ void lds64(uint32_t& lo, uint32_t& hi, uint32_t s) {
  asm volatile("ld.shared.v2.b32 {%0, %1}, [%2];\n" : "=r"(lo), "=r"(hi) : "r"(s));
}

}  // namespace boo_kernels
