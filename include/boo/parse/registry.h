// The parser registry: an object (no global state) that maps a command line to its parser.
// MIOpen-style commands are matched on their exact first word (op name); log lines on their
// shape (a YAML flow mapping for hipBLASLt, a "[cublasLt]" tag for cuBLASLt). A leading
// "MIOpenDriver" or "./bin/MIOpenDriver" word, as MIOpen's own command logs print, is skipped.
#pragma once

#include <functional>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "boo/core/status.h"
#include "boo/parse/parsed_command.h"

namespace boo::parse {

using OpParser = std::function<core::Expected<ParsedCommand>(std::string_view op,
                                                             std::span<const std::string> args)>;

class Registry {
 public:
  // Registers `parser` for the exact op name `op`; a second registration of a name is an error.
  core::Status add_op(std::string op, OpParser parser);
  // Parses one command: MIOpen-style words, a hipBLASLt YAML line or a cuBLASLt trace line.
  core::Expected<ParsedCommand> parse(std::string_view line) const;
  // Parses an already split command (e.g. from a shell's argv).
  core::Expected<ParsedCommand> parse_words(std::span<const std::string> words) const;
  std::vector<std::string> op_names() const;

 private:
  std::map<std::string, OpParser, std::less<>> ops_;
};

// A registry holding every parser boo has (conv, layer norm, gemm and the two log formats).
Registry make_default_registry();

}  // namespace boo::parse
