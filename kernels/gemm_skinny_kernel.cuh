// gemm.skinny's split main loops (kernels/gemm_skinny.cuh has the whole picture): each
// 128-thread block multiplies a 64-row slice of the large operand R by the narrow operand S (at
// most 32 columns) with mma.sync (fp32 accumulation; a scalar loop for fp32 inputs), 128 (fp32:
// 32) deep per step, and K is split over enough blocks to fill whole waves of the GPU. Two main
// loops: a 4-stage cp.async pipeline when both operands are 16-bit, contiguous in K and 16-byte
// aligned, else a loop that gathers the next tile in registers (any layout, fp8 and fp32
// inputs, converted on the way). The last block of a row slice to finish sums the splits' fp32
// partials in a fixed order (deterministic) and applies the epilogue; with one split the block
// writes D directly. The helpers here (views, loads, the epilogue) serve the GEMV loops of
// gemm_skinny_gemv.cuh too.
//
// Canonical problem: O = R S, rows x cols (cols <= 32), per batch. Without `kSwapped`
// (N <= 32): R = op(A), S = op(B), O = D. With it (M <= 32): R = op(B)^T, S = op(A)^T,
// O = D^T.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "activation.cuh"
#include "convert.cuh"
#include "entry_points.cuh"
#include "mma_sync.cuh"

namespace boo_kernels {

constexpr int kSkinnyRows = 64;  // rows of R per block: 4 warps x 16 (one mma row tile each)
constexpr int kSkinnySplitQuantum = 128;  // K splits are multiples of every kernel's depth
constexpr int kSkinnyCols = 32;           // most columns of S
constexpr int kSkinnyThreads = 128;
constexpr int kSkinnyBlocksPerSm = 3;  // the launch bound: 168 registers, 26 KB of shared memory
constexpr int kSkinnyPipelinedBlocksPerSm = 2;  // 102 KB of shared memory each
// The last block of a row slice reads splits x 64 x cols fp32 partials; at most this many.
constexpr int kSkinnyMostPartials = 32768;
struct SkinnyView {
  const void* r;
  int64_t r_rs, r_ks, r_bs;  // R(r, k) = r[b * r_bs + r * r_rs + k * r_ks]
  const void* s;
  int64_t s_ks, s_ss, s_bs;  // S(k, s)
  int64_t rows, cols, k, batch;
  int64_t o_rs, o_ss, o_bs;  // O(r, s) -> D[b * o_bs + r * o_rs + s * o_ss]
  int64_t c_rs, c_ss, c_bs;  // the same position in C
  int64_t splits, k_per_split;
  float* partial;      // [split][row slice][64 x cols] fp32, when splits > 1
  uint32_t* counters;  // [row slice]: arrivals (BooGemmArgs::semaphores)
  int r_wide;          // R's rows contiguous in K and 16-byte aligned: vector loads
  int r_rows_fastest;  // R stored rows-fastest (M-major): threads walk rows
  int s_wide;          // the same for S's columns
  int s_cols_fastest;
};

template <bool kSwapped>
SkinnyView make_skinny_view(const BooGemmArgs& a) {
  SkinnyView v{};
  if (!kSwapped) {
    v.r = a.a;
    v.r_rs = a.trans_a ? a.lda : 1;
    v.r_ks = a.trans_a ? 1 : a.lda;
    v.r_bs = a.stride_a;
    v.s = a.b;
    v.s_ks = a.trans_b ? a.ldb : 1;
    v.s_ss = a.trans_b ? 1 : a.ldb;
    v.s_bs = a.stride_b;
    v.rows = a.m;
    v.cols = a.n;
    v.o_rs = 1;
    v.o_ss = a.ldd;
    v.c_rs = 1;
    v.c_ss = a.ldc;
  } else {
    v.r = a.b;
    v.r_rs = a.trans_b ? 1 : a.ldb;
    v.r_ks = a.trans_b ? a.ldb : 1;
    v.r_bs = a.stride_b;
    v.s = a.a;
    v.s_ks = a.trans_a ? 1 : a.lda;
    v.s_ss = a.trans_a ? a.lda : 1;
    v.s_bs = a.stride_a;
    v.rows = a.n;
    v.cols = a.m;
    v.o_rs = a.ldd;
    v.o_ss = 1;
    v.c_rs = a.ldc;
    v.c_ss = 1;
  }
  v.o_bs = a.stride_d;
  v.c_bs = a.stride_c;
  v.k = a.k;
  v.batch = a.batch;
  return v;
}

__device__ __forceinline__ void ldmatrix_x4(uint32_t (&r)[4], const void* p) {
  const uint32_t a = static_cast<uint32_t>(__cvta_generic_to_shared(p));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(a));
}

__device__ __forceinline__ void ldmatrix_x2(uint32_t (&r)[2], const void* p) {
  const uint32_t a = static_cast<uint32_t>(__cvta_generic_to_shared(p));
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];\n"
               : "=r"(r[0]), "=r"(r[1])
               : "r"(a));
}

// The multiply type: fp16 when both inputs are fp16, else bf16 (fp8 values are exact in bf16);
// fp32 inputs take the scalar loop (kMma false) and stage as float.
template <class TR, class TS>
using SkinnyMmaType = std::conditional_t<std::is_same_v<TR, __half> && std::is_same_v<TS, __half>,
                                         __half, __nv_bfloat16>;

// Element conversion into the multiply type (none when the types agree).
template <class MT, class T>
__device__ __forceinline__ MT to_mt(T x) {
  if constexpr (std::is_same_v<MT, T>) {
    return x;
  } else {
    return from_float<MT>(to_float(x));
  }
}

template <class TR, class TS, class TD, class TBias, int kAct, bool kHasC, bool kHasBias,
          bool kAlphaVector, bool kSwapped, bool kMma>
struct SkinnyKernel {
  using MT = std::conditional_t<kMma, SkinnyMmaType<TR, TS>, float>;
  // k per step: 128 for the mma path (16 KB of R per block in flight), 32 for fp32.
  static constexpr int kDepth = kMma ? 128 : 32;
  static constexpr int kVec = 16 / sizeof(MT);   // elements per 16-byte shared vector
  static constexpr int kStride = kDepth + kVec;  // padded rows: conflict-free ldmatrix
  static constexpr int kRVectors = kSkinnyRows * kDepth / kVec / kSkinnyThreads;  // 8 or 4
  static constexpr int kSVectors = kSkinnyCols * kDepth / kVec / kSkinnyThreads;  // 4 or 2
  static constexpr int kOutputs = kSkinnyRows * kSkinnyCols / kSkinnyThreads;     // 16

  struct Shared {
    alignas(16) MT r[kSkinnyRows][kStride];
    alignas(16) MT s[kSkinnyCols][kStride];
  };

  // The next tile in registers, loaded before the current tile's multiplies so that the loads
  // are in flight meanwhile: kVec consecutive k of one row of R (or column of S) per vector.
  struct Staged {
    uint4 r[kRVectors];
    uint4 s[kSVectors];
  };

  // Vector `id` of a tile of `lines` rows (or columns): threads walk K when the operand is
  // K-fastest in memory, else they walk its rows, so that a warp's loads stay coalesced.
  static __device__ __forceinline__ void coord(int id, int lines, bool lines_fastest, int& line,
                                               int& kv) {
    if (lines_fastest) {
      line = id % lines;
      kv = id / lines * kVec;
    } else {
      line = id / (kDepth / kVec);
      kv = id % (kDepth / kVec) * kVec;
    }
  }

  // The bits of a multiply-type value.
  static __device__ __forceinline__ uint32_t bits_of(MT x) {
    if constexpr (sizeof(MT) == 4) {
      return __float_as_uint(x);
    } else {
      uint16_t u;
      memcpy(&u, &x, 2);
      return u;
    }
  }

  // kVec elements p[0], p[step], ... (those before `count`, zeros after) as multiply types,
  // packed into 16 bytes. `wide`: one load of the kVec contiguous, aligned elements.
  template <class T>
  static __device__ __forceinline__ uint4 gather(const T* p, int64_t step, int64_t count,
                                                 bool wide) {
    if constexpr (std::is_same_v<T, MT>) {
      if (wide && count >= kVec) return *reinterpret_cast<const uint4*>(p);
    }
    T in[kVec];
    if (wide && count >= kVec) {
      static_assert(sizeof(T) * kVec == 16 || sizeof(T) * kVec == 8);
      if constexpr (sizeof(T) * kVec == 8) {
        const uint2 raw = *reinterpret_cast<const uint2*>(p);
        memcpy(in, &raw, 8);
      } else {
        const uint4 raw = *reinterpret_cast<const uint4*>(p);
        memcpy(in, &raw, 16);
      }
    } else {
#pragma unroll
      for (int e = 0; e < kVec; ++e) in[e] = e < count ? p[e * step] : T(0.0f);
    }
    uint32_t w[4] = {0, 0, 0, 0};
#pragma unroll
    for (int e = 0; e < kVec; ++e) {
      const uint32_t x = bits_of(to_mt<MT>(in[e]));
      if constexpr (sizeof(MT) == 4) {
        w[e] = x;
      } else {
        w[e / 2] |= x << (16 * (e % 2));
      }
    }
    return make_uint4(w[0], w[1], w[2], w[3]);
  }

  static __device__ __forceinline__ void fetch(Staged& st, const SkinnyView& v, int64_t b,
                                               int64_t r0, int64_t k0, int64_t ke) {
    const TR* R = static_cast<const TR*>(v.r) + b * v.r_bs;
    const TS* S = static_cast<const TS*>(v.s) + b * v.s_bs;
#pragma unroll
    for (int i = 0; i < kRVectors; ++i) {
      int row, kv;
      coord(threadIdx.x + kSkinnyThreads * i, kSkinnyRows, v.r_rows_fastest, row, kv);
      const int64_t gr = r0 + row;
      const int64_t gk = k0 + kv;
      const int64_t count = gr < v.rows ? ke - gk : 0;
      st.r[i] = gather(R + gr * v.r_rs + gk * v.r_ks, v.r_ks, count, v.r_wide);
    }
#pragma unroll
    for (int i = 0; i < kSVectors; ++i) {
      int col, kv;
      coord(threadIdx.x + kSkinnyThreads * i, kSkinnyCols, v.s_cols_fastest, col, kv);
      const int64_t gk = k0 + kv;
      const int64_t count = col < v.cols ? ke - gk : 0;
      st.s[i] = gather(S + col * v.s_ss + gk * v.s_ks, v.s_ks, count, v.s_wide);
    }
  }

  static __device__ __forceinline__ void commit(Shared& sh, const Staged& st, const SkinnyView& v) {
#pragma unroll
    for (int i = 0; i < kRVectors; ++i) {
      int row, kv;
      coord(threadIdx.x + kSkinnyThreads * i, kSkinnyRows, v.r_rows_fastest, row, kv);
      *reinterpret_cast<uint4*>(&sh.r[row][kv]) = st.r[i];
    }
#pragma unroll
    for (int i = 0; i < kSVectors; ++i) {
      int col, kv;
      coord(threadIdx.x + kSkinnyThreads * i, kSkinnyCols, v.s_cols_fastest, col, kv);
      if (col < v.cols) *reinterpret_cast<uint4*>(&sh.s[col][kv]) = st.s[i];
    }
  }

  // The epilogue's inputs at O(r, s), loaded before any store: alpha (times the row's factor)
  // and beta C + bias.
  struct Epilogue {
    float scale = 0.0f;
    float add = 0.0f;
  };

  static __device__ __forceinline__ Epilogue load_epilogue(const SkinnyView& v,
                                                           const BooGemmArgs& a, float alpha,
                                                           int64_t b, int64_t r, int64_t s) {
    const int64_t i = kSwapped ? s : r;  // the row of D: bias and alpha-vector index
    Epilogue e;
    e.scale = alpha;
    if constexpr (kAlphaVector) e.scale *= a.alpha_vector[i];
    if constexpr (kHasC) {
      if (a.beta != 0.0f) {
        e.add =
            a.beta * to_float(static_cast<const TD*>(a.c)[b * v.c_bs + r * v.c_rs + s * v.c_ss]);
      }
    }
    if constexpr (kHasBias) e.add += to_float(static_cast<const TBias*>(a.bias)[i]);
    return e;
  }

  static __device__ __forceinline__ void store(const SkinnyView& v, const BooGemmArgs& a, int64_t b,
                                               int64_t r, int64_t s, Epilogue e, float acc) {
    static_cast<TD*>(a.d)[b * v.o_bs + r * v.o_rs + s * v.o_ss] =
        from_float<TD>(activate<kAct>(e.scale * acc + e.add));
  }

  // Output j (< kOutputs) of this thread: its row and column in the block's 64 x 32 tile.
  static __device__ __forceinline__ void output_at(int j, int& row, int& col) {
    const int warp = threadIdx.x / 32;
    const int lane = threadIdx.x % 32;
    if constexpr (kMma) {  // mma accumulator fragments: n-tile j / 4, element j % 4
      row = warp * 16 + (lane >> 2) + ((j & 3) >= 2 ? 8 : 0);
      col = (j >> 2) * 8 + (lane & 3) * 2 + (j & 1);
    } else {
      row = warp * 16 + (lane & 15);
      col = (lane >> 4) + 2 * j;
    }
  }

  // acc += R S over one kDepth step of shared tiles r[64][kStride], s[32][kStride].
  static __device__ __forceinline__ void multiply(const MT (*r)[kStride], const MT (*s)[kStride],
                                                  float (&acc)[kOutputs], int col_tiles) {
    const int warp = threadIdx.x / 32;
    const int lane = threadIdx.x % 32;
    if constexpr (kMma) {
#pragma unroll
      for (int kk = 0; kk < kDepth; kk += 16) {
        uint32_t af[4];
        ldmatrix_x4(af, &r[warp * 16 + (lane & 15)][kk + (lane >> 4) * 8]);
#pragma unroll
        for (int nt = 0; nt < 4; ++nt) {
          if (nt < col_tiles) {
            uint32_t bf[2];
            ldmatrix_x2(bf, &s[nt * 8 + (lane & 7)][kk + ((lane >> 3) & 1) * 8]);
            float c[4] = {acc[nt * 4], acc[nt * 4 + 1], acc[nt * 4 + 2], acc[nt * 4 + 3]};
            mma_16816<MT>(c, af, bf);
#pragma unroll
            for (int e = 0; e < 4; ++e) acc[nt * 4 + e] = c[e];
          }
        }
      }
    } else {
      const int row = warp * 16 + (lane & 15);
      const int c0 = lane >> 4;
#pragma unroll 4
      for (int kk = 0; kk < kDepth; ++kk) {
        const float x = r[row][kk];
#pragma unroll
        for (int j = 0; j < kOutputs; ++j) acc[j] += x * s[c0 + 2 * j][kk];
      }
    }
  }

  // The general main loop: any layout and input type, the next tile prefetched in registers.
  static __device__ void run(const SkinnyView& v, const BooGemmArgs& a) {
    __shared__ Shared sh;
    __shared__ int last;
    const int64_t r0 = static_cast<int64_t>(blockIdx.x) * kSkinnyRows;
    const int64_t b = blockIdx.z;
    const int64_t kb = blockIdx.y * v.k_per_split;
    const int64_t ke = kb + v.k_per_split < v.k ? kb + v.k_per_split : v.k;
    float acc[kOutputs] = {};  // mma fragments (n-tile j / 4) or the scalar loop's columns
    // Columns of S past `cols` (up to 32) are zero throughout.
    for (int id = threadIdx.x; id < (kSkinnyCols - v.cols) * kStride; id += kSkinnyThreads) {
      sh.s[v.cols + id / kStride][id % kStride] = from_float<MT>(0.0f);
    }
    Staged st;
    fetch(st, v, b, r0, kb, ke);
    for (int64_t k0 = kb; k0 < ke; k0 += kDepth) {
      commit(sh, st, v);
      __syncthreads();
      if (k0 + kDepth < ke) fetch(st, v, b, r0, k0 + kDepth, ke);
      multiply(sh.r, sh.s, acc, static_cast<int>((v.cols + 7) / 8));
      __syncthreads();
    }
    finish(v, a, acc, last);
  }

  // The main loop of the common decode case (16-bit inputs of the multiply type, R and S both
  // contiguous in K and 16-byte aligned): kStages-deep cp.async pipeline into dynamic shared
  // memory, three tiles of each block in flight while the fourth is multiplied.
  static constexpr int kStages = 4;
  static constexpr int kStageElems = (kSkinnyRows + kSkinnyCols) * kStride;
  static constexpr int kPipelinedShared = kStages * kStageElems * static_cast<int>(sizeof(MT));

  static __device__ __forceinline__ void issue(MT* stage, const SkinnyView& v, int64_t b,
                                               int64_t r0, int64_t k0, int64_t ke) {
    const MT* R = static_cast<const MT*>(v.r) + b * v.r_bs;
    const MT* S = static_cast<const MT*>(v.s) + b * v.s_bs;
#pragma unroll
    for (int i = 0; i < kRVectors; ++i) {
      int row, kv;
      coord(threadIdx.x + kSkinnyThreads * i, kSkinnyRows, false, row, kv);
      const int64_t gr = r0 + row;
      const int64_t gk = k0 + kv;
      const int64_t n = gr < v.rows ? (ke - gk < kVec ? ke - gk : kVec) : 0;
      const MT* src = n > 0 ? R + gr * v.r_rs + gk : R;
      cp_async_16(stage + row * kStride + kv, src, n > 0 ? static_cast<int>(n * sizeof(MT)) : 0);
    }
#pragma unroll
    for (int i = 0; i < kSVectors; ++i) {
      int col, kv;
      coord(threadIdx.x + kSkinnyThreads * i, kSkinnyCols, false, col, kv);
      const int64_t gk = k0 + kv;
      const int64_t n = col < v.cols ? (ke - gk < kVec ? ke - gk : kVec) : 0;
      const MT* src = n > 0 ? S + col * v.s_ss + gk : S;
      cp_async_16(stage + (kSkinnyRows + col) * kStride + kv, src,
                  n > 0 ? static_cast<int>(n * sizeof(MT)) : 0);
    }
  }

  static __device__ void run_pipelined(const SkinnyView& v, const BooGemmArgs& a) {
    extern __shared__ uint4 skinny_dynamic[];
    MT* stages = reinterpret_cast<MT*>(skinny_dynamic);
    __shared__ int last;
    const int64_t r0 = static_cast<int64_t>(blockIdx.x) * kSkinnyRows;
    const int64_t b = blockIdx.z;
    const int64_t kb = blockIdx.y * v.k_per_split;
    const int64_t ke = kb + v.k_per_split < v.k ? kb + v.k_per_split : v.k;
    const int tiles = static_cast<int>((ke - kb + kDepth - 1) / kDepth);
    const int col_tiles = static_cast<int>((v.cols + 7) / 8);
    float acc[kOutputs] = {};
#pragma unroll
    for (int t = 0; t < kStages - 1; ++t) {
      if (t < tiles) issue(stages + t * kStageElems, v, b, r0, kb + t * kDepth, ke);
      cp_async_commit();
    }
    for (int t = 0; t < tiles; ++t) {
      cp_async_wait<kStages - 2>();
      __syncthreads();  // tile t is in; every warp is done with tile t - 1's stage
      const int next = t + kStages - 1;
      if (next < tiles) {
        issue(stages + (next % kStages) * kStageElems, v, b, r0, kb + next * kDepth, ke);
      }
      cp_async_commit();
      const MT* stage = stages + (t % kStages) * kStageElems;
      multiply(reinterpret_cast<const MT(*)[kStride]>(stage),
               reinterpret_cast<const MT(*)[kStride]>(stage + kSkinnyRows * kStride), acc,
               col_tiles);
    }
    finish(v, a, acc, last);
  }

  // After the main loop: D directly (one split), or this split's partials and, in the last
  // split to arrive, the reduction.
  static __device__ void finish(const SkinnyView& v, const BooGemmArgs& a,
                                const float (&acc)[kOutputs], int& last) {
    const int64_t r0 = static_cast<int64_t>(blockIdx.x) * kSkinnyRows;
    const int64_t split = blockIdx.y;
    const int64_t b = blockIdx.z;
    const float alpha = a.alpha * (a.alpha_scale != nullptr ? *a.alpha_scale : 1.0f);
    if (v.splits == 1) {
      Epilogue e[kOutputs];
#pragma unroll
      for (int j = 0; j < kOutputs; ++j) {
        int row, col;
        output_at(j, row, col);
        if (r0 + row < v.rows && col < v.cols) e[j] = load_epilogue(v, a, alpha, b, r0 + row, col);
      }
#pragma unroll
      for (int j = 0; j < kOutputs; ++j) {
        int row, col;
        output_at(j, row, col);
        if (r0 + row < v.rows && col < v.cols) store(v, a, b, r0 + row, col, e[j], acc[j]);
      }
      return;
    }
    const int64_t slice = b * gridDim.x + blockIdx.x;
    const int64_t slice_floats = kSkinnyRows * v.cols;
    const int64_t split_floats = gridDim.x * v.batch * slice_floats;
    float* part = v.partial + split * split_floats + slice * slice_floats;
#pragma unroll
    for (int j = 0; j < kOutputs; ++j) {
      int row, col;
      output_at(j, row, col);
      if (r0 + row < v.rows && col < v.cols) part[row * v.cols + col] = acc[j];
    }
    // The last split to arrive for this row slice reduces, and leaves its counter at zero.
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0) {
      const uint32_t arrived = atomicAdd(v.counters + slice, 1u) + 1;
      last = arrived == static_cast<uint32_t>(v.splits);
      if (last) v.counters[slice] = 0;
    }
    __syncthreads();
    if (!last) return;
    __threadfence();
    reduce(v, a, alpha, b, r0, v.partial + slice * slice_floats, split_floats);
  }

  // Sums the splits' partials of the row slice (4 consecutive outputs per float4, L lanes of a
  // warp per float4 over interleaved splits, then a fixed shuffle tree: deterministic) and
  // writes D.
  static __device__ void reduce(const SkinnyView& v, const BooGemmArgs& a, float alpha, int64_t b,
                                int64_t r0, const float* base, int64_t split_floats) {
    const int64_t valid_rows = v.rows - r0 < kSkinnyRows ? v.rows - r0 : kSkinnyRows;
    const int n_out = static_cast<int>(valid_rows * v.cols);
    const int n_vec = (n_out + 3) / 4;
    int lanes = 1;
    while (lanes < 32 && 2 * lanes * n_vec <= kSkinnyThreads) lanes *= 2;
    const int groups = kSkinnyThreads / lanes;
    const int p = threadIdx.x % lanes;
    const int g = threadIdx.x / lanes;
    for (int v0 = 0; v0 < n_vec; v0 += groups) {  // uniform over the block
      const int vec = v0 + g;
      float4 sum = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
      if (vec < n_vec) {
        const float4* src = reinterpret_cast<const float4*>(base) + vec;
#pragma unroll 8
        for (int64_t sp = p; sp < v.splits; sp += lanes) {
          const float4 x = __ldcg(src + sp * (split_floats / 4));
          sum.x += x.x;
          sum.y += x.y;
          sum.z += x.z;
          sum.w += x.w;
        }
      }
      for (int off = lanes / 2; off > 0; off /= 2) {
        sum.x += __shfl_xor_sync(0xffffffffu, sum.x, off);
        sum.y += __shfl_xor_sync(0xffffffffu, sum.y, off);
        sum.z += __shfl_xor_sync(0xffffffffu, sum.z, off);
        sum.w += __shfl_xor_sync(0xffffffffu, sum.w, off);
      }
      if (p != 0 || vec >= n_vec) continue;
      const float vals[4] = {sum.x, sum.y, sum.z, sum.w};
      Epilogue e[4];
#pragma unroll
      for (int u = 0; u < 4; ++u) {
        const int o = vec * 4 + u;
        if (o < n_out) e[u] = load_epilogue(v, a, alpha, b, r0 + o / v.cols, o % v.cols);
      }
#pragma unroll
      for (int u = 0; u < 4; ++u) {
        const int o = vec * 4 + u;
        if (o < n_out) store(v, a, b, r0 + o / v.cols, o % v.cols, e[u], vals[u]);
      }
    }
  }
};

}  // namespace boo_kernels
