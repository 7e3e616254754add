// MIOpenDriver-style flags: each flag takes exactly one value, written `-x VALUE` or
// `--long_name VALUE` (the value is always the next word, as in MIOpen's InputFlags). Unknown
// flags and missing values are errors; flags a table marks as ignored produce a note.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "boo/core/status.h"
#include "boo/parse/parsed_command.h"

namespace boo::parse {

enum class FlagUse : uint8_t {
  kUsed,     // read by the parser
  kIgnored,  // accepted for MIOpen compatibility; noted and ignored
};

struct FlagSpec {
  std::string_view long_name;
  char short_name;  // '\0' when the flag has no short form
  std::string_view default_value;
  FlagUse use = FlagUse::kUsed;
};

class FlagValues {
 public:
  bool given(std::string_view long_name) const { return given_.count(std::string(long_name)); }
  // The value given, else the table's default.
  std::string_view get(std::string_view long_name) const;
  std::string_view get_default(std::string_view long_name) const;
  // The flag as the user wrote it ("-n" or "--batchsize"); the short form when not given.
  std::string spelled(std::string_view long_name) const;
  // A message that starts with a flag of the table in its canonical form ("-!: must be >= 1")
  // names it as the user wrote it ("--in_d: must be >= 1"): the problem layer's checks know the
  // short forms only. Other messages come back unchanged.
  std::string respelled(std::string_view message) const;
  core::Status respelled(const core::Status& status) const;
  core::Expected<int64_t> get_int(std::string_view long_name) const;
  core::Expected<double> get_double(std::string_view long_name) const;

 private:
  friend core::Expected<FlagValues> parse_flags(std::span<const FlagSpec>,
                                                std::span<const std::string>,
                                                std::vector<std::string>*);
  struct Given {
    std::string value;
    std::string spelled;
  };
  std::span<const FlagSpec> specs_;
  std::map<std::string, Given> given_;
  const FlagSpec* find(std::string_view long_name) const;
};

// Parses `args` (the words after the op name) against `specs`. Ignored flags add a note.
core::Expected<FlagValues> parse_flags(std::span<const FlagSpec> specs,
                                       std::span<const std::string> args,
                                       std::vector<std::string>* notes);

// The flags every MIOpen driver command shares: -t/--time, -i/--iter, -V/--verify,
// -w/--wall (ignored). Append them to an op's table.
std::vector<FlagSpec> with_run_flags(std::initializer_list<FlagSpec> specs);
// Reads -t, -i, -V when given (iter must be >= 1).
core::Expected<RunOptions> read_run_options(const FlagValues& flags);

}  // namespace boo::parse
