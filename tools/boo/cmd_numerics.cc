// `boo numerics`: the numerics gate of DESIGN.md §8 over a whole commands file — each problem
// run with boo, the vendor (cuBLASLt, cuDNN; none for layer norms) and the reference on the
// GPU — as one table, with a non-zero exit status when any problem fails.
#include <cstdio>
#include <fstream>

#include "boo/runtime/device.h"
#include "cli_checks.h"
#include "command_source.h"
#include "driver.h"
#include "subcommands.h"

namespace boo::cli {
namespace {

struct NumericsOptions {
  std::string commands_file;
  std::vector<std::string> words;
  std::string csv;
  std::string log;  // the driver's per-backend lines; empty: not kept
  bool vendor = true;
  uint64_t seed = 1;
  double cpu_max_gflop = 2.0;
};

std::string format_error(const std::optional<double>& e) {
  if (!e) return "-";
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.2e", *e);
  return buf;
}

// A CSV field: quoted when it holds a comma, a quote or a line break.
std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

int run_numerics(const NumericsOptions& opt) {
  auto source = load_commands(opt.words, opt.commands_file);
  if (!source) {
    std::fprintf(stderr, "boo numerics: error: %s\n", source.status().message().c_str());
    return 2;
  }
  // The output files are checked first, then the GPU: without one, they are left as they were.
  for (const auto& [flag, path] : {std::pair{"--csv", opt.csv}, std::pair{"--log", opt.log}}) {
    if (path.empty()) continue;
    if (const core::Status s = check_output_path(flag, path); !s.is_ok()) {
      std::fprintf(stderr, "boo numerics: error: %s\n", s.message().c_str());
      return 2;
    }
  }
  auto devices = runtime::list_devices();
  if (!devices) {
    std::fprintf(stderr, "boo numerics: needs a GPU to run boo's kernels: %s\n",
                 devices.status().message().c_str());
    return 1;
  }
  std::ofstream csv;
  if (!opt.csv.empty()) {
    csv.open(opt.csv);
    if (!csv) {
      std::fprintf(stderr, "boo numerics: error: --csv: cannot write '%s'\n", opt.csv.c_str());
      return 2;
    }
    csv << "key,algorithm,config,rel_error,vendor_rel_error,passed,note\n";
  }
  std::FILE* log = nullptr;
  if (!opt.log.empty()) {
    log = std::fopen(opt.log.c_str(), "w");
    if (log == nullptr) {
      std::fprintf(stderr, "boo numerics: error: --log: cannot write '%s'\n", opt.log.c_str());
      return 2;
    }
  } else {
    log = std::fopen("/dev/null", "w");
  }
  DriverOptions dopt;
  dopt.seed = opt.seed;
  dopt.cpu_max_gflop = opt.cpu_max_gflop;
  auto gpu = GpuSession::create(dopt, devices->front());
  if (!gpu) {
    std::fprintf(stderr, "boo numerics: error: %s\n", gpu.status().message().c_str());
    return 1;
  }
  (*gpu)->set_output(log);
  RunPlan plan;
  plan.time = false;
  plan.verify = true;
  std::vector<NumericsRecord> rows;
  int total = 0;
  for (const SourcedCommand& cmd : source->commands) {
    if (cmd.parsed) total += static_cast<int>(cmd.parsed->problems.size());
  }
  int done = 0;
  for (const SourcedCommand& cmd : source->commands) {
    if (!cmd.parsed) {
      NumericsRecord bad;
      bad.key = cmd.source;
      bad.note = cmd.parsed.status().message();
      rows.push_back(bad);
      continue;
    }
    for (const ops::Problem& p : cmd.parsed->problems) {
      Outcome outcome;
      if (const auto* g = std::get_if<ops::GemmProblem>(&p)) {
        std::vector<std::string> backends = {"boo"};
        if (opt.vendor) backends.push_back("cublaslt");
        (*gpu)->run_gemm(cmd.source, *g, backends, plan, nullptr, outcome);
      } else if (const auto* c = std::get_if<ops::ConvProblem>(&p)) {
        std::vector<std::string> backends = {"boo"};
        if (opt.vendor) backends.push_back("cudnn");
        (*gpu)->run_conv(cmd.source, *c, backends, plan, nullptr, outcome);
      } else if (const auto* l = std::get_if<ops::LayerNormProblem>(&p)) {
        // No vendor library for layer norms: boo against the fp64 CPU reference (and, for small
        // backward problems, against finite differences of the fp64 forward).
        (*gpu)->run_layernorm(cmd.source, *l, {"boo"}, plan, nullptr, outcome);
      } else {
        NumericsRecord skip;
        skip.key = ops::key(p);
        skip.note = "skipped: boo has no GPU kernels for " + std::string(ops::family(p)) + " yet";
        outcome.records.push_back(skip);
      }
      NumericsRecord rec = outcome.records.empty() ? NumericsRecord{} : outcome.records.back();
      if (rec.key.empty()) rec.key = ops::key(p);
      ++done;
      const bool skipped = rec.note.rfind("skipped:", 0) == 0;
      std::fprintf(stderr, "[%d/%d] %s %s\n", done, total,
                   rec.passed ? "PASS" : (skipped ? "SKIP" : "FAIL"), rec.key.c_str());
      std::fflush(log);
      rows.push_back(std::move(rec));
    }
  }
  int passed = 0, failed = 0, skipped = 0;
  std::printf("%-6s %-9s %-9s %-20s %s\n", "result", "error", "vendor", "algorithm", "problem");
  for (const NumericsRecord& r : rows) {
    const bool skip = r.note.rfind("skipped:", 0) == 0;
    const char* result = r.passed ? "PASS" : (skip ? "SKIP" : "FAIL");
    passed += r.passed ? 1 : 0;
    skipped += skip ? 1 : 0;
    failed += (!r.passed && !skip) ? 1 : 0;
    std::printf("%-6s %-9s %-9s %-20s %s\n", result, format_error(r.error).c_str(),
                format_error(r.vendor_error).c_str(),
                r.algorithm.empty() ? "-" : r.algorithm.c_str(), r.key.c_str());
    if (!r.passed && !r.note.empty()) std::printf("       %s\n", r.note.c_str());
    if (csv) {
      csv << csv_field(r.key) << ',' << csv_field(r.algorithm) << ',' << csv_field(r.config) << ','
          << (r.error ? format_error(r.error) : "") << ','
          << (r.vendor_error ? format_error(r.vendor_error) : "") << ','
          << (r.passed ? "true" : "false") << ',' << csv_field(r.note) << '\n';
    }
  }
  std::fclose(log);
  std::printf("boo numerics: %d passed, %d failed, %d skipped (of %zu)\n", passed, failed, skipped,
              rows.size());
  return failed > 0 ? 1 : 0;
}

}  // namespace

Run add_numerics_command(CLI::App& app) {
  auto opt = std::make_shared<NumericsOptions>();
  CLI::App* sub = app.add_subcommand(
      "numerics",
      "Check the numerics of every problem of a file on the GPU: boo's kernel, the vendor\n"
      "(cuBLASLt, cuDNN; none for layer norms) and the reference on fresh random data, outputs\n"
      "poisoned with NaN, relative Frobenius error within the dtype's tolerance and twice the\n"
      "vendor's error; small backward layer norms also against finite differences.\n"
      "Prints one row per problem; exits 1 when any problem fails.");
  sub->add_option("--commands-file", opt->commands_file, "A file of commands (or a log)");
  sub->add_option("--csv", opt->csv,
                  "Also write the table as CSV (key, algorithm, config, rel_error, "
                  "vendor_rel_error, passed, note)")
      ->check(boo::cli::file_name());
  sub->add_option("--log", opt->log, "Write each backend's detailed lines (>>> ...) to FILE")
      ->check(boo::cli::file_name());
  sub->add_flag("!--no-vendor", opt->vendor,
                "Do not run the vendor (faster; the gate is then the tolerance alone)");
  sub->add_option("--seed", opt->seed, "Seed of the random inputs (default 1)")
      ->check(boo::cli::non_negative());
  sub->add_option("--cpu-max-gflop", opt->cpu_max_gflop,
                  "Largest problem checked against the fp64 CPU reference, in GFLOP (default 2; "
                  "larger ones use the GPU reference)")
      ->check(boo::cli::positive());
  sub->prefix_command();
  return [opt, sub] {
    opt->words = sub->remaining();
    return run_numerics(*opt);
  };
}

}  // namespace boo::cli
