// The words boo uses for cuBLASLt's chosen algorithm: enum names generated from the toolkit's
// cublasLt.h at configure time (cmake/cublaslt_names.cmake), and the description built of them.
#include "boo/reference/cublaslt_algo_text.h"

#include <cublasLt.h>
#include <gtest/gtest.h>

#include <string>
#include <utility>

namespace boo::reference {
namespace {

// The names come from the toolkit's own header: each enum constant maps to its spelling.
TEST(CublasLtAlgoTextTest, NamesTheHeadersEnumValues) {
  EXPECT_EQ(cublaslt_enum_name("MATMUL_TILE", CUBLASLT_MATMUL_TILE_128x128), "128x128");
  EXPECT_EQ(cublaslt_enum_name("MATMUL_TILE", CUBLASLT_MATMUL_TILE_64x256), "64x256");
  EXPECT_EQ(cublaslt_enum_name("MATMUL_TILE", CUBLASLT_MATMUL_TILE_UNDEFINED), "UNDEFINED");
  EXPECT_EQ(cublaslt_enum_name("MATMUL_STAGES", CUBLASLT_MATMUL_STAGES_64x4), "64x4");
  EXPECT_EQ(cublaslt_enum_name("MATMUL_STAGES", CUBLASLT_MATMUL_STAGES_64xAUTO), "64xAUTO");
  EXPECT_EQ(cublaslt_enum_name("CLUSTER_SHAPE", CUBLASLT_CLUSTER_SHAPE_2x1x1), "2x1x1");
  EXPECT_EQ(cublaslt_enum_name("CLUSTER_SHAPE", CUBLASLT_CLUSTER_SHAPE_AUTO), "AUTO");
}

// The table is whole: each enum's last value before its _END has a name.
TEST(CublasLtAlgoTextTest, NamesEachEnumsLastValue) {
  for (const auto& [kind, last] :
       {std::pair<std::string, uint32_t>{"MATMUL_TILE", CUBLASLT_MATMUL_TILE_END - 1},
        {"MATMUL_STAGES", CUBLASLT_MATMUL_STAGES_END - 1},
        {"CLUSTER_SHAPE", CUBLASLT_CLUSTER_SHAPE_END - 1}}) {
    EXPECT_NE(cublaslt_enum_name(kind, last).front(), '#') << kind << " " << last;
  }
}

TEST(CublasLtAlgoTextTest, UnknownValuesAndKindsShowTheNumber) {
  EXPECT_EQ(cublaslt_enum_name("MATMUL_TILE", 100000), "#100000");
  EXPECT_EQ(cublaslt_enum_name("NO_SUCH_ENUM", CUBLASLT_MATMUL_TILE_128x128),
            "#" + std::to_string(CUBLASLT_MATMUL_TILE_128x128));
}

TEST(CublasLtAlgoTextTest, DescribesTheConfigAndOnlyNonDefaultSplitAndSwizzle) {
  CublasLtAlgoConfig c;
  c.id = 66;
  c.tile = CUBLASLT_MATMUL_TILE_128x128;
  c.stages = CUBLASLT_MATMUL_STAGES_64x4;
  c.cluster = CUBLASLT_CLUSTER_SHAPE_2x1x1;
  EXPECT_EQ(cublaslt_algo_text(c), "algo 66, tile 128x128, stages 64x4, cluster 2x1x1");
  c.split_k = 4;
  c.reduction = CUBLASLT_REDUCTION_SCHEME_OUTPUT_TYPE;
  c.swizzle = 1;
  EXPECT_EQ(cublaslt_algo_text(c),
            "algo 66, tile 128x128, stages 64x4, cluster 2x1x1, split-K 4 (reduced in an "
            "output-type workspace), swizzle 1");
  c.reduction = 0x40;
  EXPECT_EQ(cublaslt_algo_text(c),
            "algo 66, tile 128x128, stages 64x4, cluster 2x1x1, split-K 4 (reduced by scheme "
            "64), swizzle 1");
}

}  // namespace
}  // namespace boo::reference
