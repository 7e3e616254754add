// The plan of conv.pointwise's tensor-core kernels (kernels/conv_pointwise.cuh), in plain C++ so
// that host unit tests check it (tests/unit/jit/conv_pointwise_plan_test.cc): super-rows, the
// warp kernel's in-place rule and both kernels' shared memory.
//
// A super-row is R pixels: R = 2 where C or K is odd, else 1, so that its R C input and R K output
// elements are whole 32-bit words. The block kernel takes tiles of kPointwiseTileRows super-rows
// (16 a warp), the warp kernel units of 16 super-rows a warp.
#pragma once

#include <cstdint>

#include "split_slices.cuh"

#include "host_device.cuh"

namespace boo_kernels {

constexpr int kPointwiseMaxChannels = 64;
constexpr int kPointwiseThreads = 256;  // one pixel per thread per tile (the fp32 kernel)

// Stage buffers: two (three blocks an SM at C = K = 35) measured faster than three (two blocks):
// 16.9 against 18.5 us on the public C = 35 line, H100 (bench/results/
// 2026-11-27-conv-pointwise-h100.md). BOO_NVCC_FLAGS=-DBOO_POINTWISE_STAGES=3 is for measuring.
#ifndef BOO_POINTWISE_STAGES
#define BOO_POINTWISE_STAGES 2
#endif
constexpr int kPointwiseTileRows = 128;  // super-rows per tile: 16 per warp
constexpr int kPointwiseStages = BOO_POINTWISE_STAGES;
static_assert(kPointwiseStages >= 2, "the block kernel keeps a tile in flight while it multiplies");

// Each unit's outputs leave the warp kernel by one bulk copy (cp.async.bulk) from lane 0 instead
// of 16-byte stores from every lane, three slices a warp (a slice's store has two units' time to
// read it before the slice is refilled). 2 (the default): lane 0 waits for its stores' reads of
// shared memory only before the kernel ends, as CUTLASS's TMA-store epilogues do; 1: for their
// global writes too; 0: the lanes' stores. H200 (bench/results/2026-11-29-pointwise-lean-h200.md,
// sections 2 and 5): over six lines against 0, 1 is 1.021x and 2 1.024x; the public C = 35 line
// 15.20 -> 14.50 (1) and 14.45 us (2), a 1D line of one unit a warp 2% slower;
// tests/gpu/conv_pointwise.txt passes 22/22 on each.
#ifndef BOO_POINTWISE_BULK_STORE
#define BOO_POINTWISE_BULK_STORE 2
#endif
constexpr int kPointwiseSlices = BOO_POINTWISE_BULK_STORE ? 3 : 2;
// An experiment (1): each whole unit arrives by one bulk copy (cp.async.bulk from lane 0,
// completing on an mbarrier of its slice) instead of about 5 16-byte cp.async a lane; a partial
// last unit keeps the lanes' zero-filling copies. H200 (same results, section 5): 1.014x alone
// and 1.021x with BULK_STORE=2 over six lines, against 1.024x for BULK_STORE=2 alone; the public
// line gains nothing from it (15.22 and 14.49 us). Off; passes the 22-line list.
#ifndef BOO_POINTWISE_BULK_LOAD
#define BOO_POINTWISE_BULK_LOAD 0
#endif

struct PointwisePlan {
  int slots;     // R: pixels per super-row
  int row;       // R C: elements of x per super-row (even)
  int out_row;   // R K: elements of y per super-row (even)
  int steps;     // k16 steps over a super-row
  int64_t rows;  // super-rows: ceil(pixels / R)
  int64_t pixels;
};

BOO_HD inline PointwisePlan pointwise_plan(int64_t pixels, int c, int k) {
  PointwisePlan p;
  p.slots = (c % 2 != 0 || k % 2 != 0) ? 2 : 1;
  p.row = p.slots * c;
  p.out_row = p.slots * k;
  p.steps = (p.row + 15) / 16;
  p.rows = (pixels + p.slots - 1) / p.slots;
  p.pixels = pixels;
  return p;
}

// Shared memory, in elements of T or bytes. First the set-up's tables (both kernels, in order):
// the filter's B fragments (uint2 per step, slot, n-tile and lane), the A masks (uint2 per step,
// slot and lane), the bias (fp32, 8 n_tiles), the filter as loaded (K x C, rounded up to 8
// elements). Then the block kernel's warps' output buffers (16 super-rows each) and stage buffers
// (a tile and 16 elements of slack for the masked words past its last row), or the warp kernel's
// slices (a unit and the same slack each, kPointwiseSlices a warp).
BOO_HD inline int64_t pointwise_table_bytes(const PointwisePlan& p, int n_tiles, int c, int k,
                                            int element_bytes) {
  return 256LL * p.steps * p.slots * n_tiles + 256LL * p.steps * p.slots + 32LL * n_tiles +
         (static_cast<int64_t>(k) * c + 7) / 8 * 8 * element_bytes;
}
BOO_HD inline int64_t pointwise_stage_elements(const PointwisePlan& p) {
  return static_cast<int64_t>(kPointwiseTileRows) * p.row + 16;
}
BOO_HD inline int64_t pointwise_warp_out_elements(const PointwisePlan& p) {
  return 16LL * p.out_row;  // 32 R K bytes: a multiple of 16
}
BOO_HD inline int64_t pointwise_shared_bytes(const PointwisePlan& p, int n_tiles, int c, int k,
                                             int element_bytes) {
  return pointwise_table_bytes(p, n_tiles, c, k, element_bytes) +
         (kPointwiseThreads / 32 * pointwise_warp_out_elements(p) +
          kPointwiseStages * pointwise_stage_elements(p)) *
             element_bytes;
}
BOO_HD inline int64_t pointwise_slice_elements(const PointwisePlan& p) {
  return 16LL * p.row + 16;  // 16 super-rows and the masked words' slack (a multiple of 8)
}
// The warp kernel's rule: a unit's outputs fit over its slice (16 R K <= 16 R C + 16).
BOO_HD inline bool pointwise_in_place(const PointwisePlan& p) { return p.out_row <= p.row + 1; }
BOO_HD inline int64_t pointwise_warp_shared_bytes(const PointwisePlan& p, int n_tiles, int c, int k,
                                                  int element_bytes) {
  return pointwise_table_bytes(p, n_tiles, c, k, element_bytes) +
         kPointwiseThreads / 32 * kPointwiseSlices * pointwise_slice_elements(p) * element_bytes +
         (BOO_POINTWISE_BULK_LOAD ? kPointwiseThreads / 32 * kPointwiseSlices * 8 : 0);
}

// The warp kernel's blocks an SM at most (its launch bounds below 8 n-tiles; 2 from 8 on, as the
// block kernel's). BOO_POINTWISE_WARP_BLOCKS=4 is for measuring (conv_pointwise.cuh).
#ifndef BOO_POINTWISE_WARP_BLOCKS
#define BOO_POINTWISE_WARP_BLOCKS 3
#endif

// Blocks of `shared_bytes` an SM holds (blocks_by_shared_memory), at most `budget` (the kernel's
// launch bounds: its registers).
BOO_HD inline int pointwise_blocks_per_sm(int64_t shared_bytes, int budget) {
  const int64_t by_shared = blocks_by_shared_memory(shared_bytes);
  return static_cast<int>(by_shared < budget ? by_shared : budget);
}

// Whether the warp kernel runs: where a unit's outputs fit over its slice and an SM holds at
// least as many of its blocks as of the block kernel's. With three slices a warp
// (BOO_POINTWISE_BULK_STORE) the second fails on 379 of the 2080 in-place classes (C from 38 up,
// K near C): there the warp kernel would hold one block fewer (C = 38, K = 33: 2 against 3).
BOO_HD inline bool pointwise_warp_kernel(const PointwisePlan& p, int n_tiles, int c, int k,
                                         int element_bytes) {
  const bool narrow = n_tiles < 8;
  return pointwise_in_place(p) &&
         pointwise_blocks_per_sm(pointwise_warp_shared_bytes(p, n_tiles, c, k, element_bytes),
                                 narrow ? BOO_POINTWISE_WARP_BLOCKS : 2) >=
             pointwise_blocks_per_sm(pointwise_shared_bytes(p, n_tiles, c, k, element_bytes),
                                     narrow ? 3 : 2);
}

}  // namespace boo_kernels
