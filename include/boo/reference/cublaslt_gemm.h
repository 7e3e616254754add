// The vendor baseline for GEMMs: cuBLASLt at its best (DESIGN.md §6, §7). prepare() asks the
// heuristic for its top algorithms (32 MiB workspace), times each on the real operands as the
// benchmark times the winner (cold L2, a hold before each sample, interleaved, medians) and keeps
// the fastest; cuBLASLt's fused epilogue is used where it has one (bias, relu, gelu-tanh), else
// a separate bias/activation kernel follows, as a user would write it.
#pragma once

#include <memory>
#include <string>

#include "boo/core/status.h"
#include "boo/dispatch/gemm_dispatcher.h"
#include "boo/ops/gemm_problem.h"

namespace boo::reference {

class CublasLtGemm {
 public:
  static core::Expected<std::unique_ptr<CublasLtGemm>> create(int64_t workspace_bytes = 32 << 20);
  ~CublasLtGemm();
  CublasLtGemm(const CublasLtGemm&) = delete;
  CublasLtGemm& operator=(const CublasLtGemm&) = delete;

  core::Status prepare(const ops::GemmProblem& p, const dispatch::GemmPointers& ptrs, void* stream,
                       int candidates = 8);
  core::Status run(const dispatch::GemmPointers& ptrs, void* stream);
  // "cuBLASLt algo 66, tile 128x128, stages 64x4, cluster 2x1x1 (fastest of 8 heuristic
  // candidates timed)" and the like (cublaslt_algo_text.h).
  const std::string& description() const { return description_; }

 private:
  CublasLtGemm() = default;
  core::Status configure(const ops::GemmProblem& p, const dispatch::GemmPointers& ptrs,
                         void* stream, int candidates, bool fused);
  struct State;
  std::unique_ptr<State> state_;
  std::string description_;
};

}  // namespace boo::reference
