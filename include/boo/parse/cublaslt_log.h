// cuBLASLt trace lines (CUBLASLT_LOG_LEVEL=2 or higher):
//   [date][cublasLt][pid][Trace][cublasLtMatmul] A=.. Adesc=[type=R_16BF rows=.. cols=.. ld=..]
//   B=.. Bdesc=[..] C=.. Cdesc=[..] D=.. Ddesc=[..] computeDesc=[computeType=COMPUTE_32F
//   scaleType=R_32F transa=OP_T epilogue=EPILOGUE_BIAS ...] algo=[..] ... beta=0 ...
// M, N, K come from the layouts (D is M x N; transa/transb, printed only when OP_T, say how A and B
// are stored). cuBLASLt does not log alpha: it is taken as 1 and said so in a note.
#pragma once

#include <string_view>

#include "boo/core/status.h"
#include "boo/parse/parsed_command.h"

namespace boo::parse {

// True for any cuBLASLt log line ("[cublasLt]" tag).
bool is_cublaslt_line(std::string_view line);
// True for a cublasLtMatmul trace line (the ones that describe a problem).
bool is_cublaslt_matmul_line(std::string_view line);
core::Expected<ParsedCommand> parse_cublaslt_line(std::string_view line);

}  // namespace boo::parse
