// gemm.sm90: CUTLASS 3 TMA warp-specialized GEMMs, ranked by an analytical model.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "boo/dispatch/gemm_algorithms.h"
#include "boo/space/gemm_sm90.h"

namespace boo::dispatch {
namespace {

using space::GemmSchedule;
using space::GemmScheduler;
using space::GemmSm90Config;

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Fraction of the tensor-core peak a CTA sustains in its mainloop: larger tiles amortize the
// per-k-block synchronization and keep more MMAs in flight (128x256 cooperative reaches about
// 90% of peak on an H100); pingpong hides the epilogue behind the other warpgroup's mainloop.
double tile_efficiency(const GemmSm90Config& c) {
  const double area = static_cast<double>(c.tile_m) * c.tile_n / (128.0 * 256.0);
  double e = 0.62 + 0.28 * std::min(area, 1.0);
  if (c.schedule == GemmSchedule::kPingpong) e += 0.04;
  if (c.cluster_m * c.cluster_n > 1) e += 0.02;  // TMA multicast halves L2 traffic
  return std::min(e, 0.93);
}

class GemmSm90Algorithm final : public GemmAlgorithm {
 public:
  std::string_view name() const override { return "gemm.sm90"; }

  core::Status supports(const ops::GemmProblem& p) const override {
    BOO_RETURN_IF_ERROR(space::check_gemm_sm90_class(space::gemm_class_of(p)));
    const int64_t align_ab = 16 / core::dtype_bytes(p.a_type);
    const int64_t align_d = 16 / core::dtype_bytes(p.d_type);
    if (p.lda % align_ab || p.ldb % align_ab || p.ldd % align_d ||
        (p.reads_c() && p.ldc % align_d)) {
      return core::unsupported("gemm.sm90: leading dimensions must be multiples of 16 bytes "
                               "(TMA); gemm.sm90_unaligned handles the rest");
    }
    if (p.batch > 1 && (p.stride_a % align_ab || p.stride_b % align_ab || p.stride_d % align_d ||
                        (p.reads_c() && p.stride_c % align_d))) {
      return core::unsupported("gemm.sm90: batch strides must be multiples of 16 bytes");
    }
    constexpr int64_t kMax = 0x7fffffff;
    if (p.m > kMax || p.n > kMax || p.k > kMax || p.batch > kMax) {
      return core::unsupported("gemm.sm90: M, N, K and batch must be below 2^31");
    }
    return core::Status::ok();
  }

  std::vector<Candidate> rank(const ops::GemmProblem& p, const DeviceModel& d,
                              space::RuleSet rules) const override {
    std::vector<Candidate> out;
    for (const GemmSm90Config& c : space::gemm_sm90_space(space::gemm_class_of(p), rules)) {
      // Split-K only where the K loop is long enough to split.
      if (c.scheduler == GemmScheduler::kSplitK && p.k < c.splits * 2 * c.tile_k) continue;
      Candidate cand;
      cand.algorithm = "gemm.sm90";
      cand.config = c.name();
      cand.predicted_us = predict_gemm_sm90_us(p, c, d, &cand.why);
      out.push_back(std::move(cand));
    }
    std::stable_sort(out.begin(), out.end(), [](const Candidate& a, const Candidate& b) {
      return a.predicted_us < b.predicted_us;
    });
    return out;
  }

  core::Expected<codegen::KernelSource> source(std::string_view config) const override {
    BOO_ASSIGN_OR_RETURN(GemmSm90Config c, GemmSm90Config::parse_name(config));
    return codegen::gemm_sm90_source(c);
  }

  int splits(std::string_view config) const override {
    auto c = GemmSm90Config::parse_name(config);
    return c.has_value() ? c->splits : 1;
  }
};

}  // namespace

double predict_gemm_sm90_us(const ops::GemmProblem& p, const GemmSm90Config& c,
                            const DeviceModel& d, std::string* why) {
  const double peak = p.a_type == core::DType::kF32 ? d.tflops_tf32 : d.tflops_16bit;
  const double per_sm_flops = peak * 1e12 / d.sm_count * tile_efficiency(c);
  const int64_t tiles = ceil_div(p.m, c.tile_m) * ceil_div(p.n, c.tile_n) * p.batch;
  const int64_t k_blocks = ceil_div(p.k, c.tile_k);
  const double block_us = 2.0 * c.tile_m * c.tile_n * c.tile_k / per_sm_flops * 1e6;
  // Tile epilogue: write (and read C) one tile at an SM's share of HBM bandwidth.
  const double tile_bytes = static_cast<double>(c.tile_m) * c.tile_n *
                            core::dtype_bytes(p.d_type) * (p.reads_c() ? 2 : 1);
  const double sm_bw = d.bandwidth_gbs * 1e9 / d.sm_count;
  const double epilogue_us = tile_bytes / sm_bw * 1e6 *
                             (c.schedule == GemmSchedule::kPingpong ? 0.3 : 1.0);
  double compute_us = 0.0;
  int64_t work_units = tiles;
  switch (c.scheduler) {
    case GemmScheduler::kPersistent: {
      const int64_t waves = ceil_div(tiles, d.sm_count);
      compute_us = static_cast<double>(waves) * (k_blocks * block_us + epilogue_us);
      break;
    }
    case GemmScheduler::kStreamK: {
      // Work is split evenly over the SMs in k-blocks; partial tiles are fixed up through an
      // fp32 workspace (write + read of a tile of partials).
      const double total = static_cast<double>(tiles) * k_blocks;
      const double per_sm = std::ceil(total / d.sm_count);
      const double fixup = tiles % d.sm_count == 0
                               ? 0.0
                               : 2.0 * c.tile_m * c.tile_n * 4.0 / sm_bw * 1e6;
      compute_us = per_sm * block_us + epilogue_us + fixup + 1.0;
      break;
    }
    case GemmScheduler::kSplitK: {
      work_units = tiles * c.splits;
      const int64_t waves = ceil_div(work_units, d.sm_count);
      const double reduce_us = static_cast<double>(c.splits) * c.tile_m * c.tile_n * 4.0 / sm_bw *
                               1e6;
      compute_us = static_cast<double>(waves) *
                       (static_cast<double>(ceil_div(k_blocks, c.splits)) * block_us) +
                   epilogue_us + reduce_us + 1.0;
      break;
    }
  }
  // HBM: every operand once; L2: A is re-read by each column of tiles and B by each row of
  // tiles, divided by the multicast of the cluster (L2 at ~3x HBM bandwidth).
  const double bytes_ab = static_cast<double>(core::dtype_bytes(p.a_type));
  const double l2_bytes = bytes_ab * (static_cast<double>(p.m) * p.k *
                                          ceil_div(p.n, c.tile_n * c.cluster_n) +
                                      static_cast<double>(p.n) * p.k *
                                          ceil_div(p.m, c.tile_m * c.cluster_m)) *
                          p.batch;
  const double memory_us = std::max(static_cast<double>(p.min_bytes()) / (d.bandwidth_gbs * 1e9),
                                    l2_bytes / (3.0 * d.bandwidth_gbs * 1e9)) *
                           1e6;
  const double total = std::max(compute_us, memory_us) + d.launch_us;
  if (why != nullptr) {
    char buf[200];
    std::snprintf(buf, sizeof(buf),
                  "%lld work units on %d SMs, %lld k-blocks; compute %.1f us, memory %.1f us",
                  static_cast<long long>(work_units), d.sm_count,
                  static_cast<long long>(k_blocks), compute_us, memory_us);
    *why = buf;
  }
  return total;
}

std::unique_ptr<GemmAlgorithm> make_gemm_sm90() { return std::make_unique<GemmSm90Algorithm>(); }

}  // namespace boo::dispatch
