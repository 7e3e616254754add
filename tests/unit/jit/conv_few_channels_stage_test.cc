// conv.padded_channels' word staging (kernels/conv_few_channels_stage.cuh, the
// -DBOO_FEW_STAGE_WORDS=1 experiment): every word of a staged row holds the row's two elements, or
// zero outside [e_lo, e_hi) and for rows outside the image, for rows at either parity of a 2-byte
// slot; the valid elements sit alone in their heap allocation, so that the sanitizer build
// (AddressSanitizer) catches any read past them.
#include "../../../kernels/conv_few_channels_stage.cuh"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace boo_kernels {
namespace {

// Stages `words` words of a row whose valid elements [e_lo, e_hi) live at `valid` (element e of
// the row at valid[e - e_lo]), as the 32 lanes of a warp would, and checks them.
void check_row(const uint16_t* valid, int e_lo, int e_hi, int words, bool inside) {
  const uint16_t* src = valid - e_lo;
  std::vector<uint32_t> dst(static_cast<size_t>(words), 0xdeadbeefu);
  for (int lane = 0; lane < 32; ++lane) {
    few_stage_row_words<16>(src, dst.data(), words, inside, e_lo, e_hi, lane);
  }
  for (int j = 0; j < words; ++j) {
    uint32_t want = 0;
    for (int h = 0; h < 2; ++h) {
      const int e = 2 * j + h;
      if (inside && e >= e_lo && e < e_hi) want |= uint32_t{valid[e - e_lo]} << (16 * h);
    }
    ASSERT_EQ(dst[static_cast<size_t>(j)], want)
        << "word " << j << " of " << words << ", e_lo " << e_lo << ", e_hi " << e_hi
        << (inside ? "" : ", outside");
  }
}

TEST(ConvFewChannelsStage, WordsHoldTheRowsElementsAndZerosAtEitherParity) {
  for (int words = 1; words <= 700; words += words < 40 ? 1 : 37) {
    for (int e_lo = 0; e_lo <= 5; ++e_lo) {
      for (int cut = 0; cut <= 4; ++cut) {
        const int e_hi = 2 * words - cut;
        if (e_hi <= e_lo) continue;
        // The valid elements alone in their allocation: the row starts at an even 2-byte slot
        // minus e_lo (its shift is e_lo's parity).
        std::vector<uint16_t> valid(static_cast<size_t>(e_hi - e_lo));
        for (size_t i = 0; i < valid.size(); ++i) valid[i] = static_cast<uint16_t>(0x3c00 + i * 7);
        check_row(valid.data(), e_lo, e_hi, words, true);
        check_row(valid.data(), e_lo, e_hi, words, false);
        // The same at the other parity: one element more in front (read only as a neighbour).
        std::vector<uint16_t> shifted(valid.size() + 1);
        for (size_t i = 0; i < valid.size(); ++i) shifted[i + 1] = valid[i];
        check_row(shifted.data() + 1, e_lo, e_hi, words, true);
      }
    }
  }
}

}  // namespace
}  // namespace boo_kernels
