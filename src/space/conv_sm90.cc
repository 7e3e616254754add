#include "boo/space/conv_sm90.h"

#include "boo/core/strings.h"
#include "boo/space/gemm_class.h"
#include "boo/space/gemm_sm90.h"

namespace boo::space {
namespace {

using core::DType;
using core::Status;
using core::unsupported;
using ops::ConvDirection;

std::string_view direction_token(ConvDirection d) {
  switch (d) {
    case ConvDirection::kForward:
      return "fprop";
    case ConvDirection::kBackwardData:
      return "dgrad";
    case ConvDirection::kBackwardWeight:
      return "wgrad";
  }
  return "?";
}

}  // namespace

std::string ConvClass::name() const {
  std::string s(core::dtype_name(dtype));
  s += math == core::MathMode::kTF32 ? "_tf32_" : "_f32acc_";
  s += std::string(direction_token(direction)) + "_" + std::to_string(spatial_dims) + "d_";
  s += (bias ? "bias." : "nobias.") + act_token(activation);
  return s;
}

core::Expected<ConvClass> ConvClass::parse_name(std::string_view text) {
  const auto bad = [&](const std::string& why) {
    return core::invalid_argument("conv class " + core::quote(text) + ": " + why);
  };
  const std::vector<std::string_view> parts = core::split(text, '_');
  if (parts.size() != 5) return bad("expected <type>_<math>_<direction>_<N>d_<epilogue>");
  ConvClass c;
  auto t = core::dtype_from_name(parts[0]);
  if (!t) return bad("unknown type " + core::quote(parts[0]));
  c.dtype = *t;
  if (parts[1] == "tf32") {
    c.math = core::MathMode::kTF32;
  } else if (parts[1] != "f32acc") {
    return bad("expected f32acc or tf32");
  }
  bool found = false;
  for (ConvDirection d :
       {ConvDirection::kForward, ConvDirection::kBackwardData, ConvDirection::kBackwardWeight}) {
    if (parts[2] == direction_token(d)) {
      c.direction = d;
      found = true;
    }
  }
  if (!found) return bad("expected fprop, dgrad or wgrad");
  if (parts[3].size() != 2 || parts[3][1] != 'd' || parts[3][0] < '1' || parts[3][0] > '3') {
    return bad("expected 1d, 2d or 3d");
  }
  c.spatial_dims = parts[3][0] - '0';
  const std::vector<std::string_view> epi = core::split(parts[4], '.');
  if (epi.size() != 2 || (epi[0] != "bias" && epi[0] != "nobias")) {
    return bad("expected bias.<act> or nobias.<act>");
  }
  c.bias = epi[0] == "bias";
  BOO_ASSIGN_OR_RETURN(c.activation, parse_act_token(epi[1]));
  if (c.name() != text) return bad("not in canonical form (expected " + c.name() + ")");
  return c;
}

ConvClass conv_class_of(const ops::ConvProblem& p) {
  ConvClass c;
  c.dtype = p.dtype;
  c.math = p.math;
  c.direction = p.direction;
  c.spatial_dims = p.spatial_dims;
  const bool forward = p.direction == ConvDirection::kForward;
  c.bias = forward && p.bias;
  c.activation = forward ? p.activation : ops::Activation::kNone;
  return c;
}

std::string ConvSm90Config::name() const {
  return std::string(kConvSm90Prefix) + cls.name() + "_t" + std::to_string(tile_m) + "x" +
         std::to_string(tile_n) + "x" + std::to_string(tile_k) + "_c" + std::to_string(cluster_m) +
         "x" + std::to_string(cluster_n) +
         (schedule == ConvSchedule::kCooperative ? std::string(kCooperativeSuffix)
          : schedule == ConvSchedule::kPingpong  ? std::string(kPingpongSuffix)
                                                 : std::string()) +
         (stages > 0 ? std::string(kStagesSuffix) + std::to_string(stages) : "") +
         (space_to_depth ? std::string(kSpaceToDepthSuffix) : "") +
         (dense_groups ? std::string(kDenseGroupsSuffix) : "") +
         (dgrad_phases ? std::string(kDgradPhasesSuffix) : "") +
         (wgrad_splits > 0 ? std::string(kSplitSuffix) + std::to_string(wgrad_splits) : "");
}

core::Expected<ConvSm90Config> ConvSm90Config::parse_name(std::string_view text) {
  const auto bad = [&](const std::string& why) {
    return core::invalid_argument("conv.sm90_implicit config " + core::quote(text) + ": " + why);
  };
  if (text.rfind(kConvSm90Prefix, 0) != 0) return bad("must start with conv.sm90_implicit_");
  std::string_view rest = text.substr(kConvSm90Prefix.size());
  // "<suffix><N>" after the cluster: N (0 when absent), and `rest` without it.
  const auto numbered = [&](std::string_view suffix, const char* what) -> core::Expected<int> {
    const size_t at = rest.rfind(suffix);
    if (at == std::string_view::npos || at < rest.rfind("_c")) return 0;
    BOO_ASSIGN_OR_RETURN(int64_t n, core::parse_int(what, rest.substr(at + suffix.size())));
    rest = rest.substr(0, at);
    return static_cast<int>(n);
  };
  // Whether `rest` ends in a flag suffix, and `rest` without it.
  const auto flag = [&](std::string_view suffix) {
    const bool there =
        rest.size() > suffix.size() && rest.substr(rest.size() - suffix.size()) == suffix;
    if (there) rest.remove_suffix(suffix.size());
    return there;
  };
  BOO_ASSIGN_OR_RETURN(const int splits, numbered(kSplitSuffix, "splits"));
  const bool phases = flag(kDgradPhasesSuffix);
  const bool s2d = flag(kSpaceToDepthSuffix);
  const bool dense = flag(kDenseGroupsSuffix);
  BOO_ASSIGN_OR_RETURN(const int stages, numbered(kStagesSuffix, "stages"));
  const ConvSchedule schedule = flag(kCooperativeSuffix) ? ConvSchedule::kCooperative
                                : flag(kPingpongSuffix)  ? ConvSchedule::kPingpong
                                                         : ConvSchedule::kBasic;
  const size_t tile_at = rest.rfind("_t");
  const size_t cluster_at = rest.rfind("_c");
  if (tile_at == std::string_view::npos || cluster_at == std::string_view::npos ||
      cluster_at < tile_at) {
    return bad("expected <class>_t<M>x<N>x<K>_c<M>x<N>");
  }
  ConvSm90Config c;
  auto cls = ConvClass::parse_name(rest.substr(0, tile_at));
  if (!cls) return bad(cls.status().message());
  c.cls = *cls;
  const auto tile = core::split(rest.substr(tile_at + 2, cluster_at - tile_at - 2), 'x');
  const auto cluster = core::split(rest.substr(cluster_at + 2), 'x');
  if (tile.size() != 3 || cluster.size() != 2) return bad("expected t<M>x<N>x<K>_c<M>x<N>");
  BOO_ASSIGN_OR_RETURN(int64_t tm, core::parse_int("tile M", tile[0]));
  BOO_ASSIGN_OR_RETURN(int64_t tn, core::parse_int("tile N", tile[1]));
  BOO_ASSIGN_OR_RETURN(int64_t tk, core::parse_int("tile K", tile[2]));
  BOO_ASSIGN_OR_RETURN(int64_t cm, core::parse_int("cluster M", cluster[0]));
  BOO_ASSIGN_OR_RETURN(int64_t cn, core::parse_int("cluster N", cluster[1]));
  c.tile_m = static_cast<int>(tm);
  c.tile_n = static_cast<int>(tn);
  c.tile_k = static_cast<int>(tk);
  c.cluster_m = static_cast<int>(cm);
  c.cluster_n = static_cast<int>(cn);
  c.space_to_depth = s2d;
  c.dense_groups = dense;
  c.dgrad_phases = phases;
  c.wgrad_splits = splits;
  c.stages = stages;
  c.schedule = schedule;
  if (c.name() != text) return bad("not in canonical form (expected " + c.name() + ")");
  return c;
}

Status check_conv_sm90_class(const ConvClass& c) {
  if (c.spatial_dims < 1 || c.spatial_dims > 3) {
    return unsupported("conv.sm90_implicit: 1, 2 or 3 spatial dimensions");
  }
  if (c.dtype == DType::kF32) {
    if (c.math != core::MathMode::kTF32) {
      return unsupported("conv.sm90_implicit: fp32 without tf32 has no tensor-core path");
    }
    if (c.direction != ConvDirection::kForward) {
      return unsupported("conv.sm90_implicit: tf32 runs forward only (K-major operands)");
    }
  } else if (c.dtype != DType::kBF16 && c.dtype != DType::kF16) {
    return unsupported("conv.sm90_implicit: bf16, fp16 or tf32");
  }
  if (c.direction != ConvDirection::kForward &&
      (c.bias || c.activation != ops::Activation::kNone)) {
    return unsupported("conv.sm90_implicit: bias and activation are forward epilogues");
  }
  if (c.activation == ops::Activation::kRelu6) {
    return unsupported("conv.sm90_implicit: relu6 has no CUTLASS epilogue functor here");
  }
  return Status::ok();
}

Status check_conv_sm90(const ConvSm90Config& c) {
  auto invalid = [&](const std::string& why) { return unsupported(c.name() + ": " + why); };
  if (c.dgrad_phases) {
    // The kernel is the class's forward one.
    if (c.cls.direction != ConvDirection::kBackwardData) {
      return invalid("stride phases run backward data");
    }
    if (c.space_to_depth || c.dense_groups || c.wgrad_splits != 0) {
      return invalid("stride phases do not combine with the other wrappers");
    }
    ConvClass forward = c.cls;
    forward.direction = ConvDirection::kForward;
    BOO_RETURN_IF_ERROR(check_conv_sm90_class(forward));
  } else {
    BOO_RETURN_IF_ERROR(check_conv_sm90_class(c.cls));
  }
  if (c.space_to_depth && c.cls.direction != ConvDirection::kForward) {
    return invalid("space-to-depth runs forward convolutions only");
  }
  if (c.space_to_depth && c.dense_groups) {
    return invalid("space-to-depth and the dense group expansion do not combine");
  }
  if (c.wgrad_splits != 0) {
    if (c.cls.direction != ConvDirection::kBackwardWeight) {
      return invalid("splits are for backward weight");
    }
    if (c.wgrad_splits < 2 || c.wgrad_splits > 32) return invalid("splits must be in [2, 32]");
    if (c.space_to_depth || c.dense_groups) return invalid("splits do not combine with wrappers");
  }
  if (c.persistent()) {
    if (c.cls.direction == ConvDirection::kBackwardWeight) {
      return invalid("the persistent kernel runs forward and backward data only");
    }
    if (c.stages != 0) return invalid("the persistent kernel takes as many stages as fit");
    if (c.schedule == ConvSchedule::kCooperative && c.tile_m != 128 && c.tile_m != 256) {
      return invalid("cooperative tile M must be 128 or 256");
    }
    if (c.schedule == ConvSchedule::kPingpong && c.tile_m != 64 && c.tile_m != 128) {
      return invalid("pingpong tile M must be 64 or 128");
    }
  } else if (c.tile_m != 64 && c.tile_m != 128) {
    return invalid("tile M must be 64 or 128");
  }
  if (c.tile_n < 32 || c.tile_n > 256 || c.tile_n % 32 != 0) {
    return invalid("tile N must be a multiple of 32 in [32, 256]");
  }
  const int k_bytes = c.tile_k * core::dtype_bytes(c.cls.dtype);
  if (k_bytes != 64 && k_bytes != 128) return invalid("tile K must span 64 or 128 bytes");
  // Each consumer warpgroup (two in the persistent kernel) holds its share of the tile's fp32
  // accumulators: at most 128 per thread.
  const int consumers = c.schedule == ConvSchedule::kCooperative ? 2 : 1;
  if (c.tile_m * c.tile_n > consumers * 128 * 128) {
    return invalid("the accumulators exceed 128 registers per thread");
  }
  if (c.cluster_m < 1 || c.cluster_m > 2 || c.cluster_n < 1 || c.cluster_n > 2) {
    return invalid("cluster sizes must be 1 or 2");
  }
  const int stage_bytes = (c.tile_m + c.tile_n) * c.tile_k * core::dtype_bytes(c.cls.dtype);
  if (3 * stage_bytes + kSm90EpilogueReserveBytes > kSm90SharedMemoryBytes) {
    return invalid("three mainloop stages do not fit in 227 KiB of shared memory");
  }
  if (c.stages != 0) {
    if (c.stages < 2 || c.stages > 8) return invalid("stages must be 0 (auto) or in [2, 8]");
    if (c.stages * stage_bytes + kSm90EpilogueReserveBytes > kSm90SharedMemoryBytes) {
      return invalid(std::to_string(c.stages) +
                     " mainloop stages do not fit in 227 KiB of shared memory");
    }
  }
  return Status::ok();
}

int conv_sm90_coresident_stages(const ConvSm90Config& c) {
  constexpr int kStages = 4;
  constexpr int kEpilogueBytes = 8 * 1024;  // the TMA epilogue's staging, with room to spare
  const int stage_bytes = (c.tile_m + c.tile_n) * c.tile_k * core::dtype_bytes(c.cls.dtype);
  if (c.persistent() || c.tile_m * c.tile_n > 128 * 64) return 0;
  if (2 * (kStages * stage_bytes + kEpilogueBytes) > kSm90SharedMemoryBytes) return 0;
  return kStages;
}

std::vector<ConvSm90Config> conv_sm90_space(const ConvClass& cls, RuleSet rules) {
  std::vector<ConvSm90Config> out;
  if (!check_conv_sm90_class(cls).is_ok()) return out;
  const int k128 = 128 / core::dtype_bytes(cls.dtype);  // a 128-byte k-block
  struct Shape {
    int m, n, k;
  };
  std::vector<Shape> tiles;
  std::vector<std::pair<int, int>> clusters;
  switch (rules) {
    case RuleSet::kTiny:
      tiles = {{128, 128, k128}};
      clusters = {{1, 1}};
      break;
    case RuleSet::kDefault:
      // The 64-byte k-blocks are for few channels per filter tap (conv.padded_channels' C = 8
      // stems): a tap's k-block is mostly zeros beyond C.
      tiles = {{128, 128, k128}, {128, 64, k128},      {64, 128, k128},    {64, 256, k128},
               {64, 64, k128},   {128, 128, k128 / 2}, {128, 64, k128 / 2}};
      clusters = {{1, 1}, {2, 1}, {1, 2}};
      break;
    case RuleSet::kFull:
      for (int m : {64, 128}) {
        for (int n : {32, 64, 96, 128, 160, 192, 224, 256}) {
          for (int k : {k128 / 2, k128}) tiles.push_back({m, n, k});
        }
      }
      clusters = {{1, 1}, {2, 1}, {1, 2}, {2, 2}};
      break;
  }
  // Each valid config of one schedule and tile shape over the clusters.
  const auto add = [&](ConvSchedule schedule, const Shape& t) {
    for (auto [cm, cn] : clusters) {
      ConvSm90Config c;
      c.cls = cls;
      c.schedule = schedule;
      c.tile_m = t.m;
      c.tile_n = t.n;
      c.tile_k = t.k;
      c.cluster_m = cm;
      c.cluster_n = cn;
      c.stages = conv_sm90_coresident_stages(c);
      if (check_conv_sm90(c).is_ok()) out.push_back(c);
    }
  };
  for (const Shape& t : tiles) add(ConvSchedule::kBasic, t);
  // The persistent kernel (forward and backward data). Cooperative: 128- and 256-row tiles, and
  // N tiles that fit common channel counts in few waves (160 for 320, 640, 1280 channels);
  // pingpong: one warpgroup's tile, 64 or 128 rows.
  if (rules == RuleSet::kTiny || cls.direction == ConvDirection::kBackwardWeight) return out;
  if (rules == RuleSet::kDefault) {
    clusters = {{1, 1}};
    for (Shape t : {Shape{128, 256, k128}, Shape{256, 128, k128}, Shape{128, 128, k128},
                    Shape{128, 192, k128}, Shape{128, 160, k128}, Shape{256, 64, k128},
                    Shape{128, 64, k128}}) {
      add(ConvSchedule::kCooperative, t);
    }
    for (Shape t : {Shape{128, 128, k128}, Shape{128, 64, k128}}) add(ConvSchedule::kPingpong, t);
    return out;
  }
  for (ConvSchedule s : {ConvSchedule::kCooperative, ConvSchedule::kPingpong}) {
    for (int m : {64, 128, 256}) {
      for (int n : {32, 64, 96, 128, 160, 192, 224, 256}) {
        for (int k : {k128 / 2, k128}) add(s, {m, n, k});
      }
    }
  }
  return out;
}

}  // namespace boo::space
