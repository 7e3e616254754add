// Shared pieces of `boo driver`: its options, the per-problem run plan, result counting, and
// the two execution paths (CPU reference; GPU backends for GEMMs, convolutions, layer norms).
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "boo/ops/problem.h"
#include "boo/parse/parsed_command.h"
#include "boo/runtime/device.h"
#include "boo/tune/result_csv.h"

namespace boo::cli {

struct DriverOptions {
  std::string commands_file;
  std::vector<std::string> words;
  std::vector<std::string> backends;  // empty: chosen from what this machine has
  int time = -1;                      // -1: as each command says
  int64_t iter = 0;                   // 0: as each command says (MIOpen's default 10)
  int verify = -1;
  bool explain = false;
  std::string csv;
  std::string config;  // force one kernel config (boo backend)
  int top = 1;         // time the heuristic's first `top` candidates as boo#1..boo#top
  std::string rule_set = "default";  // the rule set the heuristic ranks (--rule-set)
  bool vary_order = false;     // time the chosen config under every tile swizzle and raster order
  bool misalign = false;       // boo runs on operand copies aligned only to their element size
  std::string flush = "read";  // how the L2 is made cold before each sample: read or write
  double hold_us = 1000.0;     // GPU-side wait before each sample (hides host launch cost)
  double cpu_max_gflop = 2.0;
  double cpu_max_gib = 8.0;
  double cpu_time_budget_s = 2.0;
  uint64_t seed = 1;
};

struct RunPlan {
  bool time = false;
  int64_t iter = 10;
  bool verify = false;
};

RunPlan plan_for(const DriverOptions& o, const parse::RunOptions& cmd);

// What the numerics gate said of one problem (boo's first run against the reference).
struct NumericsRecord {
  std::string key;
  std::string algorithm;
  std::string config;
  std::optional<double> error;         // boo's relative Frobenius error
  std::optional<double> vendor_error;  // the vendor's, when it ran
  bool passed = false;
  std::string note;  // why it failed or did not run
};

struct Outcome {
  int ran = 0;
  int skipped = 0;
  int failed = 0;
  std::vector<NumericsRecord> records;  // one per problem verified on the GPU
};

// Prints ">>> <name>: <shape> <dtype> sum=.. absmax=.. rms=.." for a host output.
std::string describe_output(const ops::Problem& p, const std::string& name,
                            const std::vector<int64_t>& dims, const std::vector<int64_t>& strides,
                            core::DType dtype, const std::vector<double>& values);

// A CSV row with the problem's fields filled in.
tune::ResultRow csv_row(const ops::Problem& p, const std::string& backend,
                        const ops::Ceilings& ceilings);

// The fp64 CPU reference as a backend. `explicit_backend`: the user asked for it (a refusal
// for size is then an error, not a skip).
void run_cpu_reference(const DriverOptions& opt, bool explicit_backend, const std::string& source,
                       const ops::Problem& p, const RunPlan& plan, tune::ResultCsvWriter* csv,
                       Outcome& outcome);

// GPU backends: boo, cublaslt and reference for GEMMs; boo, cudnn and reference for
// convolutions; boo for layer norms (their reference is the CPU one); with timing per DESIGN.md
// §7 and the numerics gate of §8. One session per driver run holds the stream, kernel context and
// measured ceilings.
class GpuSession {
 public:
  static core::Expected<std::unique_ptr<GpuSession>> create(const DriverOptions& opt,
                                                            const runtime::DeviceInfo& device);
  ~GpuSession();
  void run_gemm(const std::string& source, const ops::GemmProblem& p,
                const std::vector<std::string>& backends, const RunPlan& plan,
                tune::ResultCsvWriter* csv, Outcome& outcome);
  // Backends boo, cudnn and reference for a convolution.
  void run_conv(const std::string& source, const ops::ConvProblem& p,
                const std::vector<std::string>& backends, const RunPlan& plan,
                tune::ResultCsvWriter* csv, Outcome& outcome);
  // Backends boo and reference for a layer norm (driver_layernorm.cc).
  void run_layernorm(const std::string& source, const ops::LayerNormProblem& p,
                     const std::vector<std::string>& backends, const RunPlan& plan,
                     tune::ResultCsvWriter* csv, Outcome& outcome);

  // Where the per-backend lines (">>> ...") go; stdout unless redirected (`boo numerics`).
  void set_output(std::FILE* out);

  struct Impl;  // gpu_session.h

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace boo::cli
