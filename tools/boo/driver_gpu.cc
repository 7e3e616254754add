// GPU backends of `boo driver` for GEMM problems: boo (dispatch + JIT), cuBLASLt at its best,
// and the reference; the numerics gate (§8) and the benchmark protocol (§7).
#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>

#include "boo/reference/gpu_reference.h"
#include "boo/tune/bench.h"
#include "boo/tune/gemm_operands.h"
#include "boo/tune/stats.h"
#include "command_source.h"
#include "driver.h"
#include "gpu_session.h"

namespace boo::cli {

core::Expected<std::unique_ptr<GpuSession>> GpuSession::create(const DriverOptions& opt,
                                                               const runtime::DeviceInfo& device) {
  auto s = std::unique_ptr<GpuSession>(new GpuSession());
  s->impl_ = std::make_unique<Impl>();
  s->impl_->opt = opt;
  s->impl_->device_name = device.name;
  s->impl_->sm_count = device.sm_count;
  BOO_ASSIGN_OR_RETURN(s->impl_->stream, runtime::Stream::create());
  if (device.l2_bytes > 0) s->impl_->l2_bytes = device.l2_bytes;
  return s;
}

GpuSession::~GpuSession() = default;

void GpuSession::set_output(std::FILE* out) { impl_->out = out; }

NumericsRecord numerics_record(const std::string& key, const std::vector<BackendRun>& runs,
                               const std::string& vendor, const std::string& verdict) {
  NumericsRecord rec;
  rec.key = key;
  for (const BackendRun& r : runs) {
    if (r.name == vendor && r.error) rec.vendor_error = r.error->rel_fro;
  }
  for (const BackendRun& r : runs) {
    if (r.name.rfind("boo", 0) != 0) continue;
    rec.algorithm = r.algorithm;
    rec.config = r.config;
    if (r.error) rec.error = r.error->rel_fro;
    rec.passed = r.passed.value_or(false);
    rec.note = rec.passed ? "" : verdict;
    break;
  }
  return rec;
}

core::Status GpuSession::Impl::ensure_context() {
  if (ctx) return core::Status::ok();
  dispatch::DispatchOptions d;
  d.force_config = opt.config;
  d.max_compile_attempts = std::max(3, opt.top);
  BOO_ASSIGN_OR_RETURN(d.rules, space::parse_rule_set(opt.rule_set));
  BOO_ASSIGN_OR_RETURN(ctx, dispatch::Context::create(d, sm_count));
  return core::Status::ok();
}

core::Status GpuSession::Impl::ensure_timing() {
  if (!flusher) {
    BOO_ASSIGN_OR_RETURN(
        auto f, tune::L2Flusher::create(l2_bytes, opt.flush == "write" ? tune::FlushMode::kWrite
                                                                       : tune::FlushMode::kRead));
    flusher.emplace(std::move(f));
    std::fprintf(stderr, "boo: cold L2 before each sample: %s a buffer of 2x L2\n",
                 opt.flush == "write" ? "write (fill)" : "read");
  }
  if (!ceilings) {
    std::string report;
    BOO_ASSIGN_OR_RETURN(ops::Ceilings c, tune::measure_ceilings(stream.get(), &report));
    ceilings = c;
    std::fprintf(stderr, "boo: %s\n", report.c_str());
  }
  return core::Status::ok();
}

bool judge_runs(GpuSession::Impl& s, const std::string& key, std::vector<BackendRun>& runs,
                const std::string& vendor, const std::optional<reference::ErrorStats>& vendor_error,
                const std::string& reference, const Judge& judge, Outcome& outcome) {
  bool failed = false;
  std::string boo_verdict;
  for (BackendRun& r : runs) {
    if (!r.error) continue;
    const bool boo = r.name.rfind("boo", 0) == 0;
    const tune::Numerics n = judge(*r.error, boo ? vendor_error : std::nullopt);
    r.passed = n.passed;
    std::fprintf(s.out, ">>> verify %s: %s: rel_error=%.3e max_abs=%.3e (reference %s)\n",
                 r.name.c_str(), n.passed ? "PASS" : "FAIL", r.error->rel_fro, r.error->max_abs,
                 reference.c_str());
    if (!n.passed) {
      std::fprintf(s.out, ">>>   %s\n", n.verdict.c_str());
      failed = true;
    }
    if (boo && boo_verdict.empty()) boo_verdict = n.verdict;
  }
  outcome.records.push_back(numerics_record(key, runs, vendor, boo_verdict));
  return failed;
}

void finish_problem(GpuSession::Impl& s, const std::string& source, const ops::Problem& p,
                    std::vector<BackendRun>& runs, const std::string& vendor, const RunPlan& plan,
                    tune::ResultCsvWriter* csv, bool failed, Outcome& outcome) {
  if (!report_runs(s, source, p, runs, vendor, plan, csv) || failed) {
    ++outcome.failed;
  } else {
    ++outcome.ran;
  }
}

void fail_problem(const std::string& source, const std::string& key, const core::Status& st,
                  Outcome& outcome) {
  print_error(source, st);
  ++outcome.failed;
  NumericsRecord rec;
  rec.key = key;
  rec.note = st.message();
  outcome.records.push_back(std::move(rec));
}

bool report_runs(GpuSession::Impl& s, const std::string& source, const ops::Problem& p,
                 std::vector<BackendRun>& runs, const std::string& vendor_name, const RunPlan& plan,
                 tune::ResultCsvWriter* csv) {
  void* stream = s.stream.get();
  auto fail = [&](const core::Status& st) {
    print_error(source, st);
    return false;
  };
  if (plan.time) {
    if (core::Status st = s.ensure_timing(); !st.is_ok()) return fail(st);
    std::vector<tune::Launch> launches;
    for (const BackendRun& r : runs) launches.push_back(r.launch);
    tune::TimingOptions topt;
    topt.samples = static_cast<int>(std::max<int64_t>(50, plan.iter));
    topt.hold_us = s.opt.hold_us;
    auto samples = tune::time_interleaved(launches, stream, &*s.flusher, topt);
    if (!samples) return fail(samples.status());
    const double floor = ops::floor_us(p, *s.ceilings);
    const BackendRun* vendor = nullptr;
    for (size_t i = 0; i < runs.size(); ++i) {
      runs[i].timing = tune::timing_stats((*samples)[i]);
      if (runs[i].name == vendor_name) vendor = &runs[i];
      if (runs[i].timing.median_us < 20.0) {
        auto g = tune::time_in_graph(runs[i].launch, stream);
        if (g) runs[i].graph_us = *g;
      }
    }
    for (const BackendRun& r : runs) {
      std::fprintf(
          s.out, ">>> %s%s  (floor %.2fus, %.0f%% of floor%s)\n",
          runs.size() > 1 ? (r.name + ": ").c_str() : "", tune::format_timing(r.timing).c_str(),
          floor, 100.0 * floor / r.timing.median_us,
          r.graph_us ? (", graph " + std::to_string(*r.graph_us).substr(0, 6) + "us").c_str() : "");
    }
    if (vendor != nullptr) {
      for (const BackendRun& r : runs) {
        if (&r == vendor || r.name == "reference") continue;
        std::fprintf(s.out, ">>> speedup %s vs %s: %.3fx\n", r.name.c_str(), vendor_name.c_str(),
                     vendor->timing.median_us / r.timing.median_us);
      }
    }
  }

  if (csv != nullptr) {
    for (const BackendRun& r : runs) {
      tune::ResultRow row =
          csv_row(p, r.name, s.ceilings ? *s.ceilings : ops::Ceilings::h100_sxm_datasheet());
      row.algorithm = r.algorithm;
      row.config = r.config;
      row.median_us = r.timing.median_us;
      row.min_us = r.timing.min_us;
      row.max_us = r.timing.max_us;
      if (r.error) row.rel_error = r.error->rel_fro;
      row.passed = r.passed;
      row.device = s.device_name;
      if (core::Status st = csv->write(row); !st.is_ok()) return fail(st);
    }
  }
  return true;
}

// --misalign: copies of the operands one element past a 16-byte boundary, and the output
// written there (copied back into the run's aligned D for the comparison).
struct MisalignedOperands {
  runtime::DeviceBuffer a, b, c, bias, d;
  dispatch::GemmPointers ptrs;
  int64_t d_offset = 0, d_bytes = 0;
};

core::Expected<char*> copy_past_boundary(const runtime::DeviceBuffer& src, int64_t offset,
                                         runtime::DeviceBuffer& dst, void* stream) {
  if (src.data() == nullptr) return nullptr;
  BOO_ASSIGN_OR_RETURN(dst, runtime::DeviceBuffer::allocate(src.bytes() + 16));
  char* at = static_cast<char*>(dst.data()) + offset;
  BOO_RETURN_IF_ERROR(runtime::cuda_status(
      cudaMemcpyAsync(at, src.data(), static_cast<size_t>(src.bytes()), cudaMemcpyDeviceToDevice,
                      static_cast<cudaStream_t>(stream)),
      "cudaMemcpyAsync"));
  return at;
}

namespace {

core::Expected<std::shared_ptr<MisalignedOperands>> misalign(const ops::GemmProblem& p,
                                                             const tune::GemmOperands& o,
                                                             const runtime::DeviceBuffer& d,
                                                             void* stream) {
  auto m = std::make_shared<MisalignedOperands>();
  m->ptrs = o.pointers(nullptr);
  auto shift = [&](const runtime::DeviceBuffer& src, core::DType t, runtime::DeviceBuffer& dst,
                   const void** ptr) -> core::Status {
    BOO_ASSIGN_OR_RETURN(char* at, copy_past_boundary(src, core::dtype_bytes(t), dst, stream));
    if (at != nullptr) *ptr = at;
    return core::Status::ok();
  };
  BOO_RETURN_IF_ERROR(shift(o.a(), p.a_type, m->a, &m->ptrs.a));
  BOO_RETURN_IF_ERROR(shift(o.b(), p.b_type, m->b, &m->ptrs.b));
  BOO_RETURN_IF_ERROR(shift(o.c(), p.c_type, m->c, &m->ptrs.c));
  BOO_RETURN_IF_ERROR(shift(o.bias(), p.bias_type, m->bias, &m->ptrs.bias));
  m->d_offset = core::dtype_bytes(p.d_type);
  m->d_bytes = d.bytes();
  BOO_ASSIGN_OR_RETURN(m->d, runtime::DeviceBuffer::allocate(d.bytes() + 16));
  m->ptrs.d = static_cast<char*>(m->d.data()) + m->d_offset;
  return m;
}

// A host copy of D's M x N x batch values (nothing for outputs above 64 M elements).
std::vector<double> download_d(const ops::GemmProblem& p, const runtime::DeviceBuffer& d) {
  if (p.m * p.n * p.batch > (int64_t{64} << 20)) return {};
  auto values = tune::download_gemm_output(p, d.data());
  return values.has_value() ? std::move(*values) : std::vector<double>{};
}

}  // namespace

void GpuSession::run_gemm(const std::string& source, const ops::GemmProblem& p,
                          const std::vector<std::string>& backends, const RunPlan& plan,
                          tune::ResultCsvWriter* csv, Outcome& outcome) {
  Impl& s = *impl_;
  void* stream = s.stream.get();
  auto fail = [&](const core::Status& st) { fail_problem(source, p.key(), st, outcome); };
  auto operands = tune::GemmOperands::create(p, s.opt.seed, stream);
  if (!operands) return fail(operands.status());
  std::vector<BackendRun> runs;
  runtime::DeviceBuffer ref_out;                           // fp32 output of the reference backend
  std::vector<std::unique_ptr<dispatch::GemmPlan>> swept;  // --top: plans outside the cache
  std::vector<std::string> expanded;
  for (const std::string& name : backends) {
    if (name == "boo" && s.opt.vary_order) {
      // boo@sw<N>.r<h|m|n>: the chosen config under each launch order (no recompile).
      for (const char* sw : {"1", "2", "4", "8"}) {
        for (const char* r : {"rh", "rm", "rn"}) {
          expanded.push_back(std::string("boo@sw") + sw + "." + r);
        }
      }
    } else if (name == "boo" && s.opt.top > 1) {
      for (int i = 1; i <= s.opt.top; ++i) expanded.push_back("boo#" + std::to_string(i));
    } else {
      expanded.push_back(name);
    }
  }
  for (const std::string& name : expanded) {
    BackendRun r;
    r.name = name;
    auto d = operands->make_output();
    if (!d) return fail(d.status());
    r.d = std::move(*d);
    const dispatch::GemmPointers ptrs = operands->pointers(r.d.data());
    if (name.rfind("boo", 0) == 0) {
      if (core::Status st = s.ensure_context(); !st.is_ok()) return fail(st);
      const dispatch::GemmPlan* gp = nullptr;
      if (name == "boo" && s.opt.misalign) {
        auto m = misalign(p, *operands, r.d, stream);
        if (!m) return fail(m.status());
        r.misaligned = *m;
        auto chosen = s.ctx->gemm->plan(p, r.misaligned->ptrs.aligned_16());
        if (!chosen) return fail(chosen.status());
        gp = *chosen;
      } else if (name == "boo") {
        auto chosen = s.ctx->gemm->plan(p);
        if (!chosen) return fail(chosen.status());
        gp = *chosen;
      } else if (name.rfind("boo@", 0) == 0) {
        auto chosen = s.ctx->gemm->plan(p);
        if (!chosen) return fail(chosen.status());
        const std::string& base = (*chosen)->config;
        const size_t at = base.rfind("_sw");
        if ((*chosen)->algorithm != "gemm.sm90" || at == std::string::npos) continue;
        dispatch::GemmCandidate c;
        for (const auto& a : s.ctx->gemm->algorithms()) {
          if (a->name() == "gemm.sm90") c.algorithm = a.get();
        }
        c.config = base.substr(0, at) + "_" + name.substr(4);
        c.reason = "launch-order variant";
        auto made = s.ctx->gemm->plan_for(p, c);
        if (!made) {
          std::fprintf(s.out, ">>> %s: unavailable: %s\n", name.c_str(),
                       made.status().message().c_str());
          continue;
        }
        swept.push_back(std::move(*made));
        gp = swept.back().get();
      } else {
        // boo#i: the i-th candidate of dispatch's list (sweeps compare the heuristic's ranks).
        const size_t rank = std::stoul(name.substr(4)) - 1;
        auto list = s.ctx->gemm->candidates(p, nullptr);
        if (!list) return fail(list.status());
        if (rank >= list->size()) continue;
        auto made = s.ctx->gemm->plan_for(p, (*list)[rank]);
        if (!made) {
          std::fprintf(s.out, ">>> %s: unavailable: %s\n", name.c_str(),
                       made.status().message().c_str());
          continue;
        }
        swept.push_back(std::move(*made));
        gp = swept.back().get();
      }
      r.algorithm = gp->algorithm;
      r.config = gp->config;
      std::fprintf(s.out, ">>> %s: %s %s\n", name.c_str(), gp->algorithm.c_str(),
                   gp->config.c_str());
      if (s.opt.explain) {
        for (const std::string& line : gp->explanation)
          std::fprintf(s.out, ">>>   %s\n", line.c_str());
      }
      dispatch::GemmDispatcher* disp = s.ctx->gemm.get();
      const dispatch::GemmPointers used = r.misaligned ? r.misaligned->ptrs : ptrs;
      r.launch = [disp, gp, used](void* st) { return disp->run(*gp, used, st); };
    } else if (name == "cublaslt") {
      if (!s.lt) {
        auto lt = reference::CublasLtGemm::create();
        if (!lt) return fail(lt.status());
        s.lt = std::move(*lt);
      }
      if (core::Status st = s.lt->prepare(p, ptrs, stream); !st.is_ok()) {
        // A baseline cuBLASLt cannot express is reported, not a failure of boo's run.
        if (backends.size() == 1) return fail(st);
        std::fprintf(s.out, ">>> cublaslt: unavailable for this problem: %s\n",
                     st.message().c_str());
        continue;
      }
      r.algorithm = "cublaslt";
      r.config = s.lt->description();
      std::fprintf(s.out, ">>> cublaslt: %s\n", r.config.c_str());
      reference::CublasLtGemm* lt = s.lt.get();
      r.launch = [lt, ptrs](void* st) { return lt->run(ptrs, st); };
    } else if (name != "reference") {
      return fail(core::invalid_argument("--backend " + name +
                                         ": GEMMs run on boo, cublaslt or reference"));
    } else {  // reference: the fp32-accumulating GPU GEMM
      auto out = runtime::DeviceBuffer::allocate(p.m * p.n * p.batch * 4);
      if (!out) return fail(out.status());
      ref_out = std::move(*out);
      reference::gpu::GemmRefPointers in;
      in.a = ptrs.a;
      in.b = ptrs.b;
      in.c = ptrs.c;
      in.bias = ptrs.bias;
      in.alpha_vector = ptrs.alpha_vector;
      in.scale = operands->scale();
      float* dst = static_cast<float*>(ref_out.data());
      r.algorithm = "reference.gpu";
      r.config = "fp32-acc";
      r.launch = [p, in, dst](void* st) { return reference::gpu::gemm_reference(p, in, dst, st); };
    }
    // One run into NaN-poisoned output: every element must be written.
    core::Status st = r.d.fill_bytes(0xff, stream);
    if (st.is_ok() && r.misaligned) st = r.misaligned->d.fill_bytes(0xff, stream);
    if (st.is_ok()) st = r.launch(stream);
    if (st.is_ok() && r.misaligned) {
      const MisalignedOperands& m = *r.misaligned;
      st = runtime::cuda_status(
          cudaMemcpyAsync(r.d.data(), static_cast<const char*>(m.d.data()) + m.d_offset,
                          static_cast<size_t>(m.d_bytes), cudaMemcpyDeviceToDevice,
                          static_cast<cudaStream_t>(stream)),
          "cudaMemcpyAsync");
    }
    if (st.is_ok()) st = s.stream.synchronize();
    if (!st.is_ok()) return fail(st);
    runs.push_back(std::move(r));
  }

  const BackendRun& first = runs.front();
  if (first.name != "reference") {
    const std::vector<double> values = download_d(p, first.d);
    std::fprintf(s.out, ">>> %s\n",
                 describe_output(ops::Problem{p}, "D", {}, {}, p.d_type, values).c_str());
  }

  bool failed = false;
  if (plan.verify) {
    auto ref = tune::GemmReference::compute(*operands, stream, s.opt.cpu_max_gflop * 1e9);
    if (!ref) return fail(ref.status());
    std::optional<reference::ErrorStats> vendor;
    for (BackendRun& r : runs) {
      if (r.name == "reference") continue;
      auto e = ref->compare(*operands, r.d.data(), stream);
      if (!e) return fail(e.status());
      r.error = *e;
      if (r.name == "cublaslt") vendor = *e;
    }
    failed = judge_runs(
        s, p.key(), runs, "cublaslt", vendor, ref->name(),
        [&](const reference::ErrorStats& e, const std::optional<reference::ErrorStats>& v) {
          return tune::judge_gemm(p, e, v, ref->name());
        },
        outcome);
  }
  finish_problem(s, source, ops::Problem{p}, runs, "cublaslt", plan, csv, failed, outcome);
}

}  // namespace boo::cli
