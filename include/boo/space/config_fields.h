// Configs described as ordered key/value fields ("tile" -> "128x256x64"), for listings and
// reports (`boo codegen --list-configs`): a name spells every field but packs them into one
// token, which is hard to read and to filter on. Also the small set of classes that listings
// enumerate when given none.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "boo/space/conv_sm90.h"
#include "boo/space/gemm_class.h"
#include "boo/space/gemm_skinny.h"
#include "boo/space/gemm_sm90.h"
#include "boo/space/layernorm_rowwise.h"

namespace boo::space {

// Ordered: the algorithm (when the config names one), then the class, then the config's own
// fields. Keys are lowercase words; values spell enums as config names do ("coop", "tn").
using ConfigFields = std::vector<std::pair<std::string, std::string>>;

// types (A.B.C.D, C "void" when beta is 0), math, trans, bias (none or its type), act,
// alpha (scalar or per-row), scale (none or per-tensor).
ConfigFields gemm_class_fields(const GemmClass& c);
// dtype, math, direction (fprop, dgrad, wgrad), dims, bias (none or per-channel), act.
ConfigFields conv_class_fields(const ConvClass& c);

// algorithm (gemm.sm90 or gemm.sm90_unaligned), the class, tile, cluster, schedule, scheduler,
// splits, swizzle, raster.
ConfigFields config_fields(const GemmSm90Config& c);
// algorithm, the class, narrow (n or m), splits (auto or a count).
ConfigFields config_fields(const GemmSkinnyConfig& c);
// algorithm, the class, tile, cluster.
ConfigFields config_fields(const ConvSm90Config& c);
// algorithm (layernorm.rowwise), dtype, direction (fwd or bwd), vec, threads, rows, items (a
// count, or stream).
ConfigFields config_fields(const LayerNormRowwiseConfig& c);
// The algorithm, then the class: for algorithms whose config is the class alone
// (gemm.fallback, conv.direct).
ConfigFields config_fields(std::string_view algorithm, const GemmClass& c);
ConfigFields config_fields(std::string_view algorithm, const ConvClass& c);

// "key=value key=value ...".
std::string format_fields(const ConfigFields& fields);

// The classes a listing enumerates when given none — what most models run, one of each shape
// the generated code distinguishes, so that a listing stays short:
// bf16 and fp16 with the output in the input type, f32 accumulation, no C, in the four
// transposes (tn, nn, nt, tt) without epilogue, and tn with a bias of the input type and relu;
// fp32 tn with tf32 math; fp8 e4m3 tn with per-tensor scales and a bf16 output.
std::vector<GemmClass> representative_gemm_classes();
// bf16 and fp16, f32 accumulation, 2D: fprop, dgrad and wgrad without epilogue, and fprop with
// bias and relu; fp32 fprop 2D with tf32 math.
std::vector<ConvClass> representative_conv_classes();

}  // namespace boo::space
