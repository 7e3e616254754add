// layernorm.rowwise: layer norm over packed rows x cols with fp32 math (DESIGN.md §3), the
// kernels of space::LayerNormRowwiseConfig. A row belongs to a group of kThreads consecutive
// threads; a block holds kRows groups. Each thread touches the columns
// (i * kThreads + lane) * kVec + [0, kVec) for i = 0, 1, ..., so a group's vector accesses are
// contiguous (coalesced) and every thread keeps the same columns for every row it visits.
//
//   kItems > 0: the row's kItems * kVec values per thread stay in registers between the passes
//               (mean, then the centred variance, then the output): x and dy are read once
//               (the pipelined backward stages them in shared memory, and holds them in
//               registers between the passes when they fit, see backward_pipe_kernel).
//   kItems = 0: any cols; each pass reads the row again (from L2 unless the rows in flight
//               outgrow it). With kVec = 1 this is the fallback for every problem.
//
// Forward: y = (x - mean) rstd [* w + b], mean and rstd per row (two-pass variance: no
// cancellation). Backward (g = dy [* w], xhat = (x - mean) rstd):
//   dx = rstd (g - mean(g) - xhat mean(g xhat));
//   dweight = sum_rows dy xhat, dbias = sum_rows dy: over a resident grid, each block (stream
//   configs: each row group) sums its rows' terms for its columns into one fp32 row of the
//   workspace, and a second kernel adds those rows in a fixed order, so the result does not
//   depend on scheduling. Without them (dx alone) one block per kRows rows, as the forward.
#pragma once

#include <cuda_runtime.h>
#include <stdint.h>

#include "abi.h"
#include "convert.cuh"
#include "entry_points.cuh"

namespace boo_kernels {
namespace layernorm {

struct Params {
  int64_t rows, cols;
  float eps, inv_cols;
  const void* x;
  const void* w;
  const void* b;
  void* y;
  float* mean;
  float* rstd;
  const void* dy;
  void* dx;
  float* partial_dw;  // [groups][cols] (backward with dweight), or null
  float* partial_db;  // [groups][cols] (backward with dbias), or null
};

// The tensors of Params with their element type, for a kernel's one line `const Tensors<T>
// io(p);`; column_sums: the backward asked for dweight or dbias.
template <class T>
struct Tensors {
  const T* x;
  const T* w;
  const T* b;
  T* y;
  const T* dy;
  T* dx;
  bool column_sums;
  __device__ __forceinline__ explicit Tensors(const Params& p)
      : x(static_cast<const T*>(p.x)),
        w(static_cast<const T*>(p.w)),
        b(static_cast<const T*>(p.b)),
        y(static_cast<T*>(p.y)),
        dy(static_cast<const T*>(p.dy)),
        dx(static_cast<T*>(p.dx)),
        column_sums(p.partial_dw != nullptr || p.partial_db != nullptr) {}
};

template <class T, int kVec>
struct alignas(sizeof(T) * kVec) Vector {
  T v[kVec];
};

template <class T, int kVec>
__device__ __forceinline__ void load(const T* p, int64_t at, float (&out)[kVec]) {
  const Vector<T, kVec> v = *reinterpret_cast<const Vector<T, kVec>*>(p + at);
#pragma unroll
  for (int j = 0; j < kVec; ++j) out[j] = to_float(v.v[j]);
}

template <class T, int kVec>
__device__ __forceinline__ void widen(const Vector<T, kVec>& v, float (&out)[kVec]) {
#pragma unroll
  for (int j = 0; j < kVec; ++j) out[j] = to_float(v.v[j]);
}

template <class T, int kVec>
__device__ __forceinline__ void store(T* p, int64_t at, const float (&in)[kVec]) {
  Vector<T, kVec> v;
#pragma unroll
  for (int j = 0; j < kVec; ++j) v.v[j] = from_float<T>(in[j]);
  *reinterpret_cast<Vector<T, kVec>*>(p + at) = v;
}

// A barrier for the kThreads threads of one row group. kNamed: a named barrier (ids 1 to 15; 0
// is __syncthreads), so that the groups of a block do not wait for each other's rows. Measured
// on an H100: +1 to 2 points of the floor in the backward, but -10 to -30 in the forward (whose
// many small blocks lose occupancy when they reserve all 16 barriers), so only the backward
// asks for it.
template <int kThreads, int kRows, bool kNamed>
__device__ __forceinline__ void group_barrier(int group) {
  if constexpr (!kNamed || kRows == 1 || kRows > 15) {
    __syncthreads();
  } else {
    asm volatile("bar.sync %0, %1;" ::"r"(group + 1), "n"(kThreads) : "memory");
  }
}

// Sums N values over the kThreads threads of each row group; every thread gets the totals (the
// butterfly gives every lane the same bits). Groups wider than a warp combine their warps'
// sums through `smem` ([kRows][kThreads / 32][N] floats) in a fixed order. Every thread of the
// group must call it (it synchronizes the group when kThreads > 32).
template <int kThreads, int kRows, int N, bool kNamed = false>
__device__ __forceinline__ void row_sum(float (&v)[N], float* smem, int group, int lane) {
  constexpr int kWidth = kThreads < 32 ? kThreads : 32;
#pragma unroll
  for (int off = kWidth / 2; off > 0; off /= 2) {
#pragma unroll
    for (int n = 0; n < N; ++n) v[n] += __shfl_xor_sync(0xffffffffu, v[n], off);
  }
  if constexpr (kThreads > 32) {
    constexpr int kWarps = kThreads / 32;
    float* mine = smem + group * kWarps * N;
    if ((lane & 31) == 0) {
#pragma unroll
      for (int n = 0; n < N; ++n) mine[(lane / 32) * N + n] = v[n];
    }
    group_barrier<kThreads, kRows, kNamed>(group);
#pragma unroll
    for (int n = 0; n < N; ++n) {
      float s = 0.0f;
#pragma unroll
      for (int w = 0; w < kWarps; ++w) s += mine[w * N + n];
      v[n] = s;
    }
    group_barrier<kThreads, kRows, kNamed>(group);
  }
}

template <int kThreads, int kRows, int N>
struct RowSumStorage {
  static constexpr int kFloats = kThreads > 32 ? kRows*(kThreads / 32) * N : 1;
};

// ---- forward ------------------------------------------------------------------------------

template <class T, int kVec, int kThreads, int kRows, int kItems>
__global__ void __launch_bounds__(kThreads* kRows) forward_kernel(Params p) {
  __shared__ float smem[RowSumStorage<kThreads, kRows, 1>::kFloats];
  const int group = threadIdx.x / kThreads;
  const int lane = threadIdx.x % kThreads;
  const Tensors<T> io(p);
  constexpr int64_t kStep = int64_t{kThreads} * kVec;
  // Every thread runs the same number of iterations (row groups past the end compute on zeros
  // and store nothing), so the shuffles and barriers of row_sum see the whole block.
  for (int64_t base = int64_t{blockIdx.x} * kRows; base < p.rows;
       base += int64_t{gridDim.x} * kRows) {
    const int64_t row = base + group;
    const bool valid = row < p.rows;
    const int64_t off = row * p.cols;
    float sum[1] = {0.0f};
    float mean, rstd;
    if constexpr (kItems > 0) {
      float v[kItems][kVec];
#pragma unroll
      for (int i = 0; i < kItems; ++i) {
        const int64_t c = (int64_t{i} * kThreads + lane) * kVec;
        if (valid && c < p.cols) {
          load<T, kVec>(io.x, off + c, v[i]);
        } else {
#pragma unroll
          for (int j = 0; j < kVec; ++j) v[i][j] = 0.0f;
        }
#pragma unroll
        for (int j = 0; j < kVec; ++j) sum[0] += v[i][j];
      }
      row_sum<kThreads, kRows, 1>(sum, smem, group, lane);
      mean = sum[0] * p.inv_cols;
      float sq[1] = {0.0f};
#pragma unroll
      for (int i = 0; i < kItems; ++i) {
        const int64_t c = (int64_t{i} * kThreads + lane) * kVec;
        if (c < p.cols) {
#pragma unroll
          for (int j = 0; j < kVec; ++j) sq[0] += (v[i][j] - mean) * (v[i][j] - mean);
        }
      }
      row_sum<kThreads, kRows, 1>(sq, smem, group, lane);
      rstd = 1.0f / sqrtf(sq[0] * p.inv_cols + p.eps);
      if (valid) {
#pragma unroll
        for (int i = 0; i < kItems; ++i) {
          const int64_t c = (int64_t{i} * kThreads + lane) * kVec;
          if (c >= p.cols) continue;
          float o[kVec];
#pragma unroll
          for (int j = 0; j < kVec; ++j) o[j] = (v[i][j] - mean) * rstd;
          if (io.w != nullptr) {
            float wv[kVec], bv[kVec];
            load<T, kVec>(io.w, c, wv);
            load<T, kVec>(io.b, c, bv);
#pragma unroll
            for (int j = 0; j < kVec; ++j) o[j] = o[j] * wv[j] + bv[j];
          }
          store<T, kVec>(io.y, off + c, o);
        }
      }
    } else {
      float v[kVec];
      for (int64_t c = int64_t{lane} * kVec; valid && c < p.cols; c += kStep) {
        load<T, kVec>(io.x, off + c, v);
#pragma unroll
        for (int j = 0; j < kVec; ++j) sum[0] += v[j];
      }
      row_sum<kThreads, kRows, 1>(sum, smem, group, lane);
      mean = sum[0] * p.inv_cols;
      float sq[1] = {0.0f};
      for (int64_t c = int64_t{lane} * kVec; valid && c < p.cols; c += kStep) {
        load<T, kVec>(io.x, off + c, v);
#pragma unroll
        for (int j = 0; j < kVec; ++j) sq[0] += (v[j] - mean) * (v[j] - mean);
      }
      row_sum<kThreads, kRows, 1>(sq, smem, group, lane);
      rstd = 1.0f / sqrtf(sq[0] * p.inv_cols + p.eps);
      for (int64_t c = int64_t{lane} * kVec; valid && c < p.cols; c += kStep) {
        load<T, kVec>(io.x, off + c, v);
#pragma unroll
        for (int j = 0; j < kVec; ++j) v[j] = (v[j] - mean) * rstd;
        if (io.w != nullptr) {
          float wv[kVec], bv[kVec];
          load<T, kVec>(io.w, c, wv);
          load<T, kVec>(io.b, c, bv);
#pragma unroll
          for (int j = 0; j < kVec; ++j) v[j] = v[j] * wv[j] + bv[j];
        }
        store<T, kVec>(io.y, off + c, v);
      }
    }
    if (valid && lane == 0) {
      if (p.mean != nullptr) p.mean[row] = mean;
      if (p.rstd != nullptr) p.rstd[row] = rstd;
    }
  }
}

// ---- backward -----------------------------------------------------------------------------

// g = dy [* w] for one vector of a row (w is read again rather than held: it stays in L1).
template <class T, int kVec>
__device__ __forceinline__ void gradient(const T* w, int64_t c, const float (&dyv)[kVec],
                                         float (&g)[kVec]) {
  if (w != nullptr) {
    load<T, kVec>(w, c, g);
#pragma unroll
    for (int j = 0; j < kVec; ++j) g[j] *= dyv[j];
  } else {
#pragma unroll
    for (int j = 0; j < kVec; ++j) g[j] = dyv[j];
  }
}

// The terms of one vector of a row: turns x into xhat and adds sum(g), sum(g xhat) to `s`.
template <class T, int kVec>
__device__ __forceinline__ void backward_terms(const T* w, int64_t c, float mean, float rstd,
                                               float (&xv)[kVec], const float (&dyv)[kVec],
                                               float (&s)[2]) {
  float g[kVec];
  gradient<T, kVec>(w, c, dyv, g);
#pragma unroll
  for (int j = 0; j < kVec; ++j) {
    xv[j] = (xv[j] - mean) * rstd;  // xhat from here on
    s[0] += g[j];
    s[1] += g[j] * xv[j];
  }
}

// Writes dx of one vector of a row from its raw x and dy (the row's mean and rstd, and the means
// mg = mean(g), mgx = mean(g xhat)): dx = rstd (g - mg - xhat mgx).
template <class T, int kVec>
__device__ __forceinline__ void store_dx(T* dx, const T* w, int64_t off, int64_t c,
                                         const float (&xv)[kVec], const float (&dyv)[kVec],
                                         float mean, float rstd, float mg, float mgx) {
  float o[kVec];
  gradient<T, kVec>(w, c, dyv, o);
#pragma unroll
  for (int j = 0; j < kVec; ++j) o[j] = rstd * (o[j] - mg - (xv[j] - mean) * rstd * mgx);
  store<T, kVec>(dx, off + c, o);
}

// One row of a register config's backward, as every thread of its group sees it: the first
// pass adds the row sums of g and g xhat and hands each vector's xhat and dy to `add` (the
// column sums); with dx, the second pass (after the group's row sum) writes dx. `values(i, c,
// xv, dyv)` gives item i's raw x and dy.
template <class T, int kVec, int kThreads, int kRows, int kItems, class Values, class Add>
__device__ __forceinline__ void backward_row(const Params& p, const T* w, T* dx, float* smem,
                                             int group, int lane, bool valid, int64_t off,
                                             float mean, float rstd, Values values, Add add) {
  float s[2] = {0.0f, 0.0f};
#pragma unroll
  for (int i = 0; i < kItems; ++i) {
    const int64_t c = (int64_t{i} * kThreads + lane) * kVec;
    if (!valid || c >= p.cols) continue;
    float xv[kVec], dyv[kVec];
    values(i, c, xv, dyv);
    backward_terms<T, kVec>(w, c, mean, rstd, xv, dyv, s);
    add(i, xv, dyv);
  }
  if (dx == nullptr) return;
  row_sum<kThreads, kRows, 2, true>(s, smem, group, lane);
  const float mg = s[0] * p.inv_cols;
  const float mgx = s[1] * p.inv_cols;
#pragma unroll
  for (int i = 0; i < kItems; ++i) {
    const int64_t c = (int64_t{i} * kThreads + lane) * kVec;
    if (!valid || c >= p.cols) continue;
    float xv[kVec], dyv[kVec];
    values(i, c, xv, dyv);
    store_dx<T, kVec>(dx, w, off, c, xv, dyv, mean, rstd, mg, mgx);
  }
}

// slot[j] += v[j] for one thread's kVec consecutive slots of shared memory, with 16-byte (or
// 8-byte) accesses: a quarter of the instructions of scalar ones, and no bank conflicts between
// the lanes of a quarter warp.
template <int kVec>
__device__ __forceinline__ void add_to_slots(float* slot, const float (&v)[kVec]) {
  if constexpr (kVec % 4 == 0) {
#pragma unroll
    for (int q = 0; q < kVec / 4; ++q) {
      float4 t = reinterpret_cast<float4*>(slot)[q];
      t.x += v[4 * q];
      t.y += v[4 * q + 1];
      t.z += v[4 * q + 2];
      t.w += v[4 * q + 3];
      reinterpret_cast<float4*>(slot)[q] = t;
    }
  } else if constexpr (kVec == 2) {
    float2 t = *reinterpret_cast<float2*>(slot);
    t.x += v[0];
    t.y += v[1];
    *reinterpret_cast<float2*>(slot) = t;
  } else {
    slot[0] += v[0];
  }
}

// Register configs (kItems > 0): x and dy of a row stay in registers (in their own type)
// between the passes. Each thread adds its columns' dweight and dbias terms over all its rows
// into its own slots of shared memory (no other thread touches them, so no barrier and a fixed
// order), which leaves the registers to x and dy: more blocks per SM, whose barriers (the row
// sums) then overlap. At the end the block adds its groups' slots in group order and writes one
// workspace row.
template <class T, int kVec, int kThreads, int kRows, int kItems>
__global__ void __launch_bounds__(kThreads* kRows) backward_regs_kernel(Params p) {
  static_assert(kItems > 0, "register configs only");
  using V = Vector<T, kVec>;
  constexpr int kSlots = kThreads * kItems * kVec;  // columns a group holds
  __shared__ float smem[RowSumStorage<kThreads, kRows, 2>::kFloats];
  extern __shared__ float sums[];  // [kRows][2][kSlots]: dweight, dbias terms per group
  const int group = threadIdx.x / kThreads;
  const int lane = threadIdx.x % kThreads;
  const Tensors<T> io(p);
  float* acc_w = sums + group * 2 * kSlots;
  float* acc_b = acc_w + kSlots;
  if (io.column_sums) {
#pragma unroll
    for (int i = 0; i < kItems; ++i) {
#pragma unroll
      for (int j = 0; j < kVec; ++j) {
        const int at = (i * kThreads + lane) * kVec + j;
        acc_w[at] = acc_b[at] = 0.0f;
      }
    }
  }
  // Every thread runs the same number of iterations (see forward_kernel).
  for (int64_t base = int64_t{blockIdx.x} * kRows; base < p.rows;
       base += int64_t{gridDim.x} * kRows) {
    const int64_t row = base + group;
    const bool valid = row < p.rows;
    const int64_t off = row * p.cols;
    const float mean = valid ? p.mean[row] : 0.0f;
    const float rstd = valid ? p.rstd[row] : 0.0f;
    V xr[kItems], dr[kItems];
#pragma unroll
    for (int i = 0; i < kItems; ++i) {
      const int64_t c = (int64_t{i} * kThreads + lane) * kVec;
      if (valid && c < p.cols) {
        xr[i] = *reinterpret_cast<const V*>(io.x + off + c);
        dr[i] = *reinterpret_cast<const V*>(io.dy + off + c);
      }
    }
    backward_row<T, kVec, kThreads, kRows, kItems>(
        p, io.w, io.dx, smem, group, lane, valid, off, mean, rstd,
        [&](int i, int64_t, float(&xv)[kVec], float(&dyv)[kVec]) {
          widen<T, kVec>(xr[i], xv);
          widen<T, kVec>(dr[i], dyv);
        },
        [&](int i, const float(&xhat)[kVec], const float(&dyv)[kVec]) {
          if (!io.column_sums) return;
          float terms[kVec];
#pragma unroll
          for (int j = 0; j < kVec; ++j) terms[j] = dyv[j] * xhat[j];
          add_to_slots<kVec>(acc_w + (i * kThreads + lane) * kVec, terms);
          add_to_slots<kVec>(acc_b + (i * kThreads + lane) * kVec, dyv);
        });
  }
  if (!io.column_sums) return;
  // Groups 1.. add their slots into group 0's, in group order.
  __syncthreads();
  for (int k = 1; k < kRows; ++k) {
    if (group == 0) {
      const float* other = sums + k * 2 * kSlots;
#pragma unroll
      for (int i = 0; i < kItems; ++i) {
#pragma unroll
        for (int j = 0; j < kVec; ++j) {
          const int at = (i * kThreads + lane) * kVec + j;
          acc_w[at] += other[at];
          acc_b[at] += other[kSlots + at];
        }
      }
    }
  }
  if (group == 0) {
    float* bdw = p.partial_dw != nullptr ? p.partial_dw + int64_t{blockIdx.x} * p.cols : nullptr;
    float* bdb = p.partial_db != nullptr ? p.partial_db + int64_t{blockIdx.x} * p.cols : nullptr;
#pragma unroll
    for (int i = 0; i < kItems; ++i) {
      const int64_t c = (int64_t{i} * kThreads + lane) * kVec;
      if (c >= p.cols) continue;
#pragma unroll
      for (int j = 0; j < kVec; ++j) {
        const int at = (i * kThreads + lane) * kVec + j;
        if (bdw != nullptr) bdw[c + j] = acc_w[at];
        if (bdb != nullptr) bdb[c + j] = acc_b[at];
      }
    }
  }
}

// Copies one vector of kBytes from global to shared memory asynchronously (cp.async: no registers
// held while the load is in flight). 2-byte vectors have no cp.async form: a plain copy.
template <int kBytes>
__device__ __forceinline__ void copy_async(void* smem, const void* gmem) {
  const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  if constexpr (kBytes == 16) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(gmem) : "memory");
  } else if constexpr (kBytes == 8 || kBytes == 4) {
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2;" ::"r"(dst), "l"(gmem), "n"(kBytes)
                 : "memory");
  } else {
    static_assert(kBytes == 2, "vectors of 2 to 16 bytes");
    *static_cast<uint16_t*>(smem) = *static_cast<const uint16_t*>(gmem);
  }
}
__device__ __forceinline__ void copy_commit() {
  asm volatile("cp.async.commit_group;" ::: "memory");
}
template <int N>
__device__ __forceinline__ void copy_wait() {
  asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");
}

// The shape of a register config's backward (kItems > 0). Each row group owns kCols columns per
// row; a stage holds x and dy of one row per group. kStages rows per group are in flight at
// once (cp.async into shared memory), enough stages for ~32 KB per block, so the memory stays
// busy while the groups wait at their row sums, however few blocks fit on an SM
// (backward_pipe_kernel). Configs whose two stages outgrow 160 KB (kPipelined false) run
// backward_regs_kernel. space::layernorm_pipelined mirrors this rule.
template <class T, int kVec, int kThreads, int kRows, int kItems>
struct BackwardShape {
  static constexpr int kCols = kThreads * kItems * kVec;
  static constexpr int64_t kStageBytes = int64_t{kRows} * 2 * kCols * sizeof(T);
  static constexpr int64_t kWanted = kStageBytes > 0
                                         ? (int64_t{32} * 1024 + kStageBytes - 1) / kStageBytes
                                         : 2;
  static constexpr int kStages = kWanted < 2 ? 2 : kWanted > 8 ? 8 : static_cast<int>(kWanted);
  static constexpr bool kPipelined = kItems > 0 && kStages* kStageBytes <= int64_t{160} * 1024;
  // Pipelined configs whose registers take five fp32 values per column a thread owns (w, xhat,
  // dy, and the two column sums) plus ~24 of state within the launch bound's share (at most
  // 255) hold w, xhat and dy between a row's passes (backward_row_held). More values spill
  // (ptxas 13.0: bf16 v4_t256_r4_i4 held, 64 registers, 348 bytes of spills, 86.6 -> 150 us).
  static constexpr int kRegisterShare =
      65536 / (kThreads * kRows) < 255 ? 65536 / (kThreads * kRows) : 255;
  static constexpr bool kHolds = kPipelined && 5 * kItems * kVec + 24 <= kRegisterShare;
  // backward_pipe_kernel: the stages, which the end of the kernel reuses to add the groups'
  // column sums, one output at a time (kRows > 1 only).
  static constexpr int64_t kSumBytes = kRows > 1 ? int64_t{kRows} * kCols * 4 : 0;
  static constexpr int64_t kPipeBytes = kStages * kStageBytes;
  static constexpr int64_t kPipeSmemBytes = kPipeBytes > kSumBytes ? kPipeBytes : kSumBytes;
  // backward_regs_kernel: two fp32 slots per column per group.
  static constexpr int64_t kRegsSmemBytes = int64_t{kRows} * 2 * kCols * 4;
  static constexpr int64_t kSmemBytes = kPipelined ? kPipeSmemBytes : kRegsSmemBytes;
};

// Writes one output's column sums of the block (acc: this thread's columns of its group) as the
// block's workspace row: the groups' sums are added in group order (a fixed order), by every
// thread of the block, with coalesced stores.
template <int kVec, int kThreads, int kRows, int kItems>
__device__ __forceinline__ void write_column_sums(const float (&acc)[kItems][kVec], float* stage,
                                                  int group, int lane, int64_t cols, float* out) {
  constexpr int kCols = kThreads * kItems * kVec;
  if constexpr (kRows == 1) {
#pragma unroll
    for (int i = 0; i < kItems; ++i) {
      const int64_t c = (int64_t{i} * kThreads + lane) * kVec;
      if (c >= cols) continue;
      if constexpr (kVec % 4 == 0) {
#pragma unroll
        for (int q = 0; q < kVec / 4; ++q) {
          reinterpret_cast<float4*>(out + c)[q] =
              make_float4(acc[i][4 * q], acc[i][4 * q + 1], acc[i][4 * q + 2], acc[i][4 * q + 3]);
        }
      } else {
#pragma unroll
        for (int j = 0; j < kVec; ++j) out[c + j] = acc[i][j];
      }
    }
  } else {
    __syncthreads();  // the shared memory is free (stages drained, or the previous output read)
#pragma unroll
    for (int i = 0; i < kItems; ++i) {
#pragma unroll
      for (int j = 0; j < kVec; ++j)
        stage[group * kCols + (i * kThreads + lane) * kVec + j] = acc[i][j];
    }
    __syncthreads();
    const int64_t limit = cols < kCols ? cols : kCols;
    for (int64_t c = threadIdx.x; c < limit; c += kThreads * kRows) {
      float t = stage[c];
#pragma unroll
      for (int g = 1; g < kRows; ++g) t += stage[g * kCols + c];
      out[c] = t;
    }
  }
}

// One row of a pipelined config that holds its row (BackwardShape::kHolds), as every thread of
// its group sees it: x and dy are read from the group's stage once and kept (as xhat and dy, in
// fp32) for the second pass, and w comes from registers (w_held, loaded once per thread). The
// same arithmetic as backward_row in the same order; measured on an H100
// against backward_row (the stage read in both passes, w from L1 in each): bf16 8192x4096 -F 14
// 86.1 -> 74.0 us (v4_t256_r2_i4), fp16 16384x1024 -F 14 40.3 -> 37.9 us (v8_t128_r8_i1)
// (bench/results/2026-11-26-layernorm-bwd-hold-h100.md).
template <class T, int kVec, int kThreads, int kRows, int kItems>
__device__ __forceinline__ void backward_row_held(const Params& p, T* dx, float* smem, int group,
                                                  int lane, bool valid, int64_t off, float mean,
                                                  float rstd, bool need_x, const T* sx,
                                                  const T* sdy, const float (&w_held)[kItems][kVec],
                                                  float (&acc_w)[kItems][kVec],
                                                  float (&acc_b)[kItems][kVec]) {
  using V = Vector<T, kVec>;
  float xhat[kItems][kVec], dyv[kItems][kVec];
  float s[2] = {0.0f, 0.0f};
#pragma unroll
  for (int i = 0; i < kItems; ++i) {
    const int64_t c = (int64_t{i} * kThreads + lane) * kVec;
#pragma unroll
    for (int j = 0; j < kVec; ++j) xhat[i][j] = dyv[i][j] = 0.0f;
    if (!valid || c >= p.cols) continue;
    if (need_x) widen<T, kVec>(*reinterpret_cast<const V*>(sx + c), xhat[i]);
    widen<T, kVec>(*reinterpret_cast<const V*>(sdy + c), dyv[i]);
#pragma unroll
    for (int j = 0; j < kVec; ++j) {
      xhat[i][j] = (xhat[i][j] - mean) * rstd;
      const float g = w_held[i][j] * dyv[i][j];
      s[0] += g;
      s[1] += g * xhat[i][j];
      acc_w[i][j] += dyv[i][j] * xhat[i][j];
      acc_b[i][j] += dyv[i][j];
    }
  }
  if (dx == nullptr) return;
  row_sum<kThreads, kRows, 2, true>(s, smem, group, lane);
  const float mg = s[0] * p.inv_cols;
  const float mgx = s[1] * p.inv_cols;
#pragma unroll
  for (int i = 0; i < kItems; ++i) {
    const int64_t c = (int64_t{i} * kThreads + lane) * kVec;
    if (!valid || c >= p.cols) continue;
    float o[kVec];
#pragma unroll
    for (int j = 0; j < kVec; ++j) {
      o[j] = rstd * (w_held[i][j] * dyv[i][j] - mg - xhat[i][j] * mgx);
    }
    store<T, kVec>(dx, off + c, o);
  }
}

// Register configs (kItems > 0) with BackwardShape::kPipelined. Each block takes a contiguous
// run of rows, each group every kRows-th row of it;
// x and dy of the next kStages - 1 rows are in flight into shared memory while a row is
// computed; each thread copies and reads only its own columns, so the stages need no barrier.
// Configs with BackwardShape::kHolds read a row's stage once (backward_row_held); the others
// read it in both passes (backward_row). Each thread adds its columns' dweight and dbias terms over
// all its rows in registers (a fixed order). At the end the block adds its groups' sums in group
// order and writes one workspace row per output.
template <class T, int kVec, int kThreads, int kRows, int kItems>
__global__ void __launch_bounds__(kThreads* kRows) backward_pipe_kernel(Params p) {
  using V = Vector<T, kVec>;
  using Shape = BackwardShape<T, kVec, kThreads, kRows, kItems>;
  static_assert(kItems > 0 && Shape::kPipelined, "register configs whose stages fit");
  constexpr int kCols = Shape::kCols;
  constexpr int kStages = Shape::kStages;
  __shared__ float smem[RowSumStorage<kThreads, kRows, 2>::kFloats];
  extern __shared__ __align__(16) unsigned char dynamic_smem[];
  const int group = threadIdx.x / kThreads;
  const int lane = threadIdx.x % kThreads;
  const Tensors<T> io(p);
  float acc_w[kItems][kVec], acc_b[kItems][kVec];
#pragma unroll
  for (int i = 0; i < kItems; ++i) {
#pragma unroll
    for (int j = 0; j < kVec; ++j) acc_w[i][j] = acc_b[i][j] = 0.0f;
  }
  // The block's rows: a contiguous run of rows / blocks rows (split at row granularity, so the
  // blocks' shares differ by one row at most); its groups take them kRows apart. Measured on an
  // H100 against rows kRows * gridDim.x apart: 2 KB rows (fp16 16384 x 1024) 42.2 -> 39.2 us,
  // 8 KB rows unchanged (bench/results/2026-11-25-layernorm-bwd-balance-h100.md).
  const int64_t first = p.rows * blockIdx.x / gridDim.x;
  const int64_t last = p.rows * (blockIdx.x + 1) / gridDim.x;
  constexpr int64_t stride = kRows;
  // dbias alone needs dy only: x, mean and rstd are not read.
  const bool need_x = io.dx != nullptr || p.partial_dw != nullptr;
  // This group's x (then dy) of stage s.
  const auto stage = [&](int64_t s) {
    return reinterpret_cast<T*>(dynamic_smem) + ((s % kStages) * kRows + group) * 2 * kCols;
  };
  // Starts the copies of the group's k-th row (none past the end) as one cp.async group.
  const auto issue = [&](int64_t k) {
    const int64_t row = first + k * stride + group;
    if (row < last) {
      T* sx = stage(k);
#pragma unroll
      for (int i = 0; i < kItems; ++i) {
        const int64_t c = (int64_t{i} * kThreads + lane) * kVec;
        if (c < p.cols) {
          if (need_x) copy_async<sizeof(V)>(sx + c, io.x + row * p.cols + c);
          copy_async<sizeof(V)>(sx + kCols + c, io.dy + row * p.cols + c);
        }
      }
    }
    copy_commit();
  };
  for (int k = 0; k < kStages - 1; ++k) issue(k);
  // mean and rstd load one row ahead too: a load issued where they are needed would add its
  // whole latency to every row.
  float next_mean = 0.0f, next_rstd = 0.0f;
  if (need_x && first + group < last) {
    next_mean = p.mean[first + group];
    next_rstd = p.rstd[first + group];
  }
  // w of this thread's columns, when the config holds its rows (1 without w: the same bits).
  float w_held[kItems][kVec];
  if constexpr (Shape::kHolds) {
#pragma unroll
    for (int i = 0; i < kItems; ++i) {
      const int64_t c = (int64_t{i} * kThreads + lane) * kVec;
      if (io.w != nullptr && c < p.cols) {
        load<T, kVec>(io.w, c, w_held[i]);
      } else {
#pragma unroll
        for (int j = 0; j < kVec; ++j) w_held[i][j] = 1.0f;
      }
    }
  }
  // Every thread runs the same number of iterations (see forward_kernel).
  int64_t k = 0;
  for (int64_t base = first; base < last; base += stride, ++k) {
    const int64_t row = base + group;
    const bool valid = row < last;
    const int64_t off = row * p.cols;
    const float mean = next_mean;
    const float rstd = next_rstd;
    if (need_x && row + stride < last) {
      next_mean = p.mean[row + stride];
      next_rstd = p.rstd[row + stride];
    }
    issue(k + kStages - 1);
    copy_wait<kStages - 1>();
    const T* sx = stage(k);
    if constexpr (Shape::kHolds) {
      backward_row_held<T, kVec, kThreads, kRows, kItems>(p, io.dx, smem, group, lane, valid, off,
                                                          mean, rstd, need_x, sx, sx + kCols,
                                                          w_held, acc_w, acc_b);
    } else {
      // x and dy of the row are in this group's stage: read twice from there (registers hold
      // the column sums instead).
      backward_row<T, kVec, kThreads, kRows, kItems>(
          p, io.w, io.dx, smem, group, lane, valid, off, mean, rstd,
          [&](int, int64_t c, float(&xv)[kVec], float(&dyv)[kVec]) {
            if (need_x) {
              widen<T, kVec>(*reinterpret_cast<const V*>(sx + c), xv);
            } else {
#pragma unroll
              for (int j = 0; j < kVec; ++j) xv[j] = 0.0f;
            }
            widen<T, kVec>(*reinterpret_cast<const V*>(sx + kCols + c), dyv);
          },
          [&](int i, const float(&xhat)[kVec], const float(&dyv)[kVec]) {
#pragma unroll
            for (int j = 0; j < kVec; ++j) {
              acc_w[i][j] += dyv[j] * xhat[j];
              acc_b[i][j] += dyv[j];
            }
          });
    }
  }
  if (!io.column_sums) return;
  copy_wait<0>();  // (the groups past the end are empty)
  float* shared_sums = reinterpret_cast<float*>(dynamic_smem);
  if (p.partial_dw != nullptr) {
    write_column_sums<kVec, kThreads, kRows, kItems>(acc_w, shared_sums, group, lane, p.cols,
                                                     p.partial_dw + int64_t{blockIdx.x} * p.cols);
  }
  if (p.partial_db != nullptr) {
    write_column_sums<kVec, kThreads, kRows, kItems>(acc_b, shared_sums, group, lane, p.cols,
                                                     p.partial_db + int64_t{blockIdx.x} * p.cols);
  }
}

// Stream configs (kItems = 0): rows of any length, each pass reading the row again. Each group
// keeps its dweight and dbias sums in its own workspace row, updated row after row.
template <class T, int kVec, int kThreads, int kRows>
__global__ void __launch_bounds__(kThreads* kRows) backward_stream_kernel(Params p) {
  __shared__ float smem[RowSumStorage<kThreads, kRows, 2>::kFloats];
  const int group = threadIdx.x / kThreads;
  const int lane = threadIdx.x % kThreads;
  const Tensors<T> io(p);
  const int64_t gid = int64_t{blockIdx.x} * kRows + group;
  float* pdw = p.partial_dw != nullptr ? p.partial_dw + gid * p.cols : nullptr;
  float* pdb = p.partial_db != nullptr ? p.partial_db + gid * p.cols : nullptr;
  bool first = true;  // this group's workspace row is not written yet
  constexpr int64_t kStep = int64_t{kThreads} * kVec;
  for (int64_t base = int64_t{blockIdx.x} * kRows; base < p.rows;
       base += int64_t{gridDim.x} * kRows) {
    const int64_t row = base + group;
    const bool valid = row < p.rows;
    const int64_t off = row * p.cols;
    const float mean = valid ? p.mean[row] : 0.0f;
    const float rstd = valid ? p.rstd[row] : 0.0f;
    float s[2] = {0.0f, 0.0f};
    float xv[kVec], dyv[kVec];
    if (io.dx != nullptr) {
      for (int64_t c = int64_t{lane} * kVec; valid && c < p.cols; c += kStep) {
        load<T, kVec>(io.x, off + c, xv);
        load<T, kVec>(io.dy, off + c, dyv);
        backward_terms<T, kVec>(io.w, c, mean, rstd, xv, dyv, s);
      }
      row_sum<kThreads, kRows, 2>(s, smem, group, lane);
    }
    const float mg = s[0] * p.inv_cols;
    const float mgx = s[1] * p.inv_cols;
    for (int64_t c = int64_t{lane} * kVec; valid && c < p.cols; c += kStep) {
      float t[2] = {0.0f, 0.0f};
      load<T, kVec>(io.x, off + c, xv);
      load<T, kVec>(io.dy, off + c, dyv);
      backward_terms<T, kVec>(io.w, c, mean, rstd, xv, dyv, t);
      if (io.dx != nullptr) {
        float o[kVec];
        gradient<T, kVec>(io.w, c, dyv, o);
#pragma unroll
        for (int j = 0; j < kVec; ++j) o[j] = rstd * (o[j] - mg - xv[j] * mgx);
        store<T, kVec>(io.dx, off + c, o);
      }
#pragma unroll
      for (int j = 0; j < kVec; ++j) {
        if (pdw != nullptr) pdw[c + j] = (first ? 0.0f : pdw[c + j]) + dyv[j] * xv[j];
        if (pdb != nullptr) pdb[c + j] = (first ? 0.0f : pdb[c + j]) + dyv[j];
      }
    }
    if (valid) first = false;
  }
  if (first) {
    // A group that got no row still owns a workspace row: zeros.
    for (int64_t c = lane; c < p.cols; c += kThreads) {
      if (pdw != nullptr) pdw[c] = 0.0f;
      if (pdb != nullptr) pdb[c] = 0.0f;
    }
  }
}

// The workspace rows and the output a block of the column reduction adds: blockIdx.y 0 dweight, 1
// dbias; false (for the whole block) when that output is not asked for. The kernels are
// programmatic dependent launches (Hopper): their blocks get ready while the backward kernel
// ends, and wait here for its results.
template <class T>
__device__ __forceinline__ bool reduce_target(const float* partial_dw, const float* partial_db,
                                              void* dweight, void* dbias, const float*& partial,
                                              T*& out) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  cudaGridDependencySynchronize();
#endif
  partial = blockIdx.y == 0 ? partial_dw : partial_db;
  out = static_cast<T*>(blockIdx.y == 0 ? dweight : dbias);
  return partial != nullptr && out != nullptr;
}

// out[c] = sum over g of partial[g][c], in a fixed order (32 slices of g, then the slices in
// order); blockIdx.y 0 reduces dweight, 1 dbias (reduce_target).
template <class T>
__global__ void __launch_bounds__(1024)
    reduce_columns_kernel(const float* partial_dw, const float* partial_db, int64_t groups,
                          int64_t cols, void* dweight, void* dbias) {
  __shared__ float s[32][33];
  const float* partial = nullptr;
  T* out = nullptr;
  if (!reduce_target<T>(partial_dw, partial_db, dweight, dbias, partial, out)) return;
  const int64_t c = int64_t{blockIdx.x} * 32 + threadIdx.x;
  float acc = 0.0f;
  if (c < cols) {
    // Eight loads in flight per thread; the sum keeps the order of g.
    int64_t g = threadIdx.y;
    for (; g + 7 * 32 < groups; g += 8 * 32) {
      float v[8];
#pragma unroll
      for (int u = 0; u < 8; ++u) v[u] = partial[(g + u * 32) * cols + c];
#pragma unroll
      for (int u = 0; u < 8; ++u) acc += v[u];
    }
    for (; g < groups; g += 32) acc += partial[g * cols + c];
  }
  s[threadIdx.y][threadIdx.x] = acc;
  __syncthreads();
  if (threadIdx.y == 0 && c < cols) {
    float t = 0.0f;
#pragma unroll
    for (int k = 0; k < 32; ++k) t += s[k][threadIdx.x];
    out[c] = from_float<T>(t);
  }
}

// reduce_columns_kernel for cols a multiple of 4: each thread adds four columns with 16-byte
// loads. 8 threads cover a tile of 32 columns and 64 slices of g take a few rows each, all
// loads in flight at once (the rows sit in L2, written just before): the sum costs about one
// load latency. The slices then add in a fixed tree (deterministic).
template <class T>
__global__ void __launch_bounds__(512)
    reduce_columns4_kernel(const float* partial_dw, const float* partial_db, int64_t groups,
                           int64_t cols, void* dweight, void* dbias) {
  constexpr int kSlices = 64;
  __shared__ float4 s[kSlices][8];
  const float* partial = nullptr;
  T* out = nullptr;
  if (!reduce_target<T>(partial_dw, partial_db, dweight, dbias, partial, out)) return;
  const int tx = threadIdx.x % 8;
  const int ty = threadIdx.x / 8;
  const int64_t c = int64_t{blockIdx.x} * 32 + tx * 4;
  float4 acc = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  if (c < cols) {
    for (int64_t g = ty; g < groups; g += 4 * kSlices) {
      float4 v[4];
#pragma unroll
      for (int u = 0; u < 4; ++u) {
        v[u] = g + u * kSlices < groups
                   ? *reinterpret_cast<const float4*>(partial + (g + u * kSlices) * cols + c)
                   : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
      }
#pragma unroll
      for (int u = 0; u < 4; ++u) {
        acc.x += v[u].x;
        acc.y += v[u].y;
        acc.z += v[u].z;
        acc.w += v[u].w;
      }
    }
  }
  s[ty][tx] = acc;
  __syncthreads();
#pragma unroll
  for (int half = kSlices / 2; half > 0; half /= 2) {
    if (ty < half) {
      const float4 o = s[ty + half][tx];
      s[ty][tx].x += o.x;
      s[ty][tx].y += o.y;
      s[ty][tx].z += o.z;
      s[ty][tx].w += o.w;
    }
    __syncthreads();
  }
  if (ty == 0 && c < cols) {
    const float4 t = s[0][tx];
    out[c] = from_float<T>(t.x);
    out[c + 1] = from_float<T>(t.y);
    out[c + 2] = from_float<T>(t.z);
    out[c + 3] = from_float<T>(t.w);
  }
}

}  // namespace layernorm

template <class T, bool kBackward, int kVec, int kThreads, int kRows, int kItems>
struct LayerNormRowwiseRunner {
  static constexpr int kBlock = kThreads * kRows;
  static constexpr int64_t kMaxCols = kItems > 0 ? int64_t{kVec} * kThreads* kItems : -1;

  static bool aligned(const void* ptr) {
    return reinterpret_cast<uintptr_t>(ptr) % (sizeof(T) * kVec) == 0;
  }

  static int32_t supports(const BooLayerNormArgs& a, char* why, int32_t len) {
    const char* r = nullptr;
    const int32_t grads = BOO_LAYERNORM_DX | BOO_LAYERNORM_DWEIGHT | BOO_LAYERNORM_DBIAS;
    if (a.rows < 1 || a.cols < 1) {
      r = "layernorm.rowwise: rows and cols must be positive";
    } else if (kBackward ? (a.parts & BOO_LAYERNORM_FORWARD) || !(a.parts & grads)
                         : a.parts != BOO_LAYERNORM_FORWARD) {
      r = kBackward ? "layernorm.rowwise: a backward kernel computes dx, dweight and dbias only"
                    : "layernorm.rowwise: a forward kernel computes the forward only";
    } else if (a.cols % kVec != 0) {
      r = "layernorm.rowwise: cols is not a multiple of the vector width";
    } else if (kMaxCols > 0 && a.cols > kMaxCols) {
      r = "layernorm.rowwise: the row does not fit the registers of this config";
    } else if (a.affine && (a.weight == nullptr || (!kBackward && a.bias == nullptr))) {
      r = "layernorm.rowwise: an affine layer norm needs weight and bias";
    } else if (!aligned(a.x) || !aligned(a.y) || !aligned(a.weight) || !aligned(a.bias) ||
               !aligned(a.dy) || !aligned(a.dx)) {
      r = "layernorm.rowwise: a tensor is not aligned to the vector width";
    } else if (!kBackward && (a.x == nullptr || a.y == nullptr)) {
      r = "layernorm.rowwise: the forward needs x and y";
    } else if (kBackward &&
               (a.x == nullptr || a.dy == nullptr || a.mean == nullptr || a.rstd == nullptr)) {
      r = "layernorm.rowwise: the backward needs x, dy, mean and rstd";
    } else if (kBackward && (((a.parts & BOO_LAYERNORM_DX) && a.dx == nullptr) ||
                             ((a.parts & BOO_LAYERNORM_DWEIGHT) && a.dweight == nullptr) ||
                             ((a.parts & BOO_LAYERNORM_DBIAS) && a.dbias == nullptr))) {
      r = "layernorm.rowwise: an output asked for has no pointer";
    }
    if (r != nullptr) {
      write_why(why, len, r);
      return BOO_UNSUPPORTED;
    }
    return BOO_OK;
  }

  // The share of the tensors' traffic the column sums' workspace may add (written and read back):
  // a larger grid keeps more warps per SM busy, at the price of more workspace rows.
  static constexpr double kSumBudget = 0.10;
  // Dynamic shared memory of a register config's backward: its row stages and column sums.
  using Shape = layernorm::BackwardShape<T, kVec, kThreads, kRows, kItems>;
  static constexpr int64_t kSmemBytes = kItems > 0 ? Shape::kSmemBytes : 0;
  // A register config's backward kernel: pipelined when its stages fit.
  static auto register_kernel() {
    if constexpr (Shape::kPipelined) {
      return layernorm::backward_pipe_kernel<T, kVec, kThreads, kRows, kItems>;
    } else {
      return layernorm::backward_regs_kernel<T, kVec, kThreads, kRows, kItems>;
    }
  }
  // Workspace rows per block: register configs add their groups in shared memory first.
  static constexpr int kSumRowsPerBlock = kItems > 0 ? 1 : kRows;

  static bool column_sums(const BooLayerNormArgs& a) {
    return kBackward && (a.parts & (BOO_LAYERNORM_DWEIGHT | BOO_LAYERNORM_DBIAS));
  }

  // Workspace rows per output (dweight, dbias).
  static int64_t sum_rows(const BooLayerNormArgs& a) { return blocks(a) * kSumRowsPerBlock; }

  // Blocks of the launch. The forward and a backward without column sums take one block per
  // kRows rows (the hardware balances them). With column sums every block (register configs) or
  // group (stream configs) owns a workspace row, so the grid stays resident (SMs x blocks per
  // SM; the pipelined kernel's stages stay full) and shrinks while the workspace traffic would
  // exceed kSumBudget of the tensors' (not below one block per SM).
  static int64_t blocks(const BooLayerNormArgs& a) {
    const int64_t needed = (a.rows + kRows - 1) / kRows;
    if constexpr (!kBackward) {
      return needed < 2147483647 ? needed : 2147483647;
    } else {
      if (!column_sums(a)) return needed < 2147483647 ? needed : 2147483647;
      return resident_blocks(a, needed);
    }
  }

  static int64_t resident_blocks(const BooLayerNormArgs& a, int64_t needed) {
    static int per_sm = 0;
    if (per_sm == 0) {
      int n = 0;
      cudaError_t e;
      if constexpr (kItems > 0) {
        // Static and dynamic shared memory together pass 48 KB only with this opt-in.
        (void)cudaFuncSetAttribute(register_kernel(), cudaFuncAttributeMaxDynamicSharedMemorySize,
                                   static_cast<int>(kSmemBytes));
        e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, register_kernel(), kBlock,
                                                          kSmemBytes);
      } else {
        e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(
            &n, layernorm::backward_stream_kernel<T, kVec, kThreads, kRows>, kBlock, 0);
      }
      if (e != cudaSuccess || n < 1) {
        (void)cudaGetLastError();
        n = 1;
      }
      per_sm = n;
    }
    const int64_t sms = a.sm_count > 0 ? a.sm_count : 132;
    int64_t grid = sms * per_sm;
    const double tensor_bytes = 3.0 * static_cast<double>(a.rows) * a.cols * sizeof(T);
    const double row_bytes =
        2.0 * 2.0 * static_cast<double>(kSumRowsPerBlock) * a.cols * sizeof(float);
    const int64_t budget = static_cast<int64_t>(kSumBudget * tensor_bytes / row_bytes);
    if (column_sums(a) && grid > budget) grid = budget > sms ? budget : sms;
    return grid < needed ? grid : needed;
  }

  static int64_t workspace(const BooLayerNormArgs& a) {
    if (supports(a, nullptr, 0) != BOO_OK) return -1;
    if (!column_sums(a)) return 0;
    return 2 * sum_rows(a) * a.cols * static_cast<int64_t>(sizeof(float));
  }

  static int32_t run(const BooLayerNormArgs& a, void* ws, int64_t ws_bytes, void* stream, char* why,
                     int32_t len) {
    if (supports(a, why, len) != BOO_OK) return BOO_UNSUPPORTED;
    const int64_t need = workspace(a);
    if (ws_bytes < need || (need > 0 && ws == nullptr)) {
      write_why(why, len, "layernorm.rowwise: workspace too small");
      return BOO_ERROR;
    }
    const int64_t grid = blocks(a);
    layernorm::Params p{};
    p.rows = a.rows;
    p.cols = a.cols;
    p.eps = static_cast<float>(a.eps);
    p.inv_cols = static_cast<float>(1.0 / static_cast<double>(a.cols));
    p.x = a.x;
    p.w = a.affine ? a.weight : nullptr;
    p.b = a.affine ? a.bias : nullptr;
    p.y = a.y;
    p.mean = a.mean;
    p.rstd = a.rstd;
    p.dy = a.dy;
    p.dx = (a.parts & BOO_LAYERNORM_DX) ? a.dx : nullptr;
    if (column_sums(a)) {
      float* base = static_cast<float*>(ws);
      const int64_t groups = sum_rows(a);
      if (a.parts & BOO_LAYERNORM_DWEIGHT) p.partial_dw = base;
      if (a.parts & BOO_LAYERNORM_DBIAS) p.partial_db = base + groups * a.cols;
    }
    if (a.dry_run) return BOO_OK;
    cudaStream_t s = static_cast<cudaStream_t>(stream);
    if constexpr (kBackward) {
      if constexpr (kItems > 0) {
        // Without column sums every config runs the register kernel, one block per kRows rows:
        // the hardware balances the rows (dx alone on an H100: 96-98% of the floor, against
        // 82-88% on the resident pipelined kernel).
        const int64_t dynamic = column_sums(a) ? kSmemBytes : 0;
        auto kernel = column_sums(a)
                          ? register_kernel()
                          : layernorm::backward_regs_kernel<T, kVec, kThreads, kRows, kItems>;
        if (dynamic > 0) {
          (void)cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     static_cast<int>(dynamic));
        }
        kernel<<<static_cast<unsigned>(grid), kBlock, dynamic, s>>>(p);
      } else {
        layernorm::backward_stream_kernel<T, kVec, kThreads, kRows>
            <<<static_cast<unsigned>(grid), kBlock, 0, s>>>(p);
      }
      if (column_sums(a)) {
        const dim3 grid(static_cast<unsigned>((a.cols + 31) / 32), 2);
        const int64_t groups = sum_rows(a);
        const auto* dw = static_cast<const float*>(p.partial_dw);
        const auto* db = static_cast<const float*>(p.partial_db);
        const cudaError_t e =
            a.cols % 4 == 0
                ? launch_dependent(layernorm::reduce_columns4_kernel<T>, grid, dim3(512), s, dw, db,
                                   groups, a.cols, a.dweight, a.dbias)
                : launch_dependent(layernorm::reduce_columns_kernel<T>, grid, dim3(32, 32), s, dw,
                                   db, groups, a.cols, a.dweight, a.dbias);
        if (e != cudaSuccess) return cuda_result(e, why, len);
      }
    } else {
      layernorm::forward_kernel<T, kVec, kThreads, kRows, kItems>
          <<<static_cast<unsigned>(grid), kBlock, 0, s>>>(p);
    }
    return cuda_result(cudaGetLastError(), why, len);
  }
};

}  // namespace boo_kernels
