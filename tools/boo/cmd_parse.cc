// `boo parse`: what boo understands of a command: key, canonical command, FLOPs, minimum bytes
// and the roofline floor on an H100.
#include <cstdio>
#include <optional>

#include "boo/dispatch/context.h"
#include "boo/dispatch/conv_gemm_1x1.h"
#include "boo/ops/problem.h"
#include "boo/runtime/device.h"
#include "cli_checks.h"
#include "command_source.h"
#include "format.h"
#include "subcommands.h"

namespace boo::cli {
namespace {

struct ParseOptions {
  std::string commands_file;
  std::vector<std::string> words;
  bool keys_only = false;
  int candidates = 0;  // print dispatch's first N candidates (GEMM, convolution)
};

// Dispatch's notes, then the first `n` candidates of `list` (each named by `name`) with their
// reasons.
template <class List, class Name>
void print_ranked(const std::vector<std::string>& notes, const List& list, size_t n, Name name) {
  for (const std::string& note : notes) std::printf("  dispatch %s\n", note.c_str());
  for (size_t i = 0; i < list.size() && i < n; ++i) {
    std::printf("  #%-2zu %s\n      %s\n", i + 1, std::string(name(list[i])).c_str(),
                list[i].reason.c_str());
  }
}

// Dispatch's ranked candidates with their predicted times (nothing is compiled): the GEMM
// dispatcher's for a GEMM, the convolution dispatcher's for a convolution (and, for a 1x1
// convolution that is a GEMM, that GEMM's), for `sm_count` SMs (0: the default). False where
// dispatch cannot start (a tuning database that does not load): that is an error of the run, not of
// the problem.
bool print_candidates(const ops::Problem& p, int n, int sm_count) {
  const auto* g = std::get_if<ops::GemmProblem>(&p);
  const auto* conv = std::get_if<ops::ConvProblem>(&p);
  if (g == nullptr && conv == nullptr) {
    std::printf("  dispatch lists no candidates for %s here\n",
                std::string(ops::family(p)).c_str());
    return true;
  }
  dispatch::DispatchOptions o;
  o.max_compile_attempts = n;
  auto ctx = dispatch::Context::create(o, sm_count);
  if (!ctx) {
    std::printf("  dispatch unavailable: %s\n", ctx.status().message().c_str());
    std::fprintf(stderr, "boo parse: error: dispatch unavailable: %s\n",
                 ctx.status().message().c_str());
    return false;
  }
  std::optional<ops::GemmProblem> as_gemm;
  if (conv != nullptr) {
    std::vector<std::string> notes;
    auto list = (*ctx)->conv->candidates(*conv, &notes);
    if (!list) {
      std::printf("  dispatch %s\n", list.status().message().c_str());
      return true;
    }
    print_ranked(notes, *list, static_cast<size_t>(n), [](const dispatch::ConvCandidate& c) {
      return c.config.empty() ? c.algorithm : c.config;
    });
    // conv.gemm_1x1: the convolution is this GEMM over its own buffers; conv.gemm_1d: these
    // GEMMs over windows of them (the interior's candidates follow).
    auto mapped = dispatch::conv_as_gemm_1x1(*conv);
    auto windows = dispatch::conv_as_gemm_1d(*conv);
    if (mapped) {
      as_gemm = mapped->gemm;
      std::printf("  dispatch conv.gemm_1x1: A = %c, B = %c, D = %c: %s\n", mapped->a, mapped->b,
                  mapped->d, as_gemm->key().c_str());
    } else if (windows) {
      for (size_t i = 0; i < windows->size(); ++i) {
        const dispatch::ConvAsGemm& m = (*windows)[i];
        std::printf("  dispatch conv.gemm_1d %s: A = %c+%lld, B = %c+%lld, D = %c+%lld: %s\n",
                    i == 0 ? "interior" : "edge", m.a, static_cast<long long>(m.a_offset), m.b,
                    static_cast<long long>(m.b_offset), m.d, static_cast<long long>(m.d_offset),
                    m.gemm.key().c_str());
      }
      as_gemm = windows->front().gemm;
    } else {
      return true;
    }
    g = &*as_gemm;
  }
  std::vector<std::string> notes;
  auto list = (*ctx)->gemm->candidates(*g, &notes);
  if (!list) {
    std::printf("  dispatch %s\n", list.status().message().c_str());
    return true;
  }
  print_ranked(notes, *list, list->size(),
               [](const dispatch::GemmCandidate& c) { return c.config; });
  return true;
}

std::string peak_name(const ops::Problem& p, const ops::Ceilings& c) {
  const double peak = ops::peak_tflops(p, c);
  char buf[96];
  std::snprintf(buf, sizeof(buf), "%.1f TFLOP/s", peak);
  return buf;
}

void print_problem(const ops::Problem& p, const ops::Ceilings& c) {
  const double flops = ops::flops(p);
  const double bytes = static_cast<double>(ops::min_bytes(p));
  const double compute_us = flops / (ops::peak_tflops(p, c) * 1e12) * 1e6;
  const double memory_us = bytes / (c.bandwidth_gbs * 1e9) * 1e6;
  std::printf("  key      %s\n", ops::key(p).c_str());
  std::printf("  command  %s\n", ops::to_command(p).c_str());
  std::printf("  flops    %s\n", with_unit(flops, "FLOP").c_str());
  std::printf("  bytes    %s (each operand crosses HBM once)\n", with_unit(bytes, "B").c_str());
  std::printf("  floor    %s on H100 SXM, %s-bound (compute %s at %s, memory %s at %.0f GB/s)\n",
              micros(ops::floor_us(p, c)).c_str(), compute_us >= memory_us ? "compute" : "memory",
              micros(compute_us).c_str(), peak_name(p, c).c_str(), micros(memory_us).c_str(),
              c.bandwidth_gbs);
}

int run_parse(const ParseOptions& opt) {
  auto source = load_commands(opt.words, opt.commands_file);
  if (!source) {
    std::fprintf(stderr, "boo parse: error: %s\n", source.status().message().c_str());
    return 2;
  }
  const ops::Ceilings ceilings = ops::Ceilings::h100_sxm_datasheet();
  int errors = 0;
  bool dispatch_ok = true;
  // Candidates are ranked for this machine's GPU, as the driver ranks them; without one, for the
  // defaults (an H100 SXM).
  int sm_count = 0;
  if (opt.candidates > 0 && !opt.keys_only) {
    if (const auto gpu = runtime::first_device()) {
      sm_count = gpu->sm_count;
      std::fprintf(stderr, "boo parse: candidates ranked for GPU %d: %s\n", gpu->index,
                   runtime::describe(*gpu).c_str());
    }
  }
  for (const SourcedCommand& cmd : source->commands) {
    if (!cmd.parsed) {
      print_error(cmd.source, cmd.parsed.status());
      ++errors;
      continue;
    }
    for (const ops::Problem& p : cmd.parsed->problems) {
      if (opt.keys_only) {
        std::printf("%s\n", ops::key(p).c_str());
        continue;
      }
      std::printf("%s: %s\n", cmd.source.c_str(), cmd.text.c_str());
      print_problem(p, ceilings);
      if (opt.candidates > 0 && dispatch_ok)
        dispatch_ok = print_candidates(p, opt.candidates, sm_count);
      if (cmd.weight != 1) std::printf("  weight   %lld\n", static_cast<long long>(cmd.weight));
    }
    if (!opt.keys_only) {
      for (const std::string& note : cmd.parsed->notes)
        std::printf("  note     %s\n", note.c_str());
    }
  }
  for (const std::string& note : source->notes)
    std::fprintf(stderr, "boo: note: %s\n", note.c_str());
  if (errors > 0) {
    std::fprintf(stderr, "boo parse: %d of %zu commands failed to parse\n", errors,
                 source->commands.size());
    return 1;
  }
  return dispatch_ok ? 0 : 1;
}

}  // namespace

Run add_parse_command(CLI::App& app) {
  auto opt = std::make_shared<ParseOptions>();
  CLI::App* sub = app.add_subcommand(
      "parse",
      "Print what boo understands of each command: its problem key, canonical command, FLOPs,\n"
      "minimum bytes moved and the roofline floor on an H100 SXM5. The floor is\n"
      "max(FLOPs / peak, bytes / 3350 GB/s) with NVIDIA's datasheet peaks (dense): fp8 1978.9,\n"
      "bf16/fp16 989.4, tf32 494.7, fp32 66.9 TFLOP/s (layer norm: fp32 rate). Benchmarks\n"
      "measure these ceilings instead.");
  sub->add_option("--commands-file", opt->commands_file,
                  "A file of commands (.txt with # comments, .tsv, hipBLASLt or cuBLASLt log)");
  sub->add_flag("--keys", opt->keys_only, "Print only the problem keys, one per line");
  sub->add_option("--candidates", opt->candidates,
                  "Also print the first N kernel configs dispatch would try, with the "
                  "heuristic's predicted times (GEMM, convolution)")
      ->check(boo::cli::positive());
  sub->prefix_command();
  return [opt, sub] {
    opt->words = sub->remaining();
    return run_parse(*opt);
  };
}

}  // namespace boo::cli
