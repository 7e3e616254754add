// The slices of a persistent tile walk (plain C++: host plans, and the host unit tests that
// include them): conv.split_wgrad's kernels and conv.sm90_taps give each chunk of their output
// `blocks / chunks` blocks, each walking tiles slice, slice + slices, ... (conv.split_wgrad's
// blocks each into their own fp32 partial sums).
#pragma once

#include <cstdint>

namespace boo_kernels {

// Blocks a chunk: `blocks` (the resident blocks of the device) shared by the chunks, at least
// one, at most one a tile.
inline int slices_per_chunk(int64_t blocks, int64_t chunks, int64_t tiles) {
  int64_t slices = blocks / chunks;
  slices = slices < 1 ? 1 : slices;
  return static_cast<int>(slices < tiles ? slices : tiles);
}

}  // namespace boo_kernels
