// `boo driver`: runs problems the way BOO's driver does (MIOpenDriver-compatible commands), on a
// backend, printing the command, an output summary and, with -t 1, timing statistics.
#include <algorithm>
#include <cstdio>
#include <optional>

#include "boo/core/strings.h"
#include "boo/ops/problem.h"
#include "boo/runtime/device.h"
#include "boo/tune/result_csv.h"
#include "cli_checks.h"
#include "command_source.h"
#include "driver.h"
#include "subcommands.h"

namespace boo::cli {
namespace {

int run_driver(const DriverOptions& opt) {
  auto source = load_commands(opt.words, opt.commands_file);
  if (!source) {
    std::fprintf(stderr, "boo driver: error: %s\n", source.status().message().c_str());
    return 2;
  }
  bool gpu_backend = false;
  for (size_t i = 0; i < opt.backends.size(); ++i) {
    const std::string& b = opt.backends[i];
    if (b != "boo" && b != "cublaslt" && b != "cudnn" && b != "reference") {
      std::fprintf(stderr,
                   "boo driver: error: --backend: unknown backend '%s' (boo, cublaslt, cudnn, "
                   "reference)\n",
                   b.c_str());
      return 2;
    }
    if (std::find(opt.backends.begin(), opt.backends.begin() + static_cast<std::ptrdiff_t>(i), b) !=
        opt.backends.begin() + static_cast<std::ptrdiff_t>(i)) {
      std::fprintf(stderr, "boo driver: error: --backend: '%s' is named twice\n", b.c_str());
      return 2;
    }
    gpu_backend = gpu_backend || b != "reference";
  }
  if (!opt.csv.empty()) {
    if (const core::Status s = check_output_path("--csv", opt.csv); !s.is_ok()) {
      std::fprintf(stderr, "boo driver: error: %s\n", s.message().c_str());
      return 2;
    }
  }
  auto devices = runtime::list_devices();
  const bool explicit_backend = !opt.backends.empty();
  if (!devices && gpu_backend) {
    // Before --csv opens its file: a run that cannot start leaves it as it was.
    std::fprintf(stderr, "boo driver: error: --backend %s needs a GPU: %s\n",
                 core::join(opt.backends, ",").c_str(), devices.status().message().c_str());
    return 1;
  }
  if (!devices) {
    std::fprintf(stderr, "boo: %s.\n", devices.status().message().c_str());
    if (!explicit_backend) {
      std::fprintf(stderr,
                   "boo: running the CPU reference instead, on problems up to %.2f GFLOP; "
                   "larger ones are skipped.\n",
                   opt.cpu_max_gflop);
    }
  } else {
    std::fprintf(stderr, "boo: GPU %d: %s\n", devices->front().index,
                 runtime::describe(devices->front()).c_str());
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
  std::unique_ptr<GpuSession> gpu;
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
      const auto* gemm = std::get_if<ops::GemmProblem>(&p);
      const auto* conv = std::get_if<ops::ConvProblem>(&p);
      const auto* layernorm = std::get_if<ops::LayerNormProblem>(&p);
      const bool gpu_kernels = gemm != nullptr || conv != nullptr || layernorm != nullptr;
      std::vector<std::string> backends = opt.backends;
      if (backends.empty()) backends = {devices && gpu_kernels ? "boo" : "reference"};
      const bool small = ops::flops(p) <= opt.cpu_max_gflop * 1e9;
      // A layer norm's only reference is the fp64 CPU one (O(rows x cols): no GPU reference is
      // needed at any size); its own limits (--cpu-max-gflop, --cpu-max-gib) still apply.
      const bool cpu_only = backends == std::vector<std::string>{"reference"} &&
                            (!devices || !gpu_kernels || small || layernorm != nullptr);
      if (cpu_only) {
        if (devices && !gpu_kernels && !explicit_backend) {
          std::printf(">>> note: boo has no GPU kernels for %s yet; running the CPU reference\n",
                      std::string(ops::family(p)).c_str());
        }
        run_cpu_reference(opt, explicit_backend, cmd.source, p, plan, csv ? &*csv : nullptr,
                          outcome);
      } else if (!devices) {
        print_error(cmd.source, core::unavailable("--backend " + core::join(backends, ",") +
                                                  " needs a GPU: " + devices.status().message()));
        ++outcome.failed;
      } else if (!gpu_kernels) {
        print_error(cmd.source, core::unsupported("boo has no GPU kernels or vendor baseline for " +
                                                  std::string(ops::family(p)) +
                                                  " yet; use --backend reference"));
        ++outcome.failed;
      } else {
        if (!gpu) {
          auto session = GpuSession::create(opt, devices->front());
          if (!session) {
            print_error(cmd.source, session.status());
            ++outcome.failed;
            continue;
          }
          gpu = std::move(*session);
        }
        if (gemm != nullptr) {
          gpu->run_gemm(cmd.source, *gemm, backends, plan, csv ? &*csv : nullptr, outcome);
        } else if (conv != nullptr) {
          gpu->run_conv(cmd.source, *conv, backends, plan, csv ? &*csv : nullptr, outcome);
        } else {
          gpu->run_layernorm(cmd.source, *layernorm, backends, plan, csv ? &*csv : nullptr,
                             outcome);
        }
      }
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
  sub->add_option("--backend", opt->backends,
                  "Comma-separated backends: boo (boo's GPU kernels), cublaslt (GEMMs) or cudnn "
                  "(convolutions): the vendor at its best, reference (fp64 CPU reference for "
                  "small problems and every layer norm, the GPU reference for large GEMMs and "
                  "convolutions). Default: boo on a GPU, else reference")
      ->delimiter(',')
      ->allow_extra_args(false);
  sub->add_flag("--explain", opt->explain, "Print why dispatch chose each kernel");
  sub->add_option("--top", opt->top,
                  "Time the heuristic's first K candidates as backends boo#1..boo#K (a sweep)")
      ->check(boo::cli::positive());
  sub->add_option("--rule-set", opt->rule_set,
                  "The rule set whose configs the heuristic ranks: tiny, default (the default) "
                  "or full (wider sweeps with --top)")
      ->check(CLI::IsMember({"tiny", "default", "full"}));
  sub->add_flag("--vary-order", opt->vary_order,
                "Time the chosen config under every tile swizzle (1, 2, 4, 8) and raster order "
                "(heuristic, along M, along N) as backends boo@sw<N>.r<h|m|n>");
  sub->add_option("--flush", opt->flush,
                  "How the L2 is made cold before each timed sample: read (read a buffer of 2x "
                  "L2: only clean lines remain; default) or write (fill it, as nvbench and "
                  "triton's do_bench do: the timed kernel also pays the write-back of up to one "
                  "L2 of dirty lines)")
      ->check(CLI::IsMember({"read", "write"}));
  sub->add_option("--hold-us", opt->hold_us,
                  "Before each timed sample, keep the stream busy this long (microseconds; default "
                  "1000, 0: off) so that a backend's host-side launch cost is not timed")
      ->check(boo::cli::non_negative());
  sub->add_flag("--misalign", opt->misalign,
                "Run the boo backend on copies of the operands placed one element past a 16-byte "
                "boundary (pointers aligned only to their element size), as views into a larger "
                "tensor are (GEMMs and convolutions)");
  sub->add_option("--config", opt->config,
                  "Run exactly this kernel config (a name from dispatch) with the boo backend");
  sub->add_option("-t,--time", opt->time, "Time each problem (1) or not (0)")
      ->check(CLI::Range(0, 1));
  sub->add_option("--iter", opt->iter, "Timed iterations per problem (MIOpen's default: 10)")
      ->check(boo::cli::positive());
  sub->add_option("-V,--verify", opt->verify, "Check numerics against the reference (1) or not")
      ->check(CLI::Range(0, 1));
  sub->add_option("--csv", opt->csv, "Write results as CSV (DESIGN.md §7 columns) to FILE")
      ->check(boo::cli::file_name());
  sub->add_option("--seed", opt->seed, "Seed of the random inputs (default 1)")
      ->check(boo::cli::non_negative());
  sub->add_option("--cpu-max-gflop", opt->cpu_max_gflop,
                  "Largest problem the CPU reference runs, in GFLOP (default 2)")
      ->check(boo::cli::positive());
  sub->add_option("--cpu-max-gib", opt->cpu_max_gib,
                  "Largest fp64 operand memory the CPU reference allocates, in GiB (default 8)")
      ->check(boo::cli::positive());
  sub->prefix_command();
  return [opt, sub] {
    opt->words = sub->remaining();
    return run_driver(*opt);
  };
}

}  // namespace boo::cli
