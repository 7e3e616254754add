// GPU backends of `boo driver` for convolutions: boo (convolution dispatch + JIT), cuDNN at its
// best, and the GPU reference; the numerics gate (§8) and the benchmark protocol (§7).
#include <cuda_runtime_api.h>

#include <cstdio>
#include <memory>

#include "boo/reference/gpu_reference.h"
#include "boo/tune/conv_operands.h"
#include "command_source.h"
#include "gpu_session.h"

namespace boo::cli {
namespace {

// The fp32 output of the GPU reference, and the launch that computes it.
struct ReferenceRun {
  runtime::DeviceBuffer out;
  tune::Launch launch;
};

// --misalign (boo only): the inputs copied one element past a 16-byte boundary and the output
// written there, as views into a larger tensor are; the output is copied back into the run's
// aligned buffer for the comparison.
struct MisalignedConv {
  runtime::DeviceBuffer x, w, y, bias, out;
  dispatch::ConvPointers ptrs;
  char* out_at = nullptr;
  int64_t out_bytes = 0;
};

core::Expected<std::shared_ptr<MisalignedConv>> misalign(const ops::ConvProblem& p,
                                                         const tune::ConvOperands& o,
                                                         const runtime::DeviceBuffer& out,
                                                         void* stream) {
  auto m = std::make_shared<MisalignedConv>();
  const int64_t off = core::dtype_bytes(p.dtype);
  BOO_ASSIGN_OR_RETURN(m->out, runtime::DeviceBuffer::allocate(out.bytes() + 16));
  m->out_at = static_cast<char*>(m->out.data()) + off;
  m->out_bytes = out.bytes();
  m->ptrs = o.pointers(m->out_at);
  BOO_ASSIGN_OR_RETURN(char* x, copy_past_boundary(o.x(), off, m->x, stream));
  BOO_ASSIGN_OR_RETURN(char* w, copy_past_boundary(o.w(), off, m->w, stream));
  BOO_ASSIGN_OR_RETURN(char* y, copy_past_boundary(o.y(), off, m->y, stream));
  BOO_ASSIGN_OR_RETURN(char* bias, copy_past_boundary(o.bias(), off, m->bias, stream));
  if (x != nullptr) m->ptrs.x = x;
  if (w != nullptr) m->ptrs.w = w;
  if (y != nullptr) m->ptrs.y = y;
  if (bias != nullptr) m->ptrs.bias = bias;
  return m;
}

}  // namespace

void GpuSession::run_conv(const std::string& source, const ops::ConvProblem& p,
                          const std::vector<std::string>& backends, const RunPlan& plan,
                          tune::ResultCsvWriter* csv, Outcome& outcome) {
  Impl& s = *impl_;
  void* stream = s.stream.get();
  auto fail = [&](const core::Status& st) { fail_problem(source, p.key(), st, outcome); };
  if (s.opt.top > 1 || s.opt.vary_order) {
    return fail(core::invalid_argument(
        "--top and --vary-order apply to GEMMs only (this is a convolution)"));
  }
  auto operands = tune::ConvOperands::create(p, s.opt.seed, stream);
  if (!operands) return fail(operands.status());
  std::vector<BackendRun> runs;
  ReferenceRun reference;
  for (const std::string& name : backends) {
    BackendRun r;
    r.name = name;
    auto out = operands->make_output();
    if (!out) return fail(out.status());
    r.d = std::move(*out);
    dispatch::ConvPointers ptrs = operands->pointers(r.d.data());
    std::shared_ptr<MisalignedConv> shifted;
    if (name == "boo" && s.opt.misalign) {
      auto m = misalign(p, *operands, r.d, stream);
      if (!m) return fail(m.status());
      shifted = *m;
      ptrs = shifted->ptrs;
    }
    if (name == "boo") {
      if (core::Status st = s.ensure_context(); !st.is_ok()) return fail(st);
      auto chosen = s.ctx->conv->plan(p);
      if (!chosen) return fail(chosen.status());
      const dispatch::ConvPlan* cp = *chosen;
      r.algorithm = cp->algorithm;
      r.config = cp->config;
      std::fprintf(s.out, ">>> boo: %s %s\n", cp->algorithm.c_str(), cp->config.c_str());
      if (s.opt.explain) {
        for (const std::string& line : cp->explanation)
          std::fprintf(s.out, ">>>   %s\n", line.c_str());
      }
      dispatch::ConvDispatcher* disp = s.ctx->conv.get();
      // (The misaligned copies live as long as the launch.)
      r.launch = [disp, cp, ptrs, shifted](void* st) { return disp->run(*cp, ptrs, st); };
    } else if (name == "cudnn") {
      if (!s.cudnn) {
        auto made = reference::CudnnConv::create();
        if (!made) {
          if (backends.size() == 1) return fail(made.status());
          std::fprintf(s.out, ">>> cudnn: unavailable: %s\n", made.status().message().c_str());
          continue;
        }
        s.cudnn = std::move(*made);
      }
      if (core::Status st = s.cudnn->prepare(p, ptrs, stream); !st.is_ok()) {
        // A baseline cuDNN cannot run is reported, not a failure of boo's run.
        if (backends.size() == 1) return fail(st);
        std::fprintf(s.out, ">>> cudnn: unavailable for this problem: %s\n", st.message().c_str());
        continue;
      }
      r.algorithm = "cudnn";
      r.config = s.cudnn->description();
      std::fprintf(s.out, ">>> cudnn: %s\n", r.config.c_str());
      reference::CudnnConv* dnn = s.cudnn.get();
      r.launch = [dnn, ptrs](void* st) { return dnn->run(ptrs, st); };
    } else if (name == "reference") {
      const int64_t elements = tune::conv_output_desc(p).element_count();
      auto buf = runtime::DeviceBuffer::allocate(elements * 4);
      if (!buf) return fail(buf.status());
      reference.out = std::move(*buf);
      float* dst = static_cast<float*>(reference.out.data());
      r.algorithm = "reference.gpu";
      r.config = "fp64-acc";
      r.launch = [p, ptrs, dst](void* st) {
        return reference::gpu::conv_reference(p, ptrs, dst, st);
      };
    } else {
      return fail(core::invalid_argument("--backend " + name +
                                         ": convolutions run on boo, cudnn or reference"));
    }
    // One run into NaN-poisoned output: every element must be written.
    core::Status st = r.d.fill_bytes(0xff, stream);
    if (st.is_ok() && shifted) st = shifted->out.fill_bytes(0xff, stream);
    if (st.is_ok()) st = r.launch(stream);
    if (st.is_ok() && shifted) {
      st = runtime::cuda_status(
          cudaMemcpyAsync(r.d.data(), shifted->out_at, static_cast<size_t>(shifted->out_bytes),
                          cudaMemcpyDeviceToDevice, static_cast<cudaStream_t>(stream)),
          "cudaMemcpyAsync");
    }
    if (st.is_ok()) st = s.stream.synchronize();
    if (!st.is_ok()) return fail(st);
    runs.push_back(std::move(r));
  }
  if (runs.empty()) return fail(core::unavailable("no backend could run this problem"));

  const BackendRun& first = runs.front();
  if (first.name != "reference" &&
      tune::conv_output_desc(p).element_count() <= (int64_t{64} << 20)) {
    auto values = tune::download_conv_output(p, first.d.data());
    if (!values) return fail(values.status());
    const char* what = p.direction == ops::ConvDirection::kForward        ? "y"
                       : p.direction == ops::ConvDirection::kBackwardData ? "dx"
                                                                          : "dw";
    std::fprintf(s.out, ">>> %s\n",
                 describe_output(ops::Problem{p}, what, {}, {}, p.dtype, *values).c_str());
  }

  bool failed = false;
  if (plan.verify) {
    auto ref = tune::ConvReference::compute(*operands, stream, s.opt.cpu_max_gflop * 1e9);
    if (!ref) return fail(ref.status());
    std::optional<reference::ErrorStats> vendor;
    for (BackendRun& r : runs) {
      if (r.name == "reference") continue;
      auto e = ref->compare(*operands, r.d.data(), stream);
      if (!e) return fail(e.status());
      r.error = *e;
      // A tf32 problem that cuDNN ran in exact fp32 (its fastest way for small problems) sets no
      // bar for a tf32 kernel: the gate is then the tolerance alone. cuDNN says so for
      // algorithms without tensor ops; some tensor-op algorithms (IMPLICIT_PRECOMP_GEMM on NCHW,
      // seen on an H100 with cuDNN 9.19) also keep fp32 products, which shows as an error below
      // exact fp32's tolerance (tf32 rounding alone is ~1e-4).
      const bool tf32 = p.dtype == core::DType::kF32 && p.math == core::MathMode::kTF32;
      if (r.name == "cudnn" && tf32 && (s.cudnn->without_tensor_ops() || e->rel_fro < 1e-5)) {
        std::fprintf(s.out,
                     ">>> note: cudnn ran this tf32 problem in exact fp32; its error is no bar\n");
      } else if (r.name == "cudnn") {
        vendor = *e;
      }
    }
    failed = judge_runs(
        s, p.key(), runs, "cudnn", vendor, ref->name(),
        [&](const reference::ErrorStats& e, const std::optional<reference::ErrorStats>& v) {
          return tune::judge_conv(p, e, v, ref->name());
        },
        outcome);
  }
  finish_problem(s, source, ops::Problem{p}, runs, "cudnn", plan, csv, failed, outcome);
}

}  // namespace boo::cli
