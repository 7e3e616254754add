// The plan of kernels/pad_copies.cuh's launches, in plain C++ so that host unit tests replay it
// (tests/unit/jit/pad_copies_plan_test.cc): up to kPadMaxJobs element-wise copies of column-major
// matrices in one grid, each job on its own range of blocks, each block walking its job's work
// items a grid of the job's blocks apart. An item is kPadSpan elements of one batch: a span of
// one column's rows where columns are at least half a span long, otherwise as many whole columns
// as fit (one column an item used 49 of a block's 1024 element slots on a 49-element column).
#pragma once

#include <cstdint>

#include "host_device.cuh"

namespace boo_kernels {

constexpr int kPadThreads = 256;
constexpr int kPadPerThread = 4;  // independent loads in flight per thread
constexpr int64_t kPadSpan = static_cast<int64_t>(kPadThreads) * kPadPerThread;
constexpr int kPadMaxJobs = 4;
// BOO_NVCC_FLAGS=-DBOO_PAD_GROUP_COLUMNS=0 copies one column an item however short (as before
// 2026-11-28; for measuring).
#ifndef BOO_PAD_GROUP_COLUMNS
#define BOO_PAD_GROUP_COLUMNS 1
#endif
// Blocks a job takes at most (it loops over the rest): 16 per SM of a 132-SM GPU, twice what
// fits at once.
constexpr int64_t kPadMaxBlocks = 2112;

// What a padded copy's columns are rounded up to, in bytes, where they are not whole 16-byte
// vectors: columns that start off 128-byte lines make the inner GEMM's L2 reads dear
// (bench/results/2026-12-02-n100-h200.md: 8192 x 100 x 4104 took 39.6 us against 23.5 with
// K = 4096), and rounding them to the lines measured 1.05-1.23x faster end to end on an H200
// (bench/results/2026-12-02-c4-h200.md: 8192 x 100 x 4100 +bias +gelu 135.1 -> 125.0 us, tf32
// 2000 x 1500 x 777 38.0 -> 30.8). Columns that are whole vectors keep their length, so that a
// dense operand's copy stays dense. BOO_NVCC_FLAGS=-DBOO_PAD_ROW_BYTES=16 rounds to vectors only
// (as before; for measuring).
#ifndef BOO_PAD_ROW_BYTES
#define BOO_PAD_ROW_BYTES 128
#endif
static_assert(BOO_PAD_ROW_BYTES % 16 == 0, "padded rows stay whole 16-byte vectors (TMA)");

// The leading dimension of a padded copy whose columns are `along` elements of `bytes` bytes,
// `vector` elements a 16-byte vector (gemm.sm90_unaligned's buffers, and dispatch's model of
// them).
BOO_HD constexpr int64_t padded_copy_ld(int64_t along, int vector, int bytes) {
  const int64_t q = along % vector == 0 || BOO_PAD_ROW_BYTES / bytes < vector
                        ? vector
                        : BOO_PAD_ROW_BYTES / bytes;
  return (along + q - 1) / q * q;
}

// One copy: dst(r, c, b) = src(r, c, b) for a rows x cols x batch column-major matrix of
// `bytes`-byte elements (a stride may be 0: a broadcast). Its blocks are first_block onwards.
struct PadCopyJob {
  const void* src;
  void* dst;
  int64_t ld_src, stride_src, ld_dst, stride_dst, rows, cols, batch;
  int64_t group;   // whole columns an item copies (1: a span of one column)
  int64_t spans;   // spans of kPadSpan rows a column (1 where group > 1)
  int64_t groups;  // items a batch's columns take along the columns: cols / group, rounded up
  int64_t items;   // spans x groups x batch
  int bytes;
  unsigned first_block;
};
struct PadCopyJobs {
  PadCopyJob job[kPadMaxJobs];
  int count;
  unsigned blocks;  // all jobs'
};

// Adds a copy to `jobs` (false when full). Empty matrices add nothing.
inline bool add_pad_copy(PadCopyJobs* jobs, const void* src, int64_t ld_src, int64_t stride_src,
                         void* dst, int64_t ld_dst, int64_t stride_dst, int64_t rows, int64_t cols,
                         int64_t batch, int bytes) {
  if (rows < 1 || cols < 1 || batch < 1) return true;
  if (jobs->count == kPadMaxJobs) return false;
  PadCopyJob& j = jobs->job[jobs->count++];
  j.src = src;
  j.dst = dst;
  j.ld_src = ld_src;
  j.stride_src = stride_src;
  j.ld_dst = ld_dst;
  j.stride_dst = stride_dst;
  j.rows = rows;
  j.cols = cols;
  j.batch = batch;
  j.bytes = bytes;
  j.first_block = jobs->blocks;
  j.group = BOO_PAD_GROUP_COLUMNS && rows * 2 <= kPadSpan ? kPadSpan / rows : 1;
  j.spans = (rows + kPadSpan - 1) / kPadSpan;
  j.groups = (cols + j.group - 1) / j.group;
  j.items = j.spans * j.groups * batch;
  jobs->blocks += static_cast<unsigned>(j.items < kPadMaxBlocks ? j.items : kPadMaxBlocks);
  return true;
}

// The job block `block` works on, and its first item and the step between its items.
struct PadCopyShare {
  int job;
  int64_t item, step;
};
BOO_HD inline PadCopyShare pad_copy_share(const PadCopyJobs& jobs, unsigned block) {
  int k = 0;
  while (k + 1 < jobs.count && block >= jobs.job[k + 1].first_block) ++k;
  const unsigned end = k + 1 < jobs.count ? jobs.job[k + 1].first_block : jobs.blocks;
  const PadCopyJob& j = jobs.job[k];
  return {k, static_cast<int64_t>(block - j.first_block),
          static_cast<int64_t>(end - j.first_block)};
}

// Work item `item` of job `j`: its batch, first column and first row.
struct PadCopyPlace {
  int64_t b, c, r0;
};
BOO_HD inline PadCopyPlace pad_copy_place(const PadCopyJob& j, int64_t item) {
  const int64_t along = item / j.spans;  // batch x groups + group
  const int64_t b = along / j.groups;
  return {b, (along - b * j.groups) * j.group, (item - along * j.spans) * kPadSpan};
}

// Element slot `f` (0 <= f < kPadSpan) of the item at `at`: its column and row, and whether it
// is one (the last slots of an item and the columns past the last one are not).
struct PadCopyElement {
  int64_t c, r;
  bool valid;
};
BOO_HD inline PadCopyElement pad_copy_element(const PadCopyJob& j, const PadCopyPlace& at, int f) {
  if (j.group == 1) return {at.c, at.r0 + f, at.r0 + f < j.rows};
  // Whole columns: rows < kPadSpan, so 32-bit division.
  const unsigned q = static_cast<unsigned>(f) / static_cast<unsigned>(j.rows);
  const int64_t c = at.c + q;
  return {c, f - static_cast<int64_t>(q) * j.rows, q < j.group && c < j.cols};
}

}  // namespace boo_kernels
