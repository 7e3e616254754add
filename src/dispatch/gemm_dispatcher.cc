#include "boo/dispatch/gemm_dispatcher.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "boo/core/hash.h"
#include "boo/core/log.h"
#include "boo/space/gemm_class.h"
#include "kernel_run.h"

namespace boo::dispatch {

size_t GemmProblemHash::operator()(const ops::GemmProblem& p) const {
  // Every field that changes the problem, as raw bytes (call_count is a weight; its equality
  // is still checked by operator==).
  const int64_t ints[] = {p.m,   p.n,     p.k,        p.lda,      p.ldb,      p.ldc,
                          p.ldd, p.batch, p.stride_a, p.stride_b, p.stride_c, p.stride_d};
  uint64_t h = core::fnv1a64(std::string_view(reinterpret_cast<const char*>(ints), sizeof(ints)));
  const double reals[] = {p.alpha, p.beta};
  h = core::fnv1a64(std::string_view(reinterpret_cast<const char*>(reals), sizeof(reals)), h);
  const uint8_t small[] = {static_cast<uint8_t>(p.trans_a),      static_cast<uint8_t>(p.trans_b),
                           static_cast<uint8_t>(p.a_type),       static_cast<uint8_t>(p.b_type),
                           static_cast<uint8_t>(p.c_type),       static_cast<uint8_t>(p.d_type),
                           static_cast<uint8_t>(p.math),         static_cast<uint8_t>(p.scale_a),
                           static_cast<uint8_t>(p.scale_b),      static_cast<uint8_t>(p.bias),
                           static_cast<uint8_t>(p.bias_type),    static_cast<uint8_t>(p.activation),
                           static_cast<uint8_t>(p.alpha_vector), static_cast<uint8_t>(p.b_windows)};
  return core::fnv1a64(std::string_view(reinterpret_cast<const char*>(small), sizeof(small)), h);
}

bool GemmPointers::aligned_16() const {
  for (const void* p : {a, b, c, static_cast<const void*>(d), bias}) {
    if (reinterpret_cast<uintptr_t>(p) % 16 != 0) return false;
  }
  return true;
}

BooGemmArgs make_gemm_args(const GemmPlan& plan, const GemmPointers& ptrs, int device,
                           int sm_count) {
  const ops::GemmProblem& p = plan.problem;
  BooGemmArgs a{};
  a.m = p.m;
  a.n = p.n;
  a.k = p.k;
  a.batch = p.batch;
  a.a = ptrs.a;
  a.b = ptrs.b;
  a.c = ptrs.c;
  a.d = ptrs.d;
  a.bias = ptrs.bias;
  a.alpha_scale = ptrs.alpha_scale;
  a.alpha_vector = ptrs.alpha_vector;
  a.lda = p.lda;
  a.ldb = p.ldb;
  a.ldc = p.ldc;
  a.ldd = p.ldd;
  a.stride_a = p.stride_a;
  a.stride_b = p.stride_b;
  a.stride_c = p.stride_c;
  a.stride_d = p.stride_d;
  a.alpha = static_cast<float>(p.alpha);
  a.beta = static_cast<float>(p.beta);
  a.trans_a = p.trans_a == ops::Transpose::kT;
  a.trans_b = p.trans_b == ops::Transpose::kT;
  a.splits = plan.splits;
  a.swizzle = plan.swizzle;
  a.raster = plan.raster;
  a.sm_count = sm_count;
  a.device = device;
  return a;
}

GemmDispatcher::GemmDispatcher(jit::KernelCache& cache, const TuningDb* db, DeviceModel model,
                               DispatchOptions options)
    : cache_(cache), db_(db), model_(model), options_(std::move(options)) {
  algorithms_.push_back(make_gemm_sm90());
  algorithms_.push_back(make_gemm_sm90_unaligned());
  algorithms_.push_back(make_gemm_skinny());
  algorithms_.push_back(make_gemm_fallback());
}

core::Status GemmDispatcher::try_candidate(const ops::GemmProblem& p, const GemmAlgorithm& algo,
                                           const std::string& config, GemmPlan& plan,
                                           bool aligned_pointers) {
  BOO_ASSIGN_OR_RETURN(codegen::KernelSource src, algo.source(config));
  BOO_ASSIGN_OR_RETURN(plan.kernel, cache_.get(src));
  plan.algorithm = std::string(algo.name());
  plan.config = config;
  const GemmAlgorithm::LaunchOrder order = algo.launch_order(config);
  plan.splits = order.splits;
  plan.swizzle = order.swizzle;
  plan.raster = order.raster;
  plan.problem = p;
  // Shapes and leading dimensions are checked now with stand-in pointers, 256-byte aligned or
  // (for misaligned operands) one element past that; the real pointers are checked at launch.
  GemmPointers fake;
  char* base = reinterpret_cast<char*>(uintptr_t{1} << 20);
  auto at = [&](core::DType t) { return base + (aligned_pointers ? 0 : core::dtype_bytes(t)); };
  fake.a = at(p.a_type);
  fake.b = at(p.b_type);
  fake.c = p.reads_c() ? at(p.c_type) : nullptr;
  fake.d = at(p.d_type);
  fake.bias = p.bias ? at(p.bias_type) : nullptr;
  fake.alpha_vector = p.alpha_vector ? reinterpret_cast<const float*>(base) : nullptr;
  fake.alpha_scale = p.scale_a != ops::ScaleMode::kNone || p.scale_b != ops::ScaleMode::kNone
                         ? reinterpret_cast<const float*>(base)
                         : nullptr;
  const BooGemmArgs args = make_gemm_args(plan, fake, device_, model_.sm_count);
  char why[256] = {0};
  if (plan.kernel->supports(&args, why, sizeof(why)) != BOO_OK) {
    return core::unsupported(config + " rejects the problem: " + why);
  }
  plan.workspace_bytes = plan.kernel->workspace(&args);
  if (plan.workspace_bytes < 0) return core::unsupported(config + ": no workspace size");
  return core::Status::ok();
}

const GemmAlgorithm* GemmDispatcher::algorithm_named(std::string_view name) const {
  for (const auto& a : algorithms_) {
    if (a->name() == name) return a.get();
  }
  return nullptr;
}

bool long_accumulation(const ops::GemmProblem& p, int64_t chain) {
  const bool narrow_operands = core::dtype_bytes(p.a_type) < 4 && core::dtype_bytes(p.b_type) < 4;
  return narrow_operands && p.d_type == core::DType::kF32 && chain > kMaxExactAccumulation;
}

void note_long_accumulation(const ops::GemmProblem& p, int64_t chain, Candidate& cand) {
  if (!long_accumulation(p, chain)) return;
  cand.long_chain = true;
  cand.why += "; K " + std::to_string(chain) +
              " in one fp32 accumulator, which shows in an fp32 output: ranked after shorter ones";
}

void sort_candidates(std::vector<Candidate>* candidates) {
  std::stable_sort(candidates->begin(), candidates->end(),
                   [](const Candidate& a, const Candidate& b) {
                     if (a.long_chain != b.long_chain) return b.long_chain;
                     return a.predicted_us < b.predicted_us;
                   });
}

namespace {

// Every config name is "<algorithm>_<class>" or "<algorithm>_<class>_<rest>": a config of
// another class (other types, transposes or epilogue) would compute something else.
core::Status check_config_class(const GemmAlgorithm& algo, const std::string& config,
                                const ops::GemmProblem& p) {
  const std::string cls = space::gemm_class_of(p).name();
  const std::string prefix = std::string(algo.name()) + "_" + cls;
  if (config.rfind(prefix, 0) == 0 &&
      (config.size() == prefix.size() || config[prefix.size()] == '_')) {
    return core::Status::ok();
  }
  return core::invalid_argument(config + " is not a config of this problem's class " + cls +
                                " (expected a name starting with " + prefix + ")");
}

}  // namespace

core::Expected<std::vector<GemmCandidate>> GemmDispatcher::candidates(
    const ops::GemmProblem& p, std::vector<std::string>* notes, bool aligned_pointers) const {
  BOO_RETURN_IF_ERROR(p.validate());
  std::vector<GemmCandidate> out;
  auto note = [&](std::string text) {
    if (notes != nullptr) notes->push_back(std::move(text));
  };
  auto supports = [&](const GemmAlgorithm& algo) {
    return aligned_pointers ? algo.supports(p) : algo.supports_misaligned(p);
  };
  if (!aligned_pointers) note("operand pointers are not all 16-byte aligned");
  if (!options_.force_config.empty()) {
    // The algorithm with the longest name the config starts with ("gemm.sm90_unaligned_..."
    // also starts with "gemm.sm90_").
    const GemmAlgorithm* named = nullptr;
    for (const auto& algo : algorithms_) {
      if (options_.force_config.rfind(std::string(algo->name()) + "_", 0) != 0) continue;
      if (named == nullptr || algo->name().size() > named->name().size()) named = algo.get();
    }
    for (const auto& algo : algorithms_) {
      if (algo.get() != named) continue;
      const core::Status s = supports(*algo);
      if (!s.is_ok())
        return core::unsupported("--config " + options_.force_config + ": " + s.message());
      if (core::Status c = check_config_class(*algo, options_.force_config, p); !c.is_ok()) {
        return core::invalid_argument("--config " + c.message());
      }
      // A misspelt name (say, without the launch order `_sw1.rh`) is the user's error, here,
      // not a problem left without a kernel later.
      if (auto src = algo->source(options_.force_config); !src) {
        return core::invalid_argument("--config " + src.status().message());
      }
      out.push_back({algo.get(), options_.force_config, "forced"});
      return out;
    }
    return core::invalid_argument("--config " + options_.force_config +
                                  ": no algorithm has configs named like this");
  }
  if (db_ != nullptr) {
    if (const TuningRow* row = db_->find(p.key())) {
      const GemmAlgorithm* algo = algorithm_named(row->algorithm);
      if (algo != nullptr && supports(*algo).is_ok() &&
          check_config_class(*algo, row->config, p).is_ok()) {
        out.push_back({algo, row->config, "tuning DB row"});
      } else {
        note("tuning DB row names " + row->algorithm + ", which does not apply here");
      }
    } else {
      note("tuning DB: no row for this problem");
    }
  }
  std::vector<Candidate> ranked;
  for (const auto& algo : algorithms_) {
    if (algo->name() == "gemm.fallback") continue;
    const core::Status s = supports(*algo);
    if (!s.is_ok()) {
      note(std::string(algo->name()) + " does not apply: " + s.message());
      continue;
    }
    std::vector<Candidate> c = algo->rank(p, model_, options_.rules);
    note(std::string(algo->name()) + ": " + std::to_string(c.size()) + " valid configs in the " +
         std::string(space::rule_set_name(options_.rules)) + " rule set");
    ranked.insert(ranked.end(), c.begin(), c.end());
  }
  sort_candidates(&ranked);
  for (size_t i = 0; i < ranked.size() && static_cast<int>(i) < options_.max_compile_attempts;
       ++i) {
    char model[64];
    std::snprintf(model, sizeof(model), "heuristic: predicted %.1f us; ", ranked[i].predicted_us);
    out.push_back({algorithm_named(ranked[i].algorithm), ranked[i].config, model + ranked[i].why,
                   ranked[i].predicted_us});
  }
  const GemmAlgorithm* fallback = algorithm_named("gemm.fallback");
  out.push_back({fallback, fallback->rank(p, model_, options_.rules).front().config,
                 "fallback: always correct"});
  return out;
}

core::Expected<std::unique_ptr<GemmPlan>> GemmDispatcher::choose(const ops::GemmProblem& p,
                                                                 bool aligned_pointers) {
  auto plan = std::make_unique<GemmPlan>();
  std::vector<std::string>& why = plan->explanation;
  BOO_ASSIGN_OR_RETURN(std::vector<GemmCandidate> list, candidates(p, &why, aligned_pointers));
  for (const GemmCandidate& c : list) {
    const core::Status s = try_candidate(p, *c.algorithm, c.config, *plan, aligned_pointers);
    if (s.is_ok()) {
      why.push_back("chose " + c.config + " (" + c.reason + ")");
      return plan;
    }
    why.push_back("skipped " + c.config + ": " + s.message());
    warn_if_not_compiled(c.config, s);
    if (!options_.force_config.empty()) return s;
  }
  return core::unavailable("no GEMM kernel could be built for " + p.key() + ": " + why.back());
}

core::Expected<std::unique_ptr<GemmPlan>> GemmDispatcher::plan_for(const ops::GemmProblem& p,
                                                                   const GemmCandidate& c) {
  auto plan = std::make_unique<GemmPlan>();
  BOO_RETURN_IF_ERROR(try_candidate(p, *c.algorithm, c.config, *plan));
  plan->explanation.push_back(c.reason);
  return plan;
}

core::Expected<const GemmPlan*> GemmDispatcher::plan(const ops::GemmProblem& p,
                                                     bool aligned_pointers) {
  auto& plans = aligned_pointers ? plans_ : misaligned_plans_;
  auto it = plans.find(p);
  if (it != plans.end()) return it->second.get();
  BOO_ASSIGN_OR_RETURN(std::unique_ptr<GemmPlan> plan, choose(p, aligned_pointers));
  const GemmPlan* out = plan.get();
  plans.emplace(p, std::move(plan));
  return out;
}

core::Status GemmDispatcher::run(const GemmPlan& plan, const GemmPointers& ptrs, void* stream,
                                 bool dry_run) {
  BooGemmArgs args = make_gemm_args(plan, ptrs, device_, model_.sm_count);
  args.dry_run = dry_run ? 1 : 0;
  void* ws = nullptr;
  if (plan.workspace_bytes > 0) {
    BOO_ASSIGN_OR_RETURN(ws, workspace_.reserve(plan.workspace_bytes));
  }
  if (!dry_run) {
    BOO_ASSIGN_OR_RETURN(args.semaphores, workspace_.semaphores(BOO_SEMAPHORE_COUNT));
  }
  return run_kernel(*plan.kernel, &args, ws, plan.workspace_bytes, stream, plan.config);
}

core::Status GemmDispatcher::gemm(const ops::GemmProblem& p, const GemmPointers& ptrs, void* stream,
                                  bool dry_run) {
  BOO_ASSIGN_OR_RETURN(const GemmPlan* plan, this->plan(p, ptrs.aligned_16()));
  return run(*plan, ptrs, stream, dry_run);
}

}  // namespace boo::dispatch
