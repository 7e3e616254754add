#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <limits>

#include "boo/core/dtype.h"
#include "boo/core/env.h"
#include "boo/core/hash.h"
#include "boo/core/layout.h"
#include "boo/core/parallel.h"
#include "boo/core/status.h"
#include "boo/core/strings.h"
#include "boo/core/tensor.h"

namespace boo::core {
namespace {

TEST(Status, CodesMessagesAndContext) {
  const Status ok = Status::ok();
  EXPECT_TRUE(ok.is_ok());
  const Status bad = invalid_argument("-n: must be >= 1, got 0");
  EXPECT_FALSE(bad.is_ok());
  EXPECT_EQ(bad.to_string(), "invalid argument: -n: must be >= 1, got 0");
  EXPECT_EQ(bad.with_context("line 3: ").message(), "line 3: -n: must be >= 1, got 0");
  EXPECT_EQ(bad.with_context("x").code(), StatusCode::kInvalidArgument);
}

Expected<int> half(int x) {
  if (x % 2) return invalid_argument("odd");
  return x / 2;
}

Expected<int> quarter(int x) {
  BOO_ASSIGN_OR_RETURN(int h, half(x));
  BOO_ASSIGN_OR_RETURN(int q, half(h));
  return q;
}

TEST(Expected, ValueOrStatusAndMacros) {
  EXPECT_EQ(*quarter(8), 2);
  EXPECT_FALSE(quarter(6).has_value());
  EXPECT_EQ(quarter(6).status().message(), "odd");
  Expected<int> from_ok_status{Status::ok()};  // a bug: becomes an internal error, not a value
  EXPECT_FALSE(from_ok_status.has_value());
  EXPECT_EQ(from_ok_status.status().code(), StatusCode::kInternal);
}

TEST(DType, NamesAndSizes) {
  for (DType t : kAllDTypes) EXPECT_EQ(dtype_from_name(dtype_name(t)), t);
  EXPECT_EQ(dtype_bytes(DType::kBF16), 2);
  EXPECT_EQ(dtype_bytes(DType::kF8E5M2), 1);
  EXPECT_FALSE(dtype_from_name("float").has_value());
}

TEST(DType, KnownBitPatterns) {
  EXPECT_EQ(encode_bits(DType::kBF16, 1.0), 0x3F80u);
  EXPECT_EQ(encode_bits(DType::kBF16, -2.0), 0xC000u);
  EXPECT_EQ(encode_bits(DType::kF16, 1.0), 0x3C00u);
  EXPECT_EQ(encode_bits(DType::kF16, 65504.0), 0x7BFFu);
  EXPECT_EQ(encode_bits(DType::kF16, 65520.0), 0x7C00u);          // rounds to +inf
  EXPECT_EQ(encode_bits(DType::kF16, std::ldexp(1.0, -24)), 1u);  // smallest subnormal
  EXPECT_EQ(encode_bits(DType::kF8E4M3, 448.0), 0x7Eu);           // max finite e4m3fn
  EXPECT_EQ(encode_bits(DType::kF8E4M3, 1.0), 0x38u);
  EXPECT_EQ(encode_bits(DType::kF8E4M3, std::ldexp(1.0, -9)), 1u);  // smallest subnormal
  EXPECT_EQ(encode_bits(DType::kF8E5M2, 57344.0), 0x7Bu);
  EXPECT_EQ(encode_bits(DType::kF8E5M2, 1.0), 0x3Cu);
  EXPECT_EQ(encode_bits(DType::kF32, 1.0), 0x3F800000u);
  EXPECT_TRUE(std::isnan(decode_bits(DType::kF8E4M3, 0x7F)));
  EXPECT_TRUE(std::isinf(decode_bits(DType::kF8E5M2, 0x7C)));
}

TEST(DType, RoundingTiesToEvenAndRoundTrips) {
  // bf16 has 8 significant bits: 1 + 2^-8 is halfway between 1 and 1 + 2^-7 -> 1 (even).
  EXPECT_EQ(round_to(DType::kBF16, 1.0 + std::ldexp(1.0, -8)), 1.0);
  EXPECT_EQ(round_to(DType::kBF16, 1.0 + 3 * std::ldexp(1.0, -8)), 1.0 + std::ldexp(1.0, -6));
  EXPECT_EQ(round_to_tf32(1.0 + std::ldexp(1.0, -11)), 1.0);
  EXPECT_TRUE(std::isnan(round_to(DType::kF8E4M3, 1000.0)));
  for (DType t : kAllDTypes) {
    for (uint32_t bits = 0; bits < (dtype_bytes(t) == 1 ? 256u : 4096u); ++bits) {
      const uint32_t b =
          dtype_bytes(t) == 4 ? bits * 1048573u : bits * (dtype_bytes(t) == 2 ? 16 : 1);
      const double v = decode_bits(t, b);
      if (std::isnan(v)) continue;
      EXPECT_EQ(decode_bits(t, encode_bits(t, v)), v) << dtype_name(t) << " bits " << b;
      EXPECT_EQ(round_to(t, v), v);
    }
  }
}

TEST(Layout, NamesPerSpatialRank) {
  EXPECT_EQ(layout_name(Layout::kChannelsLast, 2), "NHWC");
  EXPECT_EQ(layout_name(Layout::kChannelsFirst, 3), "NCDHW");
  EXPECT_EQ(layout_name(Layout::kChannelsLast, 1), "NWC");
  EXPECT_EQ(*parse_layout("NHWC", 1), Layout::kChannelsLast);  // MIOpen writes 1D as 2D
  EXPECT_FALSE(parse_layout("NHWC", 3).has_value());
  EXPECT_FALSE(parse_layout("CHWN", 2).has_value());
}

TEST(Strings, StrictNumbers) {
  EXPECT_EQ(*parse_int("-n", "128"), 128);
  EXPECT_EQ(*parse_int("-n", "+7"), 7);
  EXPECT_EQ(*parse_int("-p", "-1"), -1);
  for (const char* bad : {"", "12x", "1.5", "x", "99999999999999999999"}) {
    auto r = parse_int("-n", bad);
    ASSERT_FALSE(r.has_value()) << bad;
    EXPECT_EQ(r.status().message().rfind("-n: ", 0), 0u) << r.status().message();
  }
  EXPECT_DOUBLE_EQ(*parse_double("-e", "1e-5"), 1e-5);
  EXPECT_FALSE(parse_double("-e", "nan").has_value());
  EXPECT_FALSE(parse_double("-e", "1e999").has_value());
  EXPECT_TRUE(*parse_bool("x", "TRUE"));
  EXPECT_FALSE(parse_bool("x", "yes").has_value());
}

TEST(Strings, FormatDoubleRoundTrips) {
  for (double v : {1.0, 0.5, 1e-5, 1e-6, 0.1, 1.0 / 3.0, -2.25, 65504.0}) {
    EXPECT_EQ(std::strtod(format_double(v).c_str(), nullptr), v) << format_double(v);
  }
  EXPECT_EQ(format_double(1e-5), "1e-05");
  EXPECT_EQ(format_double(1.0), "1");
}

TEST(Strings, SplitWordsAndQuote) {
  EXPECT_EQ(split_words("  a\tb  c "), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(quote(std::string(50, 'x')).size(), 40u + 2 + 3);
  EXPECT_EQ(quote("a\nb"), "'a?b'");
}

TEST(Tensor, LayoutsAndOverflow) {
  const int64_t spatial[] = {4, 5};
  const TensorDesc nchw =
      make_nc_spatial_tensor(DType::kF16, 2, 3, spatial, Layout::kChannelsFirst);
  EXPECT_EQ(nchw.strides, (std::vector<int64_t>{60, 20, 5, 1}));
  const TensorDesc nhwc = make_nc_spatial_tensor(DType::kF16, 2, 3, spatial, Layout::kChannelsLast);
  EXPECT_EQ(nhwc.strides, (std::vector<int64_t>{60, 1, 15, 3}));
  EXPECT_EQ(nhwc.span_elements(), 120);
  const int64_t big[] = {int64_t{1} << 40, int64_t{1} << 30};
  EXPECT_FALSE(checked_product(big).has_value());
}

TEST(Hash, StableValues) {
  EXPECT_EQ(fnv1a64(""), 0xcbf29ce484222325ull);
  EXPECT_EQ(to_hex(fnv1a64("a")), "af63dc4c8601ec8c");  // published FNV-1a test vector
  EXPECT_NE(hash_combine(hash_combine(0, "ab"), "c"), hash_combine(hash_combine(0, "a"), "bc"));
}

TEST(Env, FlagsAndIntsAreStrict) {
  setenv("BOO_TEST_FLAG", "1", 1);
  EXPECT_TRUE(*env_flag("BOO_TEST_FLAG", false));
  setenv("BOO_TEST_FLAG", "maybe", 1);
  auto bad = env_flag("BOO_TEST_FLAG", false);
  ASSERT_FALSE(bad.has_value());
  EXPECT_NE(bad.status().message().find("BOO_TEST_FLAG"), std::string::npos);
  unsetenv("BOO_TEST_FLAG");
  EXPECT_FALSE(*env_flag("BOO_TEST_FLAG", false));
  setenv("BOO_TEST_INT", "-3", 1);
  EXPECT_FALSE(env_int("BOO_TEST_INT", 1).has_value());
  unsetenv("BOO_TEST_INT");
}

TEST(Env, ChoicesOutsideTheListAreIgnoredWithOneWarning) {
  EXPECT_EQ(env_choice("BOO_TEST_CHOICE", {"0", "first"}), std::nullopt);  // unset
  setenv("BOO_TEST_CHOICE", "first", 1);
  EXPECT_EQ(env_choice("BOO_TEST_CHOICE", {"0", "first"}), "first");
  setenv("BOO_TEST_CHOICE", "frist", 1);
  testing::internal::CaptureStderr();
  EXPECT_EQ(env_choice("BOO_TEST_CHOICE", {"0", "first"}), std::nullopt);
  EXPECT_EQ(env_choice("BOO_TEST_CHOICE", {"0", "first"}), std::nullopt);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("BOO_TEST_CHOICE='frist' is not one of 0, first; ignored"), std::string::npos)
      << err;
  EXPECT_EQ(err.find("BOO_TEST_CHOICE", err.find("ignored")), std::string::npos) << "warned twice";
  unsetenv("BOO_TEST_CHOICE");
}

TEST(Parallel, CoversEveryIndexOnce) {
  std::vector<int> hits(1000, 0);
  parallel_for(1000, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) ++hits[i];
  });
  for (int h : hits) EXPECT_EQ(h, 1);
  parallel_for(0, [](int64_t, int64_t) { FAIL(); });
}

}  // namespace
}  // namespace boo::core
