#include "command_source.h"

#include <cstdio>

#include "boo/core/strings.h"
#include "boo/parse/command_file.h"
#include "boo/parse/registry.h"

namespace boo::cli {

core::Expected<CommandSource> load_commands(const std::vector<std::string>& words,
                                            const std::string& commands_file) {
  if (words.empty() && commands_file.empty()) {
    return core::invalid_argument(
        "give a command (e.g. convbfp16 -n 128 ...) or "
        "--commands-file FILE");
  }
  if (!words.empty() && !commands_file.empty()) {
    return core::invalid_argument("give either a command or --commands-file, not both (got " +
                                  core::quote(words[0]) + " and --commands-file)");
  }
  const parse::Registry registry = parse::make_default_registry();
  CommandSource out;
  if (!words.empty()) {
    // One command, whether the shell split it into words or it came as one quoted string.
    const std::string text = core::join(words, " ");
    out.commands.push_back({"command line", text, 1, registry.parse(text)});
    return out;
  }
  BOO_ASSIGN_OR_RETURN(parse::CommandFile file, parse::read_command_file(commands_file));
  out.notes = std::move(file.notes);
  for (parse::CommandEntry& e : file.entries) {
    auto parsed = registry.parse(e.text);
    out.commands.push_back({e.source, std::move(e.text), e.weight, std::move(parsed)});
  }
  if (out.commands.empty()) {
    out.notes.push_back(commands_file + ": no commands (only comments or blank lines)");
  }
  return out;
}

void print_error(const std::string& source, const core::Status& status) {
  std::fprintf(stderr, "boo: error: %s: %s\n", source.c_str(), status.message().c_str());
}

}  // namespace boo::cli
