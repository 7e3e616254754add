#include "boo/core/dtype.h"

#include <bit>
#include <cmath>
#include <limits>

namespace boo::core {
namespace {

// A binary floating-point storage format (sign, exp_bits, mant_bits).
struct FloatFormat {
  int exp_bits;
  int mant_bits;
  bool has_inf;  // false: e4m3fn, where all-ones exponent+mantissa is NaN and there is no inf
  int bias() const { return (1 << (exp_bits - 1)) - 1; }
  int min_normal_exp() const { return 1 - bias(); }
  double max_finite() const {
    if (has_inf) {
      return std::ldexp(2.0 - std::ldexp(1.0, -mant_bits), (1 << exp_bits) - 2 - bias());
    }
    // e4m3fn: the all-ones exponent is a normal binade except mantissa all-ones (NaN).
    return std::ldexp(2.0 - std::ldexp(2.0, -mant_bits), (1 << exp_bits) - 1 - bias());
  }
};

FloatFormat format_of(DType t) {
  switch (t) {
    case DType::kF32:
      return {8, 23, true};
    case DType::kF16:
      return {5, 10, true};
    case DType::kBF16:
      return {8, 7, true};
    case DType::kF8E4M3:
      return {4, 3, false};
    case DType::kF8E5M2:
      return {5, 2, true};
  }
  return {8, 23, true};
}

double round_format(const FloatFormat& f, double x) {
  if (std::isnan(x) || std::isinf(x) || x == 0.0) {
    if (std::isinf(x) && !f.has_inf) return std::numeric_limits<double>::quiet_NaN();
    return x;
  }
  const double a = std::fabs(x);
  int ex = 0;
  std::frexp(a, &ex);  // a = m * 2^ex, m in [0.5, 1)
  int e = ex - 1;
  if (e < f.min_normal_exp()) e = f.min_normal_exp();  // subnormal grid
  const double quantum = std::ldexp(1.0, e - f.mant_bits);
  double r = std::nearbyint(a / quantum) * quantum;  // default rounding mode: ties to even
  if (r > f.max_finite()) {
    r = f.has_inf ? std::numeric_limits<double>::infinity()
                  : std::numeric_limits<double>::quiet_NaN();
  }
  return std::copysign(r, x);
}

uint32_t encode_format(const FloatFormat& f, double x) {
  const uint32_t sign = std::signbit(x) ? 1u : 0u;
  const uint32_t sign_bit = sign << (f.exp_bits + f.mant_bits);
  const uint32_t exp_all = (1u << f.exp_bits) - 1;
  const uint32_t mant_all = (1u << f.mant_bits) - 1;
  const double r = round_format(f, x);
  if (std::isnan(r)) {
    if (!f.has_inf) return sign_bit | (exp_all << f.mant_bits) | mant_all;
    return sign_bit | (exp_all << f.mant_bits) | (1u << (f.mant_bits - 1));
  }
  if (std::isinf(r)) return sign_bit | (exp_all << f.mant_bits);
  const double a = std::fabs(r);
  if (a == 0.0) return sign_bit;
  int ex = 0;
  std::frexp(a, &ex);
  const int e = ex - 1;
  if (e < f.min_normal_exp()) {
    const auto mant = static_cast<uint32_t>(a / std::ldexp(1.0, f.min_normal_exp() - f.mant_bits));
    return sign_bit | mant;
  }
  const auto biased = static_cast<uint32_t>(e + f.bias());
  const auto mant =
      static_cast<uint32_t>((a / std::ldexp(1.0, e) - 1.0) * std::ldexp(1.0, f.mant_bits));
  return sign_bit | (biased << f.mant_bits) | mant;
}

double decode_format(const FloatFormat& f, uint32_t bits) {
  const uint32_t exp_all = (1u << f.exp_bits) - 1;
  const uint32_t mant_all = (1u << f.mant_bits) - 1;
  const bool neg = (bits >> (f.exp_bits + f.mant_bits)) & 1u;
  const uint32_t exp = (bits >> f.mant_bits) & exp_all;
  const uint32_t mant = bits & mant_all;
  double v = 0.0;
  if (exp == exp_all && f.has_inf) {
    v = mant == 0 ? std::numeric_limits<double>::infinity()
                  : std::numeric_limits<double>::quiet_NaN();
  } else if (exp == exp_all && mant == mant_all) {
    v = std::numeric_limits<double>::quiet_NaN();
  } else if (exp == 0) {
    v = std::ldexp(static_cast<double>(mant), f.min_normal_exp() - f.mant_bits);
  } else {
    v = std::ldexp(1.0 + std::ldexp(static_cast<double>(mant), -f.mant_bits),
                   static_cast<int>(exp) - f.bias());
  }
  return neg ? -v : v;
}

}  // namespace

std::string_view dtype_name(DType t) {
  switch (t) {
    case DType::kF32:
      return "fp32";
    case DType::kF16:
      return "fp16";
    case DType::kBF16:
      return "bf16";
    case DType::kF8E4M3:
      return "fp8e4m3";
    case DType::kF8E5M2:
      return "fp8e5m2";
  }
  return "?";
}

std::optional<DType> dtype_from_name(std::string_view name) {
  for (DType t : kAllDTypes) {
    if (dtype_name(t) == name) return t;
  }
  return std::nullopt;
}

int dtype_bytes(DType t) {
  switch (t) {
    case DType::kF32:
      return 4;
    case DType::kF16:
    case DType::kBF16:
      return 2;
    case DType::kF8E4M3:
    case DType::kF8E5M2:
      return 1;
  }
  return 4;
}

bool is_fp8(DType t) { return t == DType::kF8E4M3 || t == DType::kF8E5M2; }

std::string_view math_mode_name(MathMode m) { return m == MathMode::kTF32 ? "tf32" : "fp32"; }

std::optional<MathMode> math_mode_from_name(std::string_view name) {
  if (name == "fp32") return MathMode::kF32;
  if (name == "tf32") return MathMode::kTF32;
  return std::nullopt;
}

double round_to(DType t, double x) { return round_format(format_of(t), x); }

double round_to_tf32(double x) { return round_format(FloatFormat{8, 10, true}, x); }

uint32_t encode_bits(DType t, double x) {
  if (t == DType::kF32) return std::bit_cast<uint32_t>(static_cast<float>(x));
  return encode_format(format_of(t), x);
}

double decode_bits(DType t, uint32_t bits) {
  if (t == DType::kF32) return std::bit_cast<float>(bits);
  return decode_format(format_of(t), bits);
}

}  // namespace boo::core
