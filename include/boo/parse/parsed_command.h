// What a parsed command line yields: one or more problems (MIOpen -F 0 expands to three), the
// run options written in the command (-t, --iter, -V), and notes about accepted-but-ignored input.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "boo/ops/problem.h"

namespace boo::parse {

// Set only when the command spells them; the driver's own flags override.
struct RunOptions {
  std::optional<bool> time;     // -t / --time
  std::optional<int64_t> iter;  // -i / --iter
  std::optional<bool> verify;   // -V / --verify
};

struct ParsedCommand {
  std::vector<ops::Problem> problems;
  RunOptions run;
  std::vector<std::string> notes;  // "-s (search): a MIOpen option boo does not use; ignored"
};

}  // namespace boo::parse
