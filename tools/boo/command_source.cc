#include "command_source.h"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <system_error>

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
  // A word like an option where the command should start: an option of neither the subcommand
  // nor any command (a hipBLASLt line starts with "- {", or "-" as a word of its own).
  if (!words.empty() && words[0].size() > 1 && words[0][0] == '-' && words[0][1] != ' ') {
    return core::invalid_argument("unknown option " + core::quote(words[0]) +
                                  " (--help lists the subcommand's options)");
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

core::Status check_output_path(const std::string& flag, const std::string& path) {
  namespace fs = std::filesystem;
  const auto cannot = [&](const std::string& why) {
    return core::invalid_argument(flag + ": cannot write '" + path + "': " + why);
  };
  if (path.empty()) return cannot("the file name is empty");
  std::error_code ec;
  const fs::path file(path);
  if (fs::is_directory(file, ec)) return cannot("it is a folder");
  if (fs::exists(file, ec)) {
    return ::access(path.c_str(), W_OK) == 0 ? core::Status::ok() : cannot("not writable");
  }
  const fs::path dir = file.has_parent_path() ? file.parent_path() : fs::path(".");
  if (!fs::is_directory(dir, ec)) return cannot("no folder '" + dir.string() + "'");
  if (::access(dir.c_str(), W_OK) != 0)
    return cannot("folder '" + dir.string() + "' is not writable");
  return core::Status::ok();
}

void print_error(const std::string& source, const core::Status& status) {
  std::fprintf(stderr, "boo: error: %s: %s\n", source.c_str(), status.message().c_str());
}

}  // namespace boo::cli
