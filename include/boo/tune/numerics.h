// The numerics gate of DESIGN.md §8, the same for every op: an output passes when it has no
// NaN/Inf, its relative Frobenius error against the reference is within the op's tolerance, and,
// when a vendor library ran on the same data, the error is at most twice the vendor's. Each op
// supplies only its tolerance (gemm_tolerance, conv_tolerance).
#pragma once

#include <optional>
#include <string>

#include "boo/core/dtype.h"
#include "boo/reference/compare.h"

namespace boo::tune {

struct Numerics {
  reference::ErrorStats boo;
  std::optional<reference::ErrorStats> vendor;
  double tolerance = 0.0;
  bool passed = false;
  std::string reference;
  std::string verdict;  // one line: why it passed or failed
};

// Relative Frobenius tolerance of §8 for an output computed in `dtype`: bf16 1e-2, fp16 5e-3,
// fp32 1e-3 with tf32 math and 1e-5 without (and the loosest, 1e-2, for any other type).
double dtype_tolerance(core::DType dtype, bool tf32);

// The gate over `tolerance`: no NaN/Inf, error <= tolerance, and <= 2x the vendor's error when
// there is a finite vendor result. Errors up to 1e-6 never fail the vendor ratio: there both
// sides are rounding noise of the output type and their ratio means nothing.
Numerics judge_numerics(double tolerance, const reference::ErrorStats& boo,
                        const std::optional<reference::ErrorStats>& vendor,
                        const std::string& reference_name);

}  // namespace boo::tune
