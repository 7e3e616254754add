// gemm.skinny's launch plans in plain C++, shared by the kernels' runner (kernels/
// gemm_skinny.cuh) and dispatch's model (src/dispatch/gemm_skinny_algorithm.cc), so that the two
// cannot drift apart: the streaming loop's warps a row tile and the bulk-copy loop's blocks. The
// experiment overrides (BOO_SKINNY_STREAM_UNROLL, BOO_SKINNY_STREAM_BLOCKS_PER_SM,
// BOO_SKINNY_BULK_BATCH_WAVE, through BOO_NVCC_FLAGS) reach the kernels only; dispatch plans
// with the defaults.
#pragma once

#include <cstdint>

namespace boo_kernels {

// The streaming loop (kernels/gemm_skinny_stream.cuh): warps a block, chunks in flight a lane,
// blocks an SM.
constexpr int kStreamWarps = 8;
// Chunks in flight per lane (BOO_SKINNY_STREAM_UNROLL: an experiment's override).
#ifdef BOO_SKINNY_STREAM_UNROLL
constexpr int kStreamUnroll = BOO_SKINNY_STREAM_UNROLL;
#else
constexpr int kStreamUnroll = 4;  // H100: 4 and 8 within 2% on most decode shapes, 4 faster on
                                  // fp16 11008 x 4 x 4096 and 1024 x 16 x 1024 (2026-11-26)
#endif
#ifdef BOO_SKINNY_STREAM_BLOCKS_PER_SM  // an experiment's override
constexpr int kStreamBlocksPerSm = BOO_SKINNY_STREAM_BLOCKS_PER_SM;
#else
constexpr int kStreamBlocksPerSm = 2;
#endif

// k of one streaming chunk for inputs of `element_bytes` (2: 16-bit, 1: fp8 on both sides): a
// 16-byte vector in each of the 4 lanes that share a line.
constexpr int64_t stream_chunk_for(int element_bytes) { return 4 * 16 / element_bytes; }

// The streaming loop's warps per 16-row tile, for `rows` x `cols` per batch entry over a K of
// `k` in chunks of `chunk` (32 for 16-bit inputs, 64 for fp8) on `sm_count` SMs (0: 132): 8, as
// many as keep each warp at least one unrolled step of K deep. With more than one 8-column tile
// of S, the fewest (of those) whose blocks fill 80% of a wave of resident blocks: fewer warps a
// tile means more row tiles a block, whose warps read the same K range of S (from L1, once from
// L2). H200, 2026-11-30 (bench/results/2026-11-30-fp8-stream-h200.md): fp8 14336 x 16 x 4096 on
// 2, 4 and 8 warps 21.2, 23.4 and 25.6 us, bf16 37.0, 37.9 and 40.8; on 4096 rows 8 warps were
// fastest (fp8 4096 x 24 x 2064: 10.6 us against 12.0 on 4). With one tile of S fewer warps
// measured slower (28672 x 8 x 8192 on 1: bf16 139.4 us against 118.2 on 8, fp8 72.5 against
// 66.7; 10240 x 4 x 8192 on 4: 53.4 against 48.2).
inline int stream_parts_for(int64_t rows, int64_t cols, int64_t k, int64_t batch, int64_t chunk,
                            int32_t sm_count) {
  int parts = kStreamWarps;
  if (cols > 8) {
    const int64_t slots = kStreamBlocksPerSm * static_cast<int64_t>(sm_count > 0 ? sm_count : 132);
    const int64_t tiles = (rows + 15) / 16;
    parts = 1;
    while (parts < kStreamWarps &&
           5 * ((tiles + kStreamWarps / parts - 1) / (kStreamWarps / parts)) * batch < 4 * slots) {
      parts *= 2;
    }
  }
  while (parts > 1 && k / parts < kStreamUnroll * chunk) parts /= 2;
  return parts;
}

// The bulk-copy loop (kernels/gemm_skinny_bulk.cuh): blocks an SM.
constexpr int kBulkBlocksPerSm = 2;

// BOO_SKINNY_BULK_BATCH_WAVE=0 (through BOO_NVCC_FLAGS) gives every batch entry a whole wave,
// for measuring.
#ifndef BOO_SKINNY_BULK_BATCH_WAVE
#define BOO_SKINNY_BULK_BATCH_WAVE 1
#endif

// The bulk-copy loop's blocks for each batch entry: one wave on `sm_count` SMs (0: 132, an
// H100's or H200's) shared by the whole batch, at least one an entry. (A wave for each entry put
// the batch-2 line 8448 x 1 x 4096 at 0.947x cuBLASLt: two waves of persistent blocks.)
inline int64_t bulk_wave(int32_t sm_count, int64_t batch) {
  const int64_t wave = kBulkBlocksPerSm * static_cast<int64_t>(sm_count > 0 ? sm_count : 132);
  if (!BOO_SKINNY_BULK_BATCH_WAVE || batch <= 1) return wave;
  return wave / batch > 1 ? wave / batch : 1;
}

}  // namespace boo_kernels
