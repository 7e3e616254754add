// GPU backend of `boo driver` for layer norms: boo (layer norm dispatch + JIT); the numerics gate
// (§8) against the fp64 CPU reference, plus, for small backward problems, against central
// finite differences of the fp64 forward, and for every backward a second run that must write
// the same bits (deterministic column sums); and the benchmark protocol (§7). There is no vendor
// library for layer norms, so no speedup is printed, and no GPU reference: the reference backend
// is the CPU one, which cmd_driver.cc runs itself when it is asked for alone.
#include <cstdio>
#include <vector>

#include "boo/core/strings.h"
#include "boo/tune/layernorm_operands.h"
#include "command_source.h"
#include "gpu_session.h"

namespace boo::cli {
namespace {

// Output copies above this many elements are not summarized (as for GEMMs and convolutions).
constexpr int64_t kMaxSummaryElements = int64_t{64} << 20;

// "dx, dweight, dbias": the backward outputs a problem asks for.
std::string backward_parts(const ops::LayerNormProblem& p) {
  std::vector<std::string> names;
  for (const tune::LayerNormOutput& o : tune::layernorm_outputs(p)) names.push_back(o.name);
  return core::join(names, ", ");
}

}  // namespace

void GpuSession::run_layernorm(const std::string& source, const ops::LayerNormProblem& p,
                               const std::vector<std::string>& backends, const RunPlan& plan,
                               tune::ResultCsvWriter* csv, Outcome& outcome) {
  Impl& s = *impl_;
  void* stream = s.stream.get();
  auto fail = [&](const core::Status& st) { fail_problem(source, p.key(), st, outcome); };
  if (s.opt.misalign || s.opt.vary_order) {
    return fail(core::invalid_argument(
        "--misalign and --vary-order apply to GEMMs only (this is a layer norm)"));
  }
  for (const std::string& name : backends) {
    if (name == "reference") {
      // The reference of a layer norm is the fp64 CPU one (cmd_driver.cc runs it when it is the
      // only backend); it is no GPU launch to time beside boo's.
      return fail(core::invalid_argument(
          "--backend reference: a layer norm's reference is the fp64 CPU reference, not a GPU "
          "backend: ask for it alone (--backend reference), or check boo against it with -V 1"));
    }
    if (name != "boo") {
      return fail(
          core::invalid_argument("--backend " + name + ": layer norms run on boo or reference"));
    }
  }
  auto operands = tune::LayerNormOperands::create(p, s.opt.seed, stream);
  if (!operands) return fail(operands.status());
  if (core::Status st = s.ensure_context(); !st.is_ok()) return fail(st);
  if (!s.ctx->layernorm) {
    return fail(core::internal_error("the dispatch context has no layer norm dispatcher"));
  }
  dispatch::LayerNormDispatcher* disp = s.ctx->layernorm.get();
  // --top K: boo#1..boo#K time the dispatcher's first K candidates, each its own plan.
  std::vector<std::string> expanded;
  std::vector<dispatch::LayerNormCandidate> swept_candidates;
  std::vector<std::unique_ptr<dispatch::LayerNormPlan>> swept;
  for (const std::string& name : backends) {
    if (name == "boo" && s.opt.top > 1) {
      auto list = disp->candidates(p, nullptr);
      if (!list) return fail(list.status());
      for (size_t i = 0; i < list->size() && i < static_cast<size_t>(s.opt.top); ++i) {
        expanded.push_back("boo#" + std::to_string(i + 1));
        swept_candidates.push_back((*list)[i]);
      }
    } else {
      expanded.push_back(name);
    }
  }
  std::vector<BackendRun> runs;
  for (size_t b = 0; b < expanded.size(); ++b) {
    const std::string& name = expanded[b];
    BackendRun r;
    r.name = name;
    auto out = operands->make_output();
    if (!out) return fail(out.status());
    r.d = std::move(*out);
    const dispatch::LayerNormPointers ptrs = operands->pointers(r.d.data());
    const dispatch::LayerNormPlan* lp = nullptr;
    if (name.rfind("boo#", 0) == 0) {
      auto made = disp->plan_for(p, swept_candidates[b], ptrs.alignment());
      if (!made) {
        std::fprintf(s.out, ">>> %s: %s: %s\n", name.c_str(), swept_candidates[b].config.c_str(),
                     made.status().message().c_str());
        continue;
      }
      swept.push_back(std::move(*made));
      lp = swept.back().get();
    } else {
      auto chosen = disp->plan(p, ptrs.alignment());
      if (!chosen) return fail(chosen.status());
      lp = *chosen;
    }
    r.algorithm = lp->algorithm;
    r.config = lp->config;
    std::fprintf(s.out, ">>> %s: %s %s\n", name.c_str(), lp->algorithm.c_str(), lp->config.c_str());
    if (s.opt.explain) {
      for (const std::string& line : lp->explanation)
        std::fprintf(s.out, ">>>   %s\n", line.c_str());
    }
    r.launch = [disp, lp, ptrs](void* st) { return disp->run(*lp, ptrs, st); };
    // One run into NaN-poisoned outputs: every element of y, mean, rstd (or dx, dweight, dbias)
    // must be written.
    core::Status st = r.d.fill_bytes(0xff, stream);
    if (st.is_ok()) st = r.launch(stream);
    if (st.is_ok()) st = s.stream.synchronize();
    if (!st.is_ok()) return fail(st);
    runs.push_back(std::move(r));
  }
  if (runs.empty()) return fail(core::invalid_argument("no backend to run"));

  // Every output of the first run, as the CPU reference backend prints them.
  if (p.rows() * p.cols() <= kMaxSummaryElements) {
    for (const tune::LayerNormOutput& o : tune::layernorm_outputs(p)) {
      auto values = tune::download_layernorm_output(o, runs.front().d.data());
      if (!values) return fail(values.status());
      const core::TensorDesc& desc = operands->host().output(o.name)->desc;
      std::fprintf(
          s.out, ">>> %s\n",
          describe_output(ops::Problem{p}, o.name, desc.dims, desc.strides, o.dtype, *values)
              .c_str());
    }
  }

  // Runs r again into its poisoned buffer: true when it writes the bits of the first run.
  auto repeat_matches = [&](BackendRun& r) -> core::Expected<bool> {
    std::vector<unsigned char> first(static_cast<size_t>(r.d.bytes()));
    std::vector<unsigned char> second(first.size());
    BOO_RETURN_IF_ERROR(s.stream.synchronize());
    BOO_RETURN_IF_ERROR(r.d.download(first.data(), r.d.bytes()));
    BOO_RETURN_IF_ERROR(r.d.fill_bytes(0xff, stream));
    BOO_RETURN_IF_ERROR(r.launch(stream));
    BOO_RETURN_IF_ERROR(s.stream.synchronize());
    BOO_RETURN_IF_ERROR(r.d.download(second.data(), r.d.bytes()));
    return first == second;
  };
  bool failed = false;
  // A backward check beyond the reference failed for r: the run and the problem's numerics
  // record fail, the record noting why (unless it already says).
  auto fail_check = [&](BackendRun& r, const std::string& note) {
    failed = true;
    r.passed = false;
    if (!outcome.records.empty() && outcome.records.back().key == p.key()) {
      NumericsRecord& rec = outcome.records.back();
      rec.passed = false;
      if (rec.note.empty()) rec.note = note;
    }
  };
  if (plan.verify) {
    auto ref = tune::LayerNormReference::compute(*operands);
    if (!ref) return fail(ref.status());
    for (BackendRun& r : runs) {
      auto each = ref->compare_each(*operands, r.d.data());
      if (!each) return fail(each.status());
      std::string line;
      for (const auto& [name, e] : *each) {
        char buf[96];
        std::snprintf(buf, sizeof(buf), "%s%s %.3e", line.empty() ? "" : ", ", name.c_str(),
                      e.rel_fro);
        line += buf;
      }
      std::fprintf(s.out, ">>> %s: rel error by output: %s\n", r.name.c_str(), line.c_str());
      auto e = ref->compare(*operands, r.d.data());
      if (!e) return fail(e.status());
      r.error = *e;
    }
    failed = judge_runs(
        s, p.key(), runs, "", std::nullopt, ref->name(),
        [&](const reference::ErrorStats& e, const std::optional<reference::ErrorStats>&) {
          return tune::judge_layernorm(p, e, ref->name());
        },
        outcome);
    if (!p.forward()) {
      // The backward's column sums are deterministic (DESIGN.md §3): a second run into a fresh
      // poisoned buffer must write the same bits. (It also runs on the counters the first run
      // left, which must be zero again.)
      for (BackendRun& r : runs) {
        auto again = repeat_matches(r);
        if (!again) return fail(again.status());
        std::fprintf(s.out, ">>> repeat %s: %s\n", r.name.c_str(),
                     *again ? "PASS: a second run wrote the same bits"
                            : "FAIL: a second run wrote different bits");
        if (!*again) fail_check(r, "a second run wrote different bits");
      }
      // Independent of the reference's analytic backward: the gradient of sum(y * dy) itself.
      for (BackendRun& r : runs) {
        auto fd = tune::layernorm_finite_difference_error(*operands, r.d.data());
        if (!fd && fd.status().code() == core::StatusCode::kResourceLimit) {
          std::fprintf(s.out, ">>> finite differences: not checked (%s)\n",
                       fd.status().message().c_str());
          continue;
        }
        if (!fd) return fail(fd.status());
        const tune::Numerics n = tune::judge_layernorm(p, *fd, "central differences");
        std::fprintf(s.out,
                     ">>> finite differences: %s: rel error %.3e (%s against central differences "
                     "of the fp64 forward)\n",
                     n.passed ? "PASS" : "FAIL", fd->rel_fro, backward_parts(p).c_str());
        if (!n.passed) {
          std::fprintf(s.out, ">>>   %s\n", n.verdict.c_str());
          fail_check(r, "finite differences: " + n.verdict);
        }
      }
    }
  }
  // No vendor: report_runs finds no run named "" and prints no speedup.
  finish_problem(s, source, ops::Problem{p}, runs, "", plan, csv, failed, outcome);
}

}  // namespace boo::cli
