// conv.sm90_taps: forward convolutions of stride 1 with C input channels (a multiple of 8, at most
// 64) and K a multiple of 8 (the 3x3 layers of ResNet's first stage, 1D and 2D filters of at most
// 9 taps, and 1x1 layers whose few input channels make a GEMM's reduction a single short k-block:
// MobileNet's and EfficientNet's expansions), on wgmma (sm_90a), every tap of the filter
// multiplied out of one staging of the input.
//
// The output is computed transposed: y^T(k, q) = sum over taps and c of w(k, tap, c)
// x(q + shift(tap), c), 64 output channels as wgmma's M and n output positions q as its N.
// (The other way round, output channels as N, a 64-wide N tile reads 4 KB of shared memory per
// 32 clocks of mma: the whole shared-memory bandwidth, which is what holds CUTLASS's implicit
// GEMM near 40% of the tensor peak on these layers. Here a k-step reads 2 KB of filter and 8 KB
// of input per 128 clocks, at n = 256.)
//   - A tile is th output rows of one plane, staged with the (R - 1) dil_h rows and (S - 1) dil_w
//     columns its taps reach: pitch = tw + (S - 1) dil_w pixels a row. Output position
//     q = row pitch + col takes input pixel q + r dil_h pitch + s dil_w for tap (r, s): every tap
//     is the staged tile shifted by a constant, so its B operand (n positions x 64 channels,
//     K-major) is one matrix descriptor moved by the shift (wgmma.cuh: the swizzle is applied to
//     the address). Positions with col >= tw, or past th rows, are computed and thrown away.
//     A 1x1 filter without padding reaches nothing: its pixels are one row (taps_pointwise_view),
//     in tiles of up to 256 whatever the planes' shape.
//   - n is th x pitch rounded up to 8 (64 to 256; kernels/conv_taps_plan.cuh chooses the tiles):
//     a kernel is compiled for each n, so rows of 56 compute 232 positions, not 256.
//   - A producer warp stages the block's tiles in a ring of 2 or 3 stages, one TMA box each
//     (64 channels x pitch pixels x th + reach rows, 128-byte swizzled, zeros outside the image
//     and past C), with a full and an empty mbarrier a stage; the filter (64 output channels x
//     taps x 64 channels, 8 KB a tap, the same layout, zeros past C and K) is staged once per
//     block.
//   - Two warpgroups take alternate tiles, so that one's epilogue runs under the other's mma,
//     and issue their mma in turns (named barriers): a tile is 4 k-steps a tap of m64nNk16 wgmma
//     into n / 2 fp32 accumulators a thread (the steps wholly past C skipped); then bias and
//     activation, stmatrix.trans writes the tile position-major (64 channels a position, the TMA
//     layout) over the stage it was read from, and one TMA box stores it: whole rows where the
//     tile spans the output's width (box width pitch: the columns past the image are not
//     written), else one row of tw; channels past K are not written either. Once the store has
//     read the stage, it is empty again.
// Blocks: one per SM, each keeping one 64-channel chunk of K (block b: chunk b % chunks) and
// walking its share of the tiles; 1x1 layers with K of 2 to 4 chunks keep every chunk in each
// block and compute them all from each staged tile (TapsPlan::all_chunks; their outputs go out
// through buffers of each warpgroup's, TapsPlan::out_ring). Backward data of
// stride 1 with K of at most 64 is this forward pass over dy with the filter turned around
// (ConvTapsRunner, below).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "activation.cuh"
#include "conv_common.cuh"
#include "conv_relayout.cuh"
#include "conv_taps_plan.cuh"
#include "convert.cuh"
#include "entry_points.cuh"
#include "mma_sync.cuh"
#include "split_slices.cuh"
#include "tma.cuh"
#include "wgmma.cuh"

namespace boo_kernels {

constexpr int kTapsThreads = 288;  // two warpgroups and the producer warp

// `a` (packed channels-last) as one image of one row of every pixel where taps_one_row says so.
inline bool taps_pointwise_view(BooConvArgs* a) {
  const int64_t pixels = a->n * a->out[0] * a->out[1] * a->out[2];
  if (!taps_one_row(a->filter, a->stride, a->pad, 3, pixels)) return false;
  a->n = 1;
  for (int i = 0; i < 2; ++i) a->in[i] = a->out[i] = 1;
  a->in[2] = a->out[2] = pixels;
  return true;
}

// The plan for `a` (forward, packed channels-last, 16-bit: ConvTapsRunner checks those), or
// why this kernel does not take it.
inline const char* taps_plan(const BooConvArgs& a, TapsPlan* p) {
  if (a.c % 8 != 0 || a.c > kTapsChannels) {
    return "conv.sm90_taps needs C a multiple of 8 up to 64 (its whole filter stays in shared "
           "memory)";
  }
  if (a.k % 8 != 0) return "conv.sm90_taps needs K a multiple of 8";
  if (a.stride[0] != 1 || a.stride[1] != 1 || a.stride[2] != 1) {
    return "conv.sm90_taps needs stride 1";
  }
  if (a.filter[0] != 1 || a.pad[0] != 0) {
    return "conv.sm90_taps takes 1D and 2D filters (depth 1, no depth padding)";
  }
  const int fh = static_cast<int>(a.filter[1]), fw = static_cast<int>(a.filter[2]);
  return taps_tile_plan(a.n * a.out[0], a.out[1], a.out[2], fh, fw, (fh - 1) * a.dilation[1],
                        (fw - 1) * a.dilation[2],
                        static_cast<int>((a.k + kTapsChannels - 1) / kTapsChannels),
                        a.sm_count > 0 ? a.sm_count : 132, p);
}

// x's and y's TMA maps: x in boxes of 64 channels x pitch x x_rows, y in boxes of 64 output
// channels x box_w x th; false where the driver refuses them.
inline bool taps_maps(const BooConvArgs& a, const TapsPlan& p, CUtensorMap* x_map,
                      CUtensorMap* y_map) {
  return tma_map_channels_last(x_map, a.x, a.n, a.in, a.c, p.pitch, p.x_rows) &&
         tma_map_channels_last(y_map, a.y, a.n, a.out, a.k, p.box_w, p.th);
}

// The 128 threads of warpgroup `group` meet (named barrier 1 + group).
__device__ __forceinline__ void taps_group_sync(int group) {
  asm volatile("bar.sync %0, 128;\n" ::"r"(group + 1) : "memory");
}

// The mma turn: warpgroup `group` waits for the other to have issued its tile (named barrier
// 4 + group: its 128 threads and the other's 128 arrivals), and passes the turn on once it has
// issued its own. Warpgroup 1 passes first. The turns alternate, so a barrier never holds two
// passes; the pass after the block's last tile is left unmatched at exit (a pass only where a
// tile follows would put the wgmma behind a branch, and ptxas then serializes them: C7520).
// (FlashAttention-3's Hopper mainloop orders its two warpgroups' GEMMs the same way.)
#ifndef BOO_TAPS_ORDERED
#define BOO_TAPS_ORDERED 1
#endif
constexpr bool kTapsOrdered = BOO_TAPS_ORDERED != 0;
// A tap's k16 steps past C skipped (C of 48 or fewer); BOO_TAPS_SKIP_STEPS=0: all four, the steps
// past C multiplying zeros, for measuring.
#ifndef BOO_TAPS_SKIP_STEPS
#define BOO_TAPS_SKIP_STEPS 1
#endif
constexpr bool kTapsSkipSteps = BOO_TAPS_SKIP_STEPS != 0;
__device__ __forceinline__ void taps_turn_wait(int group) {
  asm volatile("bar.sync %0, 256;\n" ::"r"(group + 4) : "memory");
}
__device__ __forceinline__ void taps_turn_pass(int group) {
  asm volatile("bar.arrive %0, 256;\n" ::"r"((group ^ 1) + 4) : "memory");
}

template <class T, bool kBias, int kAct, int kN>
__global__ void __launch_bounds__(kTapsThreads, 1)
    conv_taps_wgmma_kernel(BooConvArgs a, TapsPlan p, const __grid_constant__ CUtensorMap x_map,
                           const __grid_constant__ CUtensorMap y_map) {
  extern __shared__ float4 shared4[];
  unsigned char* smem = reinterpret_cast<unsigned char*>(shared4);
  // Everything from a 1024-byte boundary: the 128-byte swizzle repeats every 8 rows.
  smem += (1024 - shared_address(smem) % 1024) % 1024;
  // A chunk of K a block (blocks chunk, chunk + k_chunks, ...), or every chunk in each block
  // (p.all_chunks: chunk 0's k0, the rest by slot).
  const unsigned chunks_apart = static_cast<unsigned>(taps_slice_blocks(p));
  const int chunk = static_cast<int>(blockIdx.x % chunks_apart);
  const int slice = static_cast<int>(blockIdx.x / chunks_apart);
  const int k0 = chunk * kTapsChannels;
  const int slots = taps_filter_slots(p);
  const int tile_chunks = taps_tile_chunks(p);            // chunks computed from a staged tile
  const int group = static_cast<int>(threadIdx.x) / 128;  // 2: the producer warp
  const uint32_t w_at = shared_address(smem);
  // p.all_chunks: the warpgroups' output buffers (kN positions of 128 bytes each, p.out_ring a
  // warpgroup) after the filter.
  const uint32_t out_at = w_at + slots * kTapsTapBytes;
  const uint32_t stages_at = out_at + static_cast<uint32_t>(taps_out_buffers(p) * kN * 128);
  const uint32_t full = stages_at + p.stages * p.stage_bytes;  // the slack holds the barriers
  const uint32_t empty = full + 8 * p.stages;
  // The block's tiles: slice, slice + slices, ...; its j-th in stage j % stages.
  const int tiles = static_cast<int>((p.tiles - slice + p.slices - 1) / p.slices);

  // The block's filter: output channel k0 + r, tap t, 16-byte vector v of its 64 channels at
  // 8192 t + 128 r + 16 (v ^ r % 8); p.all_chunks: output channel 64 t + r of the one tap in slot
  // t. (The warpgroups copy it; the producer warp only issues boxes.)
  const T* __restrict__ w = static_cast<const T*>(a.w);
  if (group < 2) {
    // Backward data: this launch may start while the filter is still being turned around
    // (a programmatic dependent launch); its barriers and first boxes go ahead, the filter waits.
    if (p.turned) cudaGridDependencySynchronize();
    const int c = static_cast<int>(a.c);
    for (int i = threadIdx.x; i < slots * kTapsChannels * 8; i += 256) {
      const int v = i % 8, r = i / 8 % kTapsChannels, t = i / (8 * kTapsChannels);
      const int k = p.all_chunks ? t * kTapsChannels + r : k0 + r, tap = p.all_chunks ? 0 : t;
      // Zeros past C and K: the box's channels past C are zeros, but 0 x NaN is not.
      const bool held = 8 * v < c && k < a.k;
      cp_async_16(smem + t * kTapsTapBytes + r * 128 + 16 * (v ^ r % 8),
                  held ? w + (static_cast<int64_t>(k) * p.taps + tap) * c + 8 * v : w,
                  held ? 16 : 0);
    }
    cp_async_commit();
  }
  if (threadIdx.x == 0) {
    for (int s = 0; s < p.stages; ++s) {
      mbarrier_init(full + 8 * s, 1);
      mbarrier_init(empty + 8 * s, 1);
    }
    mbarrier_init_fence();
  }
  __syncthreads();  // the barriers are initialized before anyone uses them

  // A tile's (plane, first output row, first output column).
  const auto place = [&](int64_t tile, int* plane, int* oh0, int* ow0) {
    *ow0 = static_cast<int>(tile % p.tiles_w) * p.tw;
    const int64_t rest = tile / p.tiles_w;
    *oh0 = static_cast<int>(rest % p.tiles_h) * p.th;
    *plane = static_cast<int>(rest / p.tiles_h);
  };
  if (group == 2) {
    // The producer: the block's tiles in order into the ring, each stage once it is empty (its
    // tile's store has read it).
    if (threadIdx.x == 256) {
      const int pad_h = static_cast<int>(a.pad[1]), pad_w = static_cast<int>(a.pad[2]);
      int stage = 0;
      uint32_t parity = 0;
      for (int j = 0; j < tiles; ++j) {
        if (j >= p.stages) mbarrier_wait(empty + 8 * stage, parity ^ 1);
        int plane, oh0, ow0;
        place(slice + static_cast<int64_t>(j) * p.slices, &plane, &oh0, &ow0);
        const uint32_t bar = full + 8 * stage;
        mbarrier_expect_bytes(bar, static_cast<uint32_t>(128 * p.pitch * p.x_rows));
        tma_load_4d(stages_at + stage * p.stage_bytes, &x_map, bar, 0, ow0 - pad_w, oh0 - pad_h,
                    plane);
        if (++stage == p.stages) stage = 0, parity ^= 1;
      }
    }
    return;
  }

  const int lane = threadIdx.x % 32, quarter = threadIdx.x % 128 / 32, g = lane / 4;
  const bool leader = threadIdx.x % 128 == 0;
  // This thread's accumulator rows: output channels k0 + 16 quarter + g (+ 8) of a chunk at k0.
  float bias[2] = {0.0f, 0.0f};
  const auto load_bias = [&](int chunk_k0) {
    if constexpr (kBias) {
      for (int h = 0; h < 2; ++h) {
        const int k = chunk_k0 + 16 * quarter + g + 8 * h;
        bias[h] = k < a.k ? to_float(static_cast<const T*>(a.bias)[k]) : 0.0f;
      }
    }
  };
  load_bias(k0);
  cp_async_wait<0>();
  fence_proxy_async_shared();
  // Both warpgroups' filter copies have landed and are visible before the first mma.
  asm volatile("bar.sync 3, 256;\n" ::: "memory");

  const int fw = static_cast<int>(a.filter[2]);
  const int dil_h = static_cast<int>(a.dilation[1]), dil_w = static_cast<int>(a.dilation[2]);
  // stmatrix rows: lane l gives position 8 (2 i + l / 16) + l % 8's vector of output channels
  // 16 quarter + 8 ((l / 8) % 2) .. + 7, swizzled (the position % 8 is l % 8).
  const uint32_t st_lane = static_cast<uint32_t>((8 * (lane / 16) + lane % 8) * 128 +
                                                 16 * ((2 * quarter + lane / 8 % 2) ^ lane % 8));
  // Descriptor starts count 16 bytes: a tap's filter is 512 further, a shifted pixel 8, a
  // k-step 2.
  const uint64_t a_desc = wgmma_desc_sw128(w_at);
  float acc[kN / 2];
  // k16 steps that hold input channels (C of 48 or fewer: the rest would multiply zeros).
  const int steps = static_cast<int>((a.c + 15) / 16);
  // A chunk's output goes over the stage it was read from, or (p.all_chunks) through the
  // warpgroup's buffers: with a ring of two (p.out_ring) every chunk's does, and the stage
  // goes back once the last chunk's mma has read it; with one, the chunks' before the last do.
  // `stored` counts a warpgroup's stores through its buffers.
  const bool ring = p.out_ring == 2;
  int stored = 0;
  // Warpgroup g takes the block's tiles g, g + 2, ...
  int stage = group % p.stages;
  uint32_t parity = group / p.stages;                     // (0: stages >= 2)
  if (kTapsOrdered && group == 1) taps_turn_pass(group);  // warpgroup 0 begins
  for (int j = group; j < tiles; j += 2) {
    const uint32_t xs = stages_at + stage * p.stage_bytes;
    mbarrier_wait(full + 8 * stage, parity);
    const uint64_t b_desc = wgmma_desc_sw128(xs);
    // The tile's chunks of K (one, or every chunk: p.all_chunks), each a turn of mma and an
    // epilogue.
#pragma unroll 1
    for (int q = 0; q < tile_chunks; ++q) {
      const bool last = q + 1 == tile_chunks;
      // The warpgroups issue their mma in turn (tile j's after tile j - 1's, chunk by chunk), so
      // that one's mma runs whole while the other's epilogue does; left to themselves they drift
      // into issuing together, finish together, and leave the tensor cores idle through both
      // epilogues.
      if (kTapsOrdered) taps_turn_wait(group);
      const uint64_t a_chunk = a_desc + static_cast<uint64_t>(q * (kTapsTapBytes / 16));
      wgmma_fence();
      // A tap's k16 steps (kSteps of them) from tap `tap` on.
      const auto taps_from = [&](auto steps_c) {
        constexpr int kSteps = decltype(steps_c)::value;
#pragma unroll 1
        for (int tap = 0; tap < p.taps; ++tap) {
          const int shift = tap / fw * dil_h * p.pitch + tap % fw * dil_w;
          const uint64_t at = a_chunk + static_cast<uint64_t>(tap * (kTapsTapBytes / 16));
          const uint64_t bt = b_desc + static_cast<uint64_t>(shift * 8);
#pragma unroll
          for (int k = 0; k < kSteps; ++k) {
            wgmma_m64nk16_ss<T, kN>(acc, at + 2 * k, bt + 2 * k, tap + k);
          }
        }
      };
      if (!kTapsSkipSteps || steps == 4) {
        taps_from(std::integral_constant<int, 4>{});
      } else if (steps == 3) {
        taps_from(std::integral_constant<int, 3>{});
      } else if (steps == 2) {
        taps_from(std::integral_constant<int, 2>{});
      } else {
        taps_from(std::integral_constant<int, 1>{});
      }
      wgmma_commit();
      if (kTapsOrdered) taps_turn_pass(group);
      wgmma_wait<0>();
      wgmma_hold(acc);
      // The ring's buffer for this chunk was last read by the store two back: at most the one
      // just before it may still be reading.
      if (ring && leader) tma_store_wait_read<1>();
      // Every warp's mma has read the stage (the last chunk's output takes it now, or the ring
      // hands it back), and the buffer's last store has read it (the leader waited before
      // arriving here).
      taps_group_sync(group);
      if (ring && last && leader) mbarrier_arrive(empty + 8 * stage);
      const bool over_stage = last && !ring;
      const uint32_t ys = over_stage
                              ? xs
                              : out_at + static_cast<uint32_t>(
                                             (p.out_ring * group + stored % p.out_ring) * kN * 128);
      if (!over_stage) ++stored;
      const int kq = p.all_chunks ? q * kTapsChannels : k0;  // the chunk's first output channel
      if (p.all_chunks) load_bias(kq);

      // acc[4 i + 2 h + e]: output channel 16 quarter + g + 8 h, position 8 i + 2 t + e; the
      // positions in groups of 8, two a stmatrix (the last alone where kN / 8 is odd).
      const auto pack = [&](int i, uint32_t* r) {
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const float* d = acc + 4 * i + 2 * h;
          r[h] = pack_pair<T>(activate<kAct>(d[0] + bias[h]), activate<kAct>(d[1] + bias[h]));
        }
      };
      constexpr int kGroups = kN / 8;
#pragma unroll
      for (int u = 0; u + 1 < kGroups; u += 2) {
        uint32_t r[4];
        pack(u, r);
        pack(u + 1, r + 2);
        stmatrix_x4_trans(ys + st_lane + 1024 * u, r);
      }
      if constexpr (kGroups % 2 != 0) {
        uint32_t r[2];
        pack(kGroups - 1, r);
        stmatrix_x2_trans(ys + st_lane + 1024 * (kGroups - 1), r);
      }
      fence_proxy_async_shared();
      taps_group_sync(group);
      if (leader) {
        int plane, oh0, ow0;
        place(slice + static_cast<int64_t>(j) * p.slices, &plane, &oh0, &ow0);
        tma_store_4d(&y_map, ys, kq, ow0, oh0, plane);
        if (!ring) {
          tma_store_wait_read<0>();  // (the other warpgroup's mma runs meanwhile)
          if (last) mbarrier_arrive(empty + 8 * stage);
        }
      }
    }
    // The warpgroup's next tile is two further on in the ring.
    stage += 2;
    while (stage >= p.stages) stage -= p.stages, parity ^= 1;
  }
  // Warpgroup 0 takes one tile more where the block's tiles are odd: each of its tile_chunks
  // turns there waits for a pass of warpgroup 1's, which has one pass left over (its last, or
  // the first before its loop where it had no tile); it makes the other tile_chunks - 1 as
  // turns without mma.
  if (kTapsOrdered && group == 1 && tiles % 2 != 0) {
    for (int q = 1; q < tile_chunks; ++q) {
      taps_turn_wait(group);
      taps_turn_pass(group);
    }
  }
  if (leader) tma_store_wait<0>();
}

// Backward data of stride 1 is the forward convolution of dy by the filter turned around:
// dx(c, p) = sum over k and taps of w'(c, tap', k) dy(p - pad' + tap' dil, k), with
// w'(c, r', s', k) = w(k, R - 1 - r', S - 1 - s', c) and pad' = dil (R - 1) - pad (the taps of
// the forward pass that reach p, read from the other side). One element a thread; packed
// channels-last w (K, taps, C) to w' (C, taps, K).
template <class T>
__global__ void conv_taps_turn_filter_kernel(const T* __restrict__ w, T* __restrict__ turned, int k,
                                             int c, int fh, int fw) {
  cudaTriggerProgrammaticLaunchCompletion();  // the convolution may launch (it waits to read)
  const int64_t total = static_cast<int64_t>(k) * c * fh * fw;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int ki = static_cast<int>(i % k);
    const int64_t rest = i / k;
    const int s = static_cast<int>(rest % fw), r = static_cast<int>(rest / fw % fh);
    const int ci = static_cast<int>(rest / (static_cast<int64_t>(fw) * fh));
    turned[i] = w[((static_cast<int64_t>(ki) * fh + (fh - 1 - r)) * fw + (fw - 1 - s)) * c + ci];
  }
}

// The inner runner (behind ConvChannelsLastRunner): packed channels-last x and y, w packed
// K, taps, C; 16-bit types. Backward data (stride 1, padding within the dilated filter's reach)
// runs the forward kernel on dy with the turned filter in the workspace.
template <class T, bool kBias, int kAct>
struct ConvTapsRunner {
  static_assert(sizeof(T) == 2, "conv.sm90_taps runs on 16-bit tensor-core types");

  // The forward problem the kernel runs for `a` (itself, or backward data's turned around, its
  // filter at `turned`), or why there is none.
  static const char* forward_of(const BooConvArgs& a, void* turned, BooConvArgs* f) {
    *f = a;
    if (a.direction == BOO_CONV_FORWARD) return nullptr;
    if (a.direction != BOO_CONV_BACKWARD_DATA) {
      return "conv.sm90_taps runs the forward pass and backward data only";
    }
    if (kBias || kAct != 0) return "bias and activation belong to the forward pass";
    f->direction = BOO_CONV_FORWARD;
    f->c = a.k;
    f->k = a.c;
    for (int i = 0; i < 3; ++i) {
      f->in[i] = a.out[i];
      f->out[i] = a.in[i];
      f->pad[i] = a.dilation[i] * (a.filter[i] - 1) - a.pad[i];
      if (f->pad[i] < 0) {
        return "conv.sm90_taps' backward data needs padding within the dilated filter's reach";
      }
    }
    for (int i = 0; i < 5; ++i) {
      f->x_stride[i] = a.y_stride[i];
      f->y_stride[i] = a.x_stride[i];
    }
    f->x = a.y;
    f->y = a.x;
    f->w = turned;
    // w' packed channels-last: (C, D, H, W, K).
    f->w_stride[1] = 1;
    f->w_stride[4] = a.k;
    f->w_stride[3] = a.filter[2] * a.k;
    f->w_stride[2] = a.filter[1] * a.filter[2] * a.k;
    f->w_stride[0] = a.filter[0] * a.filter[1] * a.filter[2] * a.k;
    return nullptr;
  }

  static int64_t turned_bytes(const BooConvArgs& a) {
    return a.direction == BOO_CONV_BACKWARD_DATA ? a.k * a.c * a.filter[0] * a.filter[1] *
                                                       a.filter[2] * static_cast<int64_t>(sizeof(T))
                                                 : 0;
  }

  // Checks the caller's tensors, then the forward problem's: why `a` is refused, or nullptr
  // with the forward problem in `f` and its plan.
  static const char* reject(const BooConvArgs& a, void* turned, BooConvArgs* f, TapsPlan* plan) {
    if (const char* e = conv_geometry_error(a)) return e;
    if (a.groups != 1) return "conv.sm90_taps needs one group";
    if (!packed_channels_last(a.x_stride, a.in, a.c, a.n) ||
        !packed_channels_last(a.y_stride, a.out, a.k, a.n)) {
      return "conv.sm90_taps needs packed channels-last x and y";
    }
    const int64_t taps = a.filter[0] * a.filter[1] * a.filter[2];
    if (a.w_stride[1] != 1 || a.w_stride[0] != taps * a.c || a.w_stride[4] != a.c) {
      return "conv.sm90_taps needs a packed channels-last filter";
    }
    if (reinterpret_cast<uintptr_t>(a.x) % 16 != 0 || reinterpret_cast<uintptr_t>(a.y) % 16 != 0 ||
        reinterpret_cast<uintptr_t>(a.w) % 16 != 0) {
      return "conv.sm90_taps needs 16-byte aligned x, w and y";
    }
    if (kBias && a.bias == nullptr) return "the kernel adds a bias but the bias pointer is missing";
    if (const char* e = forward_of(a, turned, f)) return e;
    taps_pointwise_view(f);
    if (const char* e = taps_plan(*f, plan)) return e;
    plan->turned = a.direction == BOO_CONV_BACKWARD_DATA ? 1 : 0;
    return nullptr;
  }

  static int32_t supports(const BooConvArgs& a, char* why, int32_t len) {
    BooConvArgs f{};
    TapsPlan plan{};
    return reject_verdict(reject(a, planning_workspace(), &f, &plan), why, len);
  }

  static int64_t workspace(const BooConvArgs& a) {
    BooConvArgs f{};
    TapsPlan plan{};
    return reject(a, planning_workspace(), &f, &plan) == nullptr ? turned_bytes(a) : -1;
  }

  static int32_t run(const BooConvArgs& a, void* ws, int64_t ws_bytes, void* stream, char* why,
                     int32_t len) {
    BooConvArgs f{};
    TapsPlan plan{};
    if (const int32_t v = reject_verdict(reject(a, ws, &f, &plan), why, len); v != BOO_OK) return v;
    if (const int64_t need = turned_bytes(a); need > 0) {
      if (const char* e = conv_workspace_error(ws, need, ws_bytes)) {
        write_why(why, len, e);
        return BOO_ERROR;
      }
    }
    if (a.dry_run) return BOO_OK;
    CUtensorMap x_map{}, y_map{};
    if (!taps_maps(f, plan, &x_map, &y_map)) {
      write_why(why, len, "conv.sm90_taps: the driver refused the TMA maps of x and y");
      return BOO_ERROR;
    }
    const cudaStream_t s = static_cast<cudaStream_t>(stream);
    if (a.direction == BOO_CONV_BACKWARD_DATA) {
      const int64_t total = turned_bytes(a) / static_cast<int64_t>(sizeof(T));
      conv_taps_turn_filter_kernel<T><<<conv_copy_grid(total), 256, 0, s>>>(
          static_cast<const T*>(a.w), static_cast<T*>(ws), static_cast<int>(a.k),
          static_cast<int>(a.c), static_cast<int>(a.filter[1]), static_cast<int>(a.filter[2]));
      if (const cudaError_t e = cudaGetLastError(); e != cudaSuccess)
        return cuda_result(e, why, len);
    }
    return cuda_result(launch(f, plan, x_map, y_map, s), why, len);
  }

  // The kernel of the plan's tile width (an instantiation each, 64 to 256 positions by 8).
  template <int kN = kTapsMinPositions>
  static cudaError_t launch(const BooConvArgs& f, const TapsPlan& plan, const CUtensorMap& x_map,
                            const CUtensorMap& y_map, cudaStream_t s) {
    if constexpr (kN > kTapsMaxPositions) {
      return cudaErrorInvalidConfiguration;
    } else {
      if (plan.n != kN) return launch<kN + 8>(f, plan, x_map, y_map, s);
      const auto kernel = conv_taps_wgmma_kernel<T, kBias, kAct, kN>;
      if (const cudaError_t e = cudaFuncSetAttribute(
              kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, plan.shared_bytes);
          e != cudaSuccess) {
        return e;
      }
      const unsigned blocks =
          static_cast<unsigned>(taps_slice_blocks(plan)) * static_cast<unsigned>(plan.slices);
      if (plan.turned) {
        // Its set-up and first boxes overlap the turning of the filter.
        return launch_dependent_shared(kernel, dim3(blocks), dim3(kTapsThreads),
                                       static_cast<size_t>(plan.shared_bytes), s, f, plan, x_map,
                                       y_map);
      }
      kernel<<<blocks, kTapsThreads, plan.shared_bytes, s>>>(f, plan, x_map, y_map);
      return cudaGetLastError();
    }
  }
};

}  // namespace boo_kernels
