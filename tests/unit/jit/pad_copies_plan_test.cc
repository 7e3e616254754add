// The plan of gemm.sm90_unaligned's fused element copies (kernels/pad_copies_plan.cuh): the host
// replays what pad_copies_kernel does with every block and thread of a launch of several jobs
// (A, B, C and a bias of different element sizes, batches, broadcasts, jobs past the block cap)
// and checks that each destination element is written once, from its source element, and that
// nothing outside the destinations is written.
#include "../../../kernels/pad_copies_plan.cuh"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <set>
#include <vector>

namespace boo_kernels {
namespace {

struct Matrix {
  int64_t rows, cols, batch, ld_src, stride_src, ld_dst, stride_dst;
  int bytes;
};

// A source filled with distinct bytes and a destination with a sentinel, each with its layout.
struct Buffers {
  std::vector<uint8_t> src, dst;
};

int64_t extent(int64_t rows, int64_t cols, int64_t batch, int64_t ld, int64_t stride) {
  return (batch - 1) * stride + (cols - 1) * ld + rows;
}

// Replays pad_copies_kernel over `jobs`: every block, every work item of its share, every thread
// and load of an item.
void replay(const PadCopyJobs& jobs) {
  std::set<const uint8_t*> written;  // no destination element written twice
  for (unsigned block = 0; block < jobs.blocks; ++block) {
    const PadCopyShare share = pad_copy_share(jobs, block);
    ASSERT_LT(share.job, jobs.count);
    const PadCopyJob& j = jobs.job[share.job];
    ASSERT_GE(block, j.first_block);
    for (int64_t item = share.item; item < j.items; item += share.step) {
      const PadCopyPlace at = pad_copy_place(j, item);
      ASSERT_LT(at.b, j.batch);
      ASSERT_LT(at.c, j.cols);
      ASSERT_LT(at.r0, j.rows);
      const auto* s = static_cast<const uint8_t*>(j.src);
      auto* d = static_cast<uint8_t*>(j.dst);
      for (int t = 0; t < kPadThreads; ++t) {
        for (int i = 0; i < kPadPerThread; ++i) {
          const PadCopyElement e = pad_copy_element(j, at, i * kPadThreads + t);
          if (!e.valid) continue;
          EXPECT_LT(e.r, j.rows);
          EXPECT_LT(e.c, j.cols);
          const int64_t from = (at.b * j.stride_src + e.c * j.ld_src + e.r) * j.bytes;
          const int64_t to = (at.b * j.stride_dst + e.c * j.ld_dst + e.r) * j.bytes;
          EXPECT_TRUE(written.insert(d + to).second) << "element written twice";
          std::memcpy(d + to, s + from, static_cast<size_t>(j.bytes));
        }
      }
    }
  }
}

void check_jobs(const std::vector<Matrix>& ms) {
  std::vector<Buffers> bufs(ms.size());
  PadCopyJobs jobs{};
  for (size_t i = 0; i < ms.size(); ++i) {
    const Matrix& m = ms[i];
    bufs[i].src.resize(extent(m.rows, m.cols, m.batch, m.ld_src, m.stride_src) * m.bytes);
    for (size_t k = 0; k < bufs[i].src.size(); ++k) {
      bufs[i].src[k] = static_cast<uint8_t>((k * 131 + i * 7 + 1) % 251 + 1);
    }
    // A margin past the destination: nothing may land there.
    bufs[i].dst.assign(extent(m.rows, m.cols, m.batch, m.ld_dst, m.stride_dst) * m.bytes + 64, 0);
    ASSERT_TRUE(add_pad_copy(&jobs, bufs[i].src.data(), m.ld_src, m.stride_src, bufs[i].dst.data(),
                             m.ld_dst, m.stride_dst, m.rows, m.cols, m.batch, m.bytes));
  }
  replay(jobs);
  for (size_t i = 0; i < ms.size(); ++i) {
    const Matrix& m = ms[i];
    std::vector<uint8_t> want(bufs[i].dst.size(), 0);
    for (int64_t b = 0; b < m.batch; ++b) {
      for (int64_t c = 0; c < m.cols; ++c) {
        const int64_t from = (b * m.stride_src + c * m.ld_src) * m.bytes;
        const int64_t to = (b * m.stride_dst + c * m.ld_dst) * m.bytes;
        std::memcpy(want.data() + to, bufs[i].src.data() + from,
                    static_cast<size_t>(m.rows * m.bytes));
      }
    }
    EXPECT_EQ(bufs[i].dst, want) << "job " << i << ": " << m.rows << " x " << m.cols << " x "
                                 << m.batch << ", " << m.bytes << "-byte elements";
  }
}

TEST(PadCopiesPlan, EveryJobOfOneLaunchArrivesWhole) {
  // 1001 x 520 x 777 NN with odd leading dimensions: A (1001 x 777) and B (777 x 520).
  check_jobs({{1001, 777, 1, 1001, 0, 1008, 0, 2}, {777, 520, 1, 777, 0, 784, 0, 2}});
  // fp8 A and B, a bf16 C and an fp32 bias (1-, 2- and 4-byte elements), batched A and C.
  check_jobs({{333, 17, 3, 333, 333 * 17, 336, 336 * 17, 1},
              {260, 9, 1, 261, 0, 272, 0, 1},
              {129, 65, 3, 129, 8385, 136, 136 * 65, 2},
              {301, 1, 1, 301, 0, 304, 0, 4}});
  // Columns longer than a span, and one row.
  check_jobs({{3000, 3, 2, 3001, 9100, 3008, 9024, 2}, {1, 7, 1, 1, 0, 8, 0, 2}});
}

TEST(PadCopiesPlan, JobsPastTheBlockCapLoop) {
  // 5000 columns of 600 rows (one column an item): 5000 items on kPadMaxBlocks blocks, then a
  // small job after it.
  PadCopyJobs jobs{};
  std::vector<uint8_t> s(5000 * 600 * 2), d(5000 * 608 * 2);
  ASSERT_TRUE(add_pad_copy(&jobs, s.data(), 600, 0, d.data(), 608, 0, 600, 5000, 1, 2));
  ASSERT_TRUE(add_pad_copy(&jobs, s.data(), 9, 0, d.data(), 16, 0, 9, 3, 1, 2));
  EXPECT_EQ(jobs.job[0].group, 1);
  EXPECT_EQ(jobs.job[0].items, 5000);
  EXPECT_EQ(jobs.job[0].first_block, 0u);
  EXPECT_EQ(jobs.job[1].first_block, static_cast<unsigned>(kPadMaxBlocks));
  EXPECT_EQ(jobs.blocks, static_cast<unsigned>(kPadMaxBlocks) + 1);
  EXPECT_EQ(pad_copy_share(jobs, kPadMaxBlocks - 1).job, 0);
  EXPECT_EQ(pad_copy_share(jobs, kPadMaxBlocks).job, 1);
  EXPECT_EQ(pad_copy_share(jobs, kPadMaxBlocks).step, 1);
  check_jobs({{600, 5000, 1, 600, 0, 608, 0, 2}, {70, 3, 1, 71, 0, 72, 0, 4}});
}

TEST(PadCopiesPlan, ShortColumnsShareAnItem) {
  // An NCHW 7x7 image's A: 49-element columns, 20 to an item, 2048 columns, 64 batches.
  PadCopyJobs jobs{};
  std::vector<uint8_t> s(1), d(1);
  ASSERT_TRUE(add_pad_copy(&jobs, s.data(), 49, 100352, d.data(), 56, 114688, 49, 2048, 64, 2));
  EXPECT_EQ(jobs.job[0].group, kPadSpan / 49);
  EXPECT_EQ(jobs.job[0].spans, 1);
  EXPECT_EQ(jobs.job[0].items, (2048 + kPadSpan / 49 - 1) / (kPadSpan / 49) * 64);
  // Columns of half a span (2 an item), just over it (1), of 1 row (kPadSpan an item), a last
  // item with fewer columns, and a batch stride that is not a whole number of columns.
  check_jobs({{512, 5, 3, 512, 2600, 520, 2600, 2},
              {513, 3, 2, 515, 1600, 520, 1560, 2},
              {1, 2100, 2, 1, 2100, 8, 16800, 4},
              {49, 130, 3, 49, 6371, 56, 7280, 1}});
  check_jobs({{49, 2048, 2, 49, 100352, 56, 114688, 2}, {7, 40, 5, 9, 370, 8, 320, 2}});
}

TEST(PadCopiesPlan, EmptyMatricesAddNothingAndFullListsSaySo) {
  PadCopyJobs jobs{};
  uint8_t x[16] = {0};
  EXPECT_TRUE(add_pad_copy(&jobs, x, 1, 0, x, 8, 0, 0, 5, 1, 2));
  EXPECT_EQ(jobs.count, 0);
  for (int i = 0; i < kPadMaxJobs; ++i) {
    EXPECT_TRUE(add_pad_copy(&jobs, x, 1, 0, x, 8, 0, 1, 1, 1, 2));
  }
  EXPECT_FALSE(add_pad_copy(&jobs, x, 1, 0, x, 8, 0, 1, 1, 1, 2));
  EXPECT_EQ(jobs.count, kPadMaxJobs);
  EXPECT_EQ(jobs.blocks, static_cast<unsigned>(kPadMaxJobs));
}

// A padded copy's columns: whole 16-byte vectors keep their length (a dense copy stays dense);
// the rest round up to 128-byte lines (BOO_PAD_ROW_BYTES).
TEST(PadCopiesPlan, PaddedColumnsStartOnCacheLines) {
  EXPECT_EQ(padded_copy_ld(4096, 8, 2), 4096);   // bf16, whole vectors
  EXPECT_EQ(padded_copy_ld(4104, 8, 2), 4104);   // whole vectors, though off the lines
  EXPECT_EQ(padded_copy_ld(4100, 8, 2), 4160);   // bf16: 64 elements a line
  EXPECT_EQ(padded_copy_ld(777, 4, 4), 800);     // fp32: 32 a line
  EXPECT_EQ(padded_copy_ld(1001, 16, 1), 1024);  // fp8: 128 a line
  EXPECT_EQ(padded_copy_ld(1, 8, 2), 64);
  for (int64_t along : {3, 65, 777, 4100}) {
    const int64_t ld = padded_copy_ld(along, 8, 2);
    EXPECT_GE(ld, along);
    EXPECT_LT(ld - along, 64) << along;
    EXPECT_EQ(ld * 2 % 128, 0) << along;
  }
}

}  // namespace
}  // namespace boo_kernels
