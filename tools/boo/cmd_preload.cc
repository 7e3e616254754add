// `boo preload`: compiles what dispatch would use for every problem of a commands file, in
// parallel, so that a job later finds every kernel in the cache (DESIGN.md §4). Needs no GPU.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <map>

#include "boo/dispatch/context.h"
#include "boo/jit/compile_log.h"
#include "boo/runtime/device.h"
#include "cli_checks.h"
#include "command_source.h"
#include "parallel_compile.h"
#include "subcommands.h"

namespace boo::cli {
namespace {

struct PreloadOptions {
  std::string commands_file;
  std::vector<std::string> words;
  int jobs = 0;
  bool list = false;
  int top = 1;            // compile the first `top` candidates of each problem, not only the first
  bool misalign = false;  // for operand pointers aligned only to their element size
  std::string rule_set = "default";  // the rule set the heuristic ranks
  std::string config;                // compile exactly this config (as `boo driver --config`)
  bool fail_on_spills = false;       // exit 1 when a kernel it compiled or found spills
  bool fail_on_mma_waits = false;    // exit 1 when ptxas waits for a kernel's warpgroup MMAs
};

// One problem's kernels in dispatch's order: the first that compiles resolves it.
struct Pending {
  std::string key;
  std::vector<codegen::KernelSource> candidates;
  size_t next = 0;
  bool done = false;
};

// Kernel sources of a GEMM's candidate list (a candidate without source is skipped).
std::vector<codegen::KernelSource> gemm_sources(const dispatch::GemmDispatcher& gemm,
                                                const std::vector<dispatch::GemmCandidate>& list) {
  std::vector<codegen::KernelSource> out;
  for (const dispatch::GemmCandidate& c : list) {
    if (auto src = gemm.source(c)) out.push_back(std::move(*src));
  }
  return out;
}

int run_preload(const PreloadOptions& opt) {
  auto source = load_commands(opt.words, opt.commands_file);
  if (!source) {
    std::fprintf(stderr, "boo preload: error: %s\n", source.status().message().c_str());
    return 2;
  }
  dispatch::DispatchOptions dopt;
  dopt.max_compile_attempts = std::max(3, opt.top);
  dopt.rules = *space::parse_rule_set(opt.rule_set);  // CLI11 checked the name
  dopt.force_config = opt.config;
  // Ranked for this machine's GPU, as the driver will rank them.
  const auto gpu = runtime::first_device();
  auto ctx = dispatch::Context::create(dopt, gpu ? gpu->sm_count : 0);
  if (!ctx) {
    std::fprintf(stderr, "boo preload: error: %s\n", ctx.status().message().c_str());
    return 2;
  }
  dispatch::GemmDispatcher& gemm = *(*ctx)->gemm;
  dispatch::ConvDispatcher& conv = *(*ctx)->conv;
  const dispatch::LayerNormDispatcher* layernorm = (*ctx)->layernorm.get();
  jit::KernelCache& cache = *(*ctx)->cache;
  int errors = 0;
  int skipped = 0;
  std::vector<Pending> pending;
  // --top K: the extra candidates (heuristic ranks 2..K, not the fallback) become entries of
  // their own.
  auto add = [&](const std::string& key, std::vector<codegen::KernelSource> all) {
    pending.push_back({key, all, 0, false});
    for (size_t extra = 1; extra < static_cast<size_t>(opt.top) && extra + 1 < all.size();
         ++extra) {
      pending.push_back({key, {all[extra]}, 0, false});
    }
  };
  for (const SourcedCommand& cmd : source->commands) {
    if (!cmd.parsed) {
      print_error(cmd.source, cmd.parsed.status());
      ++errors;
      continue;
    }
    for (const ops::Problem& p : cmd.parsed->problems) {
      if (const auto* g = std::get_if<ops::GemmProblem>(&p)) {
        auto c = gemm.candidates(*g, nullptr, /*aligned_pointers=*/!opt.misalign);
        if (!c) {
          print_error(g->key(), c.status());
          ++errors;
          continue;
        }
        add(g->key(), gemm_sources(gemm, *c));
      } else if (const auto* cv = std::get_if<ops::ConvProblem>(&p)) {
        auto c = conv.candidates(*cv, nullptr);
        if (!c) {
          print_error(cv->key(), c.status());
          ++errors;
          continue;
        }
        std::vector<codegen::KernelSource> sources;
        for (const dispatch::ConvCandidate& k : *c) {
          if (k.algorithm == dispatch::kConvGemm1x1 || k.algorithm == dispatch::kConvGemm1d) {
            // The GEMMs this convolution is: the GEMM dispatcher's own candidates for each (for
            // pointers aligned only to the element size with --misalign, as the run re-plans
            // them for such tensors).
            auto mapped = dispatch::conv_as_gemms(k.algorithm, *cv);
            if (!mapped) continue;
            for (const dispatch::ConvAsGemm& m : *mapped) {
              auto g = gemm.candidates(m.gemm, nullptr, /*aligned_pointers=*/!opt.misalign);
              if (!g) {
                // A forced config (--config) that is not this GEMM's is the user's error: say
                // so, as for a GEMM command.
                if (!opt.config.empty()) {
                  print_error(cv->key(), g.status());
                  ++errors;
                }
                continue;
              }
              for (auto& src : gemm_sources(gemm, *g)) sources.push_back(std::move(src));
            }
          } else if (auto src = conv.source(k)) {
            sources.push_back(std::move(*src));
          }
        }
        add(cv->key(), std::move(sources));
      } else if (const auto* l = std::get_if<ops::LayerNormProblem>(&p)) {
        if (layernorm == nullptr) {
          ++skipped;
          continue;
        }
        // Dispatch runs the first candidate; the rest are there for a failed compile, as for
        // GEMMs and convolutions (one compile per problem when the first succeeds).
        const int64_t alignment = opt.misalign ? core::dtype_bytes(l->dtype) : 16;
        auto c = layernorm->candidates(*l, nullptr, alignment);
        if (!c) {
          print_error(l->key(), c.status());
          ++errors;
          continue;
        }
        std::vector<codegen::KernelSource> sources;
        for (const dispatch::LayerNormCandidate& k : *c) {
          if (auto src = layernorm->source(k)) sources.push_back(std::move(*src));
        }
        add(l->key(), std::move(sources));
      } else {
        ++skipped;
      }
    }
  }
  const int jobs = opt.jobs > 0 ? opt.jobs : default_compile_jobs();
  std::fprintf(stderr, "boo preload: %zu problems%s; cache %s; %d parallel compiles\n",
               pending.size(),
               skipped ? (" (" + std::to_string(skipped) +
                          " problems without a dispatcher to compile for, skipped)")
                             .c_str()
                       : "",
               cache.options().root.c_str(), jobs);
  int compiled = 0, cached = 0, failed = 0;
  std::vector<std::string> spilling;     // "NAME spills registers ..." for each kernel that spills
  std::vector<std::string> mma_waiting;  // "NAME waits for its warpgroup MMAs ..." likewise
  // Rounds: every unresolved problem's next candidate; a kernel shared by problems compiles once.
  for (int round_index = 0;; ++round_index) {
    std::map<std::string, codegen::KernelSource> round;  // by entry stem
    std::map<std::string, std::vector<Pending*>> users;
    for (Pending& p : pending) {
      if (p.done || p.next >= p.candidates.size()) continue;
      const codegen::KernelSource& src = p.candidates[p.next];
      const std::string stem = cache.paths(src).stem;
      round.emplace(stem, src);
      users[stem].push_back(&p);
    }
    if (round.empty()) break;
    std::vector<std::pair<std::string, codegen::KernelSource>> work(round.begin(), round.end());
    if (opt.list) {
      for (auto& [stem, src] : work) {
        std::string state = "to compile";
        if (access(cache.paths(src).object().c_str(), F_OK) == 0) state = "cached";
        if (access(cache.paths(src).failed().c_str(), F_OK) == 0) state = "failed before";
        std::printf("%-13s %s\n", state.c_str(), src.name.c_str());
        for (Pending* p : users[stem]) p->done = true;
      }
      continue;
    }
    std::vector<codegen::KernelSource> sources;
    for (auto& [stem, src] : work) sources.push_back(src);
    if (round_index > 0) {  // the progress count below starts again: say why
      size_t waiting = 0;
      for (const auto& [stem, ps] : users) waiting += ps.size();
      std::fprintf(stderr,
                   "boo preload: %d kernels failed to compile so far; round %d: the next "
                   "candidate of %zu problems (%zu kernels)\n",
                   failed, round_index + 1, waiting, work.size());
    }
    const std::vector<CompileResult> results = compile_parallel(cache, sources, jobs);
    for (size_t i = 0; i < work.size(); ++i) {
      const CompileResult& r = results[i];
      if (!r.outcome) {
        ++failed;
      } else if (*r.outcome == jit::CacheOutcome::kCompiled) {
        ++compiled;
      } else {
        ++cached;
      }
      if (r.outcome) {
        const std::string log = jit::read_compile_log(cache.paths(work[i].second).log());
        const jit::SpillReport spills = jit::spills_in_log(log);
        if (spills.any()) spilling.push_back(jit::spill_warning(r.name, spills));
        const int waits = jit::mma_waits_in_log(log);
        if (waits > 0) mma_waiting.push_back(jit::mma_wait_warning(r.name, waits));
      }
      for (Pending* p : users[work[i].first]) {
        if (r.outcome) {
          p->done = true;
        } else {
          ++p->next;
        }
      }
    }
  }
  int unresolved = 0;
  for (const Pending& p : pending) unresolved += p.done ? 0 : 1;
  if (!opt.list) {
    std::fprintf(stderr,
                 "boo preload: compiled %d, already cached %d, failed %d; %d problems without a "
                 "kernel\n",
                 compiled, cached, failed, unresolved);
    for (const std::string& s : spilling) {
      std::fprintf(stderr, "boo preload: %s: %s\n", opt.fail_on_spills ? "error" : "warning",
                   s.c_str());
    }
    for (const std::string& s : mma_waiting) {
      std::fprintf(stderr, "boo preload: %s: %s\n", opt.fail_on_mma_waits ? "error" : "warning",
                   s.c_str());
    }
  }
  const bool spill_failure = opt.fail_on_spills && !spilling.empty();
  const bool wait_failure = opt.fail_on_mma_waits && !mma_waiting.empty();
  return errors > 0 || failed > 0 || unresolved > 0 || spill_failure || wait_failure ? 1 : 0;
}

}  // namespace

Run add_preload_command(CLI::App& app) {
  auto opt = std::make_shared<PreloadOptions>();
  CLI::App* sub = app.add_subcommand(
      "preload",
      "Compile the kernels dispatch would use for each problem into the kernel cache, in\n"
      "parallel, with progress; a second run finds everything cached. Needs no GPU.");
  sub->add_option("--commands-file", opt->commands_file, "A file of commands (or a log)");
  sub->add_option("-j,--jobs", opt->jobs,
                  "Parallel compiles (default: cores, at most one per 4 GB of memory)")
      ->check(boo::cli::positive());
  sub->add_flag("--list", opt->list, "Only print what would be compiled");
  sub->add_flag("--fail-on-spills", opt->fail_on_spills,
                "Exit 1 when a kernel it compiled or found in the cache spills registers to "
                "local memory (ptxas's warning in the kernel's compile log)");
  sub->add_flag("--fail-on-mma-waits", opt->fail_on_mma_waits,
                "Exit 1 when ptxas waits for or serializes a kernel's warpgroup MMAs (its "
                "C7517 note or its serialization warning in the kernel's compile log)");
  sub->add_flag("--misalign", opt->misalign,
                "Compile for operand pointers aligned only to their element size (what "
                "`boo driver --misalign` and views into larger tensors use)");
  sub->add_option("--top", opt->top,
                  "Also compile the heuristic's next candidates, up to K per problem (sweeps)")
      ->check(boo::cli::positive());
  sub->add_option("--config", opt->config,
                  "Compile exactly this kernel config (a name from dispatch, as `boo driver "
                  "--config`) for each problem; a config that does not fit a problem is an error");
  sub->add_option("--rule-set", opt->rule_set,
                  "The rule set whose configs the heuristic ranks: tiny, default (the default) "
                  "or full (as `boo driver --rule-set`)")
      ->check(CLI::IsMember({"tiny", "default", "full"}));
  sub->prefix_command();
  return [opt, sub] {
    opt->words = sub->remaining();
    return run_preload(*opt);
  };
}

}  // namespace boo::cli
