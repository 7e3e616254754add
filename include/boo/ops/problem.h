// Problem: any op boo knows, with the questions every layer asks of it.
#pragma once

#include <string>
#include <string_view>
#include <variant>

#include "boo/ops/conv_problem.h"
#include "boo/ops/gemm_problem.h"
#include "boo/ops/layernorm_problem.h"

namespace boo::ops {

using Problem = std::variant<ConvProblem, GemmProblem, LayerNormProblem>;

// "conv", "gemm", "layernorm": the benchmark family.
std::string_view family(const Problem& p);
core::Status validate(const Problem& p);
std::string key(const Problem& p);
std::string to_command(const Problem& p);
double flops(const Problem& p);
int64_t min_bytes(const Problem& p);
// Weight of the problem in a workload (GEMM call_count; 1 otherwise).
int64_t weight(const Problem& p);

// Peak rates a floor is computed from. The defaults are NVIDIA's H100 SXM5 datasheet numbers
// (dense tensor-core rates, HBM3 bandwidth); benchmarks replace them with rates measured in the
// same run (DESIGN.md §7).
struct Ceilings {
  double tflops_fp8 = 1978.9;   // e4m3/e5m2 tensor cores
  double tflops_16bit = 989.4;  // bf16/fp16 tensor cores
  double tflops_tf32 = 494.7;   // tf32 tensor cores
  double tflops_fp32 = 66.9;    // fp32 without tensor cores (CUDA cores, FMA)
  double bandwidth_gbs = 3350;  // HBM3, GB/s
  double launch_us = 0.0;       // an empty kernel, when measured

  static Ceilings h100_sxm_datasheet() { return {}; }
};

// The peak the problem's math runs at (fp8, 16-bit, tf32 or fp32 rate), in TFLOP/s.
double peak_tflops(const Problem& p, const Ceilings& c);
// max(FLOPs / peak, min_bytes / bandwidth, launch) in microseconds.
double floor_us(const Problem& p, const Ceilings& c);

}  // namespace boo::ops
