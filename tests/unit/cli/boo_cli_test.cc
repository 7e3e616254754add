// End-to-end tests of the `boo` command line: they run the built binary (BOO_CLI_PATH) through
// the shell and check its stdout, stderr and exit status.
#include <stdlib.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "cli_test_util.h"

namespace boo::cli {
namespace {

// Splits one CSV row, honouring double-quoted fields.
std::vector<std::string> csv_fields(const std::string& row) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (size_t i = 0; i < row.size(); ++i) {
    const char ch = row[i];
    if (quoted && ch == '"' && i + 1 < row.size() && row[i + 1] == '"') {
      fields.back() += '"';
      ++i;
    } else if (ch == '"') {
      quoted = !quoted;
    } else if (ch == ',' && !quoted) {
      fields.emplace_back();
    } else {
      fields.back() += ch;
    }
  }
  return fields;
}

bool has_line_matching(const std::string& text, const std::string& pattern) {
  const std::regex re(pattern);
  for (const std::string& line : lines_of(text)) {
    if (std::regex_match(line, re)) return true;
  }
  return false;
}

constexpr char kSmallConv[] =
    "convbfp16 -n 1 -c 8 -H 5 -W 5 -k 4 -y 3 -x 3 -p 1 -q 1 -F 1 -t 1 --iter 3";
constexpr char kSmallConvKey[] =
    "conv2d_bf16_f32acc_fwd_n1c8h5w5_k4y3x3_s1x1p1x1d1x1_g1_nchw.nchw.nchw_nobias.none";
constexpr char kSmallConvCanonical[] =
    "convbfp16 -n 1 -c 8 -H 5 -W 5 -k 4 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -l 1 -j 1 -m conv -g 1 "
    "-F 1 --in_layout NCHW --out_layout NCHW --fil_layout NCHW";
constexpr char kSmallGemm[] =
    "- {function: matmul, M: 8, N: 4, K: 2, transA: N, transB: N, a_type: f32_r, b_type: f32_r}";

class CliTest : public testing::Test {
 protected:
  static void SetUpTestSuite() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "boo_cli_test.XXXXXX").string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = new std::filesystem::path(tmpl);
  }
  static void TearDownTestSuite() {
    std::error_code ec;
    std::filesystem::remove_all(*dir_, ec);
    delete dir_;
    dir_ = nullptr;
  }

  static std::filesystem::path tmp(const std::string& name) { return *dir_ / name; }

  // Runs `boo <args>` with BOO_CPU_THREADS=2; each arg is passed as one word.
  static RunResult run(const std::vector<std::string>& args) {
    return run_boo(args, *dir_, {"BOO_CPU_THREADS=2"});
  }

  // `boo <subcommand> <options...> <command words...>`.
  static RunResult run_command(std::vector<std::string> args, const std::string& command) {
    std::istringstream words(command);
    for (std::string w; words >> w;) args.push_back(w);
    return run(args);
  }

  static std::filesystem::path* dir_;
};

std::filesystem::path* CliTest::dir_ = nullptr;

TEST_F(CliTest, HelpListsSubcommands) {
  const RunResult r = run({"--help"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(has_line_matching(r.out, R"(\s+parse\s+.*)")) << r.out;
  EXPECT_TRUE(has_line_matching(r.out, R"(\s+driver\s+.*)")) << r.out;
}

TEST_F(CliTest, ParsePrintsKeyCommandFlopsBytesAndFloor) {
  const RunResult r = run_command({"parse"}, kSmallConv);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(has_line_matching(r.out, std::string(R"(\s+key\s+)") + kSmallConvKey)) << r.out;
  EXPECT_TRUE(has_line_matching(r.out, std::string(R"(\s+command\s+)") + kSmallConvCanonical))
      << r.out;
  EXPECT_TRUE(has_line_matching(r.out, R"(\s+flops\s+14\.40 KFLOP)")) << r.out;
  EXPECT_TRUE(has_line_matching(r.out, R"(\s+bytes\s+[0-9.]+ K?B .*)")) << r.out;
  EXPECT_TRUE(has_line_matching(r.out, R"(\s+floor\s+[0-9.]+ us on H100.*)")) << r.out;
}

TEST_F(CliTest, ParseKeysOfGemmLogPrintsOneKeyPerProblem) {
  const std::string log = std::string(BOO_SOURCE_DIR) + "/bench/workloads/gemm_public.log";
  size_t problems = 0;
  for (const std::string& line : lines_of(read_file(log))) {
    if (line.rfind("- {", 0) == 0) ++problems;
  }
  ASSERT_GT(problems, 0u);
  const RunResult r = run({"parse", "--keys", "--commands-file", log});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const std::vector<std::string> keys = lines_of(r.out);
  EXPECT_EQ(keys.size(), problems) << r.out;
  for (const std::string& key : keys) EXPECT_EQ(key.rfind("gemm_", 0), 0u) << key;
}

// Every commands file the GPU machine runs (tests/gpu/, bench/workloads/) parses here, and dispatch
// ranks a first candidate for each of its GEMMs and convolutions: a bad line costs no device
// time.
TEST_F(CliTest, EveryGpuListParsesAndRanksWithoutAGpu) {
  std::vector<std::filesystem::path> lists;
  for (const char* dir : {"/tests/gpu", "/bench/workloads"}) {
    for (const auto& e : std::filesystem::directory_iterator(std::string(BOO_SOURCE_DIR) + dir)) {
      const std::string ext = e.path().extension().string();
      if (ext == ".txt" || ext == ".log") lists.push_back(e.path());
    }
  }
  ASSERT_GE(lists.size(), 20u);
  for (const auto& list : lists) {
    const RunResult keys = run({"parse", "--keys", "--commands-file", list.string()});
    EXPECT_EQ(keys.exit_code, 0) << list << ": " << keys.err;
    const size_t problems = lines_of(keys.out).size();
    EXPECT_GT(problems, 0u) << list;
    if (list.filename().string().rfind("layernorm", 0) == 0) continue;  // (no candidates shown)
    const RunResult ranked = run({"parse", "--candidates", "1", "--commands-file", list.string()});
    EXPECT_EQ(ranked.exit_code, 0) << list << ": " << ranked.err;
    // Each problem's block (from its key line) has a first candidate.
    size_t blocks = 0, ranked_blocks = 0;
    bool first_seen = false;
    for (const std::string& line : lines_of(ranked.out)) {
      if (line.rfind("  key ", 0) == 0) {
        ++blocks;
        first_seen = false;
      } else if (line.rfind("  #1 ", 0) == 0 && !first_seen) {
        first_seen = true;
        ++ranked_blocks;
      }
    }
    EXPECT_EQ(blocks, problems) << list;
    EXPECT_EQ(ranked_blocks, problems) << list << ":\n" << ranked.out.substr(0, 4000);
  }
}

TEST_F(CliTest, ParseOfBadCommandFailsWithOneLineErrorNamingTheFlag) {
  const RunResult r = run_command({"parse"}, "conv -n 1 -c 8 -k 0");
  EXPECT_NE(r.exit_code, 0);
  int error_lines = 0;
  for (const std::string& line : lines_of(r.err)) {
    if (line.find("error") == std::string::npos) continue;
    ++error_lines;
    EXPECT_NE(line.find("-k"), std::string::npos) << line;
    EXPECT_NE(line.find("got 0"), std::string::npos) << line;
  }
  EXPECT_EQ(error_lines, 1) << r.err;
  EXPECT_EQ(r.out.find("key"), std::string::npos) << r.out;
}

TEST_F(CliTest, DriverReferenceRunsSmallConvAndPrintsTiming) {
  const RunResult r = run_command({"driver", "--backend", "reference"}, kSmallConv);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<std::string> lines = lines_of(r.out);
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines[0], kSmallConvCanonical);
  const std::string num = R"(-?[0-9.]+(e[-+][0-9]+)?)";
  EXPECT_TRUE(has_line_matching(
      r.out, R"(>>> y: \(1, 4, 5, 5\) NCHW bf16 sum=)" + num + " absmax=" + num + " rms=" + num))
      << r.out;
  const std::string us = R"([0-9.]+us)";
  EXPECT_TRUE(has_line_matching(
      r.out, ">>> min=" + us + " max=" + us + " mean=" + us + " median=" + us + " stddev=" + us))
      << r.out;
}

TEST_F(CliTest, DriverReferenceRefusesTooLargeProblem) {
  const RunResult r = run_command({"driver", "--backend", "reference"},
                                  "convbfp16 -n 256 -c 1024 -H 64 -W 64 -k 1024 -F 1");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("too large for the CPU reference"), std::string::npos) << r.err;
}

TEST_F(CliTest, DriverGpuBackendsForConvNeedAGpu) {
  // Tests run without a GPU (CI): boo and cudnn say they need one, and the status fails.
  const RunResult probe = run_command({"driver", "--backend", "reference"}, kSmallConv);
  if (probe.err.find("no usable CUDA GPU") == std::string::npos) {
    GTEST_SKIP() << "this machine has a GPU";
  }
  const RunResult r = run_command({"driver", "--backend", "boo,cudnn"}, kSmallConv);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("--backend boo,cudnn needs a GPU"), std::string::npos) << r.err;
}

constexpr char kSmallLayerNorm[] = "layernormbfp16 -X 4x33 -o 1 -e 1e-05 -m 1";

TEST_F(CliTest, DriverReferenceRunsLayerNormsOnTheCpu) {
  // The CPU reference is a layer norm's only reference, on any machine and at any size its
  // limits allow.
  const std::string num = R"(-?[0-9.]+(e[-+][0-9]+)?)";
  RunResult r =
      run_command({"driver", "--backend", "reference"}, std::string(kSmallLayerNorm) + " -F 1");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(has_line_matching(r.out, R"(>>> y: \(4, 33\) bf16 sum=)" + num + ".*")) << r.out;
  EXPECT_TRUE(has_line_matching(r.out, R"(>>> mean: \(4\) fp32 sum=.*)")) << r.out;
  EXPECT_TRUE(has_line_matching(r.out, R"(>>> rstd: \(4\) fp32 sum=.*)")) << r.out;
  r = run_command({"driver", "--backend", "reference"}, std::string(kSmallLayerNorm) + " -F 14");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(has_line_matching(r.out, R"(>>> dx: \(4, 33\) bf16 sum=.*)")) << r.out;
  EXPECT_TRUE(has_line_matching(r.out, R"(>>> dweight: \(33\) bf16 sum=.*)")) << r.out;
  EXPECT_TRUE(has_line_matching(r.out, R"(>>> dbias: \(33\) bf16 sum=.*)")) << r.out;
}

TEST_F(CliTest, DriverRunsLayerNormsOnTheCpuWithoutAGpu) {
  const RunResult probe = run_command({"driver", "--backend", "reference"}, kSmallConv);
  if (probe.err.find("no usable CUDA GPU") == std::string::npos) {
    GTEST_SKIP() << "this machine has a GPU";
  }
  // No backend named: the CPU reference, as for every family without a GPU.
  RunResult r = run_command({"driver"}, std::string(kSmallLayerNorm) + " -F 1");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find(">>> y: "), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("running the CPU reference instead"), std::string::npos) << r.err;
  // boo's layer norm kernels need a GPU.
  r = run_command({"driver", "--backend", "boo"}, std::string(kSmallLayerNorm) + " -F 1");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("--backend boo needs a GPU"), std::string::npos) << r.err;
}

TEST_F(CliTest, DriverRejectsNegativeHold) {
  const RunResult r = run_command({"driver", "--hold-us", "-5"}, kSmallConv);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--hold-us"), std::string::npos) << r.err;
}

TEST_F(CliTest, DriverRejectsUnknownBackend) {
  const RunResult r = run_command({"driver", "--backend", "boo,magic"}, kSmallGemm);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown backend 'magic'"), std::string::npos) << r.err;
}

TEST_F(CliTest, ParseShowsConvolutionCandidatesAndTheGemmOfA1x1Convolution) {
  const RunResult r = run_command(
      {"parse", "--candidates", "1"},
      "convbfp16 -n 2 -c 64 -H 8 -W 8 -k 128 -y 1 -x 1 -F 1 --in_layout NHWC --out_layout NHWC "
      "--fil_layout NHWC");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("conv.gemm_1x1: A = w, B = x, D = y: gemm_bf16"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("_tn_m128n128k64_"), std::string::npos) << r.out;
  const RunResult k3 = run_command(
      {"parse", "--candidates", "1"},
      "convbfp16 -n 2 -c 64 -H 8 -W 8 -k 128 -y 3 -x 3 -p 1 -q 1 -F 1 --in_layout NHWC");
  EXPECT_NE(k3.out.find("conv.gemm_1x1 does not apply: conv.gemm_1x1: the filter must be 1x1"),
            std::string::npos)
      << k3.out;
  EXPECT_NE(k3.out.find("#1  conv.sm90_implicit_bf16"), std::string::npos) << k3.out;
  // A depthwise convolution: conv.depthwise, then the fallback.
  const RunResult dw = run_command(
      {"parse", "--candidates", "2"},
      "convbfp16 -n 2 -c 64 -H 8 -W 8 -k 64 -y 3 -x 3 -p 1 -q 1 -g 64 -F 1 --in_layout NHWC "
      "--out_layout NHWC --fil_layout NHWC");
  EXPECT_EQ(dw.exit_code, 0) << dw.err;
  EXPECT_NE(dw.out.find("#1  conv.depthwise_bf16_f32acc_fprop_2d_nobias.none"), std::string::npos)
      << dw.out;
  EXPECT_NE(dw.out.find("#2  conv.direct_bf16_f32acc_fprop_2d_nobias.none"), std::string::npos)
      << dw.out;
}

TEST_F(CliTest, DriverRejectsUnknownFlushMode) {
  const RunResult r = run_command({"driver", "--flush", "sideways"}, kSmallGemm);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--flush"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("sideways"), std::string::npos) << r.err;
}

TEST_F(CliTest, PreloadListsPaddedKernelsForMisalignedPointers) {
  // An aligned problem: gemm.sm90 for aligned pointers, gemm.sm90_unaligned with --misalign.
  const char* bf16 =
      "- {function: matmul, M: 256, N: 256, K: 256, lda: 256, ldb: 256, ldc: 256, ldd: 256, "
      "transA: T, transB: N, a_type: bf16_r, b_type: bf16_r}";
  const RunResult aligned = run_command({"preload", "--list"}, bf16);
  EXPECT_EQ(aligned.exit_code, 0) << aligned.err;
  const RunResult mis = run_command({"preload", "--list", "--misalign"}, bf16);
  EXPECT_EQ(mis.exit_code, 0) << mis.err;
  EXPECT_EQ((aligned.out + aligned.err).find("gemm.sm90_unaligned_"), std::string::npos);
  EXPECT_NE((mis.out + mis.err).find("gemm.sm90_unaligned_"), std::string::npos)
      << mis.out << mis.err;
  // A 1x1 convolution is a GEMM (conv.gemm_1x1): its run re-plans the GEMM for views, so
  // --misalign compiles the unaligned GEMMs too.
  const char* pointwise =
      "convbfp16 -n 2 -c 64 -H 8 -W 8 -k 64 -y 1 -x 1 -p 0 -q 0 -u 1 -v 1 -l 1 -j 1 -F 1 "
      "--in_layout NHWC --out_layout NHWC --fil_layout NHWC";
  const RunResult conv_aligned = run_command({"preload", "--list"}, pointwise);
  EXPECT_EQ(conv_aligned.exit_code, 0) << conv_aligned.err;
  EXPECT_EQ((conv_aligned.out + conv_aligned.err).find("gemm.sm90_unaligned_"), std::string::npos);
  const RunResult conv_mis = run_command({"preload", "--list", "--misalign"}, pointwise);
  EXPECT_EQ(conv_mis.exit_code, 0) << conv_mis.err;
  EXPECT_NE((conv_mis.out + conv_mis.err).find("gemm.sm90_unaligned_"), std::string::npos)
      << conv_mis.out << conv_mis.err;
}

TEST_F(CliTest, DriverWritesCsvWithHeaderAndOneRowPerProblem) {
  const std::filesystem::path commands = tmp("csv_commands.txt");
  write_file(commands, std::string(kSmallConv) + "\n" + kSmallGemm + "\n");
  const std::filesystem::path csv = tmp("results.csv");
  const RunResult r = run({"driver", "--backend", "reference", "--csv", csv.string(),
                           "--commands-file", commands.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<std::string> rows = lines_of(read_file(csv));
  ASSERT_EQ(rows.size(), 3u) << read_file(csv);
  EXPECT_EQ(rows[0],
            "command,key,backend,algorithm,config,median_us,min_us,max_us,floor_us,flops,bytes,"
            "rel_error,passed,device,date");
  const std::vector<std::string> conv = csv_fields(rows[1]);
  ASSERT_EQ(conv.size(), 15u) << rows[1];
  EXPECT_EQ(conv[0], kSmallConvCanonical);
  EXPECT_EQ(conv[1], kSmallConvKey);
  EXPECT_EQ(conv[2], "reference");
  // The hipBLASLt command holds commas, so its field is quoted.
  EXPECT_EQ(rows[2].rfind("\"- {function: matmul, ", 0), 0u) << rows[2];
  const std::vector<std::string> gemm = csv_fields(rows[2]);
  ASSERT_EQ(gemm.size(), 15u) << rows[2];
  EXPECT_EQ(gemm[0].rfind("- {function: matmul, M: 8, N: 4, K: 2,", 0), 0u) << gemm[0];
  EXPECT_EQ(gemm[1].rfind("gemm_fp32", 0), 0u) << gemm[1];
  EXPECT_EQ(gemm[2], "reference");
}

TEST_F(CliTest, MissingCommandsFileFailsNamingTheFile) {
  const std::string missing = tmp("no_such_commands.txt").string();
  for (const char* sub : {"parse", "driver"}) {
    const RunResult r = run({sub, "--commands-file", missing});
    EXPECT_NE(r.exit_code, 0) << sub;
    EXPECT_NE(r.err.find(missing), std::string::npos) << sub << ": " << r.err;
  }
}

TEST_F(CliTest, CommandsFileWithCommentBlankLineAndHashFlagCommand) {
  const std::filesystem::path commands = tmp("hash_flag.txt");
  write_file(commands,
             "# a comment line\n"
             "\n"
             "convbfp16 --spatial_dim 3 -n 1 -c 4 -! 4 -H 4 -W 4 -k 4 -@ 1 -y 1 -x 1 -# 2 -F 1\n");
  const RunResult keys = run({"parse", "--keys", "--commands-file", commands.string()});
  ASSERT_EQ(keys.exit_code, 0) << keys.err;
  ASSERT_EQ(lines_of(keys.out).size(), 1u) << keys.out;
  EXPECT_EQ(keys.out.rfind("conv3d_bf16_f32acc_fwd_n1c4d4h4w4_k4z1y1x1_s2x1x1", 0), 0u) << keys.out;

  const RunResult r =
      run({"driver", "--backend", "reference", "--commands-file", commands.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<std::string> lines = lines_of(r.out);
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines[0].rfind("convbfp16 --spatial_dim 3 ", 0), 0u) << lines[0];
  EXPECT_NE(lines[0].find(" -# 2 "), std::string::npos) << lines[0];
  EXPECT_TRUE(has_line_matching(r.out, R"(>>> y: \(1, 4, 2, 4, 4\) NCDHW bf16 .*)")) << r.out;
  EXPECT_NE(r.err.find("1 ran"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace boo::cli

namespace boo::cli {
namespace {

TEST_F(CliTest, DriverFlagsAfterTheCommandWorkAsMIOpenDriverUsersWriteThem) {
  // MIOpenDriver takes its flags after the command: boo's own (--csv F, --backend=B) move in
  // front of it; MIOpenDriver's own (-t, --iter) stay with the command.
  const std::filesystem::path csv = tmp("after.csv");
  const RunResult r = run_command({"driver"}, std::string(kSmallConv) + " --csv " + csv.string() +
                                                  " --backend=reference --iter 3 -t 1");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(lines_of(r.out)[0], kSmallConvCanonical) << r.out;
  EXPECT_NE(r.out.find(">>> min="), std::string::npos) << r.out;  // -t 1: timed
  const std::vector<std::string> rows = lines_of(read_file(csv));
  ASSERT_EQ(rows.size(), 2u) << read_file(csv);
  EXPECT_EQ(csv_fields(rows[1])[2], "reference");
  // A flag neither boo nor MIOpenDriver has is still refused, by name.
  const RunResult bad = run_command({"driver", "--backend", "reference"},
                                    std::string(kSmallConv) + " --no-such-flag");
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.err.find("--no-such-flag"), std::string::npos) << bad.err;
}

// Bad usage found by an audit of the command line: a trailing flag without its value, an unknown
// option, values out of range (named in the user's terms, nan refused), a backend named twice,
// an output file that cannot be written; and a run that
// cannot start (a GPU backend without a GPU) leaves an existing --csv file as it was.
TEST_F(CliTest, BadOptionValuesAreNamedAndLeaveFilesAlone) {
  const std::filesystem::path dir = tmp("bad-usage");
  // Bad usage: exit status 2 and a message that says `text`.
  const auto usage_error = [](const RunResult& r, const std::string& text) {
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find(text), std::string::npos) << r.err;
  };
  std::filesystem::create_directories(dir);
  RunResult r = run_command({"driver"}, std::string(kSmallConv) + " --csv");
  usage_error(r, "--csv: the value is missing");
  EXPECT_FALSE(std::filesystem::exists("convbfp16"));
  r = run_command({"parse", "--bogus"}, kSmallConv);
  usage_error(r, "unknown option '--bogus'");
  r = run_command({"parse", "--candidates", "0"}, kSmallConv);
  usage_error(r, "--candidates: must be > 0, got 0");
  r = run_command({"driver", "--cpu-max-gflop", "nan"}, kSmallConv);
  usage_error(r, "--cpu-max-gflop: expected a number > 0, got 'nan'");
  r = run_command({"driver", "--seed", "-1"}, kSmallConv);
  usage_error(r, "--seed: must be >= 0");
  r = run_command({"driver", "--backend", "reference,reference"}, kSmallConv);
  usage_error(r, "'reference' is named twice");
  r = run_command({"driver", "--csv", ""}, kSmallConv);
  usage_error(r, "--csv: expected a file name");
  r = run_command({"parse", "--candidates", "1"}, kSmallConv);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  r = run_boo({"parse", "--candidates", "1", "conv", "-n", "1", "-c", "8", "-k", "8"}, dir,
              {"BOO_TUNING_SPEC_PATH=" + (dir / "missing.db").string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("dispatch unavailable"), std::string::npos) << r.err;
  r = run_command({"driver", "--csv", (dir / "no" / "x.csv").string()}, kSmallConv);
  usage_error(r, "--csv: cannot write");
  const RunResult probe = run_command({"driver", "--backend", "reference"}, kSmallConv);
  if (probe.err.find("no usable CUDA GPU") == std::string::npos) return;  // a GPU: no more
  const std::filesystem::path kept = dir / "kept.csv";
  write_file(kept, "earlier results\n");
  r = run_command({"driver", "--backend", "boo", "--csv", kept.string()}, kSmallConv);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(read_file(kept), "earlier results\n");
  r = run_command({"numerics", "--csv", kept.string(), "--log", (dir / "log.txt").string()},
                  kSmallConv);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(read_file(kept), "earlier results\n");
  EXPECT_FALSE(std::filesystem::exists(dir / "log.txt"));
}

TEST_F(CliTest, ParseAndPreloadTakeTheirFlagsAfterTheCommandToo) {
  // A hipBLASLt line, one quoted word that starts with '-', then a flag of boo's.
  const RunResult yaml = run({"parse", kSmallGemm, "--keys"});
  ASSERT_EQ(yaml.exit_code, 0) << yaml.err;
  EXPECT_EQ(lines_of(yaml.out).size(), 1u) << yaml.out;
  EXPECT_EQ(yaml.out.rfind("gemm_fp32", 0), 0u) << yaml.out;
  const RunResult keys = run_command({"parse"}, std::string(kSmallConv) + " --candidates 1");
  ASSERT_EQ(keys.exit_code, 0) << keys.err;
  EXPECT_NE(keys.out.find("#1  "), std::string::npos) << keys.out;
  const RunResult listed = run_command({"preload"}, std::string(kSmallConv) + " --list");
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_NE(listed.out.find("to compile"), std::string::npos) << listed.out;
}

}  // namespace
}  // namespace boo::cli
