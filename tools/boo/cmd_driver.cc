// `boo driver`: runs problems the way BOO's driver does (MIOpenDriver-compatible commands), on a
// backend, printing the command, an output summary and, with -t 1, timing statistics.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <numeric>
#include <optional>

#include "boo/core/strings.h"
#include "boo/ops/problem.h"
#include "boo/reference/compare.h"
#include "boo/reference/problem_data.h"
#include "boo/runtime/device.h"
#include "boo/tune/result_csv.h"
#include "boo/tune/stats.h"
#include "command_source.h"
#include "format.h"
#include "subcommands.h"

namespace boo::cli {
namespace {

struct DriverOptions {
  std::string commands_file;
  std::vector<std::string> words;
  std::string backend;  // empty: chosen from what this machine has
  int time = -1;        // -1: as each command says
  int64_t iter = 0;     // 0: as each command says (MIOpen's default 10)
  int verify = -1;
  std::string csv;
  double cpu_max_gflop = 2.0;
  double cpu_max_gib = 8.0;
  double cpu_time_budget_s = 2.0;
  uint64_t seed = 1;
};

struct RunPlan {
  bool time;
  int64_t iter;
  bool verify;
};

RunPlan plan_for(const DriverOptions& o, const parse::RunOptions& cmd) {
  RunPlan p;
  p.time = o.time >= 0 ? o.time != 0 : cmd.time.value_or(false);
  p.iter = o.iter > 0 ? o.iter : cmd.iter.value_or(10);
  p.verify = o.verify >= 0 ? o.verify != 0 : cmd.verify.value_or(false);
  return p;
}

// "y: (128, 24, 48, 384) NHWC bf16 sum=.. absmax=.. rms=..": dims in memory order, as BOO's
// driver prints a tensor's size.
std::string describe_output(const ops::Problem& p, const reference::NamedTensor& t) {
  const core::TensorDesc& d = t.tensor.desc;
  std::string shape;
  if (const auto* g = std::get_if<ops::GemmProblem>(&p)) {
    shape = "M=" + std::to_string(g->m) + " N=" + std::to_string(g->n) +
            " batch=" + std::to_string(g->batch) + " column-major";
  } else {
    std::vector<size_t> order(d.dims.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return d.strides[a] > d.strides[b]; });
    std::vector<int64_t> dims;
    for (size_t i : order) dims.push_back(d.dims[i]);
    shape = core::format_shape(dims);
    if (const auto* c = std::get_if<ops::ConvProblem>(&p)) {
      const core::Layout l = t.name == "dw"   ? c->fil_layout
                             : t.name == "dx" ? c->in_layout
                                              : c->out_layout;
      shape += " " + core::layout_name(l, c->spatial_dims);
    }
  }
  return t.name + ": " + shape + " " + std::string(core::dtype_name(d.dtype)) + " " +
         reference::format_summary(reference::summarize(t.tensor.data));
}

struct Outcome {
  int ran = 0;
  int skipped = 0;
  int failed = 0;
};

// Runs one problem on the CPU reference; returns false when it failed or was refused.
bool run_on_reference(const DriverOptions& opt, bool explicit_backend, const std::string& source,
                      const ops::Problem& p, const RunPlan& plan, tune::ResultCsvWriter* csv,
                      Outcome& outcome) {
  const double gflop = ops::flops(p) / 1e9;
  const double gib = static_cast<double>(reference::reference_bytes(p)) / (1ull << 30);
  if (gflop > opt.cpu_max_gflop || gib > opt.cpu_max_gib) {
    char buf[320];
    std::snprintf(buf, sizeof(buf),
                  "too large for the CPU reference: %.2f GFLOP and %.2f GiB of fp64 operands "
                  "(limits %.2f GFLOP, %.2f GiB; raise them with --cpu-max-gflop, --cpu-max-gib)",
                  gflop, gib, opt.cpu_max_gflop, opt.cpu_max_gib);
    std::printf(">>> skipped: %s\n", buf);
    if (explicit_backend) {
      print_error(source, core::resource_limit(buf));
      ++outcome.failed;
    } else {
      ++outcome.skipped;
    }
    return false;
  }
  auto data = reference::make_inputs(p, opt.seed);
  if (!data) {
    print_error(source, data.status());
    ++outcome.failed;
    return false;
  }
  std::vector<double> samples;
  const int64_t max_iter = plan.time ? plan.iter : 1;
  for (int64_t i = 0; i < max_iter; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    const core::Status s = reference::run_reference(p, *data);
    const auto t1 = std::chrono::steady_clock::now();
    if (!s.is_ok()) {
      print_error(source, s);
      ++outcome.failed;
      return false;
    }
    samples.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
    const double spent_s = std::accumulate(samples.begin(), samples.end(), 0.0) / 1e6;
    if (spent_s > opt.cpu_time_budget_s && i + 1 < max_iter) {
      std::printf(">>> note: timed %zu of %lld iterations (the CPU reference stops after %.1f s)\n",
                  samples.size(), static_cast<long long>(max_iter), opt.cpu_time_budget_s);
      break;
    }
  }
  for (const reference::NamedTensor& out : data->outputs) {
    std::printf(">>> %s\n", describe_output(p, out).c_str());
  }
  const tune::TimingStats st = tune::timing_stats(samples);
  if (plan.time) std::printf(">>> %s\n", tune::format_timing(st).c_str());
  if (plan.verify) {
    std::printf(">>> verify: the reference backend is the reference itself; nothing to compare\n");
  }
  if (csv != nullptr) {
    tune::ResultRow row;
    row.command = ops::to_command(p);
    row.key = ops::key(p);
    row.backend = "reference";
    row.algorithm = "reference.cpu";
    row.config = "fp64";
    row.median_us = st.median_us;
    row.min_us = st.min_us;
    row.max_us = st.max_us;
    row.floor_us = ops::floor_us(p, ops::Ceilings::h100_sxm_datasheet());
    row.flops = ops::flops(p);
    row.bytes = static_cast<double>(ops::min_bytes(p));
    row.device = "cpu";
    row.date = tune::today_iso();
    const core::Status s = csv->write(row);
    if (!s.is_ok()) {
      print_error(opt.csv, s);
      ++outcome.failed;
      return false;
    }
  }
  ++outcome.ran;
  return true;
}

int run_driver(const DriverOptions& opt) {
  auto source = load_commands(opt.words, opt.commands_file);
  if (!source) {
    std::fprintf(stderr, "boo driver: error: %s\n", source.status().message().c_str());
    return 2;
  }
  std::string backend = opt.backend;
  const bool explicit_backend = !backend.empty();
  if (backend == "boo") {
    std::fprintf(stderr,
                 "boo driver: --backend boo: boo's GPU kernels are not available in this version "
                 "yet; use --backend reference (CPU)\n");
    return 2;
  }
  if (backend.empty()) {
    auto devices = runtime::list_devices();
    if (!devices) {
      std::fprintf(stderr,
                   "boo: %s.\nboo: running the CPU reference instead, on problems up to %.2f "
                   "GFLOP; larger ones are skipped.\n",
                   devices.status().message().c_str(), opt.cpu_max_gflop);
    } else {
      std::fprintf(stderr,
                   "boo: GPU: %s. boo's GPU kernels are not available in this version yet; "
                   "running the CPU reference on problems up to %.2f GFLOP.\n",
                   runtime::describe(devices->front()).c_str(), opt.cpu_max_gflop);
    }
    backend = "reference";
  }
  std::optional<tune::ResultCsvWriter> csv;
  if (!opt.csv.empty()) {
    auto w = tune::ResultCsvWriter::open(opt.csv);
    if (!w) {
      std::fprintf(stderr, "boo driver: error: %s\n", w.status().message().c_str());
      return 2;
    }
    csv.emplace(std::move(*w));
  }
  for (const std::string& note : source->notes)
    std::fprintf(stderr, "boo: note: %s\n", note.c_str());
  Outcome outcome;
  for (const SourcedCommand& cmd : source->commands) {
    if (!cmd.parsed) {
      print_error(cmd.source, cmd.parsed.status());
      ++outcome.failed;
      continue;
    }
    for (const std::string& note : cmd.parsed->notes) {
      std::fprintf(stderr, "boo: note: %s: %s\n", cmd.source.c_str(), note.c_str());
    }
    const RunPlan plan = plan_for(opt, cmd.parsed->run);
    for (const ops::Problem& p : cmd.parsed->problems) {
      std::printf("%s\n", ops::to_command(p).c_str());
      std::fflush(stdout);
      run_on_reference(opt, explicit_backend, cmd.source, p, plan, csv ? &*csv : nullptr, outcome);
      std::fflush(stdout);
    }
  }
  std::fprintf(stderr, "boo driver: %d ran, %d skipped (too large for the CPU), %d failed\n",
               outcome.ran, outcome.skipped, outcome.failed);
  return outcome.failed > 0 ? 1 : 0;
}

}  // namespace

Run add_driver_command(CLI::App& app) {
  auto opt = std::make_shared<DriverOptions>();
  CLI::App* sub = app.add_subcommand(
      "driver",
      "Run problems like BOO's MIOpenDriver-compatible driver: print each problem's command,\n"
      "a summary of its outputs and, with -t 1, timing (min/max/mean/median/stddev in us).\n"
      "Options go before the command; flags inside the command (-t, --iter, -V) apply to it\n"
      "unless overridden here.");
  sub->add_option("--commands-file", opt->commands_file,
                  "A file of commands (.txt with # comments, .tsv, hipBLASLt or cuBLASLt log)");
  sub->add_option("--backend", opt->backend,
                  "reference (fp64 CPU reference) or boo (GPU kernels: not available yet). "
                  "Default: boo on a GPU once available, else reference")
      ->check(CLI::IsMember({"boo", "reference"}));
  sub->add_option("-t,--time", opt->time, "Time each problem (1) or not (0)")
      ->check(CLI::Range(0, 1));
  sub->add_option("--iter", opt->iter, "Timed iterations per problem (MIOpen's default: 10)")
      ->check(CLI::PositiveNumber);
  sub->add_option("-V,--verify", opt->verify, "Check numerics against the reference (1) or not")
      ->check(CLI::Range(0, 1));
  sub->add_option("--csv", opt->csv, "Write results as CSV (DESIGN.md §7 columns) to FILE");
  sub->add_option("--seed", opt->seed, "Seed of the random inputs (default 1)");
  sub->add_option("--cpu-max-gflop", opt->cpu_max_gflop,
                  "Largest problem the CPU reference runs, in GFLOP (default 2)")
      ->check(CLI::PositiveNumber);
  sub->add_option("--cpu-max-gib", opt->cpu_max_gib,
                  "Largest fp64 operand memory the CPU reference allocates, in GiB (default 8)")
      ->check(CLI::PositiveNumber);
  sub->prefix_command();
  return [opt, sub] {
    opt->words = sub->remaining();
    return run_driver(*opt);
  };
}

}  // namespace boo::cli
