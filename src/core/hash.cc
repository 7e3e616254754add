#include "boo/core/hash.h"

namespace boo::core {

uint64_t fnv1a64(std::string_view text, uint64_t seed) {
  uint64_t h = seed;
  for (unsigned char ch : text) {
    h ^= ch;
    h *= 0x100000001b3ull;
  }
  return h;
}

uint64_t hash_combine(uint64_t h, std::string_view text) {
  // Length first so that ("ab","c") and ("a","bc") differ.
  h = fnv1a64(std::to_string(text.size()), h);
  return fnv1a64(text, h);
}

std::string to_hex(uint64_t value) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out(16, '0');
  for (int i = 15; i >= 0; --i) {
    out[i] = kDigits[value & 0xf];
    value >>= 4;
  }
  return out;
}

}  // namespace boo::core
