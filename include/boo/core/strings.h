// Strict text-to-number conversion and small string helpers shared by the parsers. Errors name
// the field they were asked for ("-n: expected an integer, got 'x'").
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "boo/core/status.h"

namespace boo::core {

// Whole-string conversions; `field` names the flag or field in the error message.
Expected<int64_t> parse_int(std::string_view field, std::string_view text);
Expected<double> parse_double(std::string_view field, std::string_view text);
// kInvalidArgument "<field>: must be >= <min> (<why>), got <value>" when value < min.
Status require_at_least(std::string_view field, int64_t value, int64_t min,
                        std::string_view why = "");
// "0"/"1", "true"/"false" (any case).
Expected<bool> parse_bool(std::string_view field, std::string_view text);

std::string_view trim(std::string_view s);
std::vector<std::string_view> split(std::string_view s, char sep);
// Splits on runs of blanks (spaces, tabs), like a shell without quoting.
std::vector<std::string> split_words(std::string_view s);
std::string join(std::span<const std::string> parts, std::string_view sep);
std::string to_lower(std::string_view s);
// Shortest text that parses back to the same double ("1", "0.5", "1e-05").
std::string format_double(double v);
// "(128, 24, 48, 384)".
std::string format_shape(std::span<const int64_t> dims);
// Quotes a value for an error message, cutting it at 40 characters.
std::string quote(std::string_view value);

}  // namespace boo::core
