// gemm.skinny: GEMMs with N <= 32 (or M <= 32), the decode shapes. They stream one large operand
// once and multiply it by a narrow one, so the target is the memory floor, not the tensor-core
// peak: each 128-thread block stages a 64-row x 64-deep slice of the large operand R in shared
// memory (16-byte loads where R's rows are contiguous in K), multiplies it by the narrow operand
// S (at most 32 columns) with mma.sync (fp32 accumulation; a scalar loop for fp32 inputs), and
// the K loop is split over enough blocks to fill the GPU. The last block of a row slice to
// finish sums the splits' fp32 partials in a fixed order (deterministic) and applies the
// epilogue; with one split the block writes D directly.
//
// Canonical problem: O = R S, rows x cols (cols <= 32), per batch. Without `kSwapped`
// (N <= 32): R = op(A), S = op(B), O = D. With it (M <= 32): R = op(B)^T, S = op(A)^T,
// O = D^T.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <atomic>
#include <cstdint>
#include <type_traits>

#include "activation.cuh"
#include "convert.cuh"
#include "entry_points.cuh"

namespace boo_kernels {

constexpr int kSkinnyRows = 64;     // rows of R per block: 4 warps x 16 (one mma row tile each)
constexpr int kSkinnyDepth = 64;    // k per step
constexpr int kSkinnyCols = 32;     // most columns of S
constexpr int kSkinnyThreads = 128;
constexpr int kSkinnyPad = 8;       // shared rows of 72 halves: 144 bytes, conflict-free ldmatrix

struct SkinnyView {
  const void* r;
  int64_t r_rs, r_ks, r_bs;  // R(r, k) = r[b * r_bs + r * r_rs + k * r_ks]
  const void* s;
  int64_t s_ks, s_ss, s_bs;  // S(k, s)
  int64_t rows, cols, k, batch;
  int64_t o_rs, o_ss, o_bs;  // O(r, s) -> D[b * o_bs + r * o_rs + s * o_ss]
  int64_t c_rs, c_ss, c_bs;  // the same position in C
  int64_t splits, k_per_split;
  float* partial;        // [split][batch][rows][cols] fp32, when splits > 1
  uint64_t* counters;    // [batch][row blocks]: (epoch << 32) | arrivals
  uint32_t epoch;
  int r_vectorized;      // R rows contiguous in K and 16-byte aligned (16-bit types)
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

// The multiply type: fp16 when both inputs are fp16, else bf16 (fp8 values are exact in bf16);
// fp32 inputs take the scalar loop (kMma false) and stage as float.
template <class TR, class TS>
using SkinnyMmaType =
    std::conditional_t<std::is_same_v<TR, __half> && std::is_same_v<TS, __half>, __half,
                       __nv_bfloat16>;

template <class TR, class TS, class TD, class TBias, int kAct, bool kHasC, bool kHasBias,
          bool kAlphaVector, bool kSwapped, bool kMma>
struct SkinnyKernel {
  using MT = std::conditional_t<kMma, SkinnyMmaType<TR, TS>, float>;
  static constexpr int kStride = kSkinnyDepth + (kMma ? kSkinnyPad : 1);

  struct Shared {
    alignas(16) MT r[kSkinnyRows][kStride];  // 16-byte stores and ldmatrix rows
    alignas(16) MT s[kSkinnyCols][kStride];
    int last;
  };

  // D's row index for O(r, s): the bias and alpha-vector index.
  static __device__ __forceinline__ int64_t d_row(int64_t r, int64_t s) {
    return kSwapped ? s : r;
  }

  static __device__ __forceinline__ void store(const SkinnyView& v, const BooGemmArgs& a,
                                               int64_t b, int64_t r, int64_t s, float acc) {
    const int64_t i = d_row(r, s);
    float alpha = a.alpha * (a.alpha_scale != nullptr ? *a.alpha_scale : 1.0f);
    if constexpr (kAlphaVector) alpha *= a.alpha_vector[i];
    float out = alpha * acc;
    if constexpr (kHasC) {
      out += a.beta * to_float(static_cast<const TD*>(a.c)[b * v.c_bs + r * v.c_rs + s * v.c_ss]);
    }
    if constexpr (kHasBias) out += to_float(static_cast<const TBias*>(a.bias)[i]);
    static_cast<TD*>(a.d)[b * v.o_bs + r * v.o_rs + s * v.o_ss] = from_float<TD>(activate<kAct>(out));
  }

  static __device__ void load_tiles(Shared& sh, const SkinnyView& v, int64_t b, int64_t r0,
                                    int64_t k0, int64_t ke) {
    const int tid = threadIdx.x;
    const TR* R = static_cast<const TR*>(v.r) + b * v.r_bs;
    const TS* S = static_cast<const TS*>(v.s) + b * v.s_bs;
    if (kMma && v.r_vectorized) {
      // 64 rows x 8 vectors of 8 elements: 4 16-byte loads per thread, all issued first.
      uint4 val[4];
      bool full[4];
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        const int id = tid + kSkinnyThreads * i;
        const int64_t gr = r0 + (id >> 3);
        const int64_t gk = k0 + (id & 7) * 8;
        full[i] = gr < v.rows && gk + 8 <= ke;
        if (full[i]) val[i] = *reinterpret_cast<const uint4*>(R + gr * v.r_rs + gk);
      }
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        const int id = tid + kSkinnyThreads * i;
        const int row = id >> 3;
        const int kv = (id & 7) * 8;
        if (full[i]) {
          *reinterpret_cast<uint4*>(&sh.r[row][kv]) = val[i];
        } else {
          for (int e = 0; e < 8; ++e) {
            const int64_t gr = r0 + row;
            const int64_t gk = k0 + kv + e;
            const float x = gr < v.rows && gk < ke ? to_float(R[gr * v.r_rs + gk]) : 0.0f;
            sh.r[row][kv + e] = from_float<MT>(x);
          }
        }
      }
    } else if (v.r_rs == 1) {
      // Rows contiguous in memory (R is M-major): consecutive threads take consecutive rows.
      for (int id = tid; id < kSkinnyRows * kSkinnyDepth; id += kSkinnyThreads) {
        const int row = id & (kSkinnyRows - 1);
        const int kk = id / kSkinnyRows;
        const int64_t gr = r0 + row;
        const int64_t gk = k0 + kk;
        const float x = gr < v.rows && gk < ke ? to_float(R[gr + gk * v.r_ks]) : 0.0f;
        sh.r[row][kk] = from_float<MT>(x);
      }
    } else {
      for (int id = tid; id < kSkinnyRows * kSkinnyDepth; id += kSkinnyThreads) {
        const int row = id / kSkinnyDepth;
        const int kk = id % kSkinnyDepth;
        const int64_t gr = r0 + row;
        const int64_t gk = k0 + kk;
        const float x = gr < v.rows && gk < ke ? to_float(R[gr * v.r_rs + gk * v.r_ks]) : 0.0f;
        sh.r[row][kk] = from_float<MT>(x);
      }
    }
    const bool s_k_fastest = v.s_ks == 1;
    for (int id = tid; id < kSkinnyCols * kSkinnyDepth; id += kSkinnyThreads) {
      const int col = s_k_fastest ? id / kSkinnyDepth : id % kSkinnyCols;
      const int kk = s_k_fastest ? id % kSkinnyDepth : id / kSkinnyCols;
      const int64_t gk = k0 + kk;
      const float x = col < v.cols && gk < ke ? to_float(S[gk * v.s_ks + col * v.s_ss]) : 0.0f;
      sh.s[col][kk] = from_float<MT>(x);
    }
  }

  static __device__ void run(const SkinnyView& v, const BooGemmArgs& a) {
    __shared__ Shared sh;
    const int warp = threadIdx.x / 32;
    const int lane = threadIdx.x % 32;
    const int64_t r0 = static_cast<int64_t>(blockIdx.x) * kSkinnyRows;
    const int64_t split = blockIdx.y;
    const int64_t b = blockIdx.z;
    const int64_t kb = split * v.k_per_split;
    const int64_t ke = kb + v.k_per_split < v.k ? kb + v.k_per_split : v.k;
    const int col_tiles = static_cast<int>((v.cols + 7) / 8);
    // MMA fragments (4 n-tiles of 8 columns) or the scalar loop's 16 columns per lane.
    float acc[4][4] = {};
    float sacc[16] = {};
    for (int64_t k0 = kb; k0 < ke; k0 += kSkinnyDepth) {
      load_tiles(sh, v, b, r0, k0, ke);
      __syncthreads();
      if constexpr (kMma) {
#pragma unroll
        for (int kk = 0; kk < kSkinnyDepth; kk += 16) {
          uint32_t af[4];
          ldmatrix_x4(af, &sh.r[warp * 16 + (lane & 15)][kk + (lane >> 4) * 8]);
#pragma unroll
          for (int nt = 0; nt < 4; ++nt) {
            if (nt < col_tiles) {
              uint32_t bf[2];
              ldmatrix_x2(bf, &sh.s[nt * 8 + (lane & 7)][kk + ((lane >> 3) & 1) * 8]);
              mma_16816<MT>(acc[nt], af, bf);
            }
          }
        }
      } else {
        const int row = warp * 16 + (lane & 15);
        const int c0 = lane >> 4;
        for (int kk = 0; kk < kSkinnyDepth; ++kk) {
          const float x = sh.r[row][kk];
#pragma unroll
          for (int j = 0; j < 16; ++j) sacc[j] += x * sh.s[c0 + 2 * j][kk];
        }
      }
      __syncthreads();
    }
    // This thread's outputs: (row, col, value) of its fragments.
    auto for_each_output = [&](auto&& fn) {
      if constexpr (kMma) {
        const int g = lane >> 2;
        const int t = lane & 3;
#pragma unroll
        for (int nt = 0; nt < 4; ++nt) {
#pragma unroll
          for (int e = 0; e < 4; ++e) {
            fn(warp * 16 + g + (e >= 2 ? 8 : 0), nt * 8 + t * 2 + (e & 1), acc[nt][e]);
          }
        }
      } else {
#pragma unroll
        for (int j = 0; j < 16; ++j) fn(warp * 16 + (lane & 15), (lane >> 4) + 2 * j, sacc[j]);
      }
    };
    if (v.splits == 1) {
      for_each_output([&](int row, int col, float x) {
        if (r0 + row < v.rows && col < v.cols) store(v, a, b, r0 + row, col, x);
      });
      return;
    }
    float* part = v.partial + ((split * v.batch + b) * v.rows) * v.cols;
    for_each_output([&](int row, int col, float x) {
      if (r0 + row < v.rows && col < v.cols) part[(r0 + row) * v.cols + col] = x;
    });
    // The last split to arrive for this row slice reduces. Counters carry the launch's epoch,
    // so they need no reset between launches.
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0) {
      unsigned long long* ctr =
          reinterpret_cast<unsigned long long*>(v.counters + b * gridDim.x + blockIdx.x);
      const unsigned long long mine = static_cast<unsigned long long>(v.epoch) << 32;
      unsigned long long seen = atomicAdd(ctr, 0ull);
      unsigned long long arrived = 0;
      while (true) {
        const unsigned long long want =
            (seen >> 32) == v.epoch ? seen + 1 : (mine | 1ull);
        const unsigned long long prev = atomicCAS(ctr, seen, want);
        if (prev == seen) {
          arrived = want & 0xffffffffull;
          break;
        }
        seen = prev;
      }
      sh.last = arrived == static_cast<unsigned long long>(v.splits);
    }
    __syncthreads();
    if (!sh.last) return;
    __threadfence();
    const int64_t count = kSkinnyRows * v.cols;
    for (int64_t id = threadIdx.x; id < count; id += kSkinnyThreads) {
      const int64_t r = r0 + id / v.cols;
      const int64_t c = id % v.cols;
      if (r >= v.rows) continue;
      float sum = 0.0f;
      for (int64_t sp = 0; sp < v.splits; ++sp) {
        sum += __ldcg(v.partial + ((sp * v.batch + b) * v.rows + r) * v.cols + c);
      }
      store(v, a, b, r, c, sum);
    }
  }
};

template <class Kernel>
__global__ void __launch_bounds__(kSkinnyThreads) gemm_skinny_kernel(SkinnyView v, BooGemmArgs a) {
  Kernel::run(v, a);
}

template <class TR, class TS, class TD, class TBias, int kAct, bool kHasC, bool kHasBias,
          bool kAlphaVector, bool kSwapped>
struct GemmSkinnyRunner {
  static constexpr bool kMma = !std::is_same_v<TR, float> && !std::is_same_v<TS, float>;
  using Kernel =
      SkinnyKernel<TR, TS, TD, TBias, kAct, kHasC, kHasBias, kAlphaVector, kSwapped, kMma>;

  static const char* reject(const BooGemmArgs& a) {
    const SkinnyView v = make_skinny_view<kSwapped>(a);
    if (a.m < 1 || a.n < 1 || a.k < 1 || a.batch < 1) return "empty problem";
    if (v.cols > kSkinnyCols) return "gemm.skinny: the narrow side is above 32";
    if (a.batch > 65535) return "gemm.skinny: batch above 65535";
    if ((v.rows + kSkinnyRows - 1) / kSkinnyRows > 0x7fffffff) return "gemm.skinny: too many rows";
    if ((kHasBias && a.bias == nullptr) || (kHasC && a.c == nullptr && a.beta != 0.0f) ||
        (kAlphaVector && a.alpha_vector == nullptr)) {
      return "a bias, C or alpha vector pointer is missing";
    }
    return nullptr;
  }

  // Splits of K: enough blocks for about four per SM, each split at least 256 deep.
  static int64_t splits_for(const SkinnyView& v, const BooGemmArgs& a) {
    if (a.splits > 1) return a.splits;
    const int64_t blocks = (v.rows + kSkinnyRows - 1) / kSkinnyRows * v.batch;
    const int64_t target = 4 * (a.sm_count > 0 ? a.sm_count : 132);
    int64_t s = (target + blocks - 1) / blocks;
    const int64_t most = v.k / 256 > 1 ? v.k / 256 : 1;
    if (s > most) s = most;
    return s < 1 ? 1 : s;
  }

  static void plan(SkinnyView& v, const BooGemmArgs& a) {
    const int64_t want = splits_for(v, a);
    const int64_t per = ((v.k + want - 1) / want + kSkinnyDepth - 1) / kSkinnyDepth * kSkinnyDepth;
    v.k_per_split = per;
    v.splits = (v.k + per - 1) / per;
  }

  static int64_t partial_bytes(const SkinnyView& v) {
    return ((v.splits * v.batch * v.rows * v.cols * 4 + 255) / 256) * 256;
  }

  static int64_t workspace_bytes(const SkinnyView& v) {
    if (v.splits <= 1) return 0;
    const int64_t blocks = (v.rows + kSkinnyRows - 1) / kSkinnyRows * v.batch;
    return partial_bytes(v) + blocks * 8;
  }

  static int32_t supports(const BooGemmArgs& a, char* why, int32_t len) {
    if (const char* r = reject(a)) {
      write_why(why, len, r);
      return BOO_UNSUPPORTED;
    }
    return BOO_OK;
  }

  static int64_t workspace(const BooGemmArgs& a) {
    if (reject(a) != nullptr) return -1;
    SkinnyView v = make_skinny_view<kSwapped>(a);
    plan(v, a);
    return workspace_bytes(v);
  }

  static int32_t run(const BooGemmArgs& a, void* ws, int64_t ws_bytes, void* stream, char* why,
                     int32_t len) {
    if (const char* r = reject(a)) {
      write_why(why, len, r);
      return BOO_UNSUPPORTED;
    }
    SkinnyView v = make_skinny_view<kSwapped>(a);
    plan(v, a);
    const int64_t need = workspace_bytes(v);
    if (need > ws_bytes || (need > 0 && ws == nullptr)) {
      write_why(why, len, "workspace too small");
      return BOO_ERROR;
    }
    if (need > 0) {
      v.partial = static_cast<float*>(ws);
      v.counters = reinterpret_cast<uint64_t*>(static_cast<char*>(ws) + partial_bytes(v));
      static std::atomic<uint32_t> epochs{0x5eed0001u};
      v.epoch = epochs.fetch_add(1);
    }
    v.r_vectorized = kMma && sizeof(TR) == 2 && v.r_ks == 1 && v.r_rs % 8 == 0 &&
                     (v.batch == 1 || v.r_bs % 8 == 0) &&
                     reinterpret_cast<uintptr_t>(v.r) % 16 == 0;
    if (a.dry_run) return BOO_OK;
    const dim3 grid(static_cast<unsigned>((v.rows + kSkinnyRows - 1) / kSkinnyRows),
                    static_cast<unsigned>(v.splits), static_cast<unsigned>(v.batch));
    gemm_skinny_kernel<Kernel>
        <<<grid, kSkinnyThreads, 0, static_cast<cudaStream_t>(stream)>>>(v, a);
    const cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) {
      write_why(why, len, cudaGetErrorString(e));
      return BOO_ERROR;
    }
    return BOO_OK;
  }
};

}  // namespace boo_kernels
