// hipBLASLt profile log lines (HIPBLASLT_LOG_MASK=64/128): one YAML flow mapping per unique
// problem, `- {function: matmul, M: .., N: .., K: .., ..., call_count: n}`. Every field is read:
// fields boo cannot honour (gradient epilogues, aux outputs, vector or block scales, complex
// scalars, FNUZ fp8) are errors that name the field; benchmark settings (flush, rotating, iters,
// ...) are accepted and ignored.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "boo/core/status.h"
#include "boo/parse/parsed_command.h"

namespace boo::parse {

// True when the line looks like a YAML flow mapping ("- {" or "{" first).
bool is_hipblaslt_line(std::string_view line);
core::Expected<ParsedCommand> parse_hipblaslt_line(std::string_view line);

// The YAML subset those lines use: `[- ]{key: scalar, ...}` with plain or quoted scalars.
// Exposed for tests. Keys keep their order of appearance in `order`.
struct FlowMapping {
  std::map<std::string, std::string> values;
  std::vector<std::string> order;
};
core::Expected<FlowMapping> parse_flow_mapping(std::string_view line);

}  // namespace boo::parse
