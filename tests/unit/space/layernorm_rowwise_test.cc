// layernorm.rowwise's space (space/layernorm_rowwise.h): names that read back, the validity
// rules (dtype, vector bytes, powers of two, block size, register budget), which problems a
// config fits, the rule sets and the fallback, and the config's listing fields.
#include "boo/space/layernorm_rowwise.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>

#include "boo/space/config_fields.h"

namespace boo::space {
namespace {

using core::DType;

constexpr DType kDTypes[] = {DType::kF32, DType::kF16, DType::kBF16};

bool contains(const std::string& text, const std::string& what) {
  return text.find(what) != std::string::npos;
}

LayerNormRowwiseConfig make(DType t, bool backward, int vec, int threads, int rows, int items) {
  return {t, backward, vec, threads, rows, items};
}

TEST(LayerNormRowwise, Names) {
  EXPECT_EQ(make(DType::kBF16, false, 8, 256, 1, 2).name(),
            "layernorm.rowwise_bf16_fwd_v8_t256_r1_i2");
  EXPECT_EQ(make(DType::kF32, true, 1, 256, 1, 0).name(),
            "layernorm.rowwise_fp32_bwd_v1_t256_r1_stream");
  EXPECT_EQ(make(DType::kF16, false, 2, 8, 16, 16).name(),
            "layernorm.rowwise_fp16_fwd_v2_t8_r16_i16");
  EXPECT_EQ(make(DType::kBF16, false, 8, 256, 1, 2).max_cols(), 4096);
  EXPECT_EQ(make(DType::kBF16, false, 8, 256, 1, 0).max_cols(), -1);
  EXPECT_EQ(make(DType::kBF16, false, 8, 32, 4, 1).block_threads(), 128);
}

TEST(LayerNormRowwise, EveryConfigOfEveryRuleSetRoundTrips) {
  size_t total = 0;
  for (RuleSet rules : kAllRuleSets) {
    for (DType t : kDTypes) {
      for (bool backward : {false, true}) {
        const auto space = layernorm_rowwise_space(t, backward, rules);
        std::set<std::string> names;
        for (const LayerNormRowwiseConfig& c : space) {
          ++total;
          EXPECT_TRUE(check_layernorm_rowwise(c).is_ok()) << c.name();
          EXPECT_EQ(c.dtype, t);
          EXPECT_EQ(c.backward, backward);
          auto back = LayerNormRowwiseConfig::parse_name(c.name());
          ASSERT_TRUE(back.has_value()) << c.name() << ": " << back.status().message();
          EXPECT_EQ(*back, c) << c.name();
          EXPECT_TRUE(names.insert(c.name()).second) << "twice: " << c.name();
        }
      }
    }
  }
  EXPECT_GT(total, 10000u);
  // fp8 has no layer norm kernels.
  EXPECT_TRUE(layernorm_rowwise_space(DType::kF8E4M3, false, RuleSet::kFull).empty());
}

TEST(LayerNormRowwise, RuleSets) {
  for (DType t : kDTypes) {
    const int wide = 16 / core::dtype_bytes(t);
    for (bool backward : {false, true}) {
      const auto tiny = layernorm_rowwise_space(t, backward, RuleSet::kTiny);
      const std::vector<LayerNormRowwiseConfig> want_tiny = {
          layernorm_rowwise_fallback(t, backward), make(t, backward, wide, 256, 1, 0),
          make(t, backward, wide, 32, 4, 1), make(t, backward, wide, 128, 2, 2),
          make(t, backward, wide, 256, 1, 4)};
      EXPECT_EQ(tiny, want_tiny);

      const auto def = layernorm_rowwise_space(t, backward, RuleSet::kDefault);
      const auto full = layernorm_rowwise_space(t, backward, RuleSet::kFull);
      const std::set<std::string> full_names = [&] {
        std::set<std::string> s;
        for (const auto& c : full) s.insert(c.name());
        return s;
      }();
      EXPECT_GT(full.size(), def.size());
      for (const auto& c : tiny) EXPECT_TRUE(full_names.count(c.name())) << c.name();
      std::set<int> vecs, items, def_blocks;
      for (const auto& c : def) {
        EXPECT_TRUE(full_names.count(c.name())) << c.name();
        // Blocks of 128, 256 or 512 threads (the backward also 1024), or one row of more.
        EXPECT_TRUE(c.block_threads() == 128 || c.block_threads() == 256 ||
                    c.block_threads() == 512 || (backward && c.block_threads() == 1024) ||
                    c.rows == 1)
            << c.name();
        if (c.items == 0) {
          EXPECT_GE(c.threads, 32) << c.name();
        }
        vecs.insert(c.vec);
        items.insert(c.items);
        def_blocks.insert(c.block_threads());
      }
      EXPECT_EQ(*vecs.rbegin(), wide);
      EXPECT_EQ(vecs.size(), t == DType::kF32 ? 3u : 4u);
      EXPECT_EQ(items.size(), 17u);  // stream and 1 to 16
      EXPECT_EQ(def_blocks, (std::set<int>{128, 256, 512, 1024}));
      std::set<int> full_blocks;
      for (const auto& c : full) full_blocks.insert(c.block_threads());
      EXPECT_EQ(full_blocks, (std::set<int>{32, 64, 128, 256, 512, 1024}));
      // The fallback is in every rule set.
      const LayerNormRowwiseConfig fb = layernorm_rowwise_fallback(t, backward);
      EXPECT_TRUE(full_names.count(fb.name()));
      EXPECT_NE(std::find(def.begin(), def.end(), fb), def.end());
    }
  }
}

TEST(LayerNormRowwise, ValidityRules) {
  struct Case {
    LayerNormRowwiseConfig c;
    std::string message;  // empty: valid
  };
  const Case cases[] = {
      {make(DType::kBF16, false, 8, 256, 1, 8), ""},
      {make(DType::kF8E4M3, false, 8, 256, 1, 1), "dtype must be fp32, fp16 or bf16, got fp8e4m3"},
      {make(DType::kF32, false, 3, 256, 1, 1), "vec must be 1, 2, 4 or 8, got 3"},
      {make(DType::kF32, false, 8, 256, 1, 1),
       "vec 8 of fp32 is 32 bytes; vector accesses are at most 16 bytes"},
      {make(DType::kF32, false, 4, 256, 1, 1), ""},
      {make(DType::kF16, false, 1, 48, 1, 1),
       "threads must be a power of two from 1 to 1024, got 48"},
      {make(DType::kF16, false, 1, 2048, 1, 1), "threads must be a power of two from 1 to 1024"},
      {make(DType::kF16, false, 1, 0, 1, 1), "threads must be a power of two"},
      {make(DType::kF16, false, 1, 32, 3, 1), "rows must be a power of two >= 1, got 3"},
      {make(DType::kF16, false, 1, 32, 0, 1), "rows must be a power of two >= 1, got 0"},
      {make(DType::kF16, false, 1, 16, 1, 1),
       "threads * rows (the block) must be 32 to 1024 threads, got 16 (threads 16, rows 1)"},
      {make(DType::kF16, false, 1, 256, 8, 1), "got 2048 (threads 256, rows 8)"},
      {make(DType::kF16, false, 1, 1, 32, 1), ""},
      {make(DType::kF16, false, 1, 32, 32, 1), ""},
      {make(DType::kF16, false, 1, 256, 1, 17), "items must be 0 (stream) to 16, got 17"},
      {make(DType::kF16, false, 1, 256, 1, -1), "items must be 0 (stream) to 16, got -1"},
      // Register budget, forward: 64 values up to 256 threads, 32 up to 512, 16 at 1024.
      {make(DType::kF16, false, 8, 256, 1, 8), ""},
      {make(DType::kF32, false, 4, 256, 1, 16), ""},
      {make(DType::kF16, false, 8, 256, 1, 9),
       "vec * items = 72 values per thread exceed the forward's register budget of 64 for "
       "blocks of 256 threads"},
      {make(DType::kF16, false, 8, 128, 4, 4), ""},
      {make(DType::kF16, false, 8, 128, 4, 5), "budget of 32 for blocks of 512 threads"},
      {make(DType::kF16, false, 4, 1024, 1, 4), ""},
      {make(DType::kF16, false, 4, 1024, 1, 5), "budget of 16 for blocks of 1024 threads"},
      {make(DType::kF16, false, 1, 1024, 1, 16), ""},
      // Backward: the same budget (its column sums live in shared memory).
      {make(DType::kBF16, true, 8, 256, 1, 8), ""},
      {make(DType::kBF16, true, 8, 256, 1, 9),
       "vec * items = 72 values per thread exceed the backward's register budget of 64"},
      {make(DType::kBF16, true, 4, 256, 2, 8), ""},
      {make(DType::kBF16, true, 4, 256, 2, 9),
       "backward's register budget of 32 for blocks of 512"},
      {make(DType::kBF16, true, 8, 1024, 1, 2), ""},
      {make(DType::kBF16, true, 8, 1024, 1, 3),
       "backward's register budget of 16 for blocks of 1024"},
      {make(DType::kBF16, true, 8, 1024, 1, 0), ""},  // stream: nothing in registers
  };
  for (const Case& c : cases) {
    const core::Status s = check_layernorm_rowwise(c.c);
    if (c.message.empty()) {
      EXPECT_TRUE(s.is_ok()) << c.c.name() << ": " << s.message();
      continue;
    }
    EXPECT_EQ(s.code(), core::StatusCode::kUnsupported) << c.c.name();
    EXPECT_EQ(s.message().rfind("layernorm.rowwise: ", 0), 0u) << s.message();
    EXPECT_TRUE(contains(s.message(), c.message)) << c.c.name() << ": " << s.message();
  }
}

TEST(LayerNormRowwise, ParseErrorsNameTheField) {
  const std::string p = "layernorm.rowwise_";
  struct Case {
    std::string name;
    std::string message;
  };
  const Case cases[] = {
      {"layernorm_bf16_fwd_v8_t256_r1_i2", "must start with layernorm.rowwise_"},
      {p + "bf16_fwd_v8_t256_r1", "expected <dtype>_<fwd|bwd>_v<vec>_t<threads>_r<rows>_"},
      {p + "bf16_fwd_v8_t256_r1_i2_x", "got 7 fields"},
      {p + "f32_fwd_v1_t256_r1_stream", "dtype: expected fp32, fp16 or bf16, got 'f32'"},
      {p + "fp8e4m3_fwd_v1_t256_r1_stream", "dtype: expected fp32, fp16 or bf16, got 'fp8e4m3'"},
      {p + "bf16_fprop_v8_t256_r1_i2", "direction: expected fwd or bwd, got 'fprop'"},
      {p + "bf16_fwd_8_t256_r1_i2", "vec: expected v<N>, got '8'"},
      {p + "bf16_fwd_vx_t256_r1_i2", "vec: expected an integer, got 'x'"},
      {p + "bf16_fwd_v8_256_r1_i2", "threads: expected t<N>, got '256'"},
      {p + "bf16_fwd_v8_t99999999999_r1_i2", "threads: out of range, got 99999999999"},
      {p + "bf16_fwd_v8_t256_rows1_i2", "rows: expected an integer, got 'ows1'"},
      {p + "bf16_fwd_v8_t256_r1_regs", "items: expected i<N>, got 'regs' (or stream)"},
      {p + "bf16_fwd_v8_t256_r1_i", "items: expected an integer, got ''"},
      // Parsed, then refused by the rules with the name in front.
      {p + "bf16_fwd_v16_t256_r1_i2",
       "layernorm.rowwise_bf16_fwd_v16_t256_r1_i2: layernorm.rowwise: vec must be 1, 2, 4 or 8"},
      {p + "fp32_fwd_v8_t256_r1_i2", "vec 8 of fp32 is 32 bytes"},
      {p + "bf16_bwd_v8_t256_r1_i9", "backward's register budget of 64"},
      {p + "bf16_fwd_v8_t16_r1_i2", "must be 32 to 1024 threads, got 16"},
      // Canonical form only.
      {p + "bf16_fwd_v8_t256_r1_i0",
       "not in canonical form (expected " + p + "bf16_fwd_v8_t256_r1_stream)"},
      {p + "bf16_fwd_v08_t256_r1_i2", "not in canonical form"},
      {p + "bf16_fwd_v+8_t256_r1_i2", "not in canonical form"},
  };
  for (const Case& c : cases) {
    auto r = LayerNormRowwiseConfig::parse_name(c.name);
    ASSERT_FALSE(r.has_value()) << c.name;
    EXPECT_TRUE(contains(r.status().message(), c.message))
        << c.name << ": " << r.status().message();
  }
  // The whole name is quoted (longer than core::quote's 40 characters).
  auto r = LayerNormRowwiseConfig::parse_name(p + "bf16_fwd_v8_t256_r1_i2_x");
  EXPECT_TRUE(contains(r.status().message(),
                       "layernorm.rowwise config '" + p + "bf16_fwd_v8_t256_r1_i2_x': "));
}

TEST(LayerNormRowwise, Fits) {
  struct Case {
    LayerNormRowwiseConfig c;
    int64_t cols;
    int64_t alignment;
    std::string message;  // empty: fits
  };
  const LayerNormRowwiseConfig fb16 = layernorm_rowwise_fallback(DType::kBF16, false);
  const LayerNormRowwiseConfig v8_i1 = make(DType::kBF16, false, 8, 128, 1, 1);  // 1024 cols
  const LayerNormRowwiseConfig v8_i4 = make(DType::kBF16, false, 8, 256, 1, 4);  // 8192 cols
  const LayerNormRowwiseConfig v2_i1 = make(DType::kF16, true, 2, 512, 1, 1);    // 1024 cols
  const LayerNormRowwiseConfig v4_stream = make(DType::kF32, false, 4, 256, 1, 0);
  const LayerNormRowwiseConfig v1_t1 = make(DType::kF32, false, 1, 1, 128, 1);  // 1 col
  const Case cases[] = {
      // The fallback takes every cols and element-aligned pointers.
      {fb16, 1, 2, ""},
      {fb16, 1001, 2, ""},
      {fb16, 65536, 16, ""},
      {v1_t1, 1, 4, ""},
      {v1_t1, 2, 4, "exceed the 1 that vec * threads * items hold in registers"},
      // Regs: a row of at most vec * threads * items, and no fewer than one item's worth less.
      {v8_i1, 768, 16, ""},
      {v8_i1, 1000, 16, ""},
      {v8_i1, 96, 16, ""},
      {v8_i1, 8, 16, ""},
      {v8_i1, 1024, 16, ""},
      {v8_i1, 1001, 16, "cols 1001 is not a multiple of vec 8"},
      {v8_i1, 4096, 16, "cols 4096 exceed the 1024 that vec * threads * items hold in registers"},
      {v8_i1, 768, 2, "pointers aligned to 2 bytes; vec 8 needs 16"},
      {v8_i1, 768, 8, "pointers aligned to 8 bytes; vec 8 needs 16"},
      {v8_i4, 8192, 16, ""},
      {v8_i4, 6152, 16, ""},
      {v8_i4, 6144, 16, "a smaller item count covers the row: cols 6144 need items 3"},
      {v8_i4, 4096, 16, "a smaller item count covers the row: cols 4096 need items 2"},
      {v8_i4, 768, 16, "a smaller item count covers the row: cols 768 need items 1"},
      {v8_i4, 65536, 16, "cols 65536 exceed the 8192"},
      {v2_i1, 1000, 4, ""},
      {v2_i1, 1000, 2, "pointers aligned to 2 bytes; vec 2 needs 4"},
      {v2_i1, 1001, 16, "not a multiple of vec 2"},
      {v2_i1, 96, 16, ""},  // one item: nothing smaller
      // Stream: any length that vec divides.
      {v4_stream, 65536, 16, ""},
      {v4_stream, 4096, 16, ""},
      {v4_stream, 96, 16, ""},
      {v4_stream, 1000, 16, ""},
      {v4_stream, 1, 16, "cols 1 is not a multiple of vec 4"},
      {v4_stream, 1000, 2, "pointers aligned to 2 bytes; vec 4 needs 16"},
  };
  for (const Case& c : cases) {
    const core::Status s = layernorm_rowwise_fits(c.c, c.cols, c.alignment);
    const std::string what = c.c.name() + " cols " + std::to_string(c.cols) + " alignment " +
                             std::to_string(c.alignment);
    if (c.message.empty()) {
      EXPECT_TRUE(s.is_ok()) << what << ": " << s.message();
    } else {
      EXPECT_EQ(s.code(), core::StatusCode::kUnsupported) << what;
      EXPECT_TRUE(contains(s.message(), c.c.name() + ": ")) << what << ": " << s.message();
      EXPECT_TRUE(contains(s.message(), c.message)) << what << ": " << s.message();
    }
  }
  // Bad problems and invalid configs.
  EXPECT_EQ(layernorm_rowwise_fits(fb16, 0, 16).code(), core::StatusCode::kInvalidArgument);
  EXPECT_TRUE(contains(layernorm_rowwise_fits(fb16, 0, 16).message(), "cols must be >= 1, got 0"));
  EXPECT_TRUE(contains(layernorm_rowwise_fits(fb16, 8, 12).message(),
                       "the pointer alignment must be a power of two (bytes), got 12"));
  EXPECT_TRUE(
      contains(layernorm_rowwise_fits(make(DType::kF32, false, 8, 256, 1, 1), 2048, 16).message(),
               "vec 8 of fp32 is 32 bytes"));
}

TEST(LayerNormRowwise, FitsEveryProblemSize) {
  const int64_t all_cols[] = {1, 7, 96, 768, 1000, 1001, 4096, 8192, 65536};
  for (DType t : kDTypes) {
    const int64_t element = core::dtype_bytes(t);
    for (bool backward : {false, true}) {
      const auto def = layernorm_rowwise_space(t, backward, RuleSet::kDefault);
      const LayerNormRowwiseConfig fb = layernorm_rowwise_fallback(t, backward);
      for (int64_t cols : all_cols) {
        // The fallback runs every problem whose pointers are aligned to the element.
        for (int64_t alignment : {element, int64_t{16}}) {
          EXPECT_TRUE(layernorm_rowwise_fits(fb, cols, alignment).is_ok())
              << fb.name() << " cols " << cols << " alignment " << alignment;
        }
        // The default space holds configs for every size: with 16-byte pointers, a register
        // config up to the rows the register budget holds (8192 columns in either direction).
        int fitting = 0, regs = 0, widest = 0;
        for (const LayerNormRowwiseConfig& c : def) {
          if (!layernorm_rowwise_fits(c, cols, 16).is_ok()) continue;
          ++fitting;
          if (c.items > 0) ++regs;
          if (c.vec * element == 16) ++widest;
        }
        EXPECT_GT(fitting, 0) << core::dtype_name(t) << " " << backward << " cols " << cols;
        if (cols <= 8192) {
          EXPECT_GT(regs, 0) << core::dtype_name(t) << " " << backward << " cols " << cols;
        }
        if (cols % (16 / element) == 0) {
          EXPECT_GT(widest, 0) << core::dtype_name(t) << " " << backward << " cols " << cols;
        }
        // Element-aligned pointers: the vec 1 configs still fit.
        int narrow = 0;
        for (const LayerNormRowwiseConfig& c : def) {
          if (layernorm_rowwise_fits(c, cols, element).is_ok()) ++narrow;
        }
        EXPECT_GT(narrow, 0) << core::dtype_name(t) << " " << backward << " cols " << cols;
      }
    }
  }
}

// The backward's stages and shared memory (kernels/layernorm_rowwise.cuh, BackwardShape; the
// generated sources assert the same figures at compile time).
TEST(LayerNormRowwise, BackwardStagesAndSharedMemory) {
  // 2 groups x (x and dy) x 4096 bf16 = 32 KB a stage: 2 stages, pipelined.
  const LayerNormRowwiseConfig big = make(DType::kBF16, true, 4, 256, 2, 4);
  EXPECT_EQ(big.backward_stage_bytes(), 32768);
  EXPECT_EQ(big.backward_stages(), 2);
  EXPECT_TRUE(big.backward_pipelined());
  EXPECT_EQ(big.backward_smem_bytes(), 65536);
  // A small stage (1 KB): as many stages as make 32 KB, at most 8.
  const LayerNormRowwiseConfig small = make(DType::kBF16, true, 8, 32, 1, 1);
  EXPECT_EQ(small.backward_stage_bytes(), 1024);
  EXPECT_EQ(small.backward_stages(), 8);
  EXPECT_EQ(small.backward_smem_bytes(), 8192);
  const LayerNormRowwiseConfig mid = make(DType::kF16, true, 4, 128, 4, 2);  // 16 KB a stage
  EXPECT_EQ(mid.backward_stages(), 2);
  EXPECT_EQ(mid.backward_smem_bytes(), 32768);
  // Two 64 KB stages fit 160 KB; the groups' sums (2 x 4096 fp32) fit in them.
  const LayerNormRowwiseConfig two = make(DType::kF32, true, 4, 128, 2, 8);
  EXPECT_EQ(two.backward_stage_bytes(), 65536);
  EXPECT_TRUE(two.backward_pipelined());
  EXPECT_EQ(two.backward_smem_bytes(), 131072);
  // Two 128 KB stages do not: x and dy in registers, two fp32 sums per column per group.
  const LayerNormRowwiseConfig wide = make(DType::kF32, true, 4, 256, 1, 16);
  EXPECT_EQ(wide.backward_stage_bytes(), 131072);
  EXPECT_FALSE(wide.backward_pipelined());
  EXPECT_EQ(wide.backward_smem_bytes(), 2 * 16384 * 4);
  // Stream configs use no dynamic shared memory.
  const LayerNormRowwiseConfig stream = make(DType::kF32, true, 1, 256, 1, 0);
  EXPECT_FALSE(stream.backward_pipelined());
  EXPECT_EQ(stream.backward_smem_bytes(), 0);
  // Every backward config of `full` stays within the 227 KB a block may have.
  for (DType t : kDTypes) {
    for (const LayerNormRowwiseConfig& c : layernorm_rowwise_space(t, true, RuleSet::kFull)) {
      EXPECT_LE(c.backward_smem_bytes(), 227 * 1024) << c.name();
    }
  }
}

// Which pipelined configs hold a row in registers between the passes (BackwardShape::kHolds):
// five fp32 values per owned column plus 24 within the block's share of 64K registers, at most
// 255 (tests/unit/jit/layernorm_registers_check.sh checks with ptxas that these do not spill).
TEST(LayerNormRowwise, BackwardHoldsRowsThatFitTheRegisterShare) {
  // 512 threads (128 registers): 16 values a thread (104) hold, 24 (144) do not.
  EXPECT_TRUE(make(DType::kBF16, true, 4, 256, 2, 4).backward_holds());
  EXPECT_TRUE(make(DType::kF16, true, 4, 128, 4, 5).backward_holds());  // 20 values: 124
  EXPECT_FALSE(make(DType::kBF16, true, 8, 128, 4, 3).backward_holds());
  // 1024 threads (64 registers): 8 values (64) hold, 16 do not.
  EXPECT_TRUE(make(DType::kF16, true, 8, 128, 8, 1).backward_holds());
  EXPECT_FALSE(make(DType::kBF16, true, 4, 256, 4, 4).backward_holds());
  // 256 threads or fewer (255 registers): up to 46 values.
  EXPECT_TRUE(make(DType::kF32, true, 4, 8, 8, 11).backward_holds());     // 44 values: 244
  EXPECT_FALSE(make(DType::kBF16, true, 8, 128, 1, 6).backward_holds());  // 48 values: 264
  // Only pipelined configs hold: not the register kernel's long rows, not stream configs.
  const LayerNormRowwiseConfig wide = make(DType::kF32, true, 4, 256, 1, 16);
  EXPECT_FALSE(wide.backward_pipelined());
  EXPECT_FALSE(wide.backward_holds());
  EXPECT_FALSE(make(DType::kF32, true, 1, 256, 1, 0).backward_holds());
}

TEST(LayerNormRowwise, ConfigFields) {
  auto c = LayerNormRowwiseConfig::parse_name("layernorm.rowwise_bf16_bwd_v8_t128_r2_i3");
  ASSERT_TRUE(c.has_value()) << c.status().message();
  EXPECT_EQ(format_fields(config_fields(*c)),
            "algorithm=layernorm.rowwise dtype=bf16 direction=bwd vec=8 threads=128 rows=2 "
            "items=3");
  EXPECT_EQ(format_fields(config_fields(layernorm_rowwise_fallback(DType::kF32, false))),
            "algorithm=layernorm.rowwise dtype=fp32 direction=fwd vec=1 threads=256 rows=1 "
            "items=stream");
  // The fields tell every config of the full space apart, as names do.
  std::set<std::string> seen;
  size_t n = 0;
  for (DType t : kDTypes) {
    for (bool backward : {false, true}) {
      for (const auto& s : layernorm_rowwise_space(t, backward, RuleSet::kFull)) {
        ++n;
        seen.insert(format_fields(config_fields(s)));
      }
    }
  }
  EXPECT_EQ(seen.size(), n);
}

}  // namespace
}  // namespace boo::space
