// Where a subcommand's problems come from: the words after its own options (one command) or
// --commands-file. Each entry is parsed on its own so that one bad line does not hide the rest.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "boo/core/status.h"
#include "boo/parse/parsed_command.h"

namespace boo::cli {

struct SourcedCommand {
  std::string source;  // "command line" or "file.txt:12"
  std::string text;
  int64_t weight = 1;
  core::Expected<parse::ParsedCommand> parsed = core::internal_error("not parsed");
};

struct CommandSource {
  std::vector<SourcedCommand> commands;
  std::vector<std::string> notes;
};

// Exactly one of `words` (non-empty) and `commands_file` must be given.
core::Expected<CommandSource> load_commands(const std::vector<std::string>& words,
                                            const std::string& commands_file);

// Why `flag`'s output file `path` could not be written, found without creating or truncating it
// (so that a run that stops before its first result leaves an older file as it was), or ok.
core::Status check_output_path(const std::string& flag, const std::string& path);

// "boo: error: <source>: <message>" on stderr.
void print_error(const std::string& source, const core::Status& status);

}  // namespace boo::cli
