// gemm.skinny: decode-shaped GEMMs (N or M at most 32), memory-bound by construction.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "../../kernels/gemm_skinny_plan.cuh"
#include "boo/dispatch/gemm_algorithms.h"
#include "boo/space/gemm_skinny.h"

namespace boo::dispatch {
namespace {

using space::GemmSkinnyConfig;

constexpr double kBandwidthShare = 0.45;         // measured, see rank()
constexpr double kSplitFixedUs = 5.4;            // measured, see rank()
constexpr double kGemvBandwidthShare = 0.85;     // measured, see rank()
constexpr double kGemvColumnsFactor = 1.56;      // measured, see rank()
constexpr double kGemvFixedUs = 4.2;             // measured, see rank()
constexpr int64_t kGemvBlocksPerSm = 4;          // 55 registers a thread, 256 threads a block
constexpr double kStreamBandwidthShare = 0.878;  // measured, see stream_us()
constexpr double kStreamGatherShare = 0.03;      // element gathers: 1000 x 16 x 777 at 19 us
constexpr double kBulkBandwidthShare = 1.09;     // measured, see bulk_us()
constexpr double kBulkFixedUs = 4.5;             // measured, see bulk_us()
constexpr double kGatherBlockGbs = 3.0;          // a split block, NT operands: see rank()

// Both operands contiguous in K (TN), their rows and batch strides whole vectors of `elems`.
bool tn_in_vectors(const ops::GemmProblem& p, int64_t elems) {
  const bool strides = p.batch == 1 || (p.stride_a % elems == 0 && p.stride_b % elems == 0);
  return p.trans_a == ops::Transpose::kT && p.trans_b == ops::Transpose::kN && p.lda % elems == 0 &&
         p.ldb % elems == 0 && strides;
}

// Whether the kernel takes its cp.async main loop (kernels/gemm_skinny.cuh, pipelined_layout):
// 16-bit inputs of one type, both operands contiguous in K (TN) with 16-byte rows.
bool pipelined_layout(const ops::GemmProblem& p) {
  const bool sixteen =
      (p.a_type == core::DType::kBF16 || p.a_type == core::DType::kF16) && p.b_type == p.a_type;
  return sixteen && tn_in_vectors(p, 8);
}

// Both inputs fp8 (e4m3 or e5m2).
bool fp8_inputs(const ops::GemmProblem& p) {
  return core::is_fp8(p.a_type) && core::is_fp8(p.b_type);
}

// Whether the streaming loop streams 16-byte vectors (kernels/gemm_skinny.cuh, `wide` in run):
// the cp.async layouts, or fp8 inputs contiguous in K (TN) with rows of whole 16-byte vectors,
// which it multiplies as they are (16 of k a vector).
bool stream_layout(const ops::GemmProblem& p) {
  return pipelined_layout(p) || (fp8_inputs(p) && tn_in_vectors(p, 16));
}

// k of a streaming chunk (kernels/gemm_skinny_plan.cuh, as the kernel's kChunk).
int64_t stream_chunk(const ops::GemmProblem& p) {
  return boo_kernels::stream_chunk_for(fp8_inputs(p) ? 1 : 2);
}

// The kernel's own choice of K splits (kernels/gemm_skinny.cuh, splits_for): the count whose
// blocks best fill whole waves of resident blocks (2 per SM with the pipelined main loop, else
// 3), splits 128 deep at least, the last block's reduction at most 32768 partials.
int64_t auto_splits(int64_t slices, int64_t cols, int64_t k, int sm_count, bool pipelined) {
  if (slices > 65536) return 1;
  const int64_t slots = (pipelined ? 2 : 3) * static_cast<int64_t>(sm_count > 0 ? sm_count : 132);
  const int64_t most = std::min<int64_t>((k + 127) / 128, 32768 / (64 * cols));
  auto per_split = [k](int64_t s) { return ((k + s - 1) / s + 127) / 128 * 128; };
  int64_t best = 1;
  double best_fill = -1.0;
  for (int64_t s = 1; s <= most; ++s) {
    if ((k + per_split(s) - 1) / per_split(s) != s) continue;
    const int64_t waves = (slices * s + slots - 1) / slots;
    const double fill = static_cast<double>(slices * s) / static_cast<double>(waves * slots);
    if (fill > best_fill + 0.01) {
      best = s;
      best_fill = fill;
    }
  }
  return best;
}

// Whether the kernel takes its GEMV main loop (kernels/gemm_skinny.cuh, gemv and
// gemv_warps_per_row, with the constants of kernels/gemm_skinny_gemv.cuh): the cp.async layouts
// with at most 4 narrow columns and no forced K split, unless the rows are too few for the GPU and
// K is deep. `blocks_out` (when given): the loop's blocks, 8 / per_row rows each.
bool gemv_layout(const ops::GemmProblem& p, int64_t rows, int64_t cols, int64_t splits,
                 int sm_count, int64_t* blocks_out = nullptr) {
  constexpr int64_t kCols = 4, kWarps = 8, kWarpsPerSm = 48, kUnroll = 4;
  if (!pipelined_layout(p) || cols > kCols || splits > 1) return false;
  const int64_t vector = 32 * 16 / core::dtype_bytes(p.a_type);  // elements: a vector per lane
  const int64_t step = vector * kUnroll;                         // an unrolled step
  const int64_t wanted = kWarpsPerSm * (sm_count > 0 ? sm_count : 132);
  int64_t per_row = 1;
  while (per_row < kWarps && (p.k / (2 * per_row) >= step || (rows * p.batch * per_row < wanted &&
                                                              p.k / (2 * per_row) >= vector))) {
    per_row *= 2;
  }
  const bool starved = rows * p.batch * per_row < wanted / 4;
  if (blocks_out != nullptr) {
    const int64_t rows_per_block = kWarps / per_row;
    *blocks_out = (rows + rows_per_block - 1) / rows_per_block * p.batch;
  }
  return !(starved && p.k / per_row > 4 * step);
}

// The streaming loop's warps per 16-row tile: a config's count, else the kernels' rule
// (kernels/gemm_skinny_plan.cuh).
int64_t stream_parts(const ops::GemmProblem& p, int64_t rows, int64_t cols, int sm_count,
                     int forced) {
  if (forced > 0) return forced;
  return boo_kernels::stream_parts_for(rows, cols, p.k, p.batch, stream_chunk(p), sm_count);
}

// The streaming loop (kernels/gemm_skinny_stream.cuh) beyond the launch: each operand crosses HBM
// once. Fitted on an H100 (bench/results/2026-11-26-gemm-stream-h100.md): 2.4 us + bytes at
// 0.878 of the copy bandwidth with one 8-column tile of S (4096 x 8, 14336 x 1, fp16 11008 x 4,
// 1024 x 16 x 1024 all within 3%), 6% less rate for each further tile (16 to 32 columns), less
// when a warp's share of K is short of 8 chunks (batched K = 128), and element gathers (R or S
// not contiguous in K and 16-byte aligned) far slower. fp8 inputs: the same rates, not fitted.
double stream_us(const ops::GemmProblem& p, int64_t rows, int64_t cols, int64_t parts,
                 const DeviceModel& d, int64_t* blocks_out) {
  constexpr double kFixedUs = 2.4;
  const int64_t rows_per_block = 16 * (8 / parts);
  const int64_t blocks = (rows + rows_per_block - 1) / rows_per_block * p.batch;
  *blocks_out = blocks;
  const int64_t col_tiles = (cols + 7) / 8;
  double share = stream_layout(p) ? kStreamBandwidthShare : kStreamGatherShare;
  share *= 1.0 - 0.06 * static_cast<double>(col_tiles - 1);
  const double chunks = std::ceil(static_cast<double>(p.k) / static_cast<double>(parts) /
                                  static_cast<double>(stream_chunk(p)));
  if (chunks < 8) share *= std::sqrt(chunks / 8.0);
  // Bytes in flight: 32 KB a block (8 warps x 8 vectors a lane) over a ~1.2 us loaded latency,
  // two blocks an SM.
  const double resident = std::min<double>(blocks, 2.0 * (d.sm_count > 0 ? d.sm_count : 132));
  const double rate_gbs = std::min(share * d.bandwidth_gbs, resident * 27.0);
  return kFixedUs + static_cast<double>(p.min_bytes()) / (rate_gbs * 1e9) * 1e6;
}

using boo_kernels::bulk_wave;  // the bulk-copy loop's blocks for each batch entry

// Whether a streaming config with the runner's count takes the bulk-copy loop (kernels/
// gemm_skinny.cuh, bulk, with the constants of kernels/gemm_skinny_bulk.cuh): one narrow column,
// the cp.async layouts, rows of 2 to 40 KB in whole 16-byte vectors, and at least 256 KB of R
// for each of its blocks.
bool bulk_layout(const ops::GemmProblem& p, int64_t rows, int64_t cols, int splits, int sm_count) {
  if (!pipelined_layout(p) || splits != 0 || cols != 1 || p.k % 8 != 0) return false;
  const int64_t row_bytes = 2 * p.k;
  if (row_bytes < 2048 || row_bytes > 40960) return false;
  return rows * row_bytes >= bulk_wave(sm_count, p.batch) * (int64_t{256} << 10);
}

// The bulk-copy loop beyond the launch: R crosses HBM once, at about the rate of a plain read
// of that size. Fitted on an H200 (bench/results/2026-11-28-gemv-h200.md, call 6, copy bandwidth
// 4233 GB/s): 14336 x 1 x 4096 at 33.0 us and 128256 x 1 x 4096 at 235.2: 4.5 us + bytes at 1.09
// of the copy bandwidth.
double bulk_us(const ops::GemmProblem& p, const DeviceModel& d) {
  return kBulkFixedUs +
         static_cast<double>(p.min_bytes()) / (kBulkBandwidthShare * d.bandwidth_gbs * 1e9) * 1e6;
}

// Where the default rule set ranks the streaming loop: the decode layouts with at most 8 narrow
// columns, or 16 over at most 40 MB (H100, 2026-11-26, bench/results/
// 2026-11-26-gemm-stream-h100.md: ahead of gemm.sm90's narrow tiles and the GEMV loop there;
// behind them with 16 columns over 117-262 MB and with 24 or 32, by 3-13%, which gemm.sm90's
// model does not resolve: it overpredicts its narrow tiles there by up to 15%). fp8 inputs: any
// narrow side, as gemm.sm90 has no fp8 tiles under 64 columns to prefer.
bool stream_pays(const ops::GemmProblem& p, int64_t cols) {
  if (!stream_layout(p)) return false;
  if (fp8_inputs(p)) return true;
  return cols <= 8 || (cols <= 16 && static_cast<double>(p.min_bytes()) <= 40e6);
}

bool narrow_m_side(const ops::GemmProblem& p) {
  return !(p.n <= space::kSkinnyMaxNarrow && (p.n <= p.m || p.m > space::kSkinnyMaxNarrow));
}

class GemmSkinnyAlgorithm final : public GemmAlgorithm {
 public:
  std::string_view name() const override { return "gemm.skinny"; }

  core::Status supports(const ops::GemmProblem& p) const override {
    if (p.n > space::kSkinnyMaxNarrow && p.m > space::kSkinnyMaxNarrow) {
      return core::unsupported("gemm.skinny: needs N <= 32 or M <= 32");
    }
    if (p.batch > 65535) return core::unsupported("gemm.skinny: batch above 65535");
    return space::check_gemm_skinny_class(space::gemm_class_of(p));
  }

  std::vector<Candidate> rank(const ops::GemmProblem& p, const DeviceModel& d,
                              space::RuleSet rules) const override {
    std::vector<Candidate> out;
    const bool narrow_m = narrow_m_side(p);
    for (const GemmSkinnyConfig& c :
         space::gemm_skinny_space(space::gemm_class_of(p), narrow_m, rules)) {
      Candidate cand;
      cand.algorithm = "gemm.skinny";
      cand.config = c.name();
      // Memory-bound: each operand crosses HBM once, plus the fp32 partials of the K splits,
      // and the launch. The kernel reached 28-58% of the memory floor on an H100 (bench/
      // results/2026-11-22-gemm-skinny-h100.md: 256x8x65536, 4096x16x4096, 14336x1x4096);
      // fp32 inputs run a scalar FMA loop at about half of the fp32 rate.
      const int64_t rows = narrow_m ? p.n : p.m;
      const int64_t cols = narrow_m ? p.m : p.n;
      if (c.stream) {
        if (rules != space::RuleSet::kFull && !stream_pays(p, cols)) continue;
        if (bulk_layout(p, rows, cols, c.splits, d.sm_count)) {
          const double memory_us = bulk_us(p, d);
          cand.predicted_us = memory_us + d.launch_us;
          const int64_t blocks = std::min<int64_t>(rows, bulk_wave(d.sm_count, p.batch)) * p.batch;
          char why[160];
          std::snprintf(why, sizeof(why),
                        "bulk-copy loop, %lld blocks, rows of R through shared memory; memory "
                        "%.1f us",
                        static_cast<long long>(blocks), memory_us);
          cand.why = why;
          out.push_back(std::move(cand));  // (each lane sums K / 64 products a chain)
          continue;
        }
        const int64_t parts = stream_parts(p, rows, cols, d.sm_count, c.splits);
        int64_t blocks = 0;
        const double memory_us = stream_us(p, rows, cols, parts, d, &blocks);
        const double compute_us = p.flops() / 200e12 * 1e6;
        cand.predicted_us = std::max(memory_us, compute_us) + d.launch_us;
        char why[160];
        std::snprintf(why, sizeof(why),
                      "streaming loop, %lld blocks, %lld warps a row tile; memory %.1f us",
                      static_cast<long long>(blocks), static_cast<long long>(parts), memory_us);
        cand.why = why;
        // Each warp sums its share of K in one fp32 accumulator.
        note_long_accumulation(p, (p.k + parts - 1) / parts, cand);
        out.push_back(std::move(cand));
        continue;
      }
      int64_t gemv_blocks = 0;
      if (gemv_layout(p, rows, cols, c.splits, d.sm_count, &gemv_blocks)) {
        // The GEMV main loop (kernels/gemm_skinny_gemv.cuh, run_rows): rows of R streamed whole by
        // warps, no K split, S from L1: near the copy bandwidth (H100: 14336x1x4096 at 86% of
        // the floor; bench/results/2026-11-23-gemm-gemv-h100.md).
        // With two to four columns the loop runs at about 1/1.56 of that (H100, 2026-11-26:
        // 4096 x 2 x 4096 at 21.5 us, fp16 11008 x 4 x 4096 at 52.4; bench/results/
        // 2026-11-26-gemm-stream-h100.md): each element's products are CUDA-core work.
        // On one column, where its blocks (one unrolled step of K a warp, most of them) take
        // more than one wave, they start and end in turn: about 4.2 us more, whatever the size
        // (H200, 2026-11-28: 2048 x 1 x 2048 at 9.6 us, 4096 x 1 x 4096 at 16.5, 14336 x 1 x
        // 4096 at 40.0, 4096 x 1 x 14336 at 43.9: 4.2 us past the launch and the bytes at 0.84 of
        // the copy rate; the streaming loop 7.7, 13.6, 35.7 and 34.7 there; bench/results/
        // 2026-11-28-h200-lists.md). Without it the model ranked the GEMV loop first on single
        // columns of any size. (With 2-4 columns the loop measured slower still, 12.8 us against
        // the streaming loop's 8.7 on 777 x 4 x 4096, but the columns factor above already
        // ranks it behind; the streaming loop's model overpredicts that line.)
        const int64_t wave = kGemvBlocksPerSm * (d.sm_count > 0 ? d.sm_count : 132);
        const double fixed_us = cols == 1 && gemv_blocks > wave ? kGemvFixedUs : 0.0;
        const double memory_us = fixed_us + static_cast<double>(p.min_bytes()) /
                                                (kGemvBandwidthShare * d.bandwidth_gbs * 1e9) *
                                                1e6 * (cols > 1 ? kGemvColumnsFactor : 1.0);
        const double compute_us = p.flops() / (0.5 * d.tflops_tf32 / 7.4 * 1e12) * 1e6;
        cand.predicted_us = std::max(memory_us, compute_us) + d.launch_us;
        char why[160];
        std::snprintf(why, sizeof(why),
                      "GEMV main loop, %lld rows; memory %.1f us, compute %.1f us",
                      static_cast<long long>(rows * p.batch), memory_us, compute_us);
        cand.why = why;
        out.push_back(std::move(cand));
        continue;
      }
      const int64_t blocks = (rows + 63) / 64 * p.batch;
      const int64_t splits =
          c.splits > 0 ? c.splits : auto_splits(blocks, cols, p.k, d.sm_count, pipelined_layout(p));
      const double partial_bytes = splits > 1 ? 2.0 * splits * rows * cols * p.batch * 4 : 0.0;
      // With both operands MN-major (NT) each block gathers its columns element by element: about
      // 3 GB/s a block, whatever the size (H200: fp32 16 x 16 x 200704 on 29 blocks 333 us,
      // 24 x 16 x 5005 on 20 blocks 22.6 us, 40 x 24 x 663 on 6 blocks 14.8 us, the GEMMs of
      // three 1x1 backward weights; bench/results/2026-11-29-forced-lines-h200.md, section 5b).
      const bool gathered = !pipelined_layout(p) && p.trans_a == ops::Transpose::kN &&
                            p.trans_b == ops::Transpose::kT;
      double rate_gbs = kBandwidthShare * d.bandwidth_gbs;
      if (gathered) {
        rate_gbs = std::min(rate_gbs, kGatherBlockGbs * static_cast<double>(blocks * splits));
      }
      const double memory_us =
          (static_cast<double>(p.min_bytes()) + partial_bytes) / (rate_gbs * 1e9) * 1e6;
      const bool scalar = p.a_type == core::DType::kF32;
      const double compute_us =
          scalar ? p.flops() / (0.5 * d.tflops_tf32 / 7.4 * 1e12) * 1e6 : p.flops() / 200e12 * 1e6;
      // Split K adds a fixed cost: partials, the arrival counter and the last block's
      // reduction, one after another (H100, read flush: 2048x16x1024 at 12.6 us and 512x8x1024
      // at 9.3 us against 7.2 and 3.9 predicted without it; bench/results/
      // 2026-11-22-gemm-unaligned-fp8-h100.md, "Decode shapes after the recalibration").
      const double split_us = splits > 1 ? kSplitFixedUs : 0.0;
      cand.predicted_us = std::max(memory_us, compute_us) + d.launch_us + split_us;
      char why[160];
      std::snprintf(
          why, sizeof(why), "%lld row blocks x %lld K splits; memory %.1f us, compute %.1f us",
          static_cast<long long>(blocks), static_cast<long long>(splits), memory_us, compute_us);
      cand.why = why;
      out.push_back(std::move(cand));
    }
    sort_candidates(&out);
    return out;
  }

  core::Expected<codegen::KernelSource> source(std::string_view config) const override {
    BOO_ASSIGN_OR_RETURN(GemmSkinnyConfig c, GemmSkinnyConfig::parse_name(config));
    return codegen::gemm_skinny_source(c);
  }

  LaunchOrder launch_order(std::string_view config) const override {
    auto c = GemmSkinnyConfig::parse_name(config);
    LaunchOrder o;
    if (c.has_value()) o.splits = c->splits;
    return o;
  }
};

}  // namespace

std::unique_ptr<GemmAlgorithm> make_gemm_skinny() {
  return std::make_unique<GemmSkinnyAlgorithm>();
}

}  // namespace boo::dispatch
