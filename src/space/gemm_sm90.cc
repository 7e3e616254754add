#include "boo/space/gemm_sm90.h"

#include <algorithm>

#include "boo/core/strings.h"

namespace boo::space {
namespace {

using core::DType;
using core::Status;
using core::unsupported;

std::string_view schedule_token(GemmSchedule s) {
  return s == GemmSchedule::kCooperative ? "coop" : "pingpong";
}

std::string scheduler_token(const GemmSm90Config& c, bool compiled) {
  switch (c.scheduler) {
    case GemmScheduler::kPersistent:
      return "persistent";
    case GemmScheduler::kStreamK:
      return compiled ? "sk" : "streamk";
    case GemmScheduler::kSplitK:
      return compiled ? "sk" : "splitk" + std::to_string(c.splits);
    case GemmScheduler::kSplitKParallel:
      return compiled ? "psk" : "psplitk" + std::to_string(c.splits);
  }
  return "?";
}

bool is_16bit(DType t) { return t == DType::kBF16 || t == DType::kF16; }

core::Expected<std::pair<int, int>> parse_pair(std::string_view t, char prefix,
                                               std::string_view what) {
  if (t.size() < 4 || t[0] != prefix) {
    return core::invalid_argument("expected " + std::string(what) + ", got " + core::quote(t));
  }
  const auto xy = core::split(t.substr(1), 'x');
  if (xy.size() != 2) {
    return core::invalid_argument("expected " + std::string(what) + ", got " + core::quote(t));
  }
  BOO_ASSIGN_OR_RETURN(int64_t a, core::parse_int(what, xy[0]));
  BOO_ASSIGN_OR_RETURN(int64_t b, core::parse_int(what, xy[1]));
  return std::pair<int, int>(static_cast<int>(a), static_cast<int>(b));
}

}  // namespace

static std::string_view raster_token(GemmRaster r) {
  return r == GemmRaster::kAlongM ? "rm" : r == GemmRaster::kAlongN ? "rn" : "rh";
}

static std::string_view prefix_of(const GemmSm90Config& c) {
  return c.unaligned ? kGemmSm90UnalignedPrefix : kGemmSm90Prefix;
}

std::string GemmSm90Config::name() const {
  return std::string(prefix_of(*this)) + cls.name() + "_t" + std::to_string(tile_m) + "x" +
         std::to_string(tile_n) + "x" + std::to_string(tile_k) + "_c" + std::to_string(cluster_m) +
         "x" + std::to_string(cluster_n) + "_" + std::string(schedule_token(schedule)) + "_" +
         scheduler_token(*this, false) + (swap_ab ? "_swap" : "") + "_sw" +
         std::to_string(swizzle) + "." + std::string(raster_token(raster));
}

std::string GemmSm90Config::kernel_name() const {
  return std::string(prefix_of(*this)) + cls.name() + "_t" + std::to_string(tile_m) + "x" +
         std::to_string(tile_n) + "x" + std::to_string(tile_k) + "_c" + std::to_string(cluster_m) +
         "x" + std::to_string(cluster_n) + "_" + std::string(schedule_token(schedule)) + "_" +
         scheduler_token(*this, true) + (swap_ab ? "_swap" : "");
}

core::Expected<GemmSm90Config> GemmSm90Config::parse_name(std::string_view text) {
  const auto bad = [&](const std::string& why) {
    return core::invalid_argument("gemm.sm90 config " + core::quote(text) + ": " + why);
  };
  if (text.rfind(kGemmSm90Prefix, 0) != 0) return bad("must start with gemm.sm90_");
  const bool unaligned = text.rfind(kGemmSm90UnalignedPrefix, 0) == 0;
  std::string_view rest =
      text.substr(unaligned ? kGemmSm90UnalignedPrefix.size() : kGemmSm90Prefix.size());
  // The last five '_' fields are tile, cluster, schedule, scheduler, launch order; the rest is
  // the class.
  std::vector<std::string_view> parts = core::split(rest, '_');
  if (parts.size() < 9) {
    return bad(
        "too few fields (expected <class>_t<M>x<N>x<K>_c<M>x<N>_<coop|pingpong>_"
        "<scheduler>_sw<N>.r<h|m|n>)");
  }
  const std::string_view order = parts.back();
  parts.pop_back();
  GemmSm90Config c;
  c.unaligned = unaligned;
  if (parts.back() == "swap") {
    c.swap_ab = true;
    parts.pop_back();
  }
  const size_t n = parts.size();
  const std::string_view cls_text =
      rest.substr(0, static_cast<size_t>(parts[n - 4].data() - rest.data()) - 1);
  auto cls = GemmClass::parse_name(cls_text);
  if (!cls) return bad(cls.status().message());
  c.cls = *cls;
  const auto tile = core::split(parts[n - 4], 'x');
  if (tile.size() != 3 || tile[0].empty() || tile[0][0] != 't') return bad("expected t<M>x<N>x<K>");
  BOO_ASSIGN_OR_RETURN(int64_t tm, core::parse_int("tile M", tile[0].substr(1)));
  BOO_ASSIGN_OR_RETURN(int64_t tn, core::parse_int("tile N", tile[1]));
  BOO_ASSIGN_OR_RETURN(int64_t tk, core::parse_int("tile K", tile[2]));
  c.tile_m = static_cast<int>(tm);
  c.tile_n = static_cast<int>(tn);
  c.tile_k = static_cast<int>(tk);
  BOO_ASSIGN_OR_RETURN(auto cluster, parse_pair(parts[n - 3], 'c', "cluster c<M>x<N>"));
  c.cluster_m = cluster.first;
  c.cluster_n = cluster.second;
  if (parts[n - 2] == "coop") {
    c.schedule = GemmSchedule::kCooperative;
  } else if (parts[n - 2] == "pingpong") {
    c.schedule = GemmSchedule::kPingpong;
  } else {
    return bad("expected coop or pingpong, got " + core::quote(parts[n - 2]));
  }
  const std::string_view sched = parts[n - 1];
  if (sched == "persistent") {
    c.scheduler = GemmScheduler::kPersistent;
  } else if (sched == "streamk") {
    c.scheduler = GemmScheduler::kStreamK;
  } else if (sched.rfind("splitk", 0) == 0) {
    c.scheduler = GemmScheduler::kSplitK;
    BOO_ASSIGN_OR_RETURN(int64_t s, core::parse_int("split count", sched.substr(6)));
    c.splits = static_cast<int>(s);
  } else if (sched.rfind("psplitk", 0) == 0) {
    c.scheduler = GemmScheduler::kSplitKParallel;
    BOO_ASSIGN_OR_RETURN(int64_t s, core::parse_int("split count", sched.substr(7)));
    if (s > kMaxParallelSplits) return bad("split count " + std::to_string(s) + " is too large");
    c.splits = static_cast<int>(s);
  } else {
    return bad("expected persistent, streamk, splitk<N> or psplitk<N>, got " + core::quote(sched));
  }
  const auto order_parts = core::split(order, '.');
  if (order_parts.size() != 2 || order_parts[0].size() < 3 || order_parts[0].substr(0, 2) != "sw") {
    return bad("expected sw<N>.r<h|m|n>, got " + core::quote(order));
  }
  BOO_ASSIGN_OR_RETURN(int64_t sw, core::parse_int("swizzle", order_parts[0].substr(2)));
  c.swizzle = static_cast<int>(sw);
  if (order_parts[1] == "rh") {
    c.raster = GemmRaster::kHeuristic;
  } else if (order_parts[1] == "rm") {
    c.raster = GemmRaster::kAlongM;
  } else if (order_parts[1] == "rn") {
    c.raster = GemmRaster::kAlongN;
  } else {
    return bad("expected raster rh, rm or rn, got " + core::quote(order_parts[1]));
  }
  if (c.name() != text) return bad("not in canonical form (expected " + c.name() + ")");
  return c;
}

int parallel_splits(int64_t k, int64_t k_align, int64_t min_k, int64_t most) {
  if (k_align < 1 || k % k_align != 0) return 0;
  const int64_t units = k / k_align;
  for (int64_t s = std::min<int64_t>(most, kMaxParallelSplits); s >= 2; --s) {
    if (units % s == 0 && k / s >= min_k) return static_cast<int>(s);
  }
  return 0;
}

bool gemm_sm90_direct_d(const GemmSm90Config& c) {
  return c.unaligned && c.scheduler == GemmScheduler::kPersistent && !c.cls.has_c && !c.cls.bias &&
         c.cls.activation == ops::Activation::kNone && !c.cls.scaled;
}

int gemm_sm90_stage_bytes(const GemmSm90Config& c) {
  return (c.tile_m + c.tile_n) * c.tile_k * core::dtype_bytes(c.cls.a);
}

int gemm_sm90_accumulators(const GemmSm90Config& c) {
  return c.tile_m * c.tile_n / (c.schedule == GemmSchedule::kCooperative ? 256 : 128);
}

bool gemm_sm90_transposes(const GemmClass& c) {
  return c.a == DType::kF32 && c.b == DType::kF32 && c.math == core::MathMode::kTF32 &&
         (c.trans_a != ops::Transpose::kT || c.trans_b != ops::Transpose::kN);
}

Status check_gemm_sm90_class(const GemmClass& c, bool transposed_copies) {
  const bool fp8 = core::is_fp8(c.a) && core::is_fp8(c.b);
  if (!fp8 && c.a != c.b) return unsupported("gemm.sm90: A and B must have one type");
  if (c.alpha_vector) return unsupported("gemm.sm90: no alpha vector epilogue (fallback)");
  if (fp8) {
    // e4m3 and e5m2 in any pairing; warpgroup MMA reads 8-bit operands K-major only.
    if (c.trans_a != ops::Transpose::kT || c.trans_b != ops::Transpose::kN) {
      return unsupported(
          "gemm.sm90: fp8 warpgroup MMA needs K-major A and B (transA T, transB N); "
          "gemm.skinny or gemm.fallback take the other layouts");
    }
    if (core::is_fp8(c.d)) return unsupported("gemm.sm90: fp8 outputs are not generated");
  } else if (c.a == DType::kF32) {
    if (c.math != core::MathMode::kTF32) {
      return unsupported("gemm.sm90: fp32 without tf32 has no tensor-core path");
    }
    if (!transposed_copies && gemm_sm90_transposes(c)) {
      return unsupported(
          "gemm.sm90: tf32 warpgroup MMA needs K-major A and B (transA T, transB N); "
          "gemm.sm90_unaligned copies the others K-major");
    }
  } else if (!is_16bit(c.a)) {
    return unsupported("gemm.sm90: unsupported input type");
  }
  if (!fp8 && c.d != c.a && c.d != DType::kF32) {
    return unsupported("gemm.sm90: the output is the input type or fp32");
  }
  if (c.bias && c.bias_type != DType::kF32 && c.bias_type != c.d) {
    return unsupported("gemm.sm90: the bias is fp32 or the output type");
  }
  if (c.activation == ops::Activation::kRelu6) {
    return unsupported("gemm.sm90: relu6 has no CUTLASS epilogue functor here (fallback)");
  }
  return Status::ok();
}

Status check_gemm_sm90(const GemmSm90Config& c) {
  BOO_RETURN_IF_ERROR(check_gemm_sm90_class(c.cls, c.unaligned));
  const std::string n = c.name();
  auto invalid = [&](const std::string& why) { return unsupported(n + ": " + why); };
  if (c.tile_m != 64 && c.tile_m != 128 && c.tile_m != 256) {
    return invalid("tile M must be 64, 128 or 256");
  }
  if (c.tile_n < 16 || c.tile_n > 256 || c.tile_n % 16 != 0) {
    return invalid("tile N must be a multiple of 16 in [16, 256] (warpgroup MMA N)");
  }
  const int k_bytes = c.tile_k * core::dtype_bytes(c.cls.a);
  if (k_bytes != 64 && k_bytes != 128 && k_bytes != 256) {
    return invalid("tile K must span 64, 128 or 256 bytes (TMA swizzle)");
  }
  if (core::dtype_bytes(c.cls.a) == 1 && k_bytes == 256) {
    // CUTLASS's accurate fp8 mainloop promotes its partial sums every mma_promotion_interval
    // (4) MMAs of k = 32, and its can_implement asks that interval to be a whole number of
    // k-tiles (sm90_mma_tma_gmma_ss_warpspecialized_fp8.hpp): a 256-deep k-tile is 8 MMAs, so
    // every such kernel refuses every problem at run time (seen on 64x16x256, 4096x16x2048,
    // 2026-11-23; 16-bit tiles with a 256-byte K are accepted).
    return invalid(
        "an fp8 tile K is at most 128 (CUTLASS promotes fp8 partial sums every 4 MMAs of k = 32)");
  }
  if (c.cls.has_c && c.cls.a == DType::kF32 && c.tile_n < 32 &&
      c.scheduler != GemmScheduler::kSplitKParallel) {
    // CUTLASS 4.2's epilogue with an fp32 C failed its "Shape Divisibility Condition" on
    // 128x16 tiles (tf32, 2026-11-28, bench/results/2026-11-28-copies-tf32-h200.md); without C
    // the same tiles compiled. (Parallel split-K's kernel reads no C; 16-bit classes with an
    // fp32 C were not seen to fail.)
    return invalid("an fp32 C needs tile N >= 32 (CUTLASS's epilogue tile)");
  }
  // At most 128 fp32 accumulators a consumer thread (gemm_sm90_accumulators).
  const bool coop = c.schedule == GemmSchedule::kCooperative;
  if (coop && c.tile_m < 128) return invalid("the cooperative schedule needs tile M >= 128");
  if (!coop && c.tile_m > 128) return invalid("the pingpong schedule needs tile M <= 128");
  const int accumulators = gemm_sm90_accumulators(c);
  if (accumulators > 128) return invalid("the accumulators exceed 128 registers per thread");
  if (core::dtype_bytes(c.cls.a) == 1 && 2 * accumulators > 192) {
    // CUTLASS's fp8 mainloop (MainloopSm90TmaGmmaWarpSpecializedFP8, the accurate one) adds the
    // MMAs' partial sums into a second set of fp32 accumulators every four k-blocks, so a thread
    // holds twice its tile share. ptxas spills beyond 96 a thread (2026-11-30, CUDA 13.0,
    // -Xptxas -v): 128x256 cooperative 824 bytes and 128x128 pingpong 912 bytes of spill
    // stores; 128x192 cooperative and 64x128 pingpong none. On an H200 the spilling 128x256
    // kernel ran 8192 x 4096 x 8192 at 0.33x cuBLASLt
    // (bench/results/2026-11-30-model-lists-h200.md). Tiles up to 64 a thread (cooperative
    // 128x128, pingpong 64x128) hold a third set and overlap the promotion with the next
    // k-tile's MMAs (kernels/gemm_sm90_fp8.cuh).
    return invalid(
        "fp8 keeps two sets of fp32 accumulators (partial sums promoted every four k-blocks): at "
        "most 96 a thread, cooperative tiles up to 128x192 and pingpong up to 64x192");
  }
  if (c.cluster_m < 1 || c.cluster_m > 2 || c.cluster_n < 1 || c.cluster_n > 2) {
    return invalid("cluster sizes must be 1 or 2");
  }
  const bool parallel = c.scheduler == GemmScheduler::kSplitKParallel;
  if (c.scheduler != GemmScheduler::kPersistent && !parallel &&
      c.schedule != GemmSchedule::kCooperative) {
    return invalid("stream-K and split-K need the cooperative schedule");
  }
  if (c.scheduler == GemmScheduler::kSplitK ? (c.splits < 2 || c.splits > 16)
      : parallel                            ? (c.splits < 2 || c.splits > kMaxParallelSplits)
                                            : c.splits != 1) {
    return invalid("split-K takes 2 to 16 splits, parallel split-K 2 to " +
                   std::to_string(kMaxParallelSplits) + "; other schedulers take none");
  }
  if (parallel && c.unaligned) {
    return invalid("parallel split-K runs on aligned operands only (no padded copies)");
  }
  if (c.swap_ab && (c.scheduler != GemmScheduler::kPersistent || c.unaligned || c.cls.bias ||
                    !is_16bit(c.cls.a))) {
    return invalid(
        "swapped operands run persistent, 16-bit, without bias and on aligned operands only");
  }

  if (c.swizzle != 1 && c.swizzle != 2 && c.swizzle != 4 && c.swizzle != 8) {
    return invalid("swizzle must be 1, 2, 4 or 8");
  }
  // At least three mainloop stages beside the epilogue's shared memory.
  if (3 * gemm_sm90_stage_bytes(c) + kSm90EpilogueReserveBytes > kSm90SharedMemoryBytes) {
    return invalid("three mainloop stages do not fit in 227 KiB of shared memory");
  }
  return Status::ok();
}

std::vector<GemmSm90Config> gemm_sm90_space(const GemmClass& cls, RuleSet rules) {
  std::vector<GemmSm90Config> out;
  if (!check_gemm_sm90_class(cls, /*transposed_copies=*/true).is_ok()) return out;
  const int k16 = 128 / core::dtype_bytes(cls.a);  // tile K of 128 bytes: 64 for 16-bit
  const bool fp8 = core::dtype_bytes(cls.a) == 1;
  struct Shape {
    int m, n, k;
  };
  std::vector<Shape> tiles;
  std::vector<std::pair<int, int>> clusters;
  std::vector<GemmSchedule> schedules = {GemmSchedule::kCooperative, GemmSchedule::kPingpong};
  std::vector<std::pair<GemmScheduler, int>> schedulers;
  // Launch order (no recompile): swizzled strips of tiles and the raster direction.
  std::vector<std::pair<int, GemmRaster>> orders = {{1, GemmRaster::kHeuristic}};
  switch (rules) {
    case RuleSet::kTiny:
      tiles = {{128, 128, k16}, {128, 256, k16}};
      clusters = {{1, 1}, {2, 1}};
      schedules = {GemmSchedule::kCooperative};
      schedulers = {{GemmScheduler::kPersistent, 1}};
      break;
    case RuleSet::kDefault:
      tiles = {{128, 128, k16}, {128, 256, k16}, {256, 128, k16},    {128, 64, k16},
               {64, 128, k16},  {64, 256, k16},  {128, 128, 2 * k16}};
      if (!fp8) {
        // N = 16 and 32: decode GEMMs, whose narrow side a wider tile would mostly waste. (Not
        // for fp8 yet: narrow fp8 tiles are valid with a 128-byte K, but not measured.)
        tiles.insert(tiles.end(), {{128, 16, k16}, {64, 16, 2 * k16}, {128, 32, k16}});
        // N = 96: a full last wave where 128-wide tiles leave it partly idle; the heuristic
        // ranks them only there (gemm_sm90_algorithm.cc, wave_tail_of_128). Measured on 16-bit
        // and tf32 GEMMs, not fp8.
        tiles.push_back({128, 96, k16});
        // N = 160: more tiles a wave fills where 128- and 256-wide ones leave the last wave
        // partly idle; ranked by the model like the rest (H200, bench/results/
        // 2026-12-02-c4-h200.md: the nine picks they took on the lists and 300 random shapes
        // all timed, 0.98-1.38x).
        tiles.insert(tiles.end(), {{128, 160, k16}, {64, 160, k16}});
      }
      clusters = {{1, 1}, {2, 1}, {1, 2}};
      schedulers = {{GemmScheduler::kPersistent, 1}, {GemmScheduler::kStreamK, 1},
                    {GemmScheduler::kSplitK, 2},     {GemmScheduler::kSplitK, 4},
                    {GemmScheduler::kSplitK, 8},     {GemmScheduler::kSplitKParallel, 2}};
      orders.push_back({8, GemmRaster::kHeuristic});
      break;
    case RuleSet::kFull:
      for (int m : {64, 128, 256}) {
        for (int n : {16, 32, 64, 96, 128, 160, 192, 224, 256}) {
          if (fp8 && n < 64) continue;
          for (int k : {k16 / 2, k16, 2 * k16}) tiles.push_back({m, n, k});
        }
      }
      clusters = {{1, 1}, {2, 1}, {1, 2}, {2, 2}};
      schedulers = {{GemmScheduler::kPersistent, 1}, {GemmScheduler::kStreamK, 1}};
      for (int s : {2, 3, 4, 6, 8, 12, 16}) schedulers.push_back({GemmScheduler::kSplitK, s});
      schedulers.push_back({GemmScheduler::kSplitKParallel, 2});
      orders = {{1, GemmRaster::kHeuristic},
                {4, GemmRaster::kHeuristic},
                {8, GemmRaster::kHeuristic},
                {8, GemmRaster::kAlongM},
                {8, GemmRaster::kAlongN}};
      break;
  }
  // A config of the class with this tile, cluster and schedule (the rest as defaults).
  const auto config = [&](const Shape& t, int cm, int cn, GemmSchedule sch) {
    GemmSm90Config c;
    c.cls = cls;
    c.unaligned = gemm_sm90_transposes(cls);  // behind the copies that turn operands K-major
    c.tile_m = t.m;
    c.tile_n = t.n;
    c.tile_k = t.k;
    c.cluster_m = cm;
    c.cluster_n = cn;
    c.schedule = sch;
    return c;
  };
  for (const Shape& t : tiles) {
    for (auto [cm, cn] : clusters) {
      for (GemmSchedule sch : schedules) {
        for (auto [sched, splits] : schedulers) {
          // The default rule set runs the narrow tiles persistent only: split-K over them
          // measured far slower than the heuristic predicts (256x8x65536 on 128x16 tiles in 8
          // splits: 47.4 us, predicted 19.9; bench/results/2026-11-23-gemm-narrow-tiles-h100.md).
          if (rules == RuleSet::kDefault && t.n < 64 && sched != GemmScheduler::kPersistent &&
              sched != GemmScheduler::kSplitKParallel) {
            continue;
          }
          for (auto [swizzle, raster] : orders) {
            GemmSm90Config c = config(t, cm, cn, sch);
            c.scheduler = sched;
            c.splits = splits;
            c.swizzle = swizzle;
            c.raster = raster;
            if (check_gemm_sm90(c).is_ok()) out.push_back(c);
          }
        }
      }
    }
  }
  // Swapped operands (narrow-M problems as narrow-N ones): the narrow tiles, persistent.
  std::vector<Shape> swapped;
  std::vector<std::pair<int, int>> swapped_clusters = {{1, 1}};
  if (rules == RuleSet::kDefault && !fp8) {
    swapped = {{128, 16, k16}, {64, 16, 2 * k16}, {128, 32, k16}};
  } else if (rules == RuleSet::kFull) {
    for (const Shape& t : tiles) {
      if (t.n <= 32) swapped.push_back(t);
    }
    swapped_clusters = {{1, 1}, {2, 1}};
  }
  for (const Shape& t : swapped) {
    for (auto [cm, cn] : swapped_clusters) {
      for (GemmSchedule sch : schedules) {
        GemmSm90Config c = config(t, cm, cn, sch);
        c.swap_ab = true;
        if (check_gemm_sm90(c).is_ok()) out.push_back(c);
      }
    }
  }
  return out;
}

}  // namespace boo::space
