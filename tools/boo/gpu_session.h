// The state of one `boo driver` run on the GPU (stream, kernel context, baselines, L2 flusher,
// measured ceilings) and what the GEMM and convolution paths share: one backend's run and the
// timing, printing and CSV of a problem's runs (DESIGN.md §7). Private to tools/boo.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "boo/dispatch/context.h"
#include "boo/reference/compare.h"
#include "boo/reference/cublaslt_gemm.h"
#include "boo/reference/cudnn_conv.h"
#include "boo/tune/bench.h"
#include "boo/tune/numerics.h"
#include "boo/tune/stats.h"
#include "driver.h"

namespace boo::cli {

struct MisalignedOperands;  // driver_gpu.cc (--misalign for GEMMs)

struct GpuSession::Impl {
  DriverOptions opt;
  std::string device_name;
  int sm_count = 0;  // what dispatch plans for
  runtime::Stream stream;
  std::unique_ptr<dispatch::Context> ctx;
  std::unique_ptr<reference::CublasLtGemm> lt;
  std::unique_ptr<reference::CudnnConv> cudnn;
  std::optional<tune::L2Flusher> flusher;
  std::optional<ops::Ceilings> ceilings;
  int64_t l2_bytes = 50 << 20;
  std::FILE* out = stdout;

  core::Status ensure_context();
  core::Status ensure_timing();
};

// One backend's run of a problem.
struct BackendRun {
  std::shared_ptr<MisalignedOperands> misaligned;  // --misalign (boo only, GEMMs)
  std::string name;                                // boo, boo#2, cublaslt, cudnn, reference
  std::string algorithm;
  std::string config;
  runtime::DeviceBuffer d;  // the backend's output
  tune::Launch launch;
  std::optional<reference::ErrorStats> error;
  std::optional<bool> passed;
  tune::TimingStats timing;
  std::optional<double> graph_us;
};

// Times the runs interleaved (with -t 1), prints each backend's statistics, its share of the
// floor and the speedups over `vendor`, and writes the CSV rows. False after printing an error.
// The gate on each run's error against the reference (`judge`: boo's runs get the vendor's own
// error as a bar), printed per run and recorded for the problem; true when any run failed.
using Judge = std::function<tune::Numerics(const reference::ErrorStats& error,
                                           const std::optional<reference::ErrorStats>& vendor)>;
bool judge_runs(GpuSession::Impl& s, const std::string& key, std::vector<BackendRun>& runs,
                const std::string& vendor, const std::optional<reference::ErrorStats>& vendor_error,
                const std::string& reference, const Judge& judge, Outcome& outcome);

// --misalign: a copy of `src` `offset` bytes past the start of a fresh buffer `dst` (16 bytes
// longer), queued on `stream`; nullptr (and nothing allocated) when `src` is empty.
core::Expected<char*> copy_past_boundary(const runtime::DeviceBuffer& src, int64_t offset,
                                         runtime::DeviceBuffer& dst, void* stream);

// A problem that could not run: its error printed, counted as failed, and recorded with the
// error as the note.
void fail_problem(const std::string& source, const std::string& key, const core::Status& st,
                  Outcome& outcome);

// report_runs(), then the problem counted as ran or failed.
void finish_problem(GpuSession::Impl& s, const std::string& source, const ops::Problem& p,
                    std::vector<BackendRun>& runs, const std::string& vendor, const RunPlan& plan,
                    tune::ResultCsvWriter* csv, bool failed, Outcome& outcome);

// The numerics record of a problem's runs (boo's first run, the vendor `vendor`).
NumericsRecord numerics_record(const std::string& key, const std::vector<BackendRun>& runs,
                               const std::string& vendor, const std::string& verdict);

bool report_runs(GpuSession::Impl& s, const std::string& source, const ops::Problem& p,
                 std::vector<BackendRun>& runs, const std::string& vendor, const RunPlan& plan,
                 tune::ResultCsvWriter* csv);

}  // namespace boo::cli
