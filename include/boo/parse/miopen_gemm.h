// MIOpenDriver gemm commands: gemm (fp32), gemmfp16, and boo's gemmbfp16, with MIOpen's flags
// -m (rows of A) -k (cols of A) -n (cols of B) -u/-v (transpose A/B) -A alpha -B beta
// -b batch_count -C isColMajor. Leading dimensions and strides are packed, as MIOpen derives
// them; a row-major GEMM becomes the column-major problem D^T = op(B)^T op(A)^T.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "boo/core/status.h"
#include "boo/parse/parsed_command.h"

namespace boo::parse {

std::span<const std::string_view> miopen_gemm_ops();
core::Expected<ParsedCommand> parse_miopen_gemm(std::string_view op,
                                                std::span<const std::string> args);

}  // namespace boo::parse
