// MIOpenDriver takes its flags after the command (`MIOpenDriver convbfp16 -n 64 ... -t 1`);
// boo's subcommands that take a command line take their own flags before it. So that flags
// written MIOpenDriver's way work, a subcommand's own long flags found after the command move
// before it, with their values.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace boo::cli {

// `args`: the words after the subcommand's name. Returns them with the subcommand's own long
// flags (`--csv F`, `--csv=F`, `--explain`) that follow the command moved in front of it, in
// their order. Left in place: flags before the command, words that are not long flags, and
// the names MIOpenDriver's commands also have (--iter, --time, --verify), which the command's
// parser reads. Throws CLI::ArgumentMismatch where the last word is such a flag without its
// value.
std::vector<std::string> hoist_own_flags(const CLI::App& sub, std::vector<std::string> args);

}  // namespace boo::cli
