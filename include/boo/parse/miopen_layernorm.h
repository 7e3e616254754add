// MIOpen/BOO layer norm commands: layernorm (fp32), layernormfp16, layernormbfp16 with
// -X AxBxC (input shape), -o (first normalized dim), -e (eps), -m (0: no weight/bias, 1: weight
// and bias) and BOO's -F codes (1 forward; 2 dx, 4 dweight, 8 dbias and their sums, 14 all).
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "boo/core/status.h"
#include "boo/parse/parsed_command.h"

namespace boo::parse {

std::span<const std::string_view> miopen_layernorm_ops();
core::Expected<ParsedCommand> parse_miopen_layernorm(std::string_view op,
                                                     std::span<const std::string> args);

}  // namespace boo::parse
