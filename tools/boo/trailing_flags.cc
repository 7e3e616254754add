#include "trailing_flags.h"

#include <algorithm>
#include <array>
#include <string_view>

namespace boo::cli {
namespace {

// The subcommand's option called `word` ("--csv", "--csv=F", "-j"), or null.
const CLI::Option* own_option(const CLI::App& sub, const std::string& word) {
  if (word.size() < 2 || word[0] != '-') return nullptr;
  const std::string name = word.substr(0, word.find('='));
  for (const CLI::Option* opt : sub.get_options()) {
    if (!opt->get_positional() && opt->check_name(name)) return opt;
  }
  return nullptr;
}

bool takes_value(const CLI::Option* opt, const std::string& word) {
  return opt->get_expected_min() > 0 && word.find('=') == std::string::npos;
}

}  // namespace

std::vector<std::string> hoist_own_flags(const CLI::App& sub, std::vector<std::string> args) {
  // Where the command starts: the first word that is neither one of the subcommand's flags nor
  // such a flag's value (a hipBLASLt line, "- {function: ...}", starts with '-' too).
  size_t start = 0;
  while (start < args.size()) {
    const CLI::Option* opt = own_option(sub, args[start]);
    if (opt == nullptr) break;
    start += takes_value(opt, args[start]) ? 2 : 1;
  }
  if (start >= args.size()) return args;
  static constexpr std::array<std::string_view, 3> kCommandsToo = {"--iter", "--time", "--verify"};
  std::vector<std::string> moved, rest;
  for (size_t i = start; i < args.size(); ++i) {
    const std::string& word = args[i];
    const CLI::Option* opt = word.rfind("--", 0) == 0 ? own_option(sub, word) : nullptr;
    const std::string name = word.substr(0, word.find('='));
    const bool shared =
        std::find(kCommandsToo.begin(), kCommandsToo.end(), name) != kCommandsToo.end();
    if (opt == nullptr || shared) {
      rest.push_back(word);
      continue;
    }
    if (takes_value(opt, word) && i + 1 == args.size()) {
      // Moved in front without its value, it would take the command's first word as one.
      throw CLI::ArgumentMismatch(name + ": the value is missing (the option is the last word)");
    }
    moved.push_back(word);
    if (takes_value(opt, word)) moved.push_back(args[++i]);
  }
  std::vector<std::string> out(args.begin(), args.begin() + static_cast<std::ptrdiff_t>(start));
  out.insert(out.end(), moved.begin(), moved.end());
  out.insert(out.end(), rest.begin(), rest.end());
  return out;
}

}  // namespace boo::cli
