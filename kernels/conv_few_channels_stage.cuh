// conv.padded_channels' direct kernel: one staged input row as 32-bit words (the
// -DBOO_FEW_STAGE_WORDS=1 experiment of conv_few_channels.cuh), in plain C++ for host and device
// so that a host unit test (tests/unit/jit/conv_few_channels_stage_test.cc) checks it against
// element-by-element staging.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define BOO_FEW_STAGE_HD __host__ __device__
#define BOO_FEW_STAGE_UNROLL _Pragma("unroll")
#else
#define BOO_FEW_STAGE_HD
#define BOO_FEW_STAGE_UNROLL
#endif

namespace boo_kernels {

// A 32-bit word of global memory at a 4-byte aligned address (read-only: through the
// non-coherent cache on the device).
BOO_FEW_STAGE_HD inline uint32_t few_stage_load_word(const uint16_t* at) {
#if defined(__CUDA_ARCH__)
  return __ldg(reinterpret_cast<const unsigned int*>(at));
#else
  return *reinterpret_cast<const uint32_t*>(at);
#endif
}

// One lane's share of a staged row as 32-bit words: word j of `dst` (j = lane, lane + 32 kBatch,
// ... in batches of kBatch loads) holds elements 2 j and 2 j + 1 of the row that starts at `src`
// (16-bit elements), zero outside [e_lo, e_hi) or when the row is not `inside`. Where src sits at
// an odd 2-byte slot a word is funnelled out of the two aligned words around it; a word whose
// aligned reads would touch an element outside [e_lo, e_hi) (the row's edges) is read element by
// element, so that nothing outside the image is read.
template <int kBatch>
BOO_FEW_STAGE_HD inline void few_stage_row_words(const uint16_t* src, uint32_t* dst, int words,
                                                 bool inside, int e_lo, int e_hi, int lane) {
  const int shift = static_cast<int>((reinterpret_cast<uintptr_t>(src) >> 1) & 1);
  for (int j0 = lane; j0 < words; j0 += 32 * kBatch) {
    uint32_t v[kBatch];
    BOO_FEW_STAGE_UNROLL
    for (int u = 0; u < kBatch; ++u) {
      const int e = 2 * (j0 + 32 * u);
      v[u] = 0;
      if (!inside || j0 + 32 * u >= words || e + 1 < e_lo || e >= e_hi) continue;
      if (e >= e_lo + shift && e + 1 + shift < e_hi) {
        v[u] = shift == 0 ? few_stage_load_word(src + e)
                          : few_stage_load_word(src + e - 1) >> 16 |
                                few_stage_load_word(src + e + 1) << 16;
      } else {
        const uint32_t lo = e >= e_lo ? src[e] : 0u;
        const uint32_t hi = e + 1 >= e_lo && e + 1 < e_hi ? src[e + 1] : 0u;
        v[u] = lo | hi << 16;
      }
    }
    BOO_FEW_STAGE_UNROLL
    for (int u = 0; u < kBatch; ++u) {
      if (j0 + 32 * u < words) dst[j0 + 32 * u] = v[u];
    }
  }
}

}  // namespace boo_kernels
