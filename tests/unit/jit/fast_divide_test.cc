// kernels/fast_divide.cuh: the multiply-and-shift quotient equals n / d for every divisor of a
// tile grid's size and beyond, at the numerators where a rounding error would show first (each
// multiple of d and the one before it), at the ends of the 32-bit range, and at random.
#include "../../../kernels/fast_divide.cuh"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

namespace boo_kernels {
namespace {

void expect_exact(uint32_t d, uint32_t n) {
  const FastDivisor f = fast_divisor(d);
  uint32_t q = 0;
  const uint32_t r = fast_divmod(n, f, &q);
  ASSERT_EQ(q, n / d) << "n " << n << " d " << d;
  ASSERT_EQ(r, n % d) << "n " << n << " d " << d;
}

TEST(FastDivide, SmallDivisorsAtEveryMultipleAndTheEndsOfTheRange) {
  for (uint32_t d = 1; d <= 2048; ++d) {
    for (uint32_t n = 0; n < 4 * d + 3; ++n) expect_exact(d, n);
    for (uint32_t k = 1; k < 64; ++k) {
      const uint64_t m = uint64_t{d} << (k % 32) | k;  // multiples of d spread over 32 bits
      const uint64_t at = m / d * d;
      if (at <= 0xffffffffu) {
        expect_exact(d, static_cast<uint32_t>(at));
        if (at > 0) expect_exact(d, static_cast<uint32_t>(at - 1));
      }
    }
    for (uint32_t n : {0x7fffffffu, 0x80000000u, 0xfffffffeu, 0xffffffffu}) expect_exact(d, n);
  }
}

TEST(FastDivide, LargeAndPowerOfTwoDivisorsAtRandom) {
  std::mt19937 rng(20261130);
  std::vector<uint32_t> divisors = {0x7fffffffu, 0x80000000u, 0xffffffffu, 65535, 65536, 65537};
  for (int s = 0; s < 32; ++s) divisors.push_back(1u << s);
  for (int i = 0; i < 2000; ++i) divisors.push_back(static_cast<uint32_t>(rng()) | 1u);
  for (uint32_t d : divisors) {
    for (int i = 0; i < 200; ++i) expect_exact(d, static_cast<uint32_t>(rng()));
    expect_exact(d, d);
    expect_exact(d, d - 1);
    expect_exact(d, 0xffffffffu);
  }
}

}  // namespace
}  // namespace boo_kernels
