// Element types of operands and their host-side rounding and bit encodings. Device code has its
// own types; these exist so that references, data generators and buffers agree bit for bit.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace boo::core {

enum class DType : uint8_t {
  kF32,
  kF16,
  kBF16,
  kF8E4M3,  // OCP e4m3fn: no infinities, max 448 (NVIDIA __nv_fp8_e4m3)
  kF8E5M2,  // OCP e5m2: IEEE-like, max 57344
};

inline constexpr DType kAllDTypes[] = {DType::kF32, DType::kF16, DType::kBF16, DType::kF8E4M3,
                                       DType::kF8E5M2};

// "fp32", "fp16", "bf16", "fp8e4m3", "fp8e5m2": the spelling used in keys and kernel names.
std::string_view dtype_name(DType t);
std::optional<DType> dtype_from_name(std::string_view name);
int dtype_bytes(DType t);
bool is_fp8(DType t);

// How products are formed and summed. Every boo op accumulates in fp32; kTF32 additionally rounds
// fp32 operands to tf32 (10-bit mantissa) before multiplying, as tensor cores do.
enum class MathMode : uint8_t { kF32, kTF32 };
std::string_view math_mode_name(MathMode m);  // "fp32", "tf32"
std::optional<MathMode> math_mode_from_name(std::string_view name);

// Rounds `x` to the nearest value of `t` (ties to even), including subnormals. Overflow gives
// +-inf, except e4m3 (no infinities) which gives NaN, as a conversion on the GPU does.
double round_to(DType t, double x);
// Rounds an fp32 value to tf32 (ties to even).
double round_to_tf32(double x);

// Bit encodings (little-endian integer holding the element's bits).
uint32_t encode_bits(DType t, double x);  // rounds first
double decode_bits(DType t, uint32_t bits);

}  // namespace boo::core
