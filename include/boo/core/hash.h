// Stable (platform- and run-independent) hashing for cache file names and keys.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace boo::core {

// 64-bit FNV-1a of the bytes of `text`.
uint64_t fnv1a64(std::string_view text, uint64_t seed = 0xcbf29ce484222325ull);
// Folds `text` into `h` (order matters).
uint64_t hash_combine(uint64_t h, std::string_view text);
// 16 lower-case hex digits.
std::string to_hex(uint64_t value);

}  // namespace boo::core
