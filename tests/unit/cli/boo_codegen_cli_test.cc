// `boo codegen` end to end: the built binary lists configs (counts checked against the space
// functions), writes sources equal to the generators' (files, registration header), builds the
// same config from flags as from its name, and refuses bad names, bad configs and mixed usage
// with exit status 2 and the failing rule. No GPU, no nvcc.
#include <stdlib.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include "boo/codegen/abi.h"
#include "boo/codegen/conv_codegen.h"
#include "boo/codegen/gemm_codegen.h"
#include "boo/codegen/layernorm_codegen.h"
#include "boo/space/config_fields.h"
#include "cli_test_util.h"

namespace boo::cli {
namespace {

namespace fs = std::filesystem;
using space::RuleSet;

constexpr char kBf16Tn[] = "bf16.bf16.void.bf16_f32acc_tn_nobias.none";
constexpr char kSplitK4[] =
    "gemm.sm90_bf16.bf16.void.bf16_f32acc_tn_nobias.none_t128x256x64_c2x1_coop_splitk4_sw8.rn";
constexpr char kSplitK8[] =
    "gemm.sm90_bf16.bf16.void.bf16_f32acc_tn_nobias.none_t128x256x64_c2x1_coop_splitk8_sw1.rh";
constexpr char kSplitKKernel[] =
    "gemm.sm90_bf16.bf16.void.bf16_f32acc_tn_nobias.none_t128x256x64_c2x1_coop_sk";
constexpr char kConvSm90[] = "conv.sm90_implicit_bf16_f32acc_fprop_2d_nobias.none_t64x256x64_c1x1";
constexpr char kDirect[] = "conv.direct_fp16_f32acc_fprop_2d_bias.relu";
constexpr char kSkinny[] = "gemm.skinny_bf16.bf16.void.bf16_f32acc_tn_nobias.none_narrow-m_split8";

// Config lines of a listing (all but the count line), and the count line.
struct Listing {
  std::vector<std::string> configs;
  std::string count;
};

Listing listing_of(const std::string& out) {
  Listing l;
  std::vector<std::string> lines = lines_of(out);
  if (lines.empty()) return l;
  l.count = lines.back();
  lines.pop_back();
  l.configs = lines;
  return l;
}

std::string first_word(const std::string& line) { return line.substr(0, line.find(' ')); }

// "N configs (rule set R: a n, b n, ...)": the per-algorithm counts.
std::map<std::string, size_t> counts_of(const std::string& count_line) {
  std::map<std::string, size_t> out;
  const std::regex item(R"(([a-z0-9._]+) ([0-9]+))");
  const std::string inner = count_line.substr(count_line.find(": ") + 2);
  for (std::sregex_iterator it(inner.begin(), inner.end(), item), end; it != end; ++it) {
    out[(*it)[1]] = std::stoul((*it)[2]);
  }
  return out;
}

class CodegenCliTest : public testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "boo_codegen_cli_test.XXXXXX").string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  RunResult run(std::vector<std::string> args) {
    args.insert(args.begin(), "codegen");
    return run_boo(args, dir_, {"BOO_CPU_THREADS=2"});
  }
  fs::path dir_;
};

TEST_F(CodegenCliTest, TinyListingCountsMatchTheSpaceFunctions) {
  const RunResult r = run({"--list-configs", "--rule-set", "tiny"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Listing l = listing_of(r.out);
  std::map<std::string, size_t> want;
  for (const space::GemmClass& c : space::representative_gemm_classes()) {
    want["gemm.sm90"] += space::gemm_sm90_space(c, RuleSet::kTiny).size();
    want["gemm.sm90_unaligned"] += space::gemm_sm90_space(c, RuleSet::kTiny).size();
    for (bool narrow_m : {false, true}) {
      want["gemm.skinny"] += space::gemm_skinny_space(c, narrow_m, RuleSet::kTiny).size();
    }
    want["gemm.fallback"] += 1;
  }
  for (const space::ConvClass& c : space::representative_conv_classes()) {
    want["conv.sm90_implicit"] += space::conv_sm90_space(c, RuleSet::kTiny).size();
    want["conv.direct"] += 1;
    // conv.depthwise: one config per class; conv.pointwise: one per forward class;
    // conv.grouped's direct kernel: one per 16-bit forward class.
    want["conv.depthwise"] += 1;
    if (c.direction == ops::ConvDirection::kForward) want["conv.pointwise"] += 1;
    if (c.direction == ops::ConvDirection::kForward &&
        (c.dtype == core::DType::kF16 || c.dtype == core::DType::kBF16)) {
      want["conv.grouped"] += 1;
    }
  }
  for (core::DType t : {core::DType::kBF16, core::DType::kF16, core::DType::kF32}) {
    for (bool backward : {false, true}) {
      want["layernorm.rowwise"] +=
          space::layernorm_rowwise_space(t, backward, RuleSet::kTiny).size();
    }
  }
  size_t total = 0;
  for (const auto& [a, n] : want) total += n;
  EXPECT_EQ(counts_of(l.count), want) << l.count;
  EXPECT_EQ(l.count.rfind(std::to_string(total) + " configs (rule set tiny: gemm.sm90 ", 0), 0u)
      << l.count;
  ASSERT_EQ(l.configs.size(), total);
  // Each line: the name, then its fields, the algorithm's first.
  std::map<std::string, size_t> seen;
  for (const std::string& line : l.configs) {
    const std::smatch m = [&] {
      std::smatch s;
      std::regex_search(line, s, std::regex(R"(  algorithm=([a-z0-9._]+) )"));
      return s;
    }();
    ASSERT_FALSE(m.empty()) << line;
    ++seen[m[1]];
    EXPECT_EQ(first_word(line).rfind(std::string(m[1]) + "_", 0), 0u) << line;
  }
  EXPECT_EQ(seen, want);
}

TEST_F(CodegenCliTest, ListingOfOneAlgorithmAndRuleSet) {
  const RunResult r =
      run({"--list-configs", "--algorithm", "conv.sm90_implicit", "--rule-set", "full"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Listing l = listing_of(r.out);
  size_t want = 0;
  for (const space::ConvClass& c : space::representative_conv_classes()) {
    want += space::conv_sm90_space(c, RuleSet::kFull).size();
  }
  EXPECT_EQ(l.configs.size(), want);
  EXPECT_EQ(l.count, std::to_string(want) + " configs (rule set full: conv.sm90_implicit " +
                         std::to_string(want) + ")");
  for (const std::string& line : l.configs) {
    auto c = space::ConvSm90Config::parse_name(first_word(line));
    ASSERT_TRUE(c.has_value()) << line;
    EXPECT_NE(line.find("  algorithm=conv.sm90_implicit  "), std::string::npos) << line;
    EXPECT_NE(line.find("tile=" + std::to_string(c->tile_m) + "x" + std::to_string(c->tile_n) +
                        "x" + std::to_string(c->tile_k)),
              std::string::npos)
        << line;
  }
}

TEST_F(CodegenCliTest, LayerNormListsByDtypeAndWritesByName) {
  // No class: every dtype (or --dtype's) in both directions.
  const RunResult r = run({"--list-configs", "--algorithm", "layernorm.rowwise", "--rule-set",
                           "tiny", "--dtype", "fp16"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Listing l = listing_of(r.out);
  const auto fwd = space::layernorm_rowwise_space(core::DType::kF16, false, RuleSet::kTiny);
  const auto bwd = space::layernorm_rowwise_space(core::DType::kF16, true, RuleSet::kTiny);
  const size_t want = fwd.size() + bwd.size();
  ASSERT_EQ(l.configs.size(), want);
  EXPECT_EQ(l.count, std::to_string(want) + " configs (rule set tiny: layernorm.rowwise " +
                         std::to_string(want) + ")");
  EXPECT_EQ(l.configs.front(),
            "layernorm.rowwise_fp16_fwd_v1_t256_r1_stream  algorithm=layernorm.rowwise  "
            "dtype=fp16  direction=fwd  vec=1  threads=256  rows=1  items=stream");
  for (size_t i = 0; i < l.configs.size(); ++i) {
    const auto& c = i < fwd.size() ? fwd[i] : bwd[i - fwd.size()];
    EXPECT_EQ(first_word(l.configs[i]), c.name());
    EXPECT_NE(l.configs[i].find("  algorithm=layernorm.rowwise  dtype=fp16  direction="),
              std::string::npos)
        << l.configs[i];
  }
  const RunResult with_class =
      run({"--list-configs", "--algorithm", "layernorm.rowwise", "--class", kBf16Tn});
  EXPECT_EQ(with_class.exit_code, 2);
  EXPECT_NE(with_class.err.find("--algorithm layernorm.rowwise takes no classes"),
            std::string::npos)
      << with_class.err;

  const std::string name = "layernorm.rowwise_bf16_bwd_v8_t128_r2_i2";
  const fs::path out = dir_ / "ln";
  const RunResult w = run({"-o", out.string(), name});
  ASSERT_EQ(w.exit_code, 0) << w.err;
  EXPECT_EQ(
      read_file(out / (name + ".cu")),
      codegen::layernorm_rowwise_source(*space::LayerNormRowwiseConfig::parse_name(name))->text);
  EXPECT_NE(read_file(out / "boo_generated.h")
                .find("{\"" + name + "\", \"layernorm.rowwise\", \"" + name + "\", \"" + name +
                      ".cu\"},"),
            std::string::npos);
  const RunResult bad =
      run({"-o", (dir_ / "never").string(), "layernorm.rowwise_fp32_fwd_v8_t256_r1_i1"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("layernorm.rowwise_fp32_fwd_v8_t256_r1_i1: layernorm.rowwise: vec 8 of "
                         "fp32 is 32 bytes"),
            std::string::npos)
      << bad.err;
  const RunResult flags =
      run({"-o", (dir_ / "never").string(), "--algorithm", "layernorm.rowwise"});
  EXPECT_EQ(flags.exit_code, 2);
  EXPECT_NE(flags.err.find("write its configs by name"), std::string::npos) << flags.err;
  EXPECT_FALSE(fs::exists(dir_ / "never"));
}

TEST_F(CodegenCliTest, DtypeKeepsTheDefaultClassesOfOneType) {
  const RunResult r =
      run({"--list-configs", "--dtype", "fp16", "--algorithm", "gemm.sm90,conv.direct"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Listing l = listing_of(r.out);
  size_t sm90 = 0;
  for (const space::GemmClass& c : space::representative_gemm_classes()) {
    if (c.a == core::DType::kF16) sm90 += space::gemm_sm90_space(c, RuleSet::kDefault).size();
  }
  EXPECT_EQ(counts_of(l.count),
            (std::map<std::string, size_t>{{"gemm.sm90", sm90}, {"conv.direct", 4}}))
      << l.count;
  for (const std::string& line : l.configs) {
    EXPECT_TRUE(line.find("types=fp16.fp16.void.fp16 ") != std::string::npos ||
                line.find("dtype=fp16 ") != std::string::npos)
        << line;
  }
  const RunResult fp8 = run({"--list-configs", "--dtype", "fp8e4m3", "--rule-set", "tiny"});
  ASSERT_EQ(fp8.exit_code, 0) << fp8.err;
  EXPECT_EQ(counts_of(listing_of(fp8.out).count)["conv.sm90_implicit"], 0u);
  EXPECT_EQ(counts_of(listing_of(fp8.out).count)["gemm.fallback"], 1u);
}

TEST_F(CodegenCliTest, ClassChoosesTheFamilyAndExplainsEmptyAlgorithms) {
  const RunResult r = run(
      {"--list-configs", "--rule-set", "full", "--class", kBf16Tn, "--algorithm", "gemm.skinny"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  space::GemmClass cls = *space::GemmClass::parse_name(kBf16Tn);
  const size_t want = 2 * space::gemm_skinny_space(cls, false, RuleSet::kFull).size();
  EXPECT_EQ(listing_of(r.out).configs.size(), want);

  // Without --algorithm: the GEMM algorithms only; gemm.sm90 says why it has nothing, and
  // gemm.sm90_unaligned (which transposes tf32 operands K-major) lists its configs.
  const char* tf32_nn = "fp32.fp32.void.fp32_tf32_nn_nobias.none";
  const RunResult nn = run({"--list-configs", "--class", tf32_nn});
  ASSERT_EQ(nn.exit_code, 0) << nn.err;
  const size_t unaligned =
      space::gemm_sm90_space(*space::GemmClass::parse_name(tf32_nn), RuleSet::kDefault).size();
  EXPECT_GT(unaligned, 0u);
  EXPECT_EQ(counts_of(listing_of(nn.out).count),
            (std::map<std::string, size_t>{{"gemm.sm90", 0},
                                           {"gemm.sm90_unaligned", unaligned},
                                           {"gemm.skinny", 2},
                                           {"gemm.fallback", 1}}));
  EXPECT_NE(nn.out.find("gemm.sm90_unaligned_fp32.fp32.void.fp32_tf32_nn_nobias.none_t"),
            std::string::npos);
  EXPECT_NE(nn.err.find("no gemm.sm90 configs for fp32.fp32.void.fp32_tf32_nn_nobias.none: "
                        "gemm.sm90: tf32 warpgroup MMA needs K-major A and B"),
            std::string::npos)
      << nn.err;

  const RunResult wrong = run({"--list-configs", "--class", kBf16Tn, "--algorithm", "conv.direct"});
  EXPECT_EQ(wrong.exit_code, 2);
  EXPECT_NE(wrong.err.find("--algorithm conv.direct takes convolution classes"), std::string::npos)
      << wrong.err;
}

TEST_F(CodegenCliTest, ListingNamesShowsTheirFields) {
  const RunResult r = run({"--list-configs", kSplitK4, kDirect});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Listing l = listing_of(r.out);
  ASSERT_EQ(l.configs.size(), 2u);
  EXPECT_EQ(l.count, "2 configs");
  EXPECT_EQ(l.configs[0],
            std::string(kSplitK4) +
                "  algorithm=gemm.sm90  types=bf16.bf16.void.bf16  math=f32acc  trans=tn  "
                "bias=none  act=none  alpha=scalar  scale=none  tile=128x256x64  cluster=2x1  "
                "schedule=coop  scheduler=splitk  operands=as-given  splits=4  swizzle=8  "
                "raster=along-n");
  EXPECT_EQ(l.configs[1], std::string(kDirect) +
                              "  algorithm=conv.direct  dtype=fp16  math=f32acc  direction=fprop  "
                              "dims=2  bias=per-channel  act=relu");
}

TEST_F(CodegenCliTest, WritesOneFilePerKernelAndTheRegistrationHeader) {
  const fs::path out = dir_ / "gen" / "nested";  // created
  const RunResult r = run({"-o", out.string(), kSplitK4, kSplitK8, kDirect, kSkinny});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // The two split-K configs differ only in launch arguments: one kernel, one file.
  const std::string skinny_kernel = space::GemmSkinnyConfig::parse_name(kSkinny)->kernel_name();
  const std::map<std::string, std::string> want = {
      {kSplitKKernel,
       codegen::gemm_sm90_source(*space::GemmSm90Config::parse_name(kSplitK4))->text},
      {kDirect,
       codegen::conv_direct_source(*space::ConvClass::parse_name(std::string(kDirect).substr(12)))
           ->text},
      {skinny_kernel,
       codegen::gemm_skinny_source(*space::GemmSkinnyConfig::parse_name(kSkinny))->text}};
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(out)) files.push_back(e.path().filename());
  EXPECT_EQ(files.size(), want.size() + 1);
  for (const auto& [kernel, text] : want) {
    const fs::path path = out / (kernel + ".cu");
    ASSERT_TRUE(fs::exists(path)) << path;
    const std::string written = read_file(path);
    EXPECT_EQ(written.rfind("// Generated by boo codegen: " + kernel + "\n", 0), 0u);
    EXPECT_EQ(written, text) << kernel;
    EXPECT_NE(r.out.find("wrote " + path.string() + " ("), std::string::npos) << r.out;
  }
  EXPECT_EQ(lines_of(r.out).size(), want.size() + 1) << r.out;
  EXPECT_NE(r.out.find("boo_generated.h (4 configs, 3 kernels)"), std::string::npos) << r.out;

  const std::string header = read_file(out / "boo_generated.h");
  EXPECT_NE(
      header.find("#define BOO_GENERATED_ABI_VERSION " + std::to_string(BOO_ABI_VERSION) + "\n"),
      std::string::npos)
      << header;
  EXPECT_NE(header.find("#define BOO_GENERATED_KERNEL_COUNT 4\n"), std::string::npos);
  EXPECT_NE(header.find("{\"" + std::string(kSplitK4) + "\", \"gemm.sm90\", \"" + kSplitKKernel +
                        "\", \"" + kSplitKKernel + ".cu\"},"),
            std::string::npos)
      << header;
  EXPECT_NE(header.find("{\"" + std::string(kSplitK8) + "\", \"gemm.sm90\", \"" + kSplitKKernel +
                        "\", \"" + kSplitKKernel + ".cu\"},"),
            std::string::npos);
  EXPECT_NE(header.find("{\"" + std::string(kDirect) + "\", \"conv.direct\", \"" + kDirect +
                        "\", \"" + kDirect + ".cu\"},"),
            std::string::npos);
  EXPECT_NE(header.find("{\"" + std::string(kSkinny) + "\", \"gemm.skinny\", \"" + skinny_kernel +
                        "\", \"" + skinny_kernel + ".cu\"},"),
            std::string::npos);
}

TEST_F(CodegenCliTest, FlagsBuildTheSameConfigAsItsName) {
  struct Case {
    std::string name;
    std::vector<std::string> flags;
  };
  const std::vector<Case> cases = {
      {kSplitK4, {"--algorithm", "gemm.sm90", "--class",    kBf16Tn, "--tile-m",    "128",
                  "--tile-n",    "256",       "--tile-k",   "64",    "--cluster-m", "2",
                  "--cluster-n", "1",         "--schedule", "coop",  "--scheduler", "splitk",
                  "--splits",    "4",         "--swizzle",  "8",     "--raster",    "n"}},
      // Defaults: 128x128, a 128-byte k-block (64 bf16), 1x1, coop, persistent, sw1.rh.
      {"gemm.sm90_unaligned_bf16.bf16.void.bf16_f32acc_tn_nobias.none_t128x128x64_c1x1_coop_"
       "persistent_sw1.rh",
       {"--algorithm", "gemm.sm90_unaligned", "--class", kBf16Tn}},
      {"gemm.sm90_fp8e4m3.fp8e4m3.void.bf16_f32acc_tn_nobias.none_scaled_t64x128x128_c1x2_"
       "pingpong_persistent_sw1.rh",
       {"--algorithm", "gemm.sm90", "--class",
        "fp8e4m3.fp8e4m3.void.bf16_f32acc_tn_nobias.none_scaled", "--tile-m", "64", "--cluster-n",
        "2", "--schedule", "pingpong"}},
      {"gemm.sm90_bf16.bf16.void.bf16_f32acc_tn_nobias.none_t64x16x128_c1x1_pingpong_"
       "persistent_swap_sw1.rh",
       {"--algorithm", "gemm.sm90", "--class", kBf16Tn, "--tile-m", "64", "--tile-n", "16",
        "--tile-k", "128", "--schedule", "pingpong", "--swap-ab"}},
      {kConvSm90,
       {"--algorithm", "conv.sm90_implicit", "--class", "bf16_f32acc_fprop_2d_nobias.none",
        "--tile-m", "64", "--tile-n", "256"}},
      {"conv.sm90_implicit_fp16_f32acc_dgrad_3d_nobias.none_t256x64x64_c1x1_coop",
       {"--algorithm", "conv.sm90_implicit", "--class", "fp16_f32acc_dgrad_3d_nobias.none",
        "--tile-m", "256", "--tile-n", "64", "--schedule", "coop"}},
      {kSkinny,
       {"--algorithm", "gemm.skinny", "--class", kBf16Tn, "--narrow", "m", "--splits", "8"}},
      {kDirect, {"--algorithm", "conv.direct", "--class", "fp16_f32acc_fprop_2d_bias.relu"}},
      {std::string("gemm.fallback_") + kBf16Tn,
       {"--algorithm", "gemm.fallback", "--class", kBf16Tn}},
  };
  int i = 0;
  for (const Case& c : cases) {
    const fs::path by_name = dir_ / ("name" + std::to_string(i));
    const fs::path by_flags = dir_ / ("flags" + std::to_string(i++));
    const RunResult a = run({"-o", by_name.string(), c.name});
    ASSERT_EQ(a.exit_code, 0) << c.name << ": " << a.err;
    std::vector<std::string> args = {"-o", by_flags.string()};
    args.insert(args.end(), c.flags.begin(), c.flags.end());
    const RunResult b = run(args);
    ASSERT_EQ(b.exit_code, 0) << c.name << ": " << b.err;
    const std::string header = read_file(by_name / "boo_generated.h");
    EXPECT_NE(header.find("{\"" + c.name + "\""), std::string::npos) << header;
    EXPECT_EQ(read_file(by_flags / "boo_generated.h"), header) << c.name;
    for (const auto& e : fs::directory_iterator(by_name)) {
      EXPECT_EQ(read_file(by_flags / e.path().filename()), read_file(e.path())) << e.path();
    }
  }
}

TEST_F(CodegenCliTest, RefusesBadNamesAndConfigsWithTheFailingRule) {
  const fs::path out = dir_ / "never";
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{"gemm.sm90_bf16"}, "gemm.sm90 config 'gemm.sm90_bf16': too few fields"},
      {{"gemm.sm90_bf16.bf16.void.bf16_f32acc_tn_nobias.none_t96x256x64_c1x1_coop_persistent_"
        "sw1.rh"},
       "_t96x256x64_c1x1_coop_persistent_sw1.rh: tile M must be 64, 128 or 256"},
      {{"gemm.fallback_bf16"}, "gemm.fallback config 'gemm.fallback_bf16': GEMM class 'bf16'"},
      {{"conv.direct_fp8e4m3_f32acc_fprop_2d_nobias.none"}, "conv.direct: no fp8 convolutions"},
      {{"gemm.skinny_bf16.bf16.void.bf16_f32acc_tn_nobias.none_narrow-n_split99"},
       "gemm.skinny: splits must be auto (0) or 1 to 64"},
      {{"matmul_bf16"}, "'matmul_bf16' is not a config name"},
      // The list of prefixes names every kernel family codegen takes.
      {{"matmul_bf16"}, "conv.split_wgrad_, conv.padded_channels_, conv.sm90_taps_"},
      {{"conv.gemm_1x1"}, "conv.gemm_1x1 is an algorithm: its kernels are gemm.sm90"},
      {{"--algorithm", "gemm.sm90", "--class", kBf16Tn, "--tile-m", "96"},
       "_t96x128x64_c1x1_coop_persistent_sw1.rh: tile M must be 64, 128 or 256"},
      {{"--algorithm", "gemm.sm90", "--class", kBf16Tn, "--schedule", "pingpong", "--scheduler",
        "streamk"},
       "stream-K and split-K need the cooperative schedule"},
      {{"--algorithm", "gemm.sm90", "--class", kBf16Tn, "--scheduler", "splitk"},
       "split-K takes 2 to 16 splits"},
      {{"--algorithm", "conv.sm90_implicit", "--class", "bf16_f32acc_wgrad_2d_bias.relu"},
       "conv.sm90_implicit: bias and activation are forward epilogues"},
      {{"--algorithm", "conv.sm90_implicit", "--class", kBf16Tn},
       "is a GEMM class; conv.sm90_implicit takes convolution classes"},
      {{"--algorithm", "conv.sm90_implicit", "--class", "bf16_f32acc_fprop_2d_nobias.none",
        "--schedule", "pingpong", "--tile-n", "256"},
       "the accumulators exceed 128 registers per thread"},
      {{"--algorithm", "conv.sm90_implicit", "--class", "bf16_f32acc_wgrad_2d_nobias.none",
        "--schedule", "coop"},
       "the persistent kernel runs forward and backward data only"},
      {{"--algorithm", "conv.sm90_implicit", "--class", "bf16_f32acc_fprop_2d_nobias.none",
        "--swizzle", "8"},
       "--swizzle does not apply to conv.sm90_implicit"},
      {{"--algorithm", "gemm.sm90", "--class", "bf16.bf16.void.bf16_f32acc_xy_nobias.none"},
       "--class: GEMM class"},
      {{"--algorithm", "gemm.sm90"}, "--class: give exactly one class"},
      {{kSplitK4, "--tile-m", "128"}, "config names and --tile-m are exclusive"},
      {{kSplitK4, "--algorithm", "gemm.sm90"}, "config names and --algorithm are exclusive"},
      {{kSplitK4, "--rule-set", "tiny"}, "--rule-set applies to --list-configs"},
      {{"--schedule", "fast", kSplitK4}, "--schedule: fast not in {coop,pingpong}"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> args = {"-o", out.string()};
    args.insert(args.end(), c.args.begin(), c.args.end());
    const RunResult r = run(args);
    EXPECT_EQ(r.exit_code, 2) << c.message << "\n" << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "") << c.message;
    EXPECT_FALSE(fs::exists(out)) << c.message;
  }
  // One bad name among good ones writes nothing.
  const RunResult mixed = run({"-o", out.string(), kDirect, "conv.direct_bf16"});
  EXPECT_EQ(mixed.exit_code, 2);
  EXPECT_FALSE(fs::exists(out));
}

TEST_F(CodegenCliTest, RefusesMixedModes) {
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{"--list-configs", "-o", (dir_ / "x").string()}, "-o and --list-configs are exclusive"},
      {{"--list-configs", "--tile-m", "128"}, "--tile-m builds a config to write (-o DIR)"},
      {{"--list-configs", "--dtype", "bf16", "--class", kBf16Tn}, "--dtype filters the default"},
      {{"--list-configs", "--rule-set", "tiny", kSplitK4}, "config names and --algorithm/"},
      {{"--list-configs", "--dtype", "bf17"}, "--dtype: bf17 not in"},
      {{"--list-configs", "--algorithm", "gemm.sm91"}, "--algorithm: gemm.sm91 not in"},
      {{kSplitK4}, "nothing to do"},
  };
  for (const Case& c : cases) {
    const RunResult r = run(c.args);
    EXPECT_EQ(r.exit_code, 2) << c.message;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << r.err;
  }
}

TEST_F(CodegenCliTest, HelpNamesTheDefaultClasses) {
  const RunResult r = run({"--help"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const space::GemmClass& c : space::representative_gemm_classes()) {
    EXPECT_NE(r.out.find("    " + c.name() + "\n"), std::string::npos) << c.name();
  }
  for (const space::ConvClass& c : space::representative_conv_classes()) {
    EXPECT_NE(r.out.find("    " + c.name() + "\n"), std::string::npos) << c.name();
  }
}

}  // namespace
}  // namespace boo::cli
