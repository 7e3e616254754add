#include "boo/dispatch/layernorm_dispatcher.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>

#include "boo/codegen/layernorm_codegen.h"
#include "kernel_run.h"

namespace boo::dispatch {
namespace {

using space::LayerNormRowwiseConfig;

int log2_index(int64_t alignment) {
  int i = 0;
  while (i < 4 && (int64_t{2} << i) <= alignment) ++i;
  return i;  // 1 -> 0 ... 16 -> 4
}

int64_t clamp_alignment(int64_t a) {
  int64_t out = 1;
  while (out < 16 && a % (out * 2) == 0) out *= 2;
  return out;
}

LayerNormPointers fake_pointers(const ops::LayerNormProblem& p, int64_t alignment) {
  // Stand-ins aligned to exactly `alignment` bytes: shapes and alignment are checked before the
  // real pointers exist; those are checked again at launch.
  char* base = reinterpret_cast<char*>((uintptr_t{1} << 20) + (alignment < 16 ? alignment : 0));
  LayerNormPointers f;
  f.x = base;
  f.weight = p.affine ? base + 256 : nullptr;
  f.bias = p.affine ? base + 512 : nullptr;
  if (p.forward()) {
    f.y = base + 768;
    f.mean = reinterpret_cast<float*>(base + 1024);
    f.rstd = reinterpret_cast<float*>(base + 1280);
  } else {
    f.mean = reinterpret_cast<float*>(base + 1024);
    f.rstd = reinterpret_cast<float*>(base + 1280);
    f.dy = base + 1536;
    if (p.parts & ops::kLayerNormDx) f.dx = base + 1792;
    if (p.parts & ops::kLayerNormDweight) f.dweight = base + 2048;
    if (p.parts & ops::kLayerNormDbias) f.dbias = base + 2304;
  }
  return f;
}

// Registers per thread the kernel needs, roughly (ptxas 13.0 on sm_90a): the values it holds
// (forward: x; backward: x and dy, widened, with the column sums in shared memory; pipelined
// backward: the column sums, with x and dy in shared memory, and when it holds its rows w, xhat
// and dy too: bf16 v4_t256_r2_i4 126 registers) plus addressing and loop state, within the
// launch bound's share.
int registers_per_thread(const LayerNormRowwiseConfig& c, bool pipelined) {
  const int held = c.items > 0 ? c.vec * c.items : c.vec;
  if (!c.backward) return held + 24;
  if (pipelined && c.backward_holds()) {
    return std::min(6 * held + 30, c.register_share());
  }
  return pipelined ? (9 * held) / 4 + 24 : (5 * held) / 2 + 24;
}

}  // namespace

int64_t LayerNormPointers::alignment() const {
  uintptr_t bits = 0;
  for (const void* p :
       {x, weight, bias, static_cast<const void*>(y), static_cast<const void*>(mean),
        static_cast<const void*>(rstd), dy, static_cast<const void*>(dx),
        static_cast<const void*>(dweight), static_cast<const void*>(dbias)}) {
    bits |= reinterpret_cast<uintptr_t>(p);
  }
  int64_t a = 1;
  while (a < 16 && (bits & static_cast<uintptr_t>(a)) == 0) a *= 2;
  return a;
}

size_t LayerNormProblemHash::operator()(const ops::LayerNormProblem& p) const {
  // The key spells every field of the problem (DESIGN.md §2).
  return std::hash<std::string>{}(p.key());
}

BooLayerNormArgs make_layernorm_args(const ops::LayerNormProblem& p, const LayerNormPointers& ptrs,
                                     int device, int sm_count) {
  BooLayerNormArgs a{};
  a.rows = p.rows();
  a.cols = p.cols();
  a.parts = p.parts;
  a.affine = p.affine ? 1 : 0;
  a.eps = p.eps;
  a.x = ptrs.x;
  a.weight = p.affine ? ptrs.weight : nullptr;
  a.bias = p.affine ? ptrs.bias : nullptr;
  a.y = ptrs.y;
  a.mean = ptrs.mean;
  a.rstd = ptrs.rstd;
  a.dy = ptrs.dy;
  a.dx = (p.parts & ops::kLayerNormDx) ? ptrs.dx : nullptr;
  a.dweight = (p.parts & ops::kLayerNormDweight) ? ptrs.dweight : nullptr;
  a.dbias = (p.parts & ops::kLayerNormDbias) ? ptrs.dbias : nullptr;
  a.sm_count = sm_count;
  a.device = device;
  return a;
}

double predict_layernorm_us(const ops::LayerNormProblem& p, const LayerNormRowwiseConfig& c,
                            const DeviceModel& d, std::string* why) {
  const int64_t rows = p.rows();
  const int64_t cols = p.cols();
  const int elem = core::dtype_bytes(p.dtype);
  const bool sums = !p.forward() && (p.parts & (ops::kLayerNormDweight | ops::kLayerNormDbias));
  // A backward with column sums keeps a resident grid; register configs whose stages fit run the
  // pipelined kernel there (without column sums, the register kernel).
  const bool persistent = sums;
  const bool pipelined = sums && c.backward_pipelined();
  const bool held = pipelined && c.backward_holds();
  // Residency: blocks per SM from registers (64K per SM), the backward's shared memory, threads
  // (2048) and blocks (32).
  const int64_t by_regs =
      65536 / (static_cast<int64_t>(registers_per_thread(c, pipelined)) * c.block_threads());
  const int64_t smem_bytes = c.backward && persistent ? c.backward_smem_bytes() : 0;
  const int64_t by_smem = smem_bytes > 0 ? (int64_t{228} << 10) / (smem_bytes + 1024) : 32;
  const int64_t per_sm =
      std::max<int64_t>(1, std::min<int64_t>({by_regs, by_smem, 2048 / c.block_threads(), 32}));
  const int64_t groups = (rows + c.rows - 1) / c.rows;
  const int64_t resident = d.sm_count * per_sm;
  // With column sums the grid stays resident, capped so that its workspace rows stay near 10% of
  // the traffic (kernels/layernorm_rowwise.cuh, kSumBudget).
  const double rows_per_block = c.items > 0 ? 1.0 : c.rows;  // workspace rows of a block
  int64_t grid = std::min(groups, resident);
  if (sums) {
    const double budget =
        0.10 * 3.0 * static_cast<double>(rows) * cols * elem / (16.0 * rows_per_block * cols);
    grid = std::min(groups, std::max<int64_t>(d.sm_count, std::min<int64_t>(resident, budget)));
  }
  // Factors (>= 1, slower) measured on an H100 by sweeping every config of the public problems'
  // classes (bench/results/2026-11-23-layernorm-h100.md): the best configs reach the copy
  // bandwidth in the forward. Forward: 16-byte accesses, 2 or 3 items, 4 to 256 threads per row;
  // 8 items cost ~20%, 512 threads with 1 item ~20%. Backward (x and dy in registers, column sums
  // in shared memory): 8-byte accesses, 2 to 4 items, blocks of 512 threads. Pipelined backward
  // (bench/results/2026-11-23-layernorm-bwd-h100.md): blocks of 512 to 1024 threads, any item
  // count up to 4, and 16-byte accesses only on short rows (2 KB rows: 2% faster than 8-byte
  // ones; 8 KB rows: ~20% slower).
  const int access = c.vec * elem;
  const bool fwd = p.forward();
  const double row_kb = static_cast<double>(cols) * elem / 1024.0;
  auto pick = [](int key, std::initializer_list<std::pair<int, double>> table, double other) {
    for (const auto& [k, v] : table) {
      if (k == key) return v;
    }
    return other;
  };
  const double wide_row = std::clamp(std::log2(row_kb / 2.0) / 2.0, 0.0, 1.0);  // 2 to 8 KB
  const double f_width =
      fwd         ? pick(access, {{16, 1.0}, {8, 1.12}, {4, 1.6}, {2, 2.0}}, 2.2)
      : held      ? pick(access, {{8, 1.0}, {16, 1.0 + 0.03 * wide_row}, {4, 1.08}, {2, 1.2}}, 1.5)
      : pipelined ? pick(access, {{8, 1.0}, {16, 0.98 + 0.22 * wide_row}, {4, 1.2}, {2, 1.3}}, 1.5)
                  : pick(access, {{8, 1.0}, {16, 1.08}, {4, 1.2}, {2, 1.3}}, 1.5);
  const double f_items =
      // A stream config walks the row in a loop of dependent passes: ~3% per step of the loop.
      c.items == 0
          ? (fwd ? 1.0 + 0.03 * std::ceil(static_cast<double>(cols) / c.vec / c.threads) : 5.0)
      : fwd  ? pick(c.items, {{1, 1.03}, {2, 1.0}, {3, 1.0}, {4, 1.04}, {5, 1.1}, {6, 1.12}},
                    1.22 + 0.05 * std::max(0, c.items - 8))
      : held ? pick(c.items, {{1, 1.0}, {2, 1.0}, {3, 1.02}, {4, 1.0}, {8, 1.02}, {16, 1.1}}, 1.2)
      : pipelined
          ? pick(c.items, {{1, 1.0}, {2, 1.0}, {3, 1.02}, {4, 1.0}, {8, 1.1}, {16, 1.45}}, 1.3)
          : pick(c.items, {{1, 1.1}, {2, 1.0}, {3, 1.02}, {4, 1.0}, {8, 1.12}}, 1.15);
  const double f_threads =
      fwd ? pick(c.threads, {{1, 1.6}, {2, 1.35}, {512, c.items == 1 ? 1.2 : 1.03}, {1024, 1.25}},
                 1.0)
          : pick(c.threads,
                 {{1, 1.5},
                  {2, 1.3},
                  {4, 1.2},
                  {8, 1.2},
                  {16, 1.15},
                  {32, 1.1},
                  {64, 1.05},
                  {512, 1.08},
                  {1024, 1.3}},
                 1.0);
  // A pipelined backward that holds its rows reads its stage and w once a row instead of twice:
  // against the best config that does not, 8 KB rows 0.88x, 2 KB rows 0.95x; with 256 to 1024
  // threads a block, and at 16 resident warps per SM as fast as at 32
  // (bench/results/2026-11-26-layernorm-bwd-hold-h100.md, every config's sweep).
  const double f_holds = held ? 0.94 - 0.07 * wide_row : 1.0;
  const double f_block = fwd    ? (c.rows > 1 && c.threads >= 128 ? 1.03 : 1.0)
                         : held ? (c.block_threads() >= 256 ? 1.0 : 1.1)
                         : pipelined
                             ? pick(c.block_threads(), {{1024, 1.0}, {512, 1.02}, {256, 1.12}}, 1.2)
                             : pick(c.block_threads(), {{512, 1.0}, {256, 1.05}, {1024, 1.1}}, 1.1);
  // Lanes that hold columns (register configs cover up to twice the row).
  const double lanes =
      c.items > 0 ? static_cast<double>(cols) / c.vec / (static_cast<double>(c.threads) * c.items)
                  : 1.0;
  const double f_lanes = 1.0 / (0.85 + 0.15 * lanes);
  // The backward's blocks wait at each row's sums: fewer than 32 resident warps per SM leave the
  // memory idle meanwhile (16 warps: ~10% slower).
  const double warps =
      std::min<double>(static_cast<double>(per_sm), static_cast<double>(grid) / d.sm_count) *
      c.block_threads() / 32.0;
  const double f_occupancy = fwd || held ? 1.0 : 1.0 + 0.1 * std::max(0.0, (32.0 - warps) / 16.0);
  // Row groups in flight over the GPU and the waves they take: a last partial wave idles SMs.
  const double waves_exact =
      static_cast<double>(groups) / static_cast<double>(persistent ? grid : resident);
  const double waves = std::ceil(waves_exact);
  // (With many waves the next blocks start as others end: no tail to speak of.)
  // (Below one wave every group runs at once: the latency chain below is the bound.)
  const double fill = persistent || waves_exact >= 4.0 || waves_exact <= 1.0
                          ? 1.0
                          : std::max(waves_exact / waves, 0.5);
  const double bytes = static_cast<double>(p.min_bytes());
  const double factor = f_width * f_items * f_threads * f_block * f_lanes * f_occupancy * f_holds;
  const double memory_us = bytes / (d.bandwidth_gbs * 1e3) * factor / fill;
  // A row's latency chain (loads, reductions, stores) bounds a GPU that is not full. The
  // pipelined backward's loads are in flight before the row starts: its chain is the row's sums
  // and stores (bf16 8192x4096 -F 14, v4_t256_r2_i4 held: 31 rows a group in 74 us on an H100).
  const double chain_us = waves * (pipelined ? 0.6 : 1.5 + (c.threads > 32 ? 0.3 : 0.0));
  // The smaller term still counts a little, so that latency-bound ties go to the config that
  // moves the bytes best.
  double us =
      std::max(memory_us, chain_us) + (chain_us > memory_us ? 0.1 * memory_us : 0.0) + d.launch_us;
  if (sums) {
    // The column sums' workspace (written, then read by the second kernel) and its launch.
    const double sum_rows = static_cast<double>(grid) * rows_per_block;
    us += 16.0 * sum_rows * static_cast<double>(cols) / (d.bandwidth_gbs * 1e3) + 1.0;
  }
  if (why != nullptr) {
    char text[256];
    std::snprintf(text, sizeof(text),
                  "%lld blocks/SM, %.0f%% lanes, %d-byte accesses, factor %.2f, %.1f waves, "
                  "%.1f us memory",
                  static_cast<long long>(per_sm), 100.0 * lanes, access, factor, waves_exact,
                  memory_us);
    *why = text;
  }
  return us;
}

LayerNormDispatcher::LayerNormDispatcher(jit::KernelCache& cache, const TuningDb* db,
                                         DeviceModel model, DispatchOptions options)
    : cache_(cache), db_(db), model_(model), options_(std::move(options)) {}

core::Expected<std::vector<LayerNormCandidate>> LayerNormDispatcher::candidates(
    const ops::LayerNormProblem& p, std::vector<std::string>* notes,
    int64_t pointer_alignment) const {
  BOO_RETURN_IF_ERROR(p.validate());
  const int64_t align = clamp_alignment(pointer_alignment);
  const bool backward = !p.forward();
  std::vector<LayerNormCandidate> out;
  auto note = [&](std::string text) {
    if (notes != nullptr) notes->push_back(std::move(text));
  };
  auto fits = [&](const LayerNormRowwiseConfig& c) -> core::Status {
    if (c.dtype != p.dtype || c.backward != backward) {
      return core::invalid_argument(c.name() + " is a " + std::string(core::dtype_name(c.dtype)) +
                                    (c.backward ? " backward" : " forward") + " kernel; " +
                                    p.key() + " needs a " + std::string(core::dtype_name(p.dtype)) +
                                    (backward ? " backward" : " forward") + " one");
    }
    return space::layernorm_rowwise_fits(c, p.cols(), align);
  };
  const std::string& forced = options_.force_config;
  if (!forced.empty()) {
    if (forced.rfind(space::kLayerNormRowwisePrefix, 0) != 0) {
      return core::invalid_argument("--config " + forced + ": not a layernorm.rowwise config");
    }
    BOO_ASSIGN_OR_RETURN(LayerNormRowwiseConfig c, LayerNormRowwiseConfig::parse_name(forced));
    if (core::Status s = fits(c); !s.is_ok()) return core::unsupported("--config " + s.message());
    out.push_back({forced, 0.0, "forced"});
    return out;
  }
  if (db_ != nullptr) {
    const TuningRow* row = db_->find(p.key());
    auto parsed =
        row != nullptr
            ? LayerNormRowwiseConfig::parse_name(row->config)
            : core::Expected<LayerNormRowwiseConfig>(core::unsupported("no tuning DB row"));
    if (row == nullptr) {
      note("tuning DB: no row for this problem");
    } else if (row->algorithm == kLayerNormRowwise && parsed && fits(*parsed).is_ok()) {
      out.push_back({row->config, row->time_us, "tuning DB row"});
    } else {
      note("tuning DB row names " + row->algorithm + " " + row->config +
           ", which does not apply here");
    }
  }
  std::vector<LayerNormCandidate> ranked;
  int valid = 0;
  for (const LayerNormRowwiseConfig& c :
       space::layernorm_rowwise_space(p.dtype, backward, options_.rules)) {
    if (!fits(c).is_ok()) continue;
    ++valid;
    std::string why;
    const double us = predict_layernorm_us(p, c, model_, &why);
    char head[64];
    std::snprintf(head, sizeof(head), "heuristic: predicted %.1f us; ", us);
    ranked.push_back({c.name(), us, head + why});
  }
  note(std::string(kLayerNormRowwise) + ": " + std::to_string(valid) + " configs of the " +
       std::string(space::rule_set_name(options_.rules)) + " rule set fit cols " +
       std::to_string(p.cols()) + " with " + std::to_string(align) + "-byte pointers");
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const LayerNormCandidate& a, const LayerNormCandidate& b) {
                     return a.predicted_us < b.predicted_us;
                   });
  const size_t keep = std::min(ranked.size(), static_cast<size_t>(options_.max_compile_attempts));
  out.insert(out.end(), ranked.begin(), ranked.begin() + static_cast<std::ptrdiff_t>(keep));
  const std::string fallback = space::layernorm_rowwise_fallback(p.dtype, backward).name();
  if (std::none_of(out.begin(), out.end(),
                   [&](const LayerNormCandidate& c) { return c.config == fallback; })) {
    out.push_back({fallback, 0.0, "fallback: any cols and alignment"});
  }
  return out;
}

core::Expected<codegen::KernelSource> LayerNormDispatcher::source(
    const LayerNormCandidate& c) const {
  BOO_ASSIGN_OR_RETURN(LayerNormRowwiseConfig config, LayerNormRowwiseConfig::parse_name(c.config));
  return codegen::layernorm_rowwise_source(config);
}

core::Status LayerNormDispatcher::try_config(const ops::LayerNormProblem& p,
                                             const LayerNormCandidate& c, int64_t pointer_alignment,
                                             LayerNormPlan& plan) {
  BOO_ASSIGN_OR_RETURN(codegen::KernelSource src, source(c));
  BOO_ASSIGN_OR_RETURN(plan.kernel, cache_.get(src));
  if (plan.kernel->kind != BOO_KIND_LAYERNORM) {
    return core::internal_error(c.config + ": the kernel object is not a layer norm kernel");
  }
  const BooLayerNormArgs args = make_layernorm_args(
      p, fake_pointers(p, clamp_alignment(pointer_alignment)), device_, model_.sm_count);
  char why[256] = {0};
  if (plan.kernel->supports(&args, why, sizeof(why)) != BOO_OK) {
    return core::unsupported(c.config + " rejects the problem: " + why);
  }
  plan.workspace_bytes = plan.kernel->workspace(&args);
  if (plan.workspace_bytes < 0) return core::unsupported(c.config + ": no workspace size");
  plan.algorithm = std::string(kLayerNormRowwise);
  plan.config = c.config;
  return core::Status::ok();
}

core::Expected<std::unique_ptr<LayerNormPlan>> LayerNormDispatcher::plan_for(
    const ops::LayerNormProblem& p, const LayerNormCandidate& c, int64_t pointer_alignment) {
  auto plan = std::make_unique<LayerNormPlan>();
  plan->problem = p;
  BOO_RETURN_IF_ERROR(try_config(p, c, clamp_alignment(pointer_alignment), *plan));
  plan->explanation.push_back("chose " + c.config + " (" + c.reason + ")");
  return plan;
}

core::Expected<const LayerNormPlan*> LayerNormDispatcher::plan(const ops::LayerNormProblem& p,
                                                               int64_t pointer_alignment) {
  const int64_t align = clamp_alignment(pointer_alignment);
  auto& plans = plans_[log2_index(align)];
  auto it = plans.find(p);
  if (it != plans.end()) return it->second.get();
  auto plan = std::make_unique<LayerNormPlan>();
  plan->problem = p;
  std::vector<std::string>& why = plan->explanation;
  BOO_ASSIGN_OR_RETURN(std::vector<LayerNormCandidate> list, candidates(p, &why, align));
  core::Status last = core::Status::ok();
  for (const LayerNormCandidate& c : list) {
    last = try_config(p, c, align, *plan);
    if (last.is_ok()) {
      why.push_back("chose " + c.config + " (" + c.reason + ")");
      const LayerNormPlan* out = plan.get();
      plans.emplace(p, std::move(plan));
      return out;
    }
    why.push_back("skipped " + c.config + ": " + last.message());
    warn_if_not_compiled(c.config, last);
    if (!options_.force_config.empty()) return last;
  }
  return core::unavailable("no layer norm kernel could be built for " + p.key() + ": " +
                           last.message());
}

core::Status LayerNormDispatcher::run(const LayerNormPlan& plan, const LayerNormPointers& ptrs,
                                      void* stream, bool dry_run) {
  BooLayerNormArgs args = make_layernorm_args(plan.problem, ptrs, device_, model_.sm_count);
  args.dry_run = dry_run ? 1 : 0;
  void* ws = nullptr;
  if (plan.workspace_bytes > 0) {
    BOO_ASSIGN_OR_RETURN(ws, workspace_.reserve(plan.workspace_bytes));
  }
  return run_kernel(*plan.kernel, &args, ws, plan.workspace_bytes, stream, plan.config);
}

core::Status LayerNormDispatcher::layernorm(const ops::LayerNormProblem& p,
                                            const LayerNormPointers& ptrs, void* stream) {
  BOO_ASSIGN_OR_RETURN(const LayerNormPlan* plan, this->plan(p, ptrs.alignment()));
  return run(*plan, ptrs, stream);
}

}  // namespace boo::dispatch
