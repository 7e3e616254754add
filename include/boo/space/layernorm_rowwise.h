// The configuration space of `layernorm.rowwise` (kernels/layernorm_rowwise.cuh): layer norms
// over packed rows x cols, fp32 math. A row is read by a group of `threads` consecutive threads
// of a block (a sub-warp, a warp or several warps), each loading `vec` elements per access;
// a block holds `rows` such groups and walks the rows grid-stride.
//   items > 0 ("regs"):  each thread keeps its items * vec elements of the row in registers, so
//                        x (and dy) are read from memory once; rows of at most
//                        vec * threads * items columns.
//   items = 0 ("stream"): rows of any length; the kernel reads the row again (from L2) for each
//                        pass. With vec = 1 it takes any cols and pointers aligned only to the
//                        element size: the fallback.
// The forward kernel writes y, mean and rstd; the backward kernel writes dx and per-block
// partial sums of dweight and dbias into an fp32 workspace, which a second kernel reduces in a
// fixed order (deterministic).
#pragma once

#include <algorithm>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "boo/core/dtype.h"
#include "boo/core/status.h"
#include "boo/space/rule_set.h"

namespace boo::space {

inline constexpr std::string_view kLayerNormRowwisePrefix = "layernorm.rowwise_";
inline constexpr int kLayerNormMaxItems = 16;

struct LayerNormRowwiseConfig {
  core::DType dtype = core::DType::kF32;  // f32, f16 or bf16 (x, y, weight, bias, dy, dx, ...)
  bool backward = false;                  // the forward (fwd) or the backward (bwd) kernel
  int vec = 1;       // elements per vector access: 1, 2, 4 or 8, at most 16 bytes
  int threads = 32;  // threads per row: a power of two from 1 to 1024
  int rows = 1;      // rows per block: a power of two; threads * rows in [32, 1024]
  int items = 0;     // vector accesses per thread held in registers, 1 to 16; 0: stream

  bool operator==(const LayerNormRowwiseConfig&) const = default;

  // "layernorm.rowwise_bf16_fwd_v8_t256_r1_i2", "layernorm.rowwise_fp32_bwd_v1_t256_r1_stream".
  std::string name() const;
  static core::Expected<LayerNormRowwiseConfig> parse_name(std::string_view text);
  // The longest row the config takes (vec * threads * items), or -1 for stream configs.
  int64_t max_cols() const;
  int block_threads() const { return threads * rows; }
  // Registers a thread may use under the kernels' launch bound: 64K / block threads, at most 255.
  int register_share() const { return std::min(255, 65536 / block_threads()); }

  // The backward of a register config (items > 0) is pipelined when `stages` copies of x and
  // dy for every row group of the block (stage_bytes each) fit in 160 KB: stages make ~32 KB a
  // block, 2 to 8. Its column sums then live in registers, and its grid stays resident.
  // Otherwise x and dy load into registers and the column sums live in shared memory. Mirrors
  // kernels/layernorm_rowwise.cuh (BackwardShape).
  int64_t backward_stage_bytes() const;
  int backward_stages() const;
  bool backward_pipelined() const;
  // A pipelined backward holds a row in registers between its passes (w, xhat and dy) when five
  // fp32 values per column a thread owns plus 24 fit the block's share of the 64K registers
  // (at most 255 a thread). Mirrors kernels/layernorm_rowwise.cuh (BackwardShape::kHolds).
  bool backward_holds() const;
  // Dynamic shared memory of the backward kernel (bytes): the stages (or, if more, one fp32
  // value per column per row group), or the column sums' two fp32 slots per column per group;
  // 0 for stream configs.
  int64_t backward_smem_bytes() const;
};

// Why a config is invalid (dtype, vector width in bytes, powers of two, block size, register
// budget: vec * items <= 64 values per thread in blocks of up to 256 threads, 32 up to 512,
// 16 at 1024), or ok.
core::Status check_layernorm_rowwise(const LayerNormRowwiseConfig& c);
// Whether a valid config can run a problem of `cols` columns whose pointers are aligned to
// `pointer_alignment` bytes: cols a multiple of vec, rows that fit (regs), pointers aligned to
// vec elements. The reason names what fails.
core::Status layernorm_rowwise_fits(const LayerNormRowwiseConfig& c, int64_t cols,
                                    int64_t pointer_alignment);

// The configs of a rule set for one dtype and direction. tiny: a handful (the fallback and a
// few register configs); default: what the heuristic ranks (every vector width, thread count and
// item count that makes blocks of 128 to 1024 threads, plus the stream configs); full: default
// plus the other rows-per-block choices.
std::vector<LayerNormRowwiseConfig> layernorm_rowwise_space(core::DType dtype, bool backward,
                                                            RuleSet rules);
// The config that runs every problem of a dtype and direction (vec 1, stream).
LayerNormRowwiseConfig layernorm_rowwise_fallback(core::DType dtype, bool backward);

}  // namespace boo::space
