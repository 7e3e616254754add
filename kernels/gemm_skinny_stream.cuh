// gemm.skinny's streaming main loop (configs `_stream<auto|1|2|4|8>`): the large operand R goes
// from global memory straight into mma.sync fragments, no shared memory and no K split across
// blocks, so that every SM streams R at the copy rate the way a plain read does.
//
// A block is 8 warps: `parts` warps (1, 2, 4 or 8) share each 16-row tile of R, each a
// contiguous share of K, so a block covers 16 x 8 / parts rows. In a 32-deep chunk of K, lane
// (g, t) (g = lane / 4, t = lane % 4) loads 16 bytes of rows g and g + 8 at k = 8 t .. 8 t + 7
// and S's column g (of each 8-column tile) at the same k. The dot product does not care in which
// order K is summed, so those 8 k serve as mma_16816's two k16 steps (elements 0-3 the first
// step's k 2t, 2t + 1, 2t + 8, 2t + 9; elements 4-7 the second's): R's fragments need no
// shuffle, and a warp's load covers 64 contiguous bytes of 8 rows. kStreamUnroll chunks (8
// vectors a lane) are in flight at once. S (at most 32 columns) comes through L1; R bypasses it.
// The warps of a tile add their partial sums in shared memory in warp order (deterministic);
// the epilogue is gemm.skinny's (alpha, beta C, bias, activation).
//
// fp8 inputs (e4m3 or e5m2, each operand its own) multiply as they are, in mma.sync's k32 fp8
// form: a lane's 16-byte vector holds 16 of k, a chunk is 64 deep, and the fragments line up the
// same way (elements 0-7 of a vector the first k32 step's k 4t .. 4t + 3 and 4t + 16 .. 4t + 19,
// elements 8-15 the second's). The per-tensor scales reach the epilogue through alpha_scale.
//
// Any layout is correct (vectors are gathered element by element where R or S is not
// contiguous in K and 16-byte aligned); the fast path is the decode layout. Inputs of 16 bits
// or fp8; fp32 inputs stay on the other loops.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "entry_points.cuh"
#include "gemm_skinny_kernel.cuh"
#include "gemm_skinny_plan.cuh"

namespace boo_kernels {

// kStreamWarps, kStreamUnroll and kStreamBlocksPerSm: gemm_skinny_plan.cuh.
constexpr int kStreamThreads = kStreamWarps * 32;
// Chunks in flight per lane while a warp's share of K has that many left, before the
// kStreamUnroll steps (warps per tile still follow kStreamUnroll: stream_parts), for a single
// column. H200: 4096 x 1 x 14336 36.8 -> 34.1 us, 128256 x 1 x 4096 248 -> 241; with 2 columns
// within noise either way, with 4 1-3% slower (11008 x 4 x 4096), past 8 columns the registers
// spill; 8 for every step (BOO_SKINNY_STREAM_UNROLL=8) halved the warps a tile on short K
// (1024 x 16 x 1024: 6.2 -> 7.5 us). bench/results/2026-11-28-conv-latency-h200.md.
// BOO_SKINNY_STREAM_DEEP=0 leaves the deep steps out (for measuring).
#ifndef BOO_SKINNY_STREAM_DEEP
#define BOO_SKINNY_STREAM_DEEP 1
#endif
constexpr int kStreamDeepUnroll = BOO_SKINNY_STREAM_DEEP ? 2 * kStreamUnroll : kStreamUnroll;

template <class T>
constexpr bool kIsFp8 = std::is_same_v<T, __nv_fp8_e4m3> || std::is_same_v<T, __nv_fp8_e5m2>;

template <class Kernel, class TR, class TS>
struct SkinnyStream {
  using MT = typename Kernel::MT;
  static_assert(sizeof(MT) == 2, "the streaming loop multiplies 16-bit types");
  // Both inputs fp8: the k32 fp8 multiply on the elements as loaded (see the top).
  static constexpr bool kFp8 = kIsFp8<TR> && kIsFp8<TS>;
  static constexpr int kVec = kFp8 ? 16 : 8;  // elements of a 16-byte vector
  // k per chunk: a vector a lane, 4 lanes a line (gemm_skinny_plan.cuh, which dispatch reads too)
  static constexpr int kChunk = static_cast<int>(stream_chunk_for(kFp8 ? 1 : 2));
  static_assert(kChunk == 4 * kVec, "a chunk is one vector in each of 4 lanes");

  struct Shared {
    float part[kStreamWarps][16][kSkinnyCols + 1];  // +1: conflict-free column writes
  };

  // volatile: kept ahead of the multiplies (asm volatile too), so that all of a step's loads are
  // in flight before the first multiply waits on one.
  static __device__ __forceinline__ uint4 stream_line(const void* p) {
    uint4 r;
    asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w)
                 : "l"(p));
    return r;
  }

  // fp8: kVec elements p[0], p[step], ... (zeros from `count` on; fp8 zero is all bits clear)
  // as they are, packed into 16 bytes.
  template <class T>
  static __device__ __forceinline__ uint4 gather_bytes(const T* p, int64_t step, int64_t count) {
    const uint8_t* b = reinterpret_cast<const uint8_t*>(p);
    uint32_t w[4] = {};
#pragma unroll
    for (int e = 0; e < kVec; ++e) {
      if (e < count) w[e / 4] |= static_cast<uint32_t>(b[e * step]) << (8 * (e % 4));
    }
    return make_uint4(w[0], w[1], w[2], w[3]);
  }

  // A vector the loads below cannot take whole: fp8 bytes as they are, else elements converted
  // into the multiply type (Kernel::gather).
  template <class T>
  static __device__ __forceinline__ uint4 gather_line(const T* line, int64_t ks, int64_t count,
                                                      bool wide) {
    if constexpr (kFp8) {
      return gather_bytes(line, ks, count);
    } else {
      return Kernel::gather(line, ks, count, wide && ks == 1);
    }
  }

  // kVec consecutive k of one line (a row of R or a column of S) from k on, zeros past `count`.
  template <class T>
  static __device__ __forceinline__ uint4 load_r(const T* line, int64_t ks, int64_t count,
                                                 bool wide) {
    if constexpr (kFp8 || std::is_same_v<T, MT>) {
      if (wide && count >= kVec) return stream_line(line);
    }
    return gather_line(line, ks, count, wide);
  }

  template <class T>
  static __device__ __forceinline__ uint4 load_s(const T* line, int64_t ks, int64_t count,
                                                 bool wide) {
    if constexpr (kFp8 || std::is_same_v<T, MT>) {
      if (wide && count >= kVec) return __ldg(reinterpret_cast<const uint4*>(line));
    }
    return gather_line(line, ks, count, wide);
  }

  // acc[nt] += R(rows g, g + 8; kVec k) S(kVec k; column 8 nt + g) for the vectors x0, x1 of R.
  template <int kColTiles>
  static __device__ __forceinline__ void multiply(float (&acc)[kColTiles][4], uint4 x0, uint4 x1,
                                                  const uint4 (&y)[kColTiles]) {
    const uint32_t a0[4] = {x0.x, x1.x, x0.y, x1.y};
    const uint32_t a1[4] = {x0.z, x1.z, x0.w, x1.w};
#pragma unroll
    for (int nt = 0; nt < kColTiles; ++nt) {
      const uint32_t b0[2] = {y[nt].x, y[nt].y};
      const uint32_t b1[2] = {y[nt].z, y[nt].w};
      if constexpr (kFp8) {
        mma_16832_fp8<TR, TS>(acc[nt], a0, b0);
        mma_16832_fp8<TR, TS>(acc[nt], a1, b1);
      } else {
        mma_16816<MT>(acc[nt], a0, b0);
        mma_16816<MT>(acc[nt], a1, b1);
      }
    }
  }

  // kColTiles: 8-column tiles of S (1 to 4; the launch picks the instance for `cols`).
  template <int kColTiles>
  static __device__ void run(const SkinnyView& v, const BooGemmArgs& a, int parts) {
    __shared__ Shared sh;
    const int warp = threadIdx.x / 32;
    const int lane = threadIdx.x % 32;
    const int g = lane / 4;
    const int t = lane % 4;
    const int tiles_per_block = kStreamWarps / parts;
    const int64_t b = blockIdx.z;
    const int64_t row0 = (static_cast<int64_t>(blockIdx.x) * tiles_per_block + warp / parts) * 16;
    const int part = warp % parts;
    const int64_t share = ((v.k + parts - 1) / parts + kChunk - 1) / kChunk * kChunk;
    const int64_t kb = part * share;
    const int64_t ke = kb + share < v.k ? kb + share : v.k;

    // Rows past the end load the last row (never stored); columns past the end are zero.
    const int64_t ra = row0 + g < v.rows ? row0 + g : v.rows - 1;
    const int64_t rb = row0 + g + 8 < v.rows ? row0 + g + 8 : v.rows - 1;
    const TR* R = static_cast<const TR*>(v.r) + b * v.r_bs;
    const TS* S = static_cast<const TS*>(v.s) + b * v.s_bs;
    const TR* r0 = R + ra * v.r_rs;
    const TR* r1 = R + rb * v.r_rs;
    const TS* s_line[kColTiles];
#pragma unroll
    for (int nt = 0; nt < kColTiles; ++nt) {
      const int col = nt * 8 + g;
      s_line[nt] = S + (col < v.cols ? col : 0) * v.s_ss;
    }
    const bool wide = v.r_wide && v.s_wide;

    float acc[kColTiles][4] = {};
    int64_t k = kb;
    // Steps of kU chunks: all of a step's loads of R in flight before its first multiply.
    const auto steps = [&](auto unroll) {
      constexpr int kU = decltype(unroll)::value;
      for (; k + kU * kChunk <= ke; k += kU * kChunk) {
        uint4 x0[kU], x1[kU];
#pragma unroll
        for (int u = 0; u < kU; ++u) {
          const int64_t kk = k + u * kChunk + t * kVec;
          x0[u] = load_r(r0 + kk, 1, kVec, true);
          x1[u] = load_r(r1 + kk, 1, kVec, true);
        }
#pragma unroll
        for (int u = 0; u < kU; ++u) {
          const int64_t kk = k + u * kChunk + t * kVec;
          uint4 y[kColTiles];
#pragma unroll
          for (int nt = 0; nt < kColTiles; ++nt) {
            y[nt] = nt * 8 + g < v.cols ? load_s(s_line[nt] + kk, 1, kVec, true)
                                        : make_uint4(0, 0, 0, 0);
          }
          multiply(acc, x0[u], x1[u], y);
        }
      }
    };
    if (wide) {
      if constexpr (kStreamDeepUnroll > kStreamUnroll && kColTiles == 1) {  // (more tiles spill)
        if (v.cols == 1) steps(std::integral_constant<int, kStreamDeepUnroll>{});
      }
      steps(std::integral_constant<int, kStreamUnroll>{});
    }
    // The rest a chunk at a time (partial vectors zero-filled; everything when not wide).
    for (; k < ke; k += kChunk) {
      const int64_t kk = k + t * kVec;
      const int64_t count = ke - kk;  // may be <= 0: all zeros
      const uint4 x0 = load_r(r0 + kk * v.r_ks, v.r_ks, count, wide);
      const uint4 x1 = load_r(r1 + kk * v.r_ks, v.r_ks, count, wide);
      uint4 y[kColTiles];
#pragma unroll
      for (int nt = 0; nt < kColTiles; ++nt) {
        y[nt] = nt * 8 + g < v.cols ? load_s(s_line[nt] + kk * v.s_ks, v.s_ks, count, wide)
                                    : make_uint4(0, 0, 0, 0);
      }
      multiply(acc, x0, x1, y);
    }

    // Partial sums of this warp's share of K, then the tile's warps in order.
#pragma unroll
    for (int nt = 0; nt < kColTiles; ++nt) {
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        sh.part[warp][g + (e >= 2 ? 8 : 0)][nt * 8 + 2 * t + (e & 1)] = acc[nt][e];
      }
    }
    __syncthreads();
    const float alpha = a.alpha * (a.alpha_scale != nullptr ? *a.alpha_scale : 1.0f);
    const int outputs = tiles_per_block * 16 * kSkinnyCols;
    for (int o = threadIdx.x; o < outputs; o += kStreamThreads) {
      const int tile = o / (16 * kSkinnyCols);
      const int row = o % 16;  // rows fastest: D's column-major stores coalesce
      const int col = o / 16 % kSkinnyCols;
      const int64_t r = (static_cast<int64_t>(blockIdx.x) * tiles_per_block + tile) * 16 + row;
      if (col >= v.cols || r >= v.rows) continue;
      float sum = 0.0f;
      for (int p = 0; p < parts; ++p) sum += sh.part[tile * parts + p][row][col];
      Kernel::store(v, a, b, r, col, Kernel::load_epilogue(v, a, alpha, b, r, col), sum);
    }
  }
};

template <class Kernel, class TR, class TS, int kColTiles>
__global__ void __launch_bounds__(kStreamThreads, kStreamBlocksPerSm)
    gemm_skinny_stream_kernel(SkinnyView v, BooGemmArgs a, int parts) {
  SkinnyStream<Kernel, TR, TS>::template run<kColTiles>(v, a, parts);
}

}  // namespace boo_kernels
