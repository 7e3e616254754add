// The arithmetic of kernels/shifted_copy.cuh, in plain C++ so that host unit tests run it too
// (tests/unit/jit/shifted_copy_math_test.cc): how a run of bytes splits into the destination's
// 16-byte aligned chunks and the bytes before and after them, and how one chunk's bytes come out
// of the two aligned 16-byte source chunks that hold them.
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

}  // namespace boo_kernels
