// The arithmetic of the shifted copy (kernels/shifted_copy_math.cuh) that gemm.sm90_unaligned's
// padded operands and conv views' channels-last copies run on: the host replays what
// shifted_copy_kernel does for one column (head and tail element by element, each 16-byte chunk
// of the destination from the two aligned source chunks that hold its bytes) for every pair of
// offsets, element size and many lengths, and checks that the bytes arrive, that nothing else is
// written and that no load leaves the aligned chunks that hold the source bytes.
#include "../../../kernels/shifted_copy_math.cuh"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

namespace boo_kernels {
namespace {

constexpr int kMargin = 64;

uint64_t address(const uint8_t* p) { return reinterpret_cast<uint64_t>(p); }

// Replays one column's copy of `bytes` bytes from s to d (element size `e`); returns false (with
// a failure) where a load would leave [lo, hi).
bool replay(const uint8_t* s, uint8_t* d, int64_t bytes, int e, uint64_t lo, uint64_t hi) {
  const ShiftedSpan sp = shifted_span(address(d), address(s), bytes);
  EXPECT_EQ(sp.head % e, 0);
  EXPECT_EQ(sp.tail % e, 0);
  EXPECT_EQ(sp.head + 16 * sp.chunks + sp.tail, bytes);
  std::memcpy(d, s, static_cast<size_t>(sp.head));
  std::memcpy(d + bytes - sp.tail, s + bytes - sp.tail, static_cast<size_t>(sp.tail));
  for (int64_t i = 0; i < sp.chunks; ++i) {
    const uint64_t from = sp.source + 16 * static_cast<uint64_t>(i);
    EXPECT_EQ(from % 16, 0u);
    EXPECT_EQ((sp.first + 16 * static_cast<uint64_t>(i)) % 16, 0u);
    const uint64_t reach = sp.lead != 0 ? from + 32 : from + 16;
    if (from < lo || reach > hi) {
      ADD_FAILURE() << "load of [" << from - lo << ", " << reach - lo << ") outside the chunks of "
                    << hi - lo << " source bytes";
      return false;
    }
    uint32_t l[4], h[4], out[4];
    std::memcpy(l, reinterpret_cast<const void*>(from), 16);
    if (sp.lead != 0) {
      std::memcpy(h, reinterpret_cast<const void*>(from + 16), 16);
    } else {
      std::memcpy(h, l, 16);
    }
    shifted_words(l, h, sp.lead, out);
    std::memcpy(reinterpret_cast<void*>(sp.first + 16 * static_cast<uint64_t>(i)), out, 16);
  }
  return true;
}

TEST(ShiftedCopyMath, EveryOffsetPairCopiesExactlyItsBytes) {
  const std::vector<int64_t> lengths = {0,  1,  2,  3,  7,  8,  9,  15, 16, 17,  23,
                                        31, 32, 33, 47, 63, 64, 65, 96, 99, 257, 1001};
  for (int e : {1, 2, 4}) {
    for (int so = 0; so < 16; so += e) {
      for (int doff = 0; doff < 16; doff += e) {
        for (int64_t n : lengths) {
          const int64_t bytes = n * e;
          // 16-byte aligned buffers (the vector's storage is at least 16-byte aligned on the
          // platforms we build for; align by hand to be sure).
          std::vector<uint8_t> src_buf(static_cast<size_t>(bytes + 3 * kMargin));
          std::vector<uint8_t> dst_buf(static_cast<size_t>(bytes + 3 * kMargin), 0xEE);
          uint8_t* src_base = src_buf.data() + (16 - address(src_buf.data()) % 16) % 16;
          uint8_t* dst_base = dst_buf.data() + (16 - address(dst_buf.data()) % 16) % 16;
          for (size_t i = 0; i < src_buf.size(); ++i) src_buf[i] = static_cast<uint8_t>(i * 7 + 3);
          uint8_t* s = src_base + kMargin + so;
          uint8_t* d = dst_base + kMargin + doff;
          const uint64_t lo = address(s) & ~uint64_t{15};
          const uint64_t hi = (address(s) + static_cast<uint64_t>(bytes) + 15) & ~uint64_t{15};
          ASSERT_TRUE(replay(s, d, bytes, e, lo, hi))
              << "element " << e << " offsets " << so << "/" << doff << " length " << n;
          ASSERT_EQ(std::memcmp(d, s, static_cast<size_t>(bytes)), 0)
              << "element " << e << " offsets " << so << "/" << doff << " length " << n;
          for (uint8_t* p = dst_buf.data(); p < dst_buf.data() + dst_buf.size(); ++p) {
            if (p < d || p >= d + bytes) {
              ASSERT_EQ(*p, 0xEE) << "byte " << p - d << " written outside the destination (" << e
                                  << ", " << so << "/" << doff << ", " << n << ")";
            }
          }
        }
      }
    }
  }
}

TEST(ShiftedCopyMath, ShortRunsAreAllHead) {
  // 14 bytes from an address 4 past a boundary hold no whole destination chunk.
  const ShiftedSpan sp = shifted_span(0x1004, 0x2002, 14);
  EXPECT_EQ(sp.head, 14);
  EXPECT_EQ(sp.chunks, 0);
  EXPECT_EQ(sp.tail, 0);
  // 40 bytes from 0x1006: 10 head bytes, one chunk at 0x1010, 14 tail bytes; the chunk's bytes
  // start at source 0x200b, 11 bytes into the chunk at 0x2000.
  const ShiftedSpan q = shifted_span(0x1006, 0x2001, 40);
  EXPECT_EQ(q.head, 10);
  EXPECT_EQ(q.chunks, 1);
  EXPECT_EQ(q.tail, 14);
  EXPECT_EQ(q.first, 0x1010u);
  EXPECT_EQ(q.source, 0x2000u);
  EXPECT_EQ(q.lead, 11);
}

// The padded copies' choice, at the measured sizes (kernels/shifted_copy_math.cuh): bf16
// columns of 2 KB and more (K = 1030: 2060 bytes) take the shifted copy, copied in or out, the
// 1-2 KB columns of small matrices measured slower on it (777 and 1001 elements) do not, unless
// the matrix is dense on both sides.
TEST(ShiftedCopyMath, LongColumnsAndDenseMatricesTakeTheShiftedCopy) {
  EXPECT_TRUE(shifted_copy_pays(1030, 0, 1088, 0, 1030, 8192, 1, 2));
  EXPECT_TRUE(shifted_copy_pays(12290, 0, 12352, 0, 12290, 2048, 1, 2));
  EXPECT_FALSE(shifted_copy_pays(777, 0, 832, 0, 777, 520, 1, 2));
  EXPECT_FALSE(shifted_copy_pays(1001, 0, 1024, 0, 1001, 777, 1, 2));
  EXPECT_FALSE(shifted_copy_pays(513, 0, 576, 0, 512, 512, 1, 2));
  EXPECT_TRUE(shifted_copy_pays(512, 0, 512, 0, 512, 512, 1, 2));  // one long column
  // Batches dense only where their strides are whole matrices on both sides.
  EXPECT_TRUE(shifted_copy_pays(49, 49 * 64, 49, 49 * 64, 49, 64, 8, 2));
  EXPECT_FALSE(shifted_copy_pays(49, 49 * 64 + 1, 49, 49 * 64, 49, 64, 8, 2));
  // The threshold counts bytes, not elements: 600 fp32 rows are 2400 bytes.
  EXPECT_TRUE(shifted_copy_pays(601, 0, 608, 0, 600, 64, 1, 4));
  EXPECT_FALSE(shifted_copy_pays(601, 0, 608, 0, 600, 64, 1, 2));
  // The threshold is 2 KB, copies in and D's copy out alike: 1024 bf16 rows are exactly 2 KB,
  // 1023 one element short.
  EXPECT_TRUE(shifted_copy_pays(1032, 0, 1024, 0, 1024, 100, 1, 2));
  EXPECT_FALSE(shifted_copy_pays(1032, 0, 1023, 0, 1023, 100, 1, 2));
}

}  // namespace
}  // namespace boo_kernels
