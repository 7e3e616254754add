// MIOpenDriver convolution commands: conv (fp32), convfp16, convbfp16 and their flags
// (DESIGN.md §2), with MIOpen's defaults for flags that are not given.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "boo/core/status.h"
#include "boo/parse/parsed_command.h"

namespace boo::parse {

// Op names this parser answers to (others of MIOpen's, such as convint8, give a clear error).
std::span<const std::string_view> miopen_conv_ops();
core::Expected<ParsedCommand> parse_miopen_conv(std::string_view op,
                                                std::span<const std::string> args);

}  // namespace boo::parse
