// Command files: one command per line. `.txt` and logs: blank lines and lines whose first
// non-blank character is '#' are skipped (a '#' later in a line is MIOpen's -# flag, not a
// comment); cuBLASLt log lines other than cublasLtMatmul traces are skipped and counted.
// `.tsv`: tab-separated; with a header row, the `command` column holds the command and an
// optional `count` (or `call_count`, `weight`) column its weight; without one, the first column
// is the command and an integer second column its weight.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "boo/core/status.h"

namespace boo::parse {

struct CommandEntry {
  std::string source;  // "path:line", for messages
  std::string text;
  int64_t weight = 1;
};

struct CommandFile {
  std::vector<CommandEntry> entries;
  std::vector<std::string> notes;  // e.g. "skipped 12 cuBLASLt lines that are not matmul traces"
};

core::Expected<CommandFile> read_command_file(const std::string& path);
// The same from text already in memory; `name` stands for the path (its extension matters).
core::Expected<CommandFile> read_command_text(const std::string& name, const std::string& text);

}  // namespace boo::parse
