// `boo`: the command line of boo. One source file per subcommand (DESIGN.md §1).
#include <CLI/CLI.hpp>
#include <cstdio>
#include <string>
#include <vector>

#include "boo/core/build_info.h"
#include "subcommands.h"
#include "trailing_flags.h"

int main(int argc, char** argv) {
  CLI::App app{
      "boo (bag of ops): fast convolutions, GEMMs and layer norms for NVIDIA Hopper GPUs.\n"
      "Give it a MIOpenDriver command, a hipBLASLt or cuBLASLt log line, or a file of them."};
  app.set_version_flag("--version", std::string("boo ") + boo::core::kBooVersion);
  app.require_subcommand(1);
  app.footer(
      "Examples:\n"
      "  boo parse convbfp16 -n 128 -c 128 -H 24 -W 48 -k 384 -y 1 -x 1 -F 1 --in_layout NHWC\n"
      "  boo driver --commands-file bench/workloads/layernorm_public.txt\n"
      "Run 'boo <subcommand> --help' for a subcommand's options.");
  const boo::cli::Run run_parse = boo::cli::add_parse_command(app);
  const boo::cli::Run run_driver = boo::cli::add_driver_command(app);
  const boo::cli::Run run_preload = boo::cli::add_preload_command(app);
  const boo::cli::Run run_space_check = boo::cli::add_space_check_command(app);
  const boo::cli::Run run_numerics = boo::cli::add_numerics_command(app);
  const boo::cli::Run run_codegen = boo::cli::add_codegen_command(app);
  const boo::cli::Run run_cache = boo::cli::add_cache_command(app);
  const boo::cli::Run run_ceilings = boo::cli::add_ceilings_command(app);
  // The subcommands that take a command line (prefix_command) accept their own flags after it
  // too, as MIOpenDriver's users write them (`boo driver convbfp16 ... --csv out.csv`).
  std::vector<std::string> words(argv, argv + argc);
  std::vector<char*> args;
  try {
    for (const CLI::App* sub : app.get_subcommands({})) {
      if (words.size() > 1 && words[1] == sub->get_name() && sub->get_prefix_command()) {
        std::vector<std::string> tail =
            boo::cli::hoist_own_flags(*sub, {words.begin() + 2, words.end()});
        words.resize(2);
        words.insert(words.end(), tail.begin(), tail.end());
      }
    }
    for (std::string& w : words) args.push_back(w.data());
    app.parse(static_cast<int>(args.size()), args.data());
  } catch (const CLI::ParseError& e) {
    // CLI11 prints the message (naming the flag and value); boo's exit status for bad usage is
    // 2 whatever CLI11's own code (--help and --version exit 0).
    const int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }
  if (app.got_subcommand("parse")) return run_parse();
  if (app.got_subcommand("driver")) return run_driver();
  if (app.got_subcommand("preload")) return run_preload();
  if (app.got_subcommand("space-check")) return run_space_check();
  if (app.got_subcommand("numerics")) return run_numerics();
  if (app.got_subcommand("codegen")) return run_codegen();
  if (app.got_subcommand("cache")) return run_cache();
  if (app.got_subcommand("ceilings")) return run_ceilings();
  return 1;
}
