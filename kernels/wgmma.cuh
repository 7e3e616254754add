// The sm_90a warpgroup tensor-core primitives of boo's own kernels (conv.split_wgrad's wgmma
// kernel, conv.sm90_taps, conv.padded_channels' direct kernel; wgmma.mma_async, PTX ISA 9.7.15):
// four warps (a warpgroup) multiply a 64 x 16 A by a 16 x 64 B into a 64 x 64 fp32 accumulator,
// 32 registers a thread.
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
// 0: bench/results/2026-11-27-wgmma-desc-probe.cu); 8-row groups are 1024 bytes apart. The same
// bytes read K-major are rows of m or n, 64 k each; a k-step of 16 starts 32 bytes further.
// `atoms`: for an MN-major operand wider than 64 (wgmma_m64n192k16_rs), the bytes from one
// 64-wide block of n to the next (the leading byte offset: CUTLASS's make_gmma_desc<Major::MN>,
// ((T,8,m),(8,k)):((1,T,LBO),(8T,SBO))); they may overlap (conv.split_wgrad's taps of a filter
// row: blocks 128 dil_w bytes apart, the same rows shifted). 16 for K-major operands (unused).
__device__ __forceinline__ uint64_t wgmma_desc_sw128(uint32_t smem_address, uint32_t atoms = 16) {
  return static_cast<uint64_t>((smem_address & 0x3FFFF) >> 4) |
         static_cast<uint64_t>((atoms & 0x3FFFF) >> 4) << 16 |
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

// Keeps the compiler from moving accumulator reads or writes across an asynchronous mma (any
// accumulator size).
template <int kN>
__device__ __forceinline__ void wgmma_hold(float (&d)[kN]) {
#pragma unroll
  for (int i = 0; i < kN; ++i) asm volatile("" : "+f"(d[i])::"memory");
}

// The accumulator operand lists of the inline assembly below. BOO_WGMMA_Rr: the first r
// accumulator operands (%0 .. %r-1); BOO_WGMMA_Or(d): their constraints; each r a multiple of 4
// from 32 to 128, one 8-column group more each.
#define BOO_WGMMA_R32                                                                          \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, " \
  "%20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
#define BOO_WGMMA_O32(d)                                                                          \
  "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
      "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]),    \
      "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]),  \
      "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]),  \
      "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
#define BOO_WGMMA_R36 BOO_WGMMA_R32 ", %32, %33, %34, %35"
#define BOO_WGMMA_O36(d) BOO_WGMMA_O32(d), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35])
#define BOO_WGMMA_R40 BOO_WGMMA_R36 ", %36, %37, %38, %39"
#define BOO_WGMMA_O40(d) BOO_WGMMA_O36(d), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39])
#define BOO_WGMMA_R44 BOO_WGMMA_R40 ", %40, %41, %42, %43"
#define BOO_WGMMA_O44(d) BOO_WGMMA_O40(d), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43])
#define BOO_WGMMA_R48 BOO_WGMMA_R44 ", %44, %45, %46, %47"
#define BOO_WGMMA_O48(d) BOO_WGMMA_O44(d), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47])
#define BOO_WGMMA_R52 BOO_WGMMA_R48 ", %48, %49, %50, %51"
#define BOO_WGMMA_O52(d) BOO_WGMMA_O48(d), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51])
#define BOO_WGMMA_R56 BOO_WGMMA_R52 ", %52, %53, %54, %55"
#define BOO_WGMMA_O56(d) BOO_WGMMA_O52(d), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55])
#define BOO_WGMMA_R60 BOO_WGMMA_R56 ", %56, %57, %58, %59"
#define BOO_WGMMA_O60(d) BOO_WGMMA_O56(d), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59])
#define BOO_WGMMA_R64 BOO_WGMMA_R60 ", %60, %61, %62, %63"
#define BOO_WGMMA_O64(d) BOO_WGMMA_O60(d), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
#define BOO_WGMMA_R68 BOO_WGMMA_R64 ", %64, %65, %66, %67"
#define BOO_WGMMA_O68(d) BOO_WGMMA_O64(d), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67])
#define BOO_WGMMA_R72 BOO_WGMMA_R68 ", %68, %69, %70, %71"
#define BOO_WGMMA_O72(d) BOO_WGMMA_O68(d), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71])
#define BOO_WGMMA_R76 BOO_WGMMA_R72 ", %72, %73, %74, %75"
#define BOO_WGMMA_O76(d) BOO_WGMMA_O72(d), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75])
#define BOO_WGMMA_R80 BOO_WGMMA_R76 ", %76, %77, %78, %79"
#define BOO_WGMMA_O80(d) BOO_WGMMA_O76(d), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79])
#define BOO_WGMMA_R84 BOO_WGMMA_R80 ", %80, %81, %82, %83"
#define BOO_WGMMA_O84(d) BOO_WGMMA_O80(d), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83])
#define BOO_WGMMA_R88 BOO_WGMMA_R84 ", %84, %85, %86, %87"
#define BOO_WGMMA_O88(d) BOO_WGMMA_O84(d), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87])
#define BOO_WGMMA_R92 BOO_WGMMA_R88 ", %88, %89, %90, %91"
#define BOO_WGMMA_O92(d) BOO_WGMMA_O88(d), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91])
#define BOO_WGMMA_R96 BOO_WGMMA_R92 ", %92, %93, %94, %95"
#define BOO_WGMMA_O96(d) BOO_WGMMA_O92(d), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95])
#define BOO_WGMMA_R100 BOO_WGMMA_R96 ", %96, %97, %98, %99"
#define BOO_WGMMA_O100(d) BOO_WGMMA_O96(d), "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99])
#define BOO_WGMMA_R104 BOO_WGMMA_R100 ", %100, %101, %102, %103"
#define BOO_WGMMA_O104(d) BOO_WGMMA_O100(d), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103])
#define BOO_WGMMA_R108 BOO_WGMMA_R104 ", %104, %105, %106, %107"
#define BOO_WGMMA_O108(d) BOO_WGMMA_O104(d), "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107])
#define BOO_WGMMA_R112 BOO_WGMMA_R108 ", %108, %109, %110, %111"
#define BOO_WGMMA_O112(d) BOO_WGMMA_O108(d), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111])
#define BOO_WGMMA_R116 BOO_WGMMA_R112 ", %112, %113, %114, %115"
#define BOO_WGMMA_O116(d) BOO_WGMMA_O112(d), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115])
#define BOO_WGMMA_R120 BOO_WGMMA_R116 ", %116, %117, %118, %119"
#define BOO_WGMMA_O120(d) BOO_WGMMA_O116(d), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119])
#define BOO_WGMMA_R124 BOO_WGMMA_R120 ", %120, %121, %122, %123"
#define BOO_WGMMA_O124(d) BOO_WGMMA_O120(d), "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123])
#define BOO_WGMMA_R128 BOO_WGMMA_R124 ", %124, %125, %126, %127"
#define BOO_WGMMA_O128(d) BOO_WGMMA_O124(d), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])

// One m64nNk16 of 16-bit TYPE ("f16" or "bf16") into r = N / 2 registers, A and B from shared
// memory (TR: their transpose flags, "0, 0" K-major, "1, 1" MN-major); a, b and accumulate are
// operands r, r + 1 and r + 2 (A, B and P spell them).
#define BOO_WGMMA_SS_ASM(N, R, A, B, P, TR, TYPE)                                                  \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %" #P                                             \
               ", 0;\n"                                                                            \
               "wgmma.mma_async.sync.aligned.m64n" #N "k16.f32." TYPE "." TYPE " {" BOO_WGMMA_R##R \
               "}, %" #A ", %" #B ", p, 1, 1, " TR ";\n}\n"                                        \
               : BOO_WGMMA_O##R(d)                                                                 \
               : "l"(a), "l"(b), "r"(accumulate))
// The same with A from 4 registers a thread (operands r to r + 3: A0..A3), B MN-major.
#define BOO_WGMMA_RS_ASM(N, R, A0, A1, A2, A3, B, P, TYPE)                                         \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %" #P                                             \
               ", 0;\n"                                                                            \
               "wgmma.mma_async.sync.aligned.m64n" #N "k16.f32." TYPE "." TYPE " {" BOO_WGMMA_R##R \
               "}, {%" #A0 ", %" #A1 ", %" #A2 ", %" #A3 "}, %" #B ", p, 1, 1, 1;\n}\n"            \
               : BOO_WGMMA_O##R(d)                                                                 \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(accumulate))
// ASM(args..., TYPE) with T's type name.
#define BOO_WGMMA_TYPED(ASM, ...)            \
  if constexpr (std::is_same_v<T, __half>) { \
    ASM(__VA_ARGS__, "f16");                 \
  } else {                                   \
    ASM(__VA_ARGS__, "bf16");                \
  }
#define BOO_WGMMA_SS_CASE(N, R, A, B, P)                     \
  if constexpr (kN == N) {                                   \
    BOO_WGMMA_TYPED(BOO_WGMMA_SS_ASM, N, R, A, B, P, "0, 0") \
  }

// Both operands in shared memory, K-major (each row of A, an output row m, and each row of B, an
// output column n, holds its 16 k contiguously: 128-byte swizzled rows of 64 k, so a k-step moves
// a descriptor's start by 32 bytes), B kN wide (64 to 256, a multiple of 8): d is 64 x kN fp32,
// kN / 2 registers a thread, d[4 i + 0..3] as in the file's comment for i = 0 to kN / 8 - 1. A
// wgmma's time goes as its N.
template <class T, int kN>
__device__ __forceinline__ void wgmma_m64nk16_ss(float (&d)[kN / 2], uint64_t a, uint64_t b,
                                                 int accumulate) {
  static_assert(kN % 8 == 0 && kN >= 64 && kN <= 256, "wgmma_m64nk16_ss: N is 64 to 256, by 8");
  BOO_WGMMA_SS_CASE(64, 32, 32, 33, 34)
  BOO_WGMMA_SS_CASE(72, 36, 36, 37, 38)
  BOO_WGMMA_SS_CASE(80, 40, 40, 41, 42)
  BOO_WGMMA_SS_CASE(88, 44, 44, 45, 46)
  BOO_WGMMA_SS_CASE(96, 48, 48, 49, 50)
  BOO_WGMMA_SS_CASE(104, 52, 52, 53, 54)
  BOO_WGMMA_SS_CASE(112, 56, 56, 57, 58)
  BOO_WGMMA_SS_CASE(120, 60, 60, 61, 62)
  BOO_WGMMA_SS_CASE(128, 64, 64, 65, 66)
  BOO_WGMMA_SS_CASE(136, 68, 68, 69, 70)
  BOO_WGMMA_SS_CASE(144, 72, 72, 73, 74)
  BOO_WGMMA_SS_CASE(152, 76, 76, 77, 78)
  BOO_WGMMA_SS_CASE(160, 80, 80, 81, 82)
  BOO_WGMMA_SS_CASE(168, 84, 84, 85, 86)
  BOO_WGMMA_SS_CASE(176, 88, 88, 89, 90)
  BOO_WGMMA_SS_CASE(184, 92, 92, 93, 94)
  BOO_WGMMA_SS_CASE(192, 96, 96, 97, 98)
  BOO_WGMMA_SS_CASE(200, 100, 100, 101, 102)
  BOO_WGMMA_SS_CASE(208, 104, 104, 105, 106)
  BOO_WGMMA_SS_CASE(216, 108, 108, 109, 110)
  BOO_WGMMA_SS_CASE(224, 112, 112, 113, 114)
  BOO_WGMMA_SS_CASE(232, 116, 116, 117, 118)
  BOO_WGMMA_SS_CASE(240, 120, 120, 121, 122)
  BOO_WGMMA_SS_CASE(248, 124, 124, 125, 126)
  BOO_WGMMA_SS_CASE(256, 128, 128, 129, 130)
}

// d (+)= a b: A from registers, B MN-major from shared memory; `accumulate` 0 overwrites d.
template <class T>
__device__ __forceinline__ void wgmma_m64n64k16_rs(float (&d)[32], const uint32_t (&a)[4],
                                                   uint64_t b, int accumulate) {
  BOO_WGMMA_TYPED(BOO_WGMMA_RS_ASM, 64, 32, 32, 33, 34, 35, 36, 37)
}

// d (+)= a b with B MN-major and 192 wide: three 64-wide blocks of n, `atoms` bytes apart in
// b's descriptor (wgmma_desc_sw128); d[32 j + i] is block j's d[i] of wgmma_m64n64k16_rs, so the
// accumulators of three m64n64k16 products of one A laid side by side are this one's.
template <class T>
__device__ __forceinline__ void wgmma_m64n192k16_rs(float (&d)[96], const uint32_t (&a)[4],
                                                    uint64_t b, int accumulate) {
  BOO_WGMMA_TYPED(BOO_WGMMA_RS_ASM, 192, 96, 96, 97, 98, 99, 100, 101)
}

// d (+)= a b with both operands MN-major in shared memory (A: 64 m of a k row contiguous, as B),
// 64 or 192 wide (wgmma_m64n192k16_rs's blocks of n).
template <class T, int kN>
__device__ __forceinline__ void wgmma_m64nk16_ss_mn(float (&d)[kN / 2], uint64_t a, uint64_t b,
                                                    int accumulate) {
  static_assert(kN == 64 || kN == 192, "wgmma_m64nk16_ss_mn: N is 64 or 192");
  if constexpr (kN == 64) {
    BOO_WGMMA_TYPED(BOO_WGMMA_SS_ASM, 64, 32, 32, 33, 34, "1, 1")
  } else {
    BOO_WGMMA_TYPED(BOO_WGMMA_SS_ASM, 192, 96, 96, 97, 98, "1, 1")
  }
}

#undef BOO_WGMMA_SS_CASE
#undef BOO_WGMMA_SS_ASM
#undef BOO_WGMMA_RS_ASM
#undef BOO_WGMMA_TYPED
#undef BOO_WGMMA_R32
#undef BOO_WGMMA_O32
#undef BOO_WGMMA_R36
#undef BOO_WGMMA_O36
#undef BOO_WGMMA_R40
#undef BOO_WGMMA_O40
#undef BOO_WGMMA_R44
#undef BOO_WGMMA_O44
#undef BOO_WGMMA_R48
#undef BOO_WGMMA_O48
#undef BOO_WGMMA_R52
#undef BOO_WGMMA_O52
#undef BOO_WGMMA_R56
#undef BOO_WGMMA_O56
#undef BOO_WGMMA_R60
#undef BOO_WGMMA_O60
#undef BOO_WGMMA_R64
#undef BOO_WGMMA_O64
#undef BOO_WGMMA_R68
#undef BOO_WGMMA_O68
#undef BOO_WGMMA_R72
#undef BOO_WGMMA_O72
#undef BOO_WGMMA_R76
#undef BOO_WGMMA_O76
#undef BOO_WGMMA_R80
#undef BOO_WGMMA_O80
#undef BOO_WGMMA_R84
#undef BOO_WGMMA_O84
#undef BOO_WGMMA_R88
#undef BOO_WGMMA_O88
#undef BOO_WGMMA_R92
#undef BOO_WGMMA_O92
#undef BOO_WGMMA_R96
#undef BOO_WGMMA_O96
#undef BOO_WGMMA_R100
#undef BOO_WGMMA_O100
#undef BOO_WGMMA_R104
#undef BOO_WGMMA_O104
#undef BOO_WGMMA_R108
#undef BOO_WGMMA_O108
#undef BOO_WGMMA_R112
#undef BOO_WGMMA_O112
#undef BOO_WGMMA_R116
#undef BOO_WGMMA_O116
#undef BOO_WGMMA_R120
#undef BOO_WGMMA_O120
#undef BOO_WGMMA_R124
#undef BOO_WGMMA_O124
#undef BOO_WGMMA_R128
#undef BOO_WGMMA_O128

}  // namespace boo_kernels
