// gemm.sm90: CUTLASS 3 TMA warp-specialized GEMMs, ranked by an analytical model.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <string>

#include "../../kernels/pad_copies_plan.cuh"
#include "boo/dispatch/gemm_algorithms.h"
#include "boo/space/gemm_sm90.h"

namespace boo::dispatch {
namespace {

using space::GemmSchedule;
using space::GemmScheduler;
using space::GemmSm90Config;

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }
int64_t round_up(int64_t a, int64_t b) { return ceil_div(a, b) * b; }

// The strip CUTLASS's tile schedulers use for a swizzle of at most `swizzle` tiles over a grid
// whose shorter side has `short_side` tiles.
int64_t strip_tiles(int64_t short_side, int swizzle) {
  if (swizzle >= 8 && short_side >= 6) return 8;
  if (swizzle >= 4 && short_side >= 3) return 4;
  if (swizzle >= 2 && short_side >= 2) return 2;
  return 1;
}

// The fixed cost of one persistent tile 16 or 32 wide, per tile an SM runs (see rank()).
constexpr double kNarrowTileUs = 0.22;
// What a TMA box row of an operand whose rows start off 128-byte lines costs in the L2, in
// aligned rows (predict_gemm_sm90_us).
constexpr double kOffLineRowCost = 2.5;
// What an L2 read of few rows of A shared by every tile across N costs, in bytes streamed from
// DRAM (predict_gemm_sm90_us).
constexpr double kSharedReadCost = 0.67;

// A 128-wide tile over N of 65 to 112 multiplies and stages up to 63 columns of padding; the
// same tile as wide as N rounded up to 16 does not. H200 (16-bit operands, aligned):
// - 2026-12-02 (bench/results/2026-12-02-tile-sweep-h200.md, -fitted-tiles-h200.md): the
//   memory-bound 16032 x 109 x 16384 took 132.3 us on t128x112x64 pingpong, 136.7 on
//   t128x128x64 (cuBLASLt: two 56-wide tiles, 129.7); 8192 x 97 x 4096 23.9 against 29.1 on
//   64-row tiles.
// - 2026-12-03 (bench/results/2026-12-03-stages-h200.md): 12288 x 96 x 12288 81.5 us on
//   t128x96x64 pingpong, 92.2 on t128x128x64; 20480 x 80 x 8192 92.4 on t128x80x64 cooperative
//   stream-K, 104.1 on t128x80 pingpong, 97.5 on t64x80, 128.4 on t64x128 in 2x1 clusters.
// Only where B is K-major: CUTLASS stages an N-major tile in the 128-byte swizzle only where its
// width is a multiple of 64 16-bit elements (sm90_common.inl, ss_smem_selector: 96 takes 64
// bytes, 80 and 112 take 32), and the narrower swizzles measured slower (2026-12-03, bench/results/
// 2026-12-03-fitted-n-h200.md: 14336 x 72 x 14336 with B N-major 148.4-148.7 us on t128x80,
// 124.6-125.0 on t128x128; 8192 x 80 x 2048 20.4 on t64x80, 16.1 on t128x64).
// The default rule set's 128-wide tiles take that width on such problems; 0 where they keep
// theirs (N of 64 or less has 64-wide tiles of its own; tf32 and fp8 are not measured).
int fitted_tile_n(const ops::GemmProblem& p) {
  const bool measured = p.a_type == core::DType::kBF16 || p.a_type == core::DType::kF16;
  const bool k_major_b = p.trans_b == ops::Transpose::kN;
  return measured && k_major_b && p.n > 64 && p.n <= 112 ? static_cast<int>(round_up(p.n, 16)) : 0;
}

// Whether `c` is a tile fitted to its problem's N (gemm.sm90_unaligned's are not: not measured).
bool is_fitted(const ops::GemmProblem& p, const GemmSm90Config& c) {
  return !c.unaligned && c.tile_n == fitted_tile_n(p);
}

// Fraction of the tensor-core peak a CTA sustains in its mainloop. Calibrated on an H100 with
// bf16 sweeps of the public GEMM list (bench/results/2026-11-22-gemm-sweep-*.md): 128x256 and
// 256x128 cooperative tiles and 128x128 pingpong tiles come within a few percent of cuBLASLt;
// smaller tiles issue fewer MMAs per k-block; 128-byte k-blocks (tile K 64 in 16 bits) let
// the mainloop keep four stages in flight, 256-byte ones fewer.
double tile_efficiency(const ops::GemmProblem& p, const GemmSm90Config& c) {
  // A tile as wide as its problem (fitted_tile_n) issues the MMAs of the 128-wide tile, less the
  // padding columns: its rate is that tile's. (A 96-wide tile over N of 81 to 96 is one too.)
  const int area = c.tile_m * (is_fitted(p, c) ? 128 : c.tile_n);
  double e;
  if (c.schedule == GemmSchedule::kCooperative) {
    e = area >= 128 * 256 ? 0.93 : area >= 128 * 128 ? 0.85 : 0.72;
  } else {
    e = area >= 128 * 128 ? 0.89 : area >= 64 * 256 ? 0.86 : area >= 128 * 64 ? 0.78 : 0.65;
  }
  const int k_bytes = c.tile_k * core::dtype_bytes(c.cls.a);
  if (k_bytes > 128) e *= 0.95;
  if (k_bytes < 128) e *= 0.93;
  return e;
}

bool aligned_16(int64_t x, core::DType t) { return x % (16 / core::dtype_bytes(t)) == 0; }
// Whether rows `ld` elements apart all start on 128-byte lines (predict_gemm_sm90_us).
bool rows_on_lines(int64_t ld, core::DType t) { return ld * core::dtype_bytes(t) % 128 == 0; }

// The epilogue reads the bias in 16-byte vectors: its length must be a multiple of 16 bytes.
bool bias_fits(const ops::GemmProblem& p) { return !p.bias || aligned_16(p.m, p.bias_type); }

// Which operands gemm.sm90_unaligned copies (by leading dimensions and batch strides; pointers
// are seen only at launch), and the problem its inner kernel then runs.
// The element copies before the GEMM run as one launch, D's copy out as another
// (kernels/pad_copies.cuh); a tf32 operand that is not K-major is transposed into a K-major
// buffer, a launch of its own (kernels/transpose_copy.cuh).
struct PaddedCopies {
  ops::GemmProblem padded;
  double bytes = 0.0;  // read once and written once by the copies
  int copies = 0;
  int launches = 0;
  int transposes = 0;
};

// `direct_d`: the object's second kernel writes D in place (space::gemm_sm90_direct_d): D is not
// copied.
PaddedCopies padded_copies(const ops::GemmProblem& p, bool direct_d = false) {
  PaddedCopies out;
  out.padded = p;
  // An operand stored `rows` x `cols`: copied where TMA cannot read it in place, or (given
  // `new_trans`, always) copied as its transpose, K-major, the inner problem's transpose then
  // `k_major` (as GemmPaddedRunner::plan_copy does).
  auto copy = [&](int64_t ld, int64_t stride, core::DType t, int64_t rows, int64_t cols,
                  int64_t* new_ld, int64_t* new_stride, ops::Transpose* new_trans = nullptr,
                  ops::Transpose k_major = ops::Transpose::kN) {
    const bool transposed = new_trans != nullptr;
    if (!transposed && aligned_16(ld, t) && (p.batch == 1 || aligned_16(stride, t))) return;
    const int64_t along = transposed ? cols : rows, across = transposed ? rows : cols;
    const int bytes = core::dtype_bytes(t);
    *new_ld = boo_kernels::padded_copy_ld(along, 16 / bytes, bytes);
    *new_stride = stride == 0 ? 0 : *new_ld * across;
    if (transposed) {
      *new_trans = k_major;
      ++out.transposes;
    }
    out.bytes +=
        static_cast<double>(rows) * cols * (stride == 0 ? 1 : p.batch) * core::dtype_bytes(t);
    ++out.copies;
  };
  ops::GemmProblem& q = out.padded;
  const bool turn = space::gemm_sm90_transposes(space::gemm_class_of(p));
  const bool turn_a = turn && p.trans_a == ops::Transpose::kN;
  const bool turn_b = turn && p.trans_b == ops::Transpose::kT;
  copy(p.lda, p.stride_a, p.a_type, p.a_rows(), p.a_cols(), &q.lda, &q.stride_a,
       turn_a ? &q.trans_a : nullptr, ops::Transpose::kT);
  copy(p.ldb, p.stride_b, p.b_type, p.b_rows(), p.b_cols(), &q.ldb, &q.stride_b,
       turn_b ? &q.trans_b : nullptr, ops::Transpose::kN);
  if (p.reads_c()) copy(p.ldc, p.stride_c, p.c_type, p.m, p.n, &q.ldc, &q.stride_c);
  if (!bias_fits(p)) {
    out.bytes += static_cast<double>(p.m) * core::dtype_bytes(p.bias_type);
    ++out.copies;
  }
  const int inputs = out.copies;
  if (!direct_d) copy(p.ldd, p.stride_d, p.d_type, p.m, p.n, &q.ldd, &q.stride_d);
  out.launches = out.transposes + (inputs > out.transposes ? 1 : 0) + (out.copies > inputs ? 1 : 0);
  return out;
}

// The problem a swapped-operand kernel runs: D^T = op(B)^T op(A)^T, N x M (GemmSm90Config::
// swap_ab). The same bytes and FLOPs; the model sees its tile grid and operands.
ops::GemmProblem swapped_problem(const ops::GemmProblem& p) {
  auto flip = [](ops::Transpose t) {
    return t == ops::Transpose::kN ? ops::Transpose::kT : ops::Transpose::kN;
  };
  ops::GemmProblem q = p;
  q.m = p.n;
  q.n = p.m;
  q.trans_a = flip(p.trans_b);
  q.trans_b = flip(p.trans_a);
  q.lda = p.ldb;
  q.ldb = p.lda;
  q.stride_a = p.stride_b;
  q.stride_b = p.stride_a;
  q.a_type = p.b_type;
  q.b_type = p.a_type;
  return q;
}

// Swapped operands are ranked for narrow-M problems only (M <= 32 < N): there they stream the
// large operand in tiles 64 or 128 rows tall, as the narrow-N form does.
// (Not over B's overlapping windows: swapped, they would be A's.)
bool swap_pays(const ops::GemmProblem& p) { return p.m <= 32 && p.n > 32 && !p.b_windows; }

}  // namespace

// Parallel split-K's slice count for a problem: the most slices that keep every (tile, slice)
// in one wave of CTAs, cut K exactly into 16-byte multiples, and leave each slice at least four
// k-blocks (a pipeline that fills); 0 (not ranked) for batched problems and for problems whose
// tiles alone fill half the SMs. Decode shapes (M or N at most 32) take it only on a narrow
// tile over a narrow N of 5 to 32 (H100, 2026-11-24: 256 x 8 x 65536 on 64x16 tiles in 32
// slices 19.4 us, gemm.skinny 31.3; bench/results/2026-11-24-gemm-psplitk-h100.md); a wide tile
// over a narrow side, and N <= 4 (gemm.skinny's GEMV loop), are not measured.
int parallel_splits_for(const ops::GemmProblem& p, const GemmSm90Config& c, const DeviceModel& d) {
  if (p.batch != 1) return 0;
  const bool narrow_tile = c.tile_n <= 32;
  if (std::min(p.m, p.n) <= 32 ? !(narrow_tile && p.n <= 32 && p.n > 4) : narrow_tile) return 0;
  const int64_t tiles = round_up(ceil_div(p.m, c.tile_m), c.cluster_m) *
                        round_up(ceil_div(p.n, c.tile_n), c.cluster_n);
  if (2 * tiles > d.sm_count) return 0;
  const int64_t k_align = 16 / std::min(core::dtype_bytes(p.a_type), core::dtype_bytes(p.b_type));
  return space::parallel_splits(p.k, k_align, 4 * c.tile_k, d.sm_count / tiles);
}

namespace {

core::Status check_sm90_sizes(const ops::GemmProblem& p) {
  constexpr int64_t kMax = 0x7fffffff;
  if (p.m > kMax || p.n > kMax || p.k > kMax || p.batch > kMax) {
    return core::unsupported("gemm.sm90: M, N, K and batch must be below 2^31");
  }
  return core::Status::ok();
}

// The default rule set's 96-wide tiles are there for wave quantization: the same problem in tiles
// 128 wide leaves a last wave partly idle. H200, 2026-11-29 (bench/results/
// 2026-11-29-forced-lines-h200.md): 96 wide measured 1.09x faster on 3136x2048x512 (a 7x7 1x1
// convolution: 528 tiles, 4 waves, against 400) and 1.10x on a tf32 2048x1536x1024; where the
// 128-wide tiles already fit in one wave, 0.93x on 960x1088x1000 (bias, GELU) and 1.06x on a
// batch of 8 512x384x64, so they are left out there.
bool wave_tail_of_128(const ops::GemmProblem& p, const GemmSm90Config& c, const DeviceModel& d) {
  return ceil_div(p.m, c.tile_m) * ceil_div(p.n, 128) * p.batch > d.sm_count;
}

// Valid configs of the rule set, best first by the model; the unaligned variant adds the
// copies' traffic (each byte read and written, at ~70% of the copy rate) and their launches.
std::vector<Candidate> rank_sm90(const ops::GemmProblem& p, const DeviceModel& d,
                                 space::RuleSet rules, bool unaligned) {
  std::vector<Candidate> out;
  const PaddedCopies copied_d = padded_copies(p), direct_d = padded_copies(p, true);
  const auto copy_us = [&](const PaddedCopies& copies) {
    return 2.0 * copies.bytes / (0.7 * d.bandwidth_gbs * 1e3) + copies.launches * d.launch_us;
  };
  std::vector<GemmSm90Config> configs = space::gemm_sm90_space(space::gemm_class_of(p), rules);
  // Tiles fitted to N (fitted_tile_n): the default rule set's 128-wide tiles take the width; the
  // full rule set, which tuning searches, has both.
  // A fitted width the rule set lists already (96) is ranked once.
  const int fitted = unaligned || rules == space::RuleSet::kTiny ? 0 : fitted_tile_n(p);
  if (fitted > 0) {
    const size_t listed = configs.size();
    const bool width_listed =
        std::any_of(configs.begin(), configs.end(),
                    [&](const GemmSm90Config& c) { return c.tile_n == fitted; });
    for (size_t i = 0; i < listed; ++i) {
      if (configs[i].tile_n != 128 || configs[i].swap_ab) continue;
      if (rules == space::RuleSet::kDefault) {
        configs[i].tile_n = fitted;
      } else {
        configs.push_back(configs[i]);
        configs.back().tile_n = fitted;
      }
    }
    if (width_listed) {
      std::set<std::string> seen;
      configs.erase(
          std::remove_if(configs.begin(), configs.end(),
                         [&](const GemmSm90Config& c) { return !seen.insert(c.name()).second; }),
          configs.end());
    }
  }
  for (GemmSm90Config c : configs) {
    // Split-K only where the K loop is long enough to split.
    if (c.scheduler == GemmScheduler::kSplitK && p.k < c.splits * 2 * c.tile_k) continue;
    if (c.swap_ab && (unaligned || !swap_pays(p))) continue;
    if (rules == space::RuleSet::kDefault && c.tile_n == 96 && fitted != 96 &&
        !wave_tail_of_128(p, c, d)) {
      continue;
    }
    if (c.scheduler == GemmScheduler::kSplitKParallel) {
      if (unaligned) continue;
      c.splits = parallel_splits_for(p, c, d);
      if (c.splits < 2) continue;
    }
    c.unaligned = unaligned;
    // The object's in-place kernel runs only where D would otherwise be copied.
    const bool in_place = space::gemm_sm90_direct_d(c) && copied_d.copies > direct_d.copies;
    const PaddedCopies& copies = in_place ? direct_d : copied_d;
    Candidate cand;
    cand.algorithm = unaligned ? "gemm.sm90_unaligned" : "gemm.sm90";
    cand.config = c.name();
    cand.predicted_us = predict_gemm_sm90_us(unaligned ? copies.padded : p, c, d, &cand.why) +
                        (unaligned ? copy_us(copies) : 0.0);
    // Split-K's slices each accumulate their own part of K; stream-K's units may take all of it.
    const bool sliced =
        c.scheduler == GemmScheduler::kSplitK || c.scheduler == GemmScheduler::kSplitKParallel;
    note_long_accumulation(p, sliced ? ceil_div(p.k, c.splits) : p.k, cand);
    if (is_fitted(p, c)) {
      char buf[96];
      std::snprintf(buf, sizeof(buf),
                    "; tile %d wide for N = %lld (128 wide: %lld padding columns)", c.tile_n,
                    static_cast<long long>(p.n), static_cast<long long>(128 - p.n));
      cand.why += buf;
    }
    if (unaligned) {
      char turned[48] = "";
      if (copies.transposes > 0) {
        std::snprintf(turned, sizeof(turned), " (%d transposed K-major)", copies.transposes);
      }
      char buf[160];
      std::snprintf(buf, sizeof(buf), "; %d padded copies%s, %.1f MB, %.1f us%s", copies.copies,
                    turned, copies.bytes / 1e6, copy_us(copies),
                    in_place ? "; D written in place" : "");
      cand.why += buf;
    }
    out.push_back(std::move(cand));
  }
  sort_candidates(&out);
  return out;
}

class GemmSm90Algorithm final : public GemmAlgorithm {
 public:
  std::string_view name() const override { return "gemm.sm90"; }

  core::Status supports(const ops::GemmProblem& p) const override {
    BOO_RETURN_IF_ERROR(space::check_gemm_sm90_class(space::gemm_class_of(p)));
    BOO_RETURN_IF_ERROR(gemm_sm90_alignment(p));
    if (!bias_fits(p)) {
      return core::unsupported(
          "gemm.sm90: the bias length (M) must be a multiple of 16 bytes; gemm.sm90_unaligned "
          "copies it");
    }
    return check_sm90_sizes(p);
  }

  std::vector<Candidate> rank(const ops::GemmProblem& p, const DeviceModel& d,
                              space::RuleSet rules) const override {
    return rank_sm90(p, d, rules, /*unaligned=*/false);
  }

  core::Status supports_misaligned(const ops::GemmProblem&) const override {
    return core::unsupported(
        "gemm.sm90: operand pointers must be 16-byte aligned (TMA); gemm.sm90_unaligned "
        "copies them");
  }

  core::Expected<codegen::KernelSource> source(std::string_view config) const override {
    BOO_ASSIGN_OR_RETURN(GemmSm90Config c, GemmSm90Config::parse_name(config));
    if (c.unaligned) return core::invalid_argument("a gemm.sm90_unaligned config: " + c.name());
    return codegen::gemm_sm90_source(c);
  }

  LaunchOrder launch_order(std::string_view config) const override {
    auto c = GemmSm90Config::parse_name(config);
    if (!c.has_value()) return {};
    return {c->splits, c->swizzle, static_cast<int>(c->raster)};
  }
};

// gemm.sm90_unaligned: a gemm.sm90 kernel behind padded copies (kernels/gemm_padded.cuh).
class GemmSm90UnalignedAlgorithm final : public GemmAlgorithm {
 public:
  std::string_view name() const override { return "gemm.sm90_unaligned"; }

  core::Status supports(const ops::GemmProblem& p) const override {
    BOO_RETURN_IF_ERROR(supports_misaligned(p));
    if (padded_copies(p).copies == 0) {
      return core::unsupported(
          "gemm.sm90_unaligned: leading dimensions and batch strides are 16-byte aligned "
          "(gemm.sm90 runs the problem in place)");
    }
    return core::Status::ok();
  }

  core::Status supports_misaligned(const ops::GemmProblem& p) const override {
    BOO_RETURN_IF_ERROR(
        space::check_gemm_sm90_class(space::gemm_class_of(p), /*transposed_copies=*/true));
    return check_sm90_sizes(p);
  }

  std::vector<Candidate> rank(const ops::GemmProblem& p, const DeviceModel& d,
                              space::RuleSet rules) const override {
    return rank_sm90(p, d, rules, /*unaligned=*/true);
  }

  core::Expected<codegen::KernelSource> source(std::string_view config) const override {
    BOO_ASSIGN_OR_RETURN(GemmSm90Config c, GemmSm90Config::parse_name(config));
    if (!c.unaligned)
      return core::invalid_argument("not a gemm.sm90_unaligned config: " + c.name());
    return codegen::gemm_sm90_source(c);
  }

  LaunchOrder launch_order(std::string_view config) const override {
    auto c = GemmSm90Config::parse_name(config);
    if (!c.has_value()) return {};
    return {c->splits, c->swizzle, static_cast<int>(c->raster)};
  }
};

}  // namespace

namespace {

// predict_gemm_sm90_us; `sliced_k` > 0: p is parallel split-K's slices of a GEMM of that K as a
// batch (the batches are one GEMM's parts of K).
double predict_sm90_us(const ops::GemmProblem& p, const GemmSm90Config& c, const DeviceModel& d,
                       std::string* why, int64_t sliced_k) {
  if (c.scheduler == GemmScheduler::kSplitKParallel) {
    // The slices as the batch of a persistent GEMM with an fp32 output, then the reduction: it
    // reads every slice's partials from L2 (written just before; ~4x HBM bandwidth), writes D
    // (and reads C) once, and is one more launch.
    const int64_t splits = std::max(c.splits, 2);
    ops::GemmProblem inner = p;
    inner.k = p.k / splits;
    inner.batch = splits;
    // Each slice reads its own part of A and B (a zero stride would mean one shared operand).
    inner.stride_a = inner.k;
    inner.stride_b = inner.k;
    inner.d_type = core::DType::kF32;
    inner.beta = 0.0;
    inner.bias = false;
    inner.activation = ops::Activation::kNone;
    GemmSm90Config ic = c;
    ic.scheduler = GemmScheduler::kPersistent;
    ic.splits = 1;
    const double inner_us = predict_sm90_us(inner, ic, d, why, /*sliced_k=*/p.k);
    const double partials = static_cast<double>(splits) * p.m * p.n * 4.0;
    const double outputs =
        static_cast<double>(p.m) * p.n * core::dtype_bytes(p.d_type) * (p.reads_c() ? 2 : 1);
    const double reduce_us =
        (partials / (4.0 * d.bandwidth_gbs * 1e9) + outputs / (d.bandwidth_gbs * 1e9)) * 1e6 +
        d.launch_us;
    if (why != nullptr) {
      char buf[96];
      std::snprintf(buf, sizeof(buf), "; %lld slices of K %lld, reduction %.1f us",
                    static_cast<long long>(splits), static_cast<long long>(inner.k), reduce_us);
      *why += buf;
    }
    return inner_us + reduce_us;
  }
  if (c.swap_ab) {
    GemmSm90Config inner = c;
    inner.swap_ab = false;
    return predict_sm90_us(swapped_problem(p), inner, d, why, sliced_k);
  }
  const double peak = p.a_type == core::DType::kF32 ? d.tflops_tf32
                      : core::is_fp8(p.a_type)      ? d.tflops_fp8
                                                    : d.tflops_16bit;
  // A cluster launches whole: tiles are padded to the cluster shape and the padding occupies
  // SMs (N = 1 with a 1x2 cluster runs half idle).
  const int64_t tiles_m = round_up(ceil_div(p.m, c.tile_m), c.cluster_m);
  const int64_t tiles_n = round_up(ceil_div(p.n, c.tile_n), c.cluster_n);
  // Strips of tiles (swizzle) pad both sides again, to a multiple of the strip times the
  // cluster, and the padding tiles run (their loads are out of bounds, their stores masked).
  // The strip is 8, 4 or 2 tiles as the grid's shorter side allows (CUTLASS's
  // tile_scheduler_params.h, get_log_swizzle_size). H200, 2026-11-30 (bench/results/
  // 2026-11-30-dispatch-model-h200.md): 4096x14336x8192 on 128x256 tiles in 1x2 clusters, 56
  // tiles across padded to 64 in strips of 8, took 1470-1481 us, 1208 in strips of 1.
  const int64_t strip = strip_tiles(std::min(tiles_m, tiles_n), c.swizzle);
  const int64_t tiles =
      round_up(tiles_m, strip * c.cluster_m) * round_up(tiles_n, strip * c.cluster_n) * p.batch;
  double eff = tile_efficiency(p, c);
  // Clusters must be co-scheduled on one GPC: in a single partial wave that leaves SMs idle;
  // over several waves, TMA multicast of the shared operand saves L2 traffic.
  // Batches of fewer than 32 tiles each gain nothing from multicast and pay the pair's lockstep
  // (H100, 2026-11-26, bench/results/2026-11-26-gemm-order-h100.md: 512x512x128 batch 96, 16
  // tiles a batch, 26.8 us on 128x128 tiles alone, 29.1 in pairs, 27.2 against 29.0 on 64x256;
  // 256x256x64 batch 256 18.2 against 18.7; 1024x1024x64 batch 32, 64 tiles a batch, 29.4
  // against 28.9 on 128x128 and 30.3 against 29.0 on 64x256).
  // Over B's overlapping windows (conv.gemm_1d) pairs lost too: the public 1D convolution's
  // interior (512 x 4094 x 1536, batch 32) took 287.5 us on t128x128x64 pingpong alone, 372.3 in
  // pairs along N; 308.5 on t128x256x64 cooperative alone, 321-323 in pairs (H100, 2026-11-26,
  // bench/results/2026-11-26-conv-gemm-1d-h100.md).
  const bool multicast_idle =
      (p.batch > 1 && ceil_div(p.m, c.tile_m) * ceil_div(p.n, c.tile_n) < 32) || p.b_windows;
  if (c.cluster_m * c.cluster_n > 1) {
    eff *= multicast_idle ? 0.95 : tiles < d.sm_count ? 0.96 : 1.01;
  }
  // Along the longer side of the tile grid, a pair shares its operand with more tiles.
  if ((c.cluster_n > 1 && tiles_n > tiles_m) || (c.cluster_m > 1 && tiles_m > tiles_n)) {
    eff *= 1.005;
  }
  // Tile order. Where A and B together overflow the L2 over several waves, strips of tiles
  // (swizzle) keep what the tiles of a wave share in the L2; where they fit, strips gain nothing
  // and pad a grid side that is not a multiple of the strip. H100, 2026-11-26 (bench/results/
  // 2026-11-26-gemm-order-h100.md): 14336x8192x4096 1268.7 us in strips of 1, 1225.9 in strips
  // of 8 (4096x8192x4096 and 4096x8192x14336: 0.5% faster); 3072x4096x768 34.2 -> 35.4 us and
  // 512x512x128 batch 96 (a 4x4 grid) 29.0 -> 38.5 us in strips of 8.
  // Without strips, the launch order runs along the grid's longer side (CUTLASS's raster
  // heuristic), so a wave reads a few of that side's operand tiles and all of the other operand
  // (B where the grid has more rows of tiles): strips pay only where that operand overflows half
  // the L2. H200, 2026-11-30 (bench/results/2026-11-30-dispatch-model-h200.md): 11008x2048x4096
  // (B 16.8 MB) took 290.8 us in strips of 8 and 256.5 in strips of 1.
  const double operand_bytes =
      (static_cast<double>(p.m) + p.n) * p.k * p.batch * core::dtype_bytes(p.a_type);
  const double resident_bytes =
      static_cast<double>(tiles_m > tiles_n ? p.n : p.m) * p.k * core::dtype_bytes(p.a_type);
  const bool strips_pay = operand_bytes > static_cast<double>(d.l2_bytes) &&
                          resident_bytes > 0.5 * static_cast<double>(d.l2_bytes) &&
                          tiles_m * tiles_n * p.batch >= 4 * d.sm_count &&
                          std::min(tiles_m, tiles_n) >= 8;
  if ((c.swizzle > 1) != strips_pay) eff *= 0.97;
  const double per_sm_flops = peak * 1e12 / d.sm_count * eff;
  const int64_t k_blocks = ceil_div(p.k, c.tile_k);
  const double block_us = 2.0 * c.tile_m * c.tile_n * c.tile_k / per_sm_flops * 1e6;
  // Tile epilogue: write (and read C) one tile at an SM's share of HBM bandwidth. Pingpong
  // overlaps it with the other warpgroup's mainloop; cooperative kernels only with the
  // producer's prefetch of the next tile.
  const double tile_bytes = static_cast<double>(c.tile_m) * c.tile_n * core::dtype_bytes(p.d_type) *
                            (p.reads_c() ? 2 : 1);
  const double sm_bw = d.bandwidth_gbs * 1e9 / d.sm_count;
  const double epilogue_us =
      tile_bytes / sm_bw * 1e6 * (c.schedule == GemmSchedule::kPingpong ? 0.25 : 0.6);
  // Partial tiles of stream-K and split-K cross an fp32 workspace (written, then read back),
  // and the workspace is reset before each launch; the sweeps put the fixed cost near 8 us.
  const double partial_us = 2.0 * c.tile_m * c.tile_n * 4.0 / sm_bw * 1e6;
  double compute_us = 0.0;
  // Stream-K's and split-K's workspace: reset before each launch, and each tile's peers add
  // their partials up one after another at the end. Neither overlaps the operands' streaming.
  double serial_us = 0.0;
  int64_t work_units = tiles;
  switch (c.scheduler) {
    case GemmScheduler::kPersistent: {
      const int64_t waves = ceil_div(tiles, d.sm_count);
      compute_us = static_cast<double>(waves) * (k_blocks * block_us + epilogue_us);
      break;
    }
    case GemmScheduler::kStreamK: {
      // CUTLASS's decomposition (tile_scheduler_params.h, get_num_sk_tiles): where the last
      // wave is partial and a tile has more than 8 k-blocks, all but the last full wave run
      // data-parallel and the rest (one full wave and the tail) in even k-block shares per SM;
      // otherwise every tile runs data-parallel. Measured on an H200 (2026-11-30, bench/results/
      // 2026-11-30-fp8-overlap-h200.md, section 5), stream-K against persistent on the same
      // tiles: 14336x8192x4096 (27.15 waves) 1194.0 against 1204.6 us, 28672x4096x8192 (27.15)
      // 2365.5 against 2401.5, 11008x2048x4096 (5.21) 241.7 against persistent 128x128
      // pingpong's 253.9; with a tail over half a wave no gain: 4096x14336x8192 NT (13.58)
      // 1174.9 against 1179.3, 8192x4096x28672 (7.76) 2365.2 against 2348.4. There the model
      // keeps every tile in shares, which ranks stream-K behind persistent tiles.
      const int64_t full_waves = tiles / d.sm_count, tail = tiles % d.sm_count;
      const int64_t dp_waves = tail == 0 || k_blocks <= 8 ? ceil_div(tiles, d.sm_count)
                               : full_waves > 1 && 2 * tail <= d.sm_count ? full_waves - 1
                                                                          : 0;
      const int64_t sk_tiles = tiles - std::min(tiles, dp_waves * d.sm_count);
      compute_us = static_cast<double>(dp_waves) * (k_blocks * block_us + epilogue_us);
      double peers_us = 0.0;
      if (sk_tiles > 0) {
        // Even k-block shares per SM, about 6% slower per block than data-parallel tiles, and
        // every tile an SM finishes has its epilogue (H200, 2026-11-30: 2048x2048x128 batch
        // 32, 8192 tiles of 2 k-blocks, took 149.6 us in stream-K units, 100.5 on persistent
        // pingpong tiles; bench/results/2026-11-30-dispatch-model-h200.md).
        const double per_sm = std::ceil(static_cast<double>(sk_tiles) * k_blocks / d.sm_count);
        const double tiles_per_sm = std::ceil(static_cast<double>(sk_tiles) / d.sm_count);
        compute_us += (per_sm * block_us + tiles_per_sm * epilogue_us) * 1.06 + partial_us;
        // With fewer tiles than SMs, each tile's peers hand their partials on one after
        // another: about 1.3 us per peer (256x8, K=65536: 2 tiles on 132 SMs took 106 us on an
        // H100, bench/results/2026-11-22-gemm-skinny-h100.md, "Before the heuristic's
        // recalibration").
        if (sk_tiles < d.sm_count) {
          peers_us = (static_cast<double>(d.sm_count) / sk_tiles - 1.0) * 1.3;
        }
      }
      serial_us = peers_us + 8.0;
      break;
    }
    case GemmScheduler::kSplitK: {
      // Every tile has splits - 1 partials to reduce, wave after wave, and its slices add them
      // up one after another, ~1.3 us each, as stream-K's peers do (4096x16x4096 split 4
      // measured 25.5 us on an H100, predicted 18.5 without that chain; H200, 2026-11-30:
      // 512x512x65536 in 8 slices 69.1 us, in 8 parallel slices 50.5;
      // bench/results/2026-11-30-dispatch-model-h200.md).
      work_units = tiles * c.splits;
      const int64_t waves = ceil_div(work_units, d.sm_count);
      compute_us = static_cast<double>(waves) *
                       (static_cast<double>(ceil_div(k_blocks, c.splits)) * block_us +
                        (c.splits - 1.0) / c.splits * partial_us) +
                   epilogue_us;
      serial_us = (c.splits - 1.0) * 1.3 + 8.0;
      break;
    }
    case GemmScheduler::kSplitKParallel:  // handled above, through the inner problem
      break;
  }
  // HBM: every operand once, at the bandwidth the CTAs that have work can draw, and at most
  // ~75% of the copy rate. With fewer CTAs than SMs each streams at what its pipeline keeps in
  // flight: a stage of 16 KB or more up to twice an SM's fair share, a smaller one 0.85 of it
  // (H100, ncu and event timing with a read flush, 2026-11-22: 14336x1x4096 on 112 CTAs of
  // 128x64, 16.5 KB a stage, at 46.5 us; 4096x16x4096 on 64 CTAs of 64x128, 10 KB, at 32.5 us;
  // bench/results/2026-11-22-gemm-unaligned-fp8-h100.md). Cluster padding does not stream. L2: A is
  // re-read by each column of tiles and B by each row of tiles (L2 at ~4x HBM bandwidth).
  // Tiles across M and across N, without the cluster's or the strips' padding.
  const int64_t across_m = ceil_div(p.m, c.tile_m), across_n = ceil_div(p.n, c.tile_n);
  const int64_t real_tiles = across_m * across_n * p.batch;
  const double active = static_cast<double>(std::min<int64_t>(
      c.scheduler == GemmScheduler::kPersistent ? real_tiles : d.sm_count, d.sm_count));
  // A persistent tile 16 or 32 wide (decode GEMMs) has small stages and so many of them: its
  // CTAs stream about four fair shares (H100, 2026-11-23: 4096x16x4096 on 32 CTAs of 128x16 at
  // 17.4 us, on 64 CTAs of 64x16 at 17.4 us; bench/results/2026-11-23-gemm-narrow-tiles-h100.md).
  // (Split-K over such tiles measured slower than predicted: 256x8x65536 at 47.4 us.)
  const bool narrow = c.tile_n <= 32 && c.scheduler == GemmScheduler::kPersistent;
  // Over a narrow-M problem the narrow tile instead streams the large operand (B) in slabs
  // tile_n rows tall, about 0.4 of a fair share per 16 rows (H100, 2026-11-26: 16 x 4096 x
  // 4096 on 256 CTAs of 64x16 at 34.5 us, on 128 CTAs of 64x32 at 21.0;
  // bench/results/2026-11-26-gemm-swap-h100.md). Swapped operands (swap_ab) avoid that.
  // What a stage brings in is what the tile covers of each operand: a 64-row tile streaming
  // the wide side of a 64 x 200704 x 256 GEMM (a 1x1 convolution with K = 64) on 132 CTAs drew
  // 2.9 TB/s (H100, 2026-11-26: t64x128x64 at 44.1 us, 0.85 of a share would predict 60).
  const double stage_bytes =
      (static_cast<double>(std::min<int64_t>(c.tile_m, p.m)) + std::min<int64_t>(c.tile_n, p.n)) *
      c.tile_k * core::dtype_bytes(p.a_type);
  const double per_cta_share = narrow && swap_pays(p)   ? 0.4 * c.tile_n / 16.0
                               : narrow                 ? 4.0
                               : stage_bytes >= 16384.0 ? 2.0
                                                        : 0.85;
  const double hbm =
      0.75 * std::min(1.0, per_cta_share * active / d.sm_count) * d.bandwidth_gbs * 1e9;
  // Rows that do not start on a 128-byte line (a leading dimension of 4104 bf16 elements) make
  // each TMA box row dear in the L2 (kOffLineRowCost aligned ones), and there a cluster's
  // multicast pays: A is read once per cluster_n columns of tiles, B once per cluster_m rows.
  // H200, 2026-12-02 (bench/results/2026-12-02-n100-h200.md): 8192 x 100 x 4104 +bias +gelu on
  // t64x112 pingpong 39.6 us against 23.5 with K = 4096, 28.4 with B multicast in 2x1 clusters,
  // 29.8 with A multicast on 128x64 tiles in 1x2 clusters (that line alone fits about 4; 2.5 is
  // what the picks it moves over the repository's lists measured best at). Aligned rows are counted
  // as before, without multicast: clusters measured no faster on aligned GEMMs that re-read an
  // operand from the L2 (1024 x 2048 x 4096 fp16 NN: 27.5 us alone, 30.6 in 1x2 clusters;
  // bench/results/2026-11-30-vendor-kernels-h200.md). gemm.sm90_unaligned's padded copies are not
  // modelled so (not measured).
  const double bytes_ab = static_cast<double>(core::dtype_bytes(p.a_type));
  // Batched GEMMs are left as before: their batches of few tiles gain nothing from clusters, as
  // above (256 x 256 x 36960 in 15 parallel slices took 19.2 us alone, 20.3 in 1x2 clusters),
  // and the batched 1D convolutions' picks were not measured with the term on every tile.
  const auto off_line = [&](int64_t ld) {
    return !c.unaligned && p.batch == 1 && !rows_on_lines(ld, p.a_type);
  };
  const bool a_off = off_line(p.lda), b_off = off_line(p.ldb);
  const auto reads = [&](bool off, int64_t tiles_across, int cluster) {
    return off ? kOffLineRowCost * static_cast<double>(ceil_div(tiles_across, cluster))
               : static_cast<double>(tiles_across);
  };
  const double l2_bytes = bytes_ab *
                          (static_cast<double>(p.m) * p.k * reads(a_off, across_n, c.cluster_n) +
                           static_cast<double>(p.n) * p.k * reads(b_off, across_m, c.cluster_m)) *
                          p.batch;
  // What an MN-major operand's off-line rows cost beyond aligned ones is not hidden under the
  // DRAM stream over a long K loop (K of 4096 or more): there it adds. H200
  // (bench/results/2026-12-04-nmajor-h200.md): with B N-major (rows of 144-192 bytes) on t128x128
  // pingpong tiles, 2x1 clusters multicasting B took 14336 x 72 x 14336 124.6 -> 110.2 us, 16384 x
  // 88 x 4096 48.6 -> 41.1, 10240 x 96 x 8192 54.9 -> 53.1, where the model gave both clusters the
  // same DRAM-bound time. With K = 2048 (fp16 8192 x 80: 15.8 -> 16.5 us) and for K-major operands
  // (the seven list picks the term moved there: a 1x1 convolution 5% slower, 8192 x 100 x 4104
  // +bias +gelu 16% slower on parallel split-K, decode shapes 3-7% faster) it is left out.
  const auto off_line_extra = [&](bool off, bool mn_major, double operand, int64_t tiles_across,
                                  int cluster) {
    return off && mn_major && p.k >= 4096
               ? operand * (reads(off, tiles_across, cluster) - static_cast<double>(tiles_across))
               : 0.0;
  };
  const double off_line_bytes =
      bytes_ab * p.batch *
      (off_line_extra(a_off, p.trans_a == ops::Transpose::kN, static_cast<double>(p.m) * p.k,
                      across_n, c.cluster_n) +
       off_line_extra(b_off, p.trans_b == ops::Transpose::kT, static_cast<double>(p.n) * p.k,
                      across_m, c.cluster_m));
  const double off_line_us = std::max(0.0, off_line_bytes) / (4.0 * d.bandwidth_gbs * 1e9) * 1e6;
  // Sweeps of the large operand: over a narrow side (N, or M, of at most 256: one tile could span
  // it) tiles that split that side, in a grid of more than one wave, stream the large operand
  // once per tile across it. The raster runs along the long side, so a wave holds few tiles of
  // the same rows (or columns) and the operand, larger than the L2, comes from DRAM again. H200,
  // 2026-12-03 (bench/results/2026-12-03-stages-h200.md): 12288 x 96 x 12288 took 138-143 us
  // on t128x32 tiles (three sweeps of A), 81.5 on t128x96 and 92.2 on t128x128; 20480 x 80 x
  // 8192 157-162 against 92-104 on tiles 80 wide; 12288 x 64 x 12288 151-155 on t128x16
  // against 81.2 on t128x64 (cuBLASLt 77.5, 85.9, 72.7). One wave (8192 x 128 x 16384 on 128
  // t128x64 tiles: 71.5 us, cuBLASLt 72.0) shares the operand in the L2.
  const auto sweeps = [&](int64_t narrow, int64_t tiles_across, int64_t wide) {
    const double operand = static_cast<double>(wide) * p.k * bytes_ab;
    const bool swept = p.batch == 1 && narrow <= 256 && tiles_across > 1 && tiles > d.sm_count &&
                       operand > static_cast<double>(d.l2_bytes);
    return swept ? (static_cast<double>(tiles_across) - 1.0) * operand : 0.0;
  };
  const double swept_a = sweeps(p.n, across_n, p.m), swept_b = sweeps(p.m, across_m, p.n);
  // Over few rows (M of 33 to 127, a wide N, a long K) every tile across N reads all of A's rows
  // and a wave's tiles read the same ones at the same k-block: each L2 read of A beyond its
  // first (one per cluster that multicasts it), and of B beyond its first where tiles split M,
  // costs about two thirds of a byte streamed from DRAM (kSharedReadCost). H200, 2026-12-04
  // (bench/results/2026-12-04-mnarrow-h200.md): 72 x 4096 x 12288 fp16 with A M-major took
  // 50.7 us on 64 columns of t128x64 tiles in 2 parallel slices, 38.5 on 32 columns of t128x128
  // in 4 slices, 34.4 with those in 1x2 clusters (cuBLASLt 34.0); its K-major twin 74.8 on 128
  // columns of t128x32 (rows on 128-byte lines cost the same a byte); 104 x 8192 x 8192 52.4 on
  // t128x128 tiles in 2 slices, 45.1 in 1x2 clusters, 50.2 on t64x128 tiles in 1x2 clusters (B
  // read by two rows of tiles). With the term the six lines studied ran 1.10-2.14x faster, ten
  // random ones held out 0.97-2.64x (geometric mean 1.34x). Left out: M of 128 and more (held
  // out: 128 x 9984 x 10752 +bias +gelu 16% slower on the wide tiles it chose; over M of
  // 136-248 0.84-1.26x), N under 16 M (the 1x1 backward weight's 128 x 384 GEMM measured slower
  // in clusters), K under 4096 (not measured), the mirror with B shared (4096 x 72 x 12288 with
  // B K-major ran 35.3 us on its t128x32 pick: no such cost), decode shapes and batches of
  // separate GEMMs.
  const int64_t gemm_k = sliced_k > 0 ? sliced_k : p.k;
  const bool shared =
      (p.batch == 1 || sliced_k > 0) && p.m > 32 && p.m < 128 && p.n >= 16 * p.m && gemm_k >= 4096;
  const auto rereads = [&](double operand, int64_t tiles_across, int cluster, double swept) {
    return shared && swept == 0.0
               ? operand * static_cast<double>(ceil_div(tiles_across, cluster) - 1)
               : 0.0;
  };
  const double shared_bytes =
      kSharedReadCost * bytes_ab * p.batch *
      (rereads(static_cast<double>(p.m) * p.k, across_n, c.cluster_n, swept_a) +
       rereads(static_cast<double>(p.n) * p.k, across_m, c.cluster_m, swept_b));
  const double dram_bytes = static_cast<double>(p.min_bytes()) + swept_a + swept_b + shared_bytes;
  // A narrow tile's CTA loads at what its pipeline keeps in flight whether the bytes come from
  // DRAM or the L2: where such tiles split an N wider than 32, each loads A's rows again, at
  // the same four fair shares. H200, 2026-12-03 (bench/results/2026-12-03-fitted-n-h200.md,
  // sections 2 and 3): 1024 x 96 x 8192 on 48 t128x16 tiles took 24.7 us (12.6 predicted without
  // it), 2048 x 65 x 16384 on 80 44.4 (32.8), 1536 x 112 x 12288 on 48 t128x32 29.9 (24.5), where
  // parallel split-K over tiles spanning N took 17.1, 24.8 and 18.0. Only over a K loop of 32
  // k-blocks or more: on short ones (K of 320-1000) the picks it moved ran 1.03-1.26x slower,
  // over K of 4000-16384 1.01-1.38x faster (that bound was set after those seven were timed).
  // Not over decode shapes (N or M of 32 or less, swapped operands included): not measured.
  // The bytes are the L2 term's, rows off 128-byte lines weighted as there: 3000 x 90 x 5000 NN
  // (rows of 10000 bytes) ranks its parallel split-K first only so (18.0 us against 23.5).
  const double loaded_bytes =
      narrow && !swap_pays(p) && p.n > 32 && k_blocks >= 32 ? l2_bytes : 0.0;
  const double memory_us = std::max({dram_bytes / hbm * 1e6 + off_line_us,
                                     l2_bytes / (4.0 * d.bandwidth_gbs * 1e9) * 1e6,
                                     loaded_bytes / (per_cta_share * active * sm_bw) * 1e6});
  // A narrow tile does little work per tile, so its per-tile cost (pipeline fill and drain, the
  // epilogue's stores) shows when each SM runs many of them: H100, 2026-11-23, the 1x1
  // convolution GEMM 64 x 200704 x 256 on 64x16x128 tiles (95 per SM) measured 77.2 us against
  // 56 us predicted without it, where 128x128 tiles took 48.8 us (bench/results/
  // 2026-11-23-conv-h100.md).
  const double narrow_us =
      narrow ? kNarrowTileUs * static_cast<double>(ceil_div(work_units, d.sm_count)) : 0.0;
  // Compute and memory overlap, but not perfectly: the smaller term still shows a little.
  const double total = std::max(compute_us, memory_us) + 0.15 * std::min(compute_us, memory_us) +
                       serial_us + narrow_us + d.launch_us;
  if (why != nullptr) {
    char buf[200];
    std::snprintf(buf, sizeof(buf),
                  "%lld work units on %d SMs, %lld k-blocks; compute %.1f us, memory %.1f us",
                  static_cast<long long>(work_units), d.sm_count, static_cast<long long>(k_blocks),
                  compute_us, memory_us);
    *why = buf;
    if (swept_a > 0.0 || swept_b > 0.0) {
      const bool a = swept_a > 0.0;
      std::snprintf(buf, sizeof(buf), "; %s streamed from DRAM %lld times (tiles split %s)",
                    a ? "A" : "B", static_cast<long long>(a ? across_n : across_m), a ? "N" : "M");
      *why += buf;
    }
    if (shared_bytes > 0.0) {
      std::snprintf(
          buf, sizeof(buf), "; A's %lld rows read %lld times from the L2 (tiles across N)",
          static_cast<long long>(p.m), static_cast<long long>(ceil_div(across_n, c.cluster_n)));
      *why += buf;
    }
    if (a_off || b_off) {
      *why += std::string("; rows of ") +
              (a_off && b_off ? "A and B"
               : a_off        ? "A"
                              : "B") +
              " off 128-byte lines (L2 reads)";
    }
  }
  return total;
}

}  // namespace

double predict_gemm_sm90_us(const ops::GemmProblem& p, const GemmSm90Config& c,
                            const DeviceModel& d, std::string* why) {
  return predict_sm90_us(p, c, d, why, /*sliced_k=*/0);
}

core::Status gemm_sm90_alignment(const ops::GemmProblem& p) {
  const int64_t align_ab = 16 / core::dtype_bytes(p.a_type);
  const int64_t align_d = 16 / core::dtype_bytes(p.d_type);
  if (p.lda % align_ab || p.ldb % align_ab || p.ldd % align_d || (p.reads_c() && p.ldc % align_d)) {
    return core::unsupported(
        "gemm.sm90: leading dimensions must be multiples of 16 bytes "
        "(TMA); gemm.sm90_unaligned handles the rest");
  }
  if (p.batch > 1 && (p.stride_a % align_ab || p.stride_b % align_ab || p.stride_d % align_d ||
                      (p.reads_c() && p.stride_c % align_d))) {
    return core::unsupported("gemm.sm90: batch strides must be multiples of 16 bytes");
  }
  return core::Status::ok();
}

std::unique_ptr<GemmAlgorithm> make_gemm_sm90() { return std::make_unique<GemmSm90Algorithm>(); }
std::unique_ptr<GemmAlgorithm> make_gemm_sm90_unaligned() {
  return std::make_unique<GemmSm90UnalignedAlgorithm>();
}

}  // namespace boo::dispatch
