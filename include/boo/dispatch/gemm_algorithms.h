// The GEMM algorithms dispatch chooses among (DESIGN.md §3): each says whether it supports a
// problem (and why not), lists its candidate configs for a rule set, ranks them with an
// analytical model, and turns a config name into kernel source.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "boo/codegen/gemm_codegen.h"
#include "boo/core/status.h"
#include "boo/ops/gemm_problem.h"
#include "boo/space/rule_set.h"

namespace boo::dispatch {

// What the heuristic knows of the GPU: SM count and peak rates (defaults: H100 SXM).
struct DeviceModel {
  int sm_count = 132;
  double tflops_fp8 = 1978.9;
  double tflops_16bit = 989.4;
  double tflops_tf32 = 494.7;
  // HBM bandwidth as the model uses it: fitted to measured picks on H100 and H200 alike (an
  // H200's own 4814 GB/s made them slower: dispatch/context.h).
  double bandwidth_gbs = 3350.0;
  double launch_us = 3.0;
  int64_t l2_bytes = int64_t{50} << 20;  // H100 SXM
};

struct Candidate {
  std::string algorithm;  // "gemm.sm90"
  std::string config;     // the config's name()
  double predicted_us = 0.0;
  std::string why;  // one line: what the model saw
  // Accumulates more of K per tensor-core accumulator than an fp32 output shows without error
  // (long_accumulation below): ranked after every candidate that does not.
  bool long_chain = false;
};

// The most of K one tensor-core fp32 accumulator sums where the output is fp32 and the operands
// 16-bit or fp8 (H100, 2026-11-24: bf16 with K = 14336 in one accumulator measured a relative
// error of 1.56e-5, 2.07x cuBLASLt's, past the numerics gate's twice-the-vendor rule; 4096 per
// parallel split-K slice measured 5.2e-6 against cuBLASLt's 4.4e-6 to 6.9e-6). The error grows
// about linearly with the accumulated length: the sums round, not just the output.
inline constexpr int64_t kMaxExactAccumulation = 8192;

// Whether `chain` elements of K accumulated per output in one tensor-core accumulator show in
// the problem's output (fp32 out of 16-bit or fp8 operands; fp32 operands in tf32 carry a
// larger input rounding, narrower outputs a larger output rounding).
bool long_accumulation(const ops::GemmProblem& p, int64_t chain);

// Marks `cand` long_chain, with the reason in its `why`, where long_accumulation holds.
void note_long_accumulation(const ops::GemmProblem& p, int64_t chain, Candidate& cand);

// Best first: candidates whose accumulation shows after those that do not, then by predicted
// time (stable: equal candidates keep their order).
void sort_candidates(std::vector<Candidate>* candidates);

class GemmAlgorithm {
 public:
  virtual ~GemmAlgorithm() = default;
  virtual std::string_view name() const = 0;
  // ok, or why not (a one-line reason the driver prints with --explain).
  virtual core::Status supports(const ops::GemmProblem& p) const = 0;
  // The same for operand pointers that are not all 16-byte aligned (seen at launch).
  virtual core::Status supports_misaligned(const ops::GemmProblem& p) const { return supports(p); }
  // Valid configs for the problem, best first by the analytical model.
  virtual std::vector<Candidate> rank(const ops::GemmProblem& p, const DeviceModel& d,
                                      space::RuleSet rules) const = 0;
  // Kernel source for a config name this algorithm produced.
  virtual core::Expected<codegen::KernelSource> source(std::string_view config) const = 0;
  // Launch arguments that depend on the config: split count, tile swizzle, raster order.
  struct LaunchOrder {
    int splits = 1;
    int swizzle = 1;
    int raster = 0;
  };
  virtual LaunchOrder launch_order(std::string_view config) const = 0;
};

std::unique_ptr<GemmAlgorithm> make_gemm_sm90();
std::unique_ptr<GemmAlgorithm> make_gemm_sm90_unaligned();
std::unique_ptr<GemmAlgorithm> make_gemm_skinny();
std::unique_ptr<GemmAlgorithm> make_gemm_fallback();

// Whether TMA can address the operands in place: leading dimensions and batch strides of A, B, D
// (and C where it is read) in whole 16 bytes, what gemm.sm90 needs (gemm.sm90_unaligned copies
// the rest).
core::Status gemm_sm90_alignment(const ops::GemmProblem& p);

// Analytical time of one gemm.sm90 config on `d` (exposed for tests and reports).
double predict_gemm_sm90_us(const ops::GemmProblem& p, const space::GemmSm90Config& c,
                            const DeviceModel& d, std::string* why = nullptr);

// The slice count dispatch gives a parallel split-K config of gemm.sm90 for this problem (the
// space's count is a stand-in), or 0 where it does not rank one.
int parallel_splits_for(const ops::GemmProblem& p, const space::GemmSm90Config& c,
                        const DeviceModel& d);

}  // namespace boo::dispatch
