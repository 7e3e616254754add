// conv.depthwise's rolling kernel: forward depthwise convolutions with a 3x3 filter (depth 1),
// stride 1 and no dilation along H and W, multiplier 1, channels-last, channels in 4-byte
// vectors: MobileNet's and EfficientNet's 3x3 layers and their backward data (the forward pass
// over dy with the filter turned around).
//
// The row kernel (conv_depthwise_rows.cuh) gives each thread 8 output pixels of one row: per
// block it stages the filter, waits, then reads its three filter rows' input spans, one filter
// row after another. Under ncu on the public 3x3 layer (H200, 2026-11-29,
// bench/results/2026-11-29-profiles-h200.md) that was 39 instructions an output element and four
// memory round trips in a row per block: 55 us, DRAM 37% busy, 0.61 instructions issued a
// scheduler cycle.
//
// Here a thread owns kRollOutputs (8) output pixels along W and one 4-byte channel vector (two
// 16-bit channels, one fp32), and walks down a segment of output rows: each input row is loaded
// once (its kSpan columns, all in flight), widened once, and added into the three output rows it
// reaches, whose sums stay in registers (a ring of three; an output row is stored when its last
// input row has been added). Loads run two input rows ahead of the sums, so a warp waits on
// memory only at the start of its segment. The thread's taps stay in registers for the whole
// segment (read from shared memory at every step, as the row kernel reads them, they would keep
// shared memory as busy as the FMA pipe: one 16-byte load a lane per 16 FMA). About 250
// instructions a step of 16 outputs in the SASS (144 FMA, 20 widenings, 10 loads of 3
// instructions, the stores): 16 an output element; 23.7 M warp instructions on the public layer
// against the row kernel's 35 M (ncu). An earlier rolling kernel (2026-11-28-memory-lines-h200.md
// section 3) lost to the row kernel: it spilled at 128 registers and rebuilt each load's address
// from the kernel parameters; here addresses come from registers the compiler cannot
// rematerialise (opaque_u64), rows inside the image load with no test a column, and the ring of
// three input rows needs no copies. No shared memory and no barrier; the sums run over the taps in
// a fixed order: deterministic.
//
// Blocks of 256 threads: the channel vectors of up to 256 / vectors (image, segment, strip) items,
// numbered across images so that small images share blocks (BOO_DEPTHWISE_ROLLING_SHARED=0: the
// items of one image a block, for measuring); rolling_plan (conv_depthwise_rolling_plan.cuh)
// cuts the output rows into segments. H200,
// 2026-11-29 (bench/results/2026-11-29-depthwise-rolling-h200.md): the public n64 c144 56x56 layer
// 59 -> 46-48 us, n64 c32 112x112 55 -> 35-36, fp16 n128 c672 14x14 42-45 -> 30-32.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "activation.cuh"
#include "conv_common.cuh"
#include "conv_depthwise_rolling_plan.cuh"
#include "conv_depthwise_vector.cuh"
#include "convert.cuh"
#include "entry_points.cuh"

namespace boo_kernels {

// BOO_DEPTHWISE_ROLLING=0 (through BOO_NVCC_FLAGS) turns the rolling kernel off, for measuring.
#ifndef BOO_DEPTHWISE_ROLLING
#define BOO_DEPTHWISE_ROLLING 1
#endif
// A thread's output channels: a 4-byte vector.
template <class T>
constexpr int kRollVector = 4 / static_cast<int>(sizeof(T));

// v through a register move the compiler cannot see into.
__device__ __forceinline__ uint64_t opaque_u64(uint64_t v) {
  uint64_t r;
  asm volatile("mov.b64 %0, %1;" : "=l"(r) : "l"(v));
  return r;
}
__device__ __forceinline__ unsigned opaque_u32(unsigned v) {
  unsigned r;
  asm volatile("mov.b32 %0, %1;" : "=r"(r) : "r"(v));
  return r;
}

template <class T, bool kHasBias, int kAct, int kF>
__global__ void __launch_bounds__(kRollThreads, kRollBlocksPerSm)
    conv_depthwise_rolling_kernel(BooConvArgs a, int vectors, int per_block, int strips,
                                  int segments, int rows_per_segment, int chunks) {
  constexpr int kV = kRollVector<T>;
  constexpr int kP = kRollOutputs;
  constexpr int kSpan = kP + kF - 1;  // input columns a thread's outputs reach
  using Raw = DepthwiseWords<T, kV>;
  const int tid = static_cast<int>(threadIdx.x);
  const int cv = tid % vectors;
  const int out0 = static_cast<int>(a.out[0]);
#if BOO_DEPTHWISE_ROLLING_SHARED
  // Block b takes chunk b % chunks of the items of block b / chunks (image, segment, strip; ints:
  // DepthwiseRolling::fits): the chunks of a pixel run side by side. (Chunk-major blocks read
  // each pixel's chunks a wave apart: the public 3x3 layer 48 -> 75 us, 2026-11-29.)
  const int chunk = static_cast<int>(blockIdx.x % static_cast<unsigned>(chunks));
  const int item =
      static_cast<int>(blockIdx.x / static_cast<unsigned>(chunks)) * per_block + tid / vectors;
  const int strip = item % strips;
  const int seg = item / strips % segments;
  const int image = item / strips / segments;
  const int64_t k0 = (static_cast<int64_t>(chunk) * vectors + cv) * kV;
  if (tid / vectors >= per_block || image >= a.n * out0 || k0 >= a.k) return;
  const int64_t o0 = image % out0;
  const int64_t n = image / out0;
#else
  const int item = static_cast<int>(blockIdx.x) * per_block + tid / vectors;
  const int strip = item % strips;
  const int seg = item / strips;
  const int64_t k0 = (static_cast<int64_t>(blockIdx.y) * vectors + cv) * kV;
  if (tid / vectors >= per_block || seg >= segments || k0 >= a.k) return;
  const int64_t o0 = static_cast<int>(blockIdx.z) % out0;  // (n out0 <= 65535)
  const int64_t n = static_cast<int>(blockIdx.z) / out0;
  (void)chunks;
#endif
  const int out_h = static_cast<int>(a.out[1]);
  const int oh0 = seg * rows_per_segment;
  const int rows = min(rows_per_segment, out_h - oh0);
  const int ow0 = strip * kP;
  const int iw0 = ow0 - static_cast<int>(a.pad[2]);
  const int ih0 = oh0 - static_cast<int>(a.pad[1]);
  const int64_t i0 = o0 * a.stride[0] - a.pad[0];  // the depth (a depth-1 filter)
  const bool depth_in = i0 >= 0 && i0 < a.in[0];
  const unsigned in_h = static_cast<unsigned>(a.in[1]);
  const int64_t xs3 = a.x_stride[3];
  const int xs4 = static_cast<int>(a.x_stride[4]);  // (fits: the span's bytes are 32-bit)
  unsigned columns = 0;                             // bit c: span column c lies inside the image
#pragma unroll
  for (int c = 0; c < kSpan; ++c) {
    columns |= (static_cast<unsigned>(iw0 + c) < static_cast<unsigned>(a.in[2]) ? 1u : 0u) << c;
  }
  // The thread's first span column of input row 0 (only rows and columns inside are read).
  const T* xn = static_cast<const T*>(a.x) + n * a.x_stride[0] +
                (depth_in ? i0 : 0) * a.x_stride[2] + k0 + int64_t{iw0} * xs4;
  constexpr unsigned kAll = (1u << kSpan) - 1;
  // Byte addresses held in registers (opaque to the compiler, which otherwise rebuilds each
  // column's address from the kernel parameters: 8 instructions a load, against 1 + the load).
  const uint64_t row0 = opaque_u64(reinterpret_cast<uintptr_t>(xn));
  const unsigned column_bytes = opaque_u32(static_cast<unsigned>(xs4) * sizeof(T));
  const uint64_t row_bytes = opaque_u64(static_cast<uint64_t>(xs3) * sizeof(T));
  const auto load_row = [&](Raw(&dst)[kSpan], int ih) {
    const unsigned inside = depth_in && static_cast<unsigned>(ih) < in_h ? columns : 0u;
    const uint64_t p = row0 + static_cast<uint64_t>(static_cast<int64_t>(ih)) * row_bytes;
    if (inside == kAll) {  // (most rows of most threads: no test a column)
#pragma unroll
      for (int c = 0; c < kSpan; ++c) {
        dst[c] = Raw::load(reinterpret_cast<const T*>(p + static_cast<unsigned>(c) * column_bytes));
      }
    } else {
#pragma unroll
      for (int c = 0; c < kSpan; ++c) {
        dst[c] =
            inside >> c & 1u
                ? Raw::load(reinterpret_cast<const T*>(p + static_cast<unsigned>(c) * column_bytes))
                : Raw::zero();
      }
    }
  };
  Raw raw[kF][kSpan];  // input rows i, i + 1, i + 2 by i mod kF
  const int steps = rows + kF - 1;
#pragma unroll
  for (int u = 0; u < kF - 1; ++u) load_row(raw[u], ih0 + u);
  // The thread's taps as fp32, read through the filter's strides (backward data turns them
  // around with negative ones).
  float f[kF][kF][kV];
  {
    const T* w = static_cast<const T*>(a.w) + k0 * a.w_stride[0];
#pragma unroll
    for (int r = 0; r < kF; ++r) {
#pragma unroll
      for (int t = 0; t < kF; ++t) {
#pragma unroll
        for (int e = 0; e < kV; ++e) {
          f[r][t][e] = to_float(w[e * a.w_stride[0] + r * a.w_stride[3] + t * a.w_stride[4]]);
        }
      }
    }
  }
  float bias[kV];
#pragma unroll
  for (int e = 0; e < kV; ++e) {
    bias[e] = kHasBias ? to_float(static_cast<const T*>(a.bias)[k0 + e]) : 0.0f;
  }
  T* y = static_cast<T*>(a.y) + n * a.y_stride[0] + o0 * a.y_stride[2] + k0 + ow0 * a.y_stride[4];
  const int64_t ys3 = a.y_stride[3], ys4 = a.y_stride[4];
  const int valid = min(kP, static_cast<int>(a.out[2]) - ow0);  // output columns to store
  // Step i adds input row ih0 + i into output rows oh0 + i - r (filter row r): the ring's slot
  // (i - r) mod kF. Its first term (r = 0, tap 0) is assigned, so no slot needs zeroing; rows
  // before the segment's first land in slots that are assigned again before they are stored.
  // After step i, output row oh0 + i - (kF - 1) is whole and stored.
  float acc[kF][kP][kV] = {};
  for (int base = 0; base < steps; base += kF) {
#pragma unroll
    for (int u = 0; u < kF; ++u) {
      const int i = base + u;
      if (i >= steps) break;
      if (i + kF - 1 < steps) load_row(raw[(u + kF - 1) % kF], ih0 + i + kF - 1);
        // Output j takes column c at tap t = c - j: for each output, taps in ascending order.
#pragma unroll
      for (int c = 0; c < kSpan; ++c) {
        float v[kV];
        raw[u][c].widen(v);
#pragma unroll
        for (int r = 0; r < kF; ++r) {
          float(&s)[kP][kV] = acc[(u - r + kF) % kF];
#pragma unroll
          for (int t = 0; t < kF; ++t) {
            if (c < t || c - t >= kP) continue;
            const int j = c - t;
#pragma unroll
            for (int e = 0; e < kV; ++e) {
              s[j][e] = r == 0 && t == 0 ? v[e] * f[r][t][e] : fmaf(v[e], f[r][t][e], s[j][e]);
            }
          }
        }
      }
      const int done = i - (kF - 1);  // the output row made whole by this step
      if (done >= 0) {
        const float(&s)[kP][kV] = acc[(u + 1) % kF];
        T* yr = y + static_cast<int64_t>(oh0 + done) * ys3;
#pragma unroll
        for (int j = 0; j < kP; ++j) {
          if (j >= valid) break;
          DepthwiseVector<T, kV> out;
#pragma unroll
          for (int e = 0; e < kV; ++e) {
            out.v[e] = from_float<T>(activate<kAct>(kHasBias ? s[j][e] + bias[e] : s[j][e]));
          }
          out.store(yr + j * ys4);
        }
      }
    }
  }
}

// The rolling kernel's launch: which problems it takes and its grid.
template <class T, bool kHasBias, int kAct>
struct DepthwiseRolling {
  static constexpr int kV = kRollVector<T>;
  static constexpr int kF = kRollTaps;

  static RollingPlan plan_of(const BooConvArgs& a) {
    return rolling_plan(a.k, kV, a.n * a.out[0], a.out[1], a.out[2], a.sm_count);
  }

  // Multiplier 1, a 3x3 filter of depth 1 with stride 1 and no dilation along H and W, whole
  // 4-byte channel vectors with aligned pointers and strides, and sizes its ints and grid hold.
  static bool fits(const BooConvArgs& a) {
    if (!BOO_DEPTHWISE_ROLLING || a.k != a.c || a.k % kV != 0 || a.filter[0] != 1) return false;
    for (int i = 1; i < 3; ++i) {
      if (a.filter[i] != kF || a.stride[i] != 1 || a.dilation[i] != 1) return false;
    }
    for (int i = 0; i < 5; ++i) {
      if (i != 1 && (a.x_stride[i] % kV != 0 || a.y_stride[i] % kV != 0)) return false;
    }
    if (reinterpret_cast<uintptr_t>(a.x) % 4 != 0 || reinterpret_cast<uintptr_t>(a.y) % 4 != 0) {
      return false;
    }
    for (int i = 1; i < 3; ++i) {
      if (a.in[i] > INT32_MAX / 4 || a.out[i] > INT32_MAX / 4 || a.pad[i] > INT32_MAX / 4) {
        return false;
      }
    }
    // The span's last column lies kSpan - 1 columns of x_stride[4] elements past its first: a
    // 32-bit byte offset in the kernel.
    constexpr int64_t kLastColumn =
        int64_t{kRollOutputs + kF - 2} * static_cast<int64_t>(sizeof(T));
    if (a.x_stride[4] < 1 || a.x_stride[4] > UINT32_MAX / kLastColumn) return false;
    const RollingPlan p = plan_of(a);
    if (BOO_DEPTHWISE_ROLLING_SHARED) {
      // The items (and a block's worth past them) and the grid's blocks are ints.
      return a.n * a.out[0] <= INT32_MAX / 4 && p.items + kRollThreads <= INT32_MAX &&
             p.blocks * p.chunks <= INT32_MAX;
    }
    return a.n * a.out[0] <= 65535 && p.blocks <= INT32_MAX && p.chunks <= 65535 &&
           int64_t{p.strips} * p.segments <= INT32_MAX / 2;
  }

  static cudaError_t launch(const BooConvArgs& a, cudaStream_t s) {
    const RollingPlan p = plan_of(a);
    auto kernel = conv_depthwise_rolling_kernel<T, kHasBias, kAct, kF>;
    const dim3 grid = BOO_DEPTHWISE_ROLLING_SHARED
                          ? dim3(static_cast<unsigned>(p.blocks * p.chunks))
                          : dim3(static_cast<unsigned>(p.blocks), static_cast<unsigned>(p.chunks),
                                 static_cast<unsigned>(a.n * a.out[0]));
    kernel<<<grid, kRollThreads, 0, s>>>(a, p.vectors, p.per_block, p.strips, p.segments, p.rows,
                                         p.chunks);
    return cudaGetLastError();
  }
};

}  // namespace boo_kernels
