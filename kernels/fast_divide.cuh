// Division by a divisor fixed for a whole kernel without a divide instruction: the host (or a
// block's set-up) makes a FastDivisor once, and each quotient is then a multiply-high, an add and
// a shift. A division by a runtime value costs about twenty instructions (a reciprocal and two
// corrections), which ptxas repeats wherever it occurs, even in a loop whose divisor is fixed.
// The round-up method of Granlund and Montgomery ("Division by invariant integers using
// multiplication", PLDI 1994, section 4): with s = ceil(log2 d) and
// mul = floor(2^32 (2^s - d) / d) + 1, n / d = (mulhi(n, mul) + n) >> s for every 32-bit n
// (the sum taken in 64 bits).
#pragma once

#include <cstdint>

#include "host_device.cuh"

namespace boo_kernels {

struct FastDivisor {
  uint32_t d;      // the divisor, >= 1
  uint32_t mul;    // floor(2^32 (2^shift - d) / d) + 1
  uint32_t shift;  // ceil(log2 d)
};

BOO_HD inline FastDivisor fast_divisor(uint32_t d) {
  uint32_t s = 0;
  while ((uint64_t{1} << s) < d) ++s;
  const uint64_t mul = ((uint64_t{1} << 32) * ((uint64_t{1} << s) - d)) / d + 1;
  return {d, static_cast<uint32_t>(mul), s};
}

// n / f.d.
BOO_HD inline uint32_t fast_div(uint32_t n, const FastDivisor& f) {
#if defined(__CUDA_ARCH__)
  const uint32_t hi = __umulhi(n, f.mul);
#else
  const uint32_t hi = static_cast<uint32_t>((uint64_t{n} * f.mul) >> 32);
#endif
  return static_cast<uint32_t>((uint64_t{hi} + n) >> f.shift);
}

// n / f.d into *q, n % f.d returned.
BOO_HD inline uint32_t fast_divmod(uint32_t n, const FastDivisor& f, uint32_t* q) {
  *q = fast_div(n, f);
  return n - *q * f.d;
}

}  // namespace boo_kernels
