// The arithmetic of kernels/shifted_copy.cuh, in plain C++ so that host unit tests run it too
// (tests/unit/jit/shifted_copy_math_test.cc): how a run of bytes splits into the destination's
// 16-byte aligned chunks and the bytes before and after them, and how one chunk's bytes come out
// of the two aligned 16-byte source chunks that hold them; and where the copy pays
// (`shifted_copy_pays`, for gemm.sm90_unaligned's padded copies).
#pragma once

#include <cstdint>

#include "host_device.cuh"

namespace boo_kernels {

// A copy of `bytes` bytes from address s to address d, seen from d: `head` bytes up to d's first
// 16-byte boundary, `chunks` aligned 16-byte chunks from `first`, `tail` bytes after them (all
// bytes are head where no whole chunk fits). The source bytes of chunk i start `lead` bytes into
// the aligned 16 bytes at `source` + 16 i.
struct ShiftedSpan {
  int64_t head = 0;
  int64_t chunks = 0;
  int64_t tail = 0;
  uint64_t first = 0;
  uint64_t source = 0;
  int lead = 0;
};

BOO_HD inline ShiftedSpan shifted_span(uint64_t d, uint64_t s, int64_t bytes) {
  ShiftedSpan p;
  const uint64_t end = d + static_cast<uint64_t>(bytes);
  const uint64_t first = (d + 15) & ~uint64_t{15};
  const uint64_t last = end & ~uint64_t{15};
  if (bytes <= 0 || first >= last) {
    p.head = bytes > 0 ? bytes : 0;
    return p;
  }
  p.head = static_cast<int64_t>(first - d);
  p.chunks = static_cast<int64_t>((last - first) / 16);
  p.tail = static_cast<int64_t>(end - last);
  p.first = first;
  const uint64_t from = s + (first - d);  // where the first chunk's bytes are in the source
  p.source = from & ~uint64_t{15};
  p.lead = static_cast<int>(from & 15);
  return p;
}

// The low 32 bits of (hi:lo) >> bits, bits in [0, 32).
BOO_HD inline uint32_t funnel_right(uint32_t lo, uint32_t hi, int bits) {
#if defined(__CUDA_ARCH__)
  return __funnelshift_r(lo, hi, static_cast<unsigned>(bits));
#else
  return bits == 0 ? lo : (lo >> bits) | (hi << (32 - bits));
#endif
}

// out = the 16 bytes that start `lead` bytes (0-15) into the 32 bytes lo, hi (four little-endian
// words each). The word selection uses constant indices only, so that nothing leaves registers.
BOO_HD inline void shifted_words(const uint32_t lo[4], const uint32_t hi[4], int lead,
                                 uint32_t out[4]) {
  const int q = lead / 4, bits = 8 * (lead % 4);
  const uint32_t w[8] = {lo[0], lo[1], lo[2], lo[3], hi[0], hi[1], hi[2], hi[3]};
  uint32_t v[5];
  BOO_HD_UNROLL
  for (int i = 0; i < 5; ++i) {
    v[i] = q == 0 ? w[i] : q == 1 ? w[i + 1] : q == 2 ? w[i + 2] : w[i + 3];
  }
  BOO_HD_UNROLL
  for (int i = 0; i < 4; ++i) out[i] = funnel_right(v[i], v[i + 1], bits);
}

// A matrix with no gaps between its columns or batches on either side: one long column.
inline bool shifted_copy_dense(int64_t ld_src, int64_t stride_src, int64_t ld_dst,
                               int64_t stride_dst, int64_t rows, int64_t cols, int64_t batch) {
  return ld_src == rows && ld_dst == rows &&
         (batch == 1 || (stride_src == rows * cols && stride_dst == rows * cols));
}

// Whether the shifted copy beats gemm.sm90_unaligned's element copies (kernels/pad_copies.cuh)
// on a matrix: dense on both sides (one long column: views 3.7-4x faster, an lm-head's
// misaligned A 1.17x), or columns of at least kShiftLongColumnBytes. Measured end to end on an
// H200 (bench/results/2026-12-02-c4-h200.md), copies in: 8192 x 100 +bias +gelu GEMMs whose A
// columns are 2, 4, 6 and 8 KB (K = 1030, 2050, 3074, 4100) 1.85x, 1.94x, 1.98x and 1.86x faster
// than on element copies (K = 1030: 51.5 -> 27.8 us), 2048 x 512 x 12290's 24 KB columns 1.60x,
// six smaller GEMMs with 2-4 KB columns copied in 1.00-1.12x. D's copy out, launched as the
// GEMM's programmatic dependent like the element copies (2026-12-03): four GEMMs with 2-6 KB
// columns of D 0.93x in geometric mean (2050 x 1024 fp16 0.77x, 3000 x 256 bf16 1.05x). Columns
// of 1-2 KB on small matrices (1001 x 520 x 777, 512 x 512 x 512 with odd leading dimensions)
// measured 8% slower (2026-11-28-shifted-copy-h200: the element copies share one launch there).
// BOO_NVCC_FLAGS=-DBOO_SHIFT_LONG_COLUMN_BYTES=N moves the threshold (for measuring; 65536
// before 2026-12-02).
#ifndef BOO_SHIFT_LONG_COLUMN_BYTES
#define BOO_SHIFT_LONG_COLUMN_BYTES (2 * 1024)
#endif
constexpr int64_t kShiftLongColumnBytes = BOO_SHIFT_LONG_COLUMN_BYTES;
inline bool shifted_copy_pays(int64_t ld_src, int64_t stride_src, int64_t ld_dst,
                              int64_t stride_dst, int64_t rows, int64_t cols, int64_t batch,
                              int element_bytes) {
  return shifted_copy_dense(ld_src, stride_src, ld_dst, stride_dst, rows, cols, batch) ||
         rows * element_bytes >= kShiftLongColumnBytes;
}

}  // namespace boo_kernels
