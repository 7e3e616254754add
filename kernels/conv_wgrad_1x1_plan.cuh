// The plan of conv.split_wgrad's fp32 1x1 kernel (kernels/conv_wgrad_1x1.cuh), in plain C++ so
// that host unit tests check it (tests/unit/jit/conv_wgrad_1x1_plan_test.cc).
//
// A 1x1, stride-1, unpadded backward weight is dw = dy^T x over the pixels, dy and x packed
// channels-last: a tile of consecutive pixels is one contiguous run of each tensor. A block takes
// kb output channels (rows of dw: 32, or 64 where K > 32) by cb input channels (a warp per 16,
// at most 256: dy is read once per chunk of 256 of C) and walks the tiles of its slice of the
// pixels; each slice writes its fp32 dw into the workspace, summed in a fixed order after.
#pragma once

#include <cstdint>

#include "split_slices.cuh"

namespace boo_kernels {

// Slices an SM, at most (0: as many as it holds blocks). For measuring: many slices of a small
// dw leave its fixed-order reduction a long serial sum a thread.
#ifndef BOO_WGRAD_1X1_SLICES_PER_SM
#define BOO_WGRAD_1X1_SLICES_PER_SM 0
#endif

constexpr int kOneByOneMaxChannels = 256;  // x's channels a block: 16 warps of 16
constexpr int kOneByOneMaxShared = 200 * 1024;
constexpr int kOneByOneMaxTile = 128;  // pixels a tile, at most
constexpr int kOneByOneMinTile = 32;   // where smaller tiles would only add partial sums

struct OneByOneWgradPlan {
  int kb;     // output channels (dw rows) a block: 32 or 64 (2 or 4 m-tiles of 16)
  int cb;     // input channels a block: a multiple of 16, at most 256
  int warps;  // cb / 16: a warp takes 16 of x's channels and all kb rows
  int k_chunks, c_chunks, chunks;
  int tile;          // pixels a tile: a multiple of 8 (one tf32 k-step)
  int x_row, y_row;  // shared-memory rows (floats) of a pixel: cb + 8, kb + 8
  int slices;        // blocks a chunk, each its own fp32 dw
  int shared_bytes;  // two stages of a tile of x and of dy
  int per_sm;        // blocks an SM holds (shared memory; at most 16 warps an SM)
  int64_t pixels, tiles, total;
};

// Two stages of a tile of x and of dy, in bytes.
inline int onebyone_shared(int tile, const OneByOneWgradPlan& p) {
  return 2 * tile * (p.x_row + p.y_row) * 4;
}

// The blocks an SM holds: as many as its shared memory takes (blocks_by_shared_memory), at most
// 16 warps (the kernel may use 128 registers a thread).
inline int onebyone_blocks_per_sm(int tile, const OneByOneWgradPlan& p) {
  const int by_shared = static_cast<int>(blocks_by_shared_memory(onebyone_shared(tile, p)));
  const int by_warps = 16 / p.warps;
  const int blocks = by_shared < by_warps ? by_shared : by_warps;
  return blocks < 1 ? 1 : blocks;
}

// The plan for `pixels` output pixels (N times the image), K output and C input channels
// (multiples of 8) on `sm_count` SMs, or why not.
inline const char* onebyone_wgrad_plan(int64_t pixels, int64_t k, int64_t c, int sm_count,
                                       OneByOneWgradPlan* p) {
  if (pixels < 1 || k < 8 || c < 8 || k % 8 != 0 || c % 8 != 0) {
    return "conv.split_wgrad's 1x1 kernel needs pixels, and C and K multiples of 8";
  }
  p->kb = k <= 32 ? 32 : 64;
  p->k_chunks = static_cast<int>(plan_ceil(k, p->kb));
  p->c_chunks = static_cast<int>(plan_ceil(c, kOneByOneMaxChannels));
  p->cb = static_cast<int>(plan_ceil(plan_ceil(c, p->c_chunks), 16) * 16);
  p->warps = p->cb / 16;
  p->chunks = p->k_chunks * p->c_chunks;
  // Rows 8 words past a multiple of 16: the 64-bit loads of 4 pixels by 8 lanes meet every bank
  // once (as conv.split_wgrad's tf32 direct kernel).
  p->x_row = p->cb + 8;
  p->y_row = p->kb + 8;
  p->pixels = pixels;
  p->total = k * c;
  const int sms = sm_count > 0 ? sm_count : 132;
  // The largest tile whose two stages fit; then, for blocks of fewer than 8 warps, halved while an
  // SM would hold fewer than 8 of their warps (n64 c16 56x56 k16, one warp a block and one block
  // an SM on 128-pixel tiles, measured 66 us against 48 for the 3x3 plan); then halved while the
  // chunks' tiles would leave resident blocks idle.
  int tile = kOneByOneMaxTile;
  while (tile > 8 && onebyone_shared(tile, *p) > kOneByOneMaxShared) tile /= 2;
  while (tile > kOneByOneMinTile && onebyone_blocks_per_sm(tile, *p) * p->warps < 8) tile /= 2;
  while (tile > kOneByOneMinTile &&
         plan_ceil(pixels, tile) * p->chunks < int64_t{sms} * onebyone_blocks_per_sm(tile, *p)) {
    tile /= 2;
  }
  p->tile = tile;
  p->shared_bytes = onebyone_shared(tile, *p);
  p->per_sm = onebyone_blocks_per_sm(tile, *p);
  p->tiles = plan_ceil(pixels, tile);
  if (p->tiles >= (int64_t{1} << 31)) {
    return "conv.split_wgrad's 1x1 kernel takes fewer than 2^31 pixel tiles";
  }
  const int cap = BOO_WGRAD_1X1_SLICES_PER_SM;
  p->slices = slices_per_chunk(int64_t{sms} * (cap > 0 && cap < p->per_sm ? cap : p->per_sm),
                               p->chunks, p->tiles);
  return nullptr;
}

}  // namespace boo_kernels
