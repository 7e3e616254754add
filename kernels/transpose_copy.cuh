// gemm.sm90_unaligned's transposing copy (kernels/gemm_padded.cuh): a batched column-major
// matrix copied as its transpose into a workspace buffer, so that a tf32 operand that is not
// K-major (warpgroup MMA reads tf32 K-major only) reaches the kernel K-major. One 32 x 32 tile a
// block and a step, through shared memory (a padded row against bank conflicts): reads and
// writes are 128-byte rows of a warp.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "shifted_copy.cuh"

namespace boo_kernels {

constexpr int kTransposeTile = 32;
constexpr int kTransposeRows = 8;  // threads a block: 32 x 8, each 4 elements of a tile
// Blocks at most (each loops over the rest of the tiles): 16 per SM of a 132-SM GPU.
constexpr int64_t kTransposeMaxBlocks = 2112;

// The tiles of a rows x cols x batch matrix: along the rows, the columns, then the batches.
struct TransposeShape {
  int64_t rows, cols, batch;
  int64_t tiles_r, tiles_c;
};

// dst(c, r, b) = src(r, c, b): src is rows x cols column-major (ld_src, batch stride stride_src,
// which may be 0: a broadcast), dst is cols x rows column-major (ld_dst >= cols, stride_dst).
// Rows of dst past `cols` are not written.
template <class W>
__global__ void __launch_bounds__(kTransposeTile* kTransposeRows)
    transpose_copy_kernel(const W* __restrict__ src, int64_t ld_src, int64_t stride_src,
                          W* __restrict__ dst, int64_t ld_dst, int64_t stride_dst,
                          TransposeShape s) {
  __shared__ W tile[kTransposeTile][kTransposeTile + 1];
  const int tx = threadIdx.x % kTransposeTile, ty = threadIdx.x / kTransposeTile;
  const int64_t per_batch = s.tiles_r * s.tiles_c;
  const int64_t tiles = per_batch * s.batch;
  for (int64_t t = blockIdx.x; t < tiles; t += gridDim.x) {
    const int64_t b = t / per_batch;
    const int64_t in_batch = t - b * per_batch;
    const int64_t tc = in_batch / s.tiles_r;
    const int64_t r0 = (in_batch - tc * s.tiles_r) * kTransposeTile, c0 = tc * kTransposeTile;
    const W* sb = src + b * stride_src;
    W* db = dst + b * stride_dst;
    __syncthreads();  // the last step's reads of `tile` are done
#pragma unroll
    for (int i = 0; i < kTransposeTile; i += kTransposeRows) {
      const int64_t r = r0 + tx, c = c0 + ty + i;
      if (r < s.rows && c < s.cols) tile[ty + i][tx] = sb[c * ld_src + r];
    }
    __syncthreads();
#pragma unroll
    for (int i = 0; i < kTransposeTile; i += kTransposeRows) {
      const int64_t c = c0 + tx, r = r0 + ty + i;
      if (r < s.rows && c < s.cols) db[r * ld_dst + c] = tile[tx][ty + i];
    }
  }
}

// Launches the transposing copy of a rows x cols x batch matrix of kBytes-byte elements on
// `stream` (an ordinary launch: it starts after the kernel before it).
template <int kBytes>
cudaError_t transpose_copy(const void* src, int64_t ld_src, int64_t stride_src, void* dst,
                           int64_t ld_dst, int64_t stride_dst, int64_t rows, int64_t cols,
                           int64_t batch, cudaStream_t stream) {
  using W = typename CopyWord<kBytes>::type;
  TransposeShape s{rows, cols, batch, (rows + kTransposeTile - 1) / kTransposeTile,
                   (cols + kTransposeTile - 1) / kTransposeTile};
  const int64_t tiles = s.tiles_r * s.tiles_c * batch;
  if (tiles == 0) return cudaSuccess;
  const unsigned blocks =
      static_cast<unsigned>(tiles < kTransposeMaxBlocks ? tiles : kTransposeMaxBlocks);
  transpose_copy_kernel<W><<<blocks, kTransposeTile * kTransposeRows, 0, stream>>>(
      static_cast<const W*>(src), ld_src, stride_src, static_cast<W*>(dst), ld_dst, stride_dst, s);
  return cudaGetLastError();
}

}  // namespace boo_kernels
