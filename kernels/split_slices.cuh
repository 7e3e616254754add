// What the persistent kernels' plans share (plain C++: host plans, and the host unit tests that
// include them): the slices of a tile walk (conv.split_wgrad's kernels and conv.sm90_taps give
// each chunk of their output `blocks / chunks` blocks, each walking tiles slice, slice + slices,
// ...; conv.split_wgrad's blocks each into their own fp32 partial sums), and the blocks an SM's
// shared memory holds.
#pragma once

#include <cstdint>

#include "host_device.cuh"

namespace boo_kernels {

// ceil(a / b) for positive b: the plans' tile and chunk counts.
BOO_HD inline int64_t plan_ceil(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Blocks of `shared_bytes` of dynamic shared memory an SM holds (sm_90: 228 KB, 1 KB of it
// reserved for each block).
BOO_HD inline int64_t blocks_by_shared_memory(int64_t shared_bytes) {
  return 228 * 1024 / (shared_bytes + 1024);
}

// Blocks a chunk: `blocks` (the resident blocks of the device) shared by the chunks, at least
// one, at most one a tile.
inline int slices_per_chunk(int64_t blocks, int64_t chunks, int64_t tiles) {
  int64_t slices = blocks / chunks;
  slices = slices < 1 ? 1 : slices;
  return static_cast<int>(slices < tiles ? slices : tiles);
}

}  // namespace boo_kernels
