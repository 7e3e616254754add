#include <gtest/gtest.h>

#include "boo/parse/command_file.h"
#include "boo/parse/registry.h"

namespace boo::parse {
namespace {

using ops::LayerNormProblem;

LayerNormProblem ln(const std::string& line) {
  auto r = make_default_registry().parse(line);
  EXPECT_TRUE(r.has_value()) << line << ": " << r.status().to_string();
  return r.has_value() ? std::get<LayerNormProblem>(r->problems.at(0)) : LayerNormProblem{};
}

TEST(MiopenLayerNorm, Fields) {
  const LayerNormProblem p = ln("layernormbfp16 -X 8192x4096 -o 1 -e 1e-5 -m 1 -F 14 -t 1");
  EXPECT_EQ(p.dtype, core::DType::kBF16);
  EXPECT_EQ(p.shape, (std::vector<int64_t>{8192, 4096}));
  EXPECT_EQ(p.rows(), 8192);
  EXPECT_EQ(p.cols(), 4096);
  EXPECT_TRUE(p.affine);
  EXPECT_EQ(p.parts, ops::kLayerNormDx | ops::kLayerNormDweight | ops::kLayerNormDbias);
  EXPECT_EQ(p.key(), "layernorm_bf16_f32acc_x8192x4096_norm1_eps1e-05_affine_bwd.dx.dweight.dbias");
  EXPECT_EQ(p.to_command(), "layernormbfp16 -X 8192x4096 -o 1 -e 1e-05 -m 1 -F 14");
}

TEST(MiopenLayerNorm, MiopenDefaultsAndLongFlags) {
  const LayerNormProblem d = ln("layernorm");  // MIOpen: -X 100x3x32x32 -o 3 -e 1e-5 -m 0 -F 1
  EXPECT_EQ(d.shape, (std::vector<int64_t>{100, 3, 32, 32}));
  EXPECT_EQ(d.rows(), 9600);
  EXPECT_FALSE(d.affine);
  EXPECT_TRUE(d.forward());
  const LayerNormProblem l =
      ln("layernormfp16 --input 10x32x42x32 --normalized_dim 2 --eps 0.001 --mode 1 --forw 8");
  EXPECT_EQ(l.cols(), 42 * 32);
  EXPECT_EQ(l.parts, ops::kLayerNormDbias);
}

TEST(CommandFile, CommentsBlanksAndMiopenHashFlag) {
  auto f = read_command_text("x.txt",
                             "# comment\n\n   # indented comment\r\n"
                             "conv --spatial_dim 3 -# 2 -n 1\n"
                             "layernorm -X 2x3\n");
  ASSERT_TRUE(f.has_value());
  ASSERT_EQ(f->entries.size(), 2u);
  EXPECT_EQ(f->entries[0].source, "x.txt:4");
  EXPECT_EQ(f->entries[0].text, "conv --spatial_dim 3 -# 2 -n 1");
}

TEST(CommandFile, SkipsNonMatmulCublasLtLines) {
  auto f = read_command_text(
      "lt.log",
      "[2023-04-07 04:57:13][cublasLt][1][Api][cublasLtCreate] handle=0x0\n"
      "[2023-04-07 04:57:13][cublasLt][1][Trace][cublasLtMatmul] A=0 Adesc=[type=R_16F rows=2 "
      "cols=2 ld=2]\n");
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->entries.size(), 1u);
  ASSERT_EQ(f->notes.size(), 1u);
  EXPECT_NE(f->notes[0].find("skipped 1"), std::string::npos);
}

TEST(CommandFile, TsvWithHeaderAndWeights) {
  auto f = read_command_text("w.tsv",
                             "count\tcommand\n"
                             "3\tconv -n 1 -F 1\n"
                             "\tlayernorm -X 4x4\n");
  ASSERT_TRUE(f.has_value()) << f.status().to_string();
  ASSERT_EQ(f->entries.size(), 2u);
  EXPECT_EQ(f->entries[0].text, "conv -n 1 -F 1");
  EXPECT_EQ(f->entries[0].weight, 3);
  EXPECT_EQ(f->entries[1].weight, 1);
}

TEST(CommandFile, TsvWithoutHeader) {
  auto f = read_command_text("w.tsv", "conv -n 1 -F 1\t5\n");
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->entries.at(0).weight, 5);
  auto bad = read_command_text("w.tsv", "conv -n 1 -F 1\tfive\n");
  ASSERT_FALSE(bad.has_value());
  EXPECT_NE(bad.status().message().find("w.tsv:1"), std::string::npos);
  EXPECT_NE(bad.status().message().find("five"), std::string::npos);
}

TEST(CommandFile, MissingFileNamesThePath) {
  auto f = read_command_file("/nonexistent/boo/commands.txt");
  ASSERT_FALSE(f.has_value());
  EXPECT_NE(f.status().message().find("/nonexistent/boo/commands.txt"), std::string::npos);
}

TEST(CommandFile, ByteOrderMarkFolderAndHeaderWithoutCommand) {
  // A UTF-8 byte order mark before the first command, in text and TSV files.
  auto bom = read_command_text("b.txt",
                               "\xEF\xBB\xBF"
                               "conv -n 1 -F 1\n");
  ASSERT_TRUE(bom.has_value()) << bom.status().to_string();
  EXPECT_EQ(bom->entries.at(0).text, "conv -n 1 -F 1");
  auto bom_tsv = read_command_text("b.tsv",
                                   "\xEF\xBB\xBF"
                                   "count\tcommand\n2\tconv -n 1\n");
  ASSERT_TRUE(bom_tsv.has_value()) << bom_tsv.status().to_string();
  EXPECT_EQ(bom_tsv->entries.at(0).weight, 2);
  // A folder is not an empty file.
  auto folder = read_command_file(testing::TempDir());
  ASSERT_FALSE(folder.has_value());
  EXPECT_NE(folder.status().message().find("is a folder"), std::string::npos);
  // A header row that names a weight column but no command column.
  auto header = read_command_text("h.tsv", "count\tfoo\n1\tconv -n 1\n");
  ASSERT_FALSE(header.has_value());
  EXPECT_NE(header.status().message().find("h.tsv:1: a header row"), std::string::npos)
      << header.status().message();
  EXPECT_NE(header.status().message().find("'command'"), std::string::npos);
}

TEST(Registry, ExactOpNamesOnly) {
  const Registry r = make_default_registry();
  EXPECT_FALSE(r.parse("convbfp16x -n 1").has_value());   // not a prefix match
  EXPECT_FALSE(r.parse("myconvbfp16 -n 1").has_value());  // not a substring match
  EXPECT_TRUE(r.parse("convbfp16 -n 1 -F 1").has_value());
  Registry custom;
  EXPECT_TRUE(custom
                  .add_op("x",
                          [](std::string_view, std::span<const std::string>) {
                            return core::Expected<ParsedCommand>(ParsedCommand{});
                          })
                  .is_ok());
  EXPECT_FALSE(custom.add_op("x", nullptr).is_ok());  // registered twice
}

}  // namespace
}  // namespace boo::parse
