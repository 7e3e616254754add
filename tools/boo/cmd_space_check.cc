// `boo space-check`: compiles a random sample of a rule set's configs (over representative
// GEMM classes) to show that the validity rules admit only configs that compile. Failures are
// printed with the path of their compiler log. Needs no GPU.
#include <algorithm>
#include <cstdio>
#include <random>
#include <set>

#include "boo/dispatch/context.h"
#include "boo/space/gemm_sm90.h"
#include "cli_checks.h"
#include "parallel_compile.h"
#include "subcommands.h"

namespace boo::cli {
namespace {

struct SpaceCheckOptions {
  int sample = 24;
  int jobs = 0;
  uint64_t seed = 1;
  std::string rule_set = "full";
};

int run_space_check(const SpaceCheckOptions& opt) {
  auto rules = space::parse_rule_set(opt.rule_set);
  if (!rules) {
    std::fprintf(stderr, "boo space-check: error: %s\n", rules.status().message().c_str());
    return 2;
  }
  auto ctx = dispatch::Context::create();
  if (!ctx) {
    std::fprintf(stderr, "boo space-check: error: %s\n", ctx.status().message().c_str());
    return 2;
  }
  std::vector<space::GemmSm90Config> all;
  for (const space::GemmClass& cls : space::sample_gemm_classes()) {
    for (const space::GemmSm90Config& c : space::gemm_sm90_space(cls, *rules)) all.push_back(c);
  }
  std::mt19937_64 rng(opt.seed);
  std::shuffle(all.begin(), all.end(), rng);
  std::vector<codegen::KernelSource> sources;
  std::set<std::string> seen;
  for (const space::GemmSm90Config& c : all) {
    if (static_cast<int>(sources.size()) >= opt.sample) break;
    if (!seen.insert(c.kernel_name()).second) continue;  // split counts share one kernel
    auto src = codegen::gemm_sm90_source(c);
    if (!src) {
      std::fprintf(stderr, "boo space-check: codegen failed for %s: %s\n", c.name().c_str(),
                   src.status().message().c_str());
      return 1;
    }
    sources.push_back(*src);
  }
  std::fprintf(stderr,
               "boo space-check: %zu valid gemm.sm90 configs in the %s rule set over %zu "
               "classes; compiling %zu sampled kernels (seed %llu)\n",
               all.size(), opt.rule_set.c_str(), space::sample_gemm_classes().size(),
               sources.size(), static_cast<unsigned long long>(opt.seed));
  const int jobs = opt.jobs > 0 ? opt.jobs : default_compile_jobs();
  int failed = 0;
  for (const CompileResult& r : compile_parallel(*(*ctx)->cache, sources, jobs)) {
    if (!r.outcome) {
      ++failed;
      std::printf("FAILED %s\n  %s\n", r.name.c_str(), r.outcome.status().message().c_str());
    }
  }
  std::printf("space-check: %zu compiled or cached, %d failed\n", sources.size() - failed, failed);
  return failed > 0 ? 1 : 0;
}

}  // namespace

Run add_space_check_command(CLI::App& app) {
  auto opt = std::make_shared<SpaceCheckOptions>();
  CLI::App* sub = app.add_subcommand(
      "space-check",
      "Compile a random sample of a rule set's gemm.sm90 configs to check that every config the\n"
      "validity rules admit compiles. Needs no GPU; about 40 s and 3.5 GB per kernel.");
  sub->add_option("--sample", opt->sample, "Kernels to compile (default 24)")
      ->check(boo::cli::positive());
  sub->add_option("-j,--jobs", opt->jobs, "Parallel compiles")->check(boo::cli::positive());
  sub->add_option("--seed", opt->seed, "Seed of the sample (default 1)")
      ->check(boo::cli::non_negative());
  sub->add_option("--rule-set", opt->rule_set, "tiny, default or full (default full)");
  return [opt] { return run_space_check(*opt); };
}

}  // namespace boo::cli
