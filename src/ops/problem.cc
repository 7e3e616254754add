#include "boo/ops/problem.h"

#include <algorithm>

namespace boo::ops {

std::string_view family(const Problem& p) {
  switch (p.index()) {
    case 0:
      return "conv";
    case 1:
      return "gemm";
    default:
      return "layernorm";
  }
}

core::Status validate(const Problem& p) {
  return std::visit([](const auto& x) { return x.validate(); }, p);
}
std::string key(const Problem& p) {
  return std::visit([](const auto& x) { return x.key(); }, p);
}
std::string to_command(const Problem& p) {
  return std::visit([](const auto& x) { return x.to_command(); }, p);
}
double flops(const Problem& p) {
  return std::visit([](const auto& x) { return x.flops(); }, p);
}
int64_t min_bytes(const Problem& p) {
  return std::visit([](const auto& x) { return x.min_bytes(); }, p);
}
int64_t weight(const Problem& p) {
  if (const auto* g = std::get_if<GemmProblem>(&p)) return g->call_count;
  return 1;
}

double peak_tflops(const Problem& p, const Ceilings& c) {
  auto rate = [&](core::DType t, core::MathMode m) {
    if (core::is_fp8(t)) return c.tflops_fp8;
    if (t == core::DType::kF32) return m == core::MathMode::kTF32 ? c.tflops_tf32 : c.tflops_fp32;
    return c.tflops_16bit;
  };
  if (const auto* conv = std::get_if<ConvProblem>(&p)) return rate(conv->dtype, conv->math);
  if (const auto* g = std::get_if<GemmProblem>(&p)) return rate(g->a_type, g->math);
  // Layer norm runs on CUDA cores.
  return c.tflops_fp32;
}

double floor_us(const Problem& p, const Ceilings& c) {
  const double compute_us = flops(p) / (peak_tflops(p, c) * 1e12) * 1e6;
  const double memory_us = static_cast<double>(min_bytes(p)) / (c.bandwidth_gbs * 1e9) * 1e6;
  return std::max({compute_us, memory_us, c.launch_us});
}

}  // namespace boo::ops
