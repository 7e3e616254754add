// hipBLASLt log lines, cuBLASLt trace lines and MIOpen gemm flags.
#include <gtest/gtest.h>

#include "boo/parse/cublaslt_log.h"
#include "boo/parse/hipblaslt_log.h"
#include "boo/parse/registry.h"
#include "boo/reference/problem_data.h"

namespace boo::parse {
namespace {

using ops::GemmProblem;
using ops::Transpose;

GemmProblem gemm_of(const std::string& line, std::vector<std::string>* notes = nullptr) {
  auto r = make_default_registry().parse(line);
  EXPECT_TRUE(r.has_value()) << line << "\n" << r.status().to_string();
  if (!r.has_value()) return {};
  if (notes) *notes = r->notes;
  EXPECT_EQ(r->problems.size(), 1u);
  return std::get<GemmProblem>(r->problems.at(0));
}

void expect_round_trip(const GemmProblem& g) {
  auto again = make_default_registry().parse(g.to_command());
  ASSERT_TRUE(again.has_value()) << g.to_command() << ": " << again.status().to_string();
  EXPECT_EQ(std::get<GemmProblem>(again->problems.at(0)), g) << g.to_command();
}

constexpr char kSeedLine[] =
    "- {function: matmul, M: 16032, N: 109, K: 16384, lda: 16384, ldb: 16384, ldc: 16032, ldd: "
    "16032, stride_a: 0, stride_b: 0, stride_c: 0, stride_d: 0, alpha: 1.0, beta: 0.0, transA: T, "
    "transB: N, batch_count: 1, scaleA: 0, scaleB: 0, scaleAlpha_vector: false, gradient: false, "
    "use_e: false, bias_vector: false, bias_source: d, a_type: bf16_r, b_type: bf16_r, c_type: "
    "bf16_r, d_type: bf16_r, scale_type: f32_r, bias_type: f32_r, compute_type: c_f32_r, "
    "activation_type: none, flush: false, rotating: 512, cold_iters: 0, iters: 0, call_count: 1}";

TEST(HipblasltLog, SeedLine) {
  const GemmProblem g = gemm_of(kSeedLine);
  EXPECT_EQ(g.m, 16032);
  EXPECT_EQ(g.n, 109);
  EXPECT_EQ(g.k, 16384);
  EXPECT_EQ(g.trans_a, Transpose::kT);
  EXPECT_EQ(g.trans_b, Transpose::kN);
  EXPECT_EQ(g.a_type, core::DType::kBF16);
  EXPECT_EQ(g.call_count, 1);
  EXPECT_DOUBLE_EQ(g.flops(), 2.0 * 16032 * 109 * 16384);
  EXPECT_EQ(g.key(),
            "gemm_bf16.bf16.bf16.bf16_f32acc_tn_m16032n109k16384_b1_ld16384.16384.16032.16032_"
            "st0.0.0.0_alpha1_beta0_scalenone.none_nobias.none");
  expect_round_trip(g);
}

TEST(HipblasltLog, NewerFieldsBiasGeluFp8AndDefaults) {
  std::vector<std::string> notes;
  const GemmProblem g = gemm_of(
      "- {function: matmul, M: 768, N: 3072, K: 2048, alpha: 1.000000, beta: 0.000000, transA: T, "
      "transB: N, batch_count: 1, scaleA: 1, scaleB: 1, scaleC: 0, scaleD: 0, swizzleA: false, "
      "swizzleB: false, bias_vector: true, a_type: f8_r, b_type: bf8_r, d_type: bf16_r, "
      "bias_type: bf16_r, activation_type: gelu, any_stride: true, print_kernel_info: true}",
      &notes);
  EXPECT_EQ(g.a_type, core::DType::kF8E4M3);
  EXPECT_EQ(g.b_type, core::DType::kF8E5M2);
  EXPECT_EQ(g.c_type, core::DType::kBF16);  // C defaults to D's type
  EXPECT_EQ(g.lda, 2048);                   // packed defaults: rows of the stored A (T: K)
  EXPECT_EQ(g.ldd, 768);
  EXPECT_EQ(g.scale_a, ops::ScaleMode::kScalar);
  EXPECT_TRUE(g.bias);
  EXPECT_EQ(g.activation, ops::Activation::kGeluTanh);  // hipBLASLt's gelu is the tanh form
  ASSERT_EQ(notes.size(), 1u);                          // the f8_r = OCP e4m3 note
  expect_round_trip(g);
}

TEST(HipblasltLog, BatchedWithoutStridesIsPacked) {
  const GemmProblem g = gemm_of(
      "- {function: matmul, M: 64, N: 32, K: 16, transA: N, transB: N, batch_count: 3, "
      "a_type: f16_r, b_type: f16_r}");
  EXPECT_EQ(g.stride_a, 64 * 16);
  EXPECT_EQ(g.stride_b, 16 * 32);
  EXPECT_EQ(g.stride_d, 64 * 32);
  expect_round_trip(g);
}

TEST(HipblasltLog, FlowMappingHandlesQuotesAndSpacing) {
  auto m = parse_flow_mapping("  -   {a: 1,b: 'x, y', c : \"z\"}  ");
  ASSERT_TRUE(m.has_value()) << m.status().to_string();
  EXPECT_EQ(m->values.at("b"), "x, y");
  EXPECT_EQ(m->values.at("c"), "z");
  EXPECT_EQ(m->order, (std::vector<std::string>{"a", "b", "c"}));
}

// Verbatim cuBLASLt trace lines (CUBLASLT_LOG_LEVEL=2) as published in issues.
constexpr char kCublasFp16[] =
    "[2023-04-07 04:57:13][cublasLt][8291][Trace][cublasLtMatmul] A=0X7F8EB6002300 "
    "Adesc=[type=R_16F rows=32 cols=16 ld=32] B=0X7F8EB6001B00 Bdesc=[type=R_16F rows=16 cols=64 "
    "ld=16] C=0X7F8EB6003200 Cdesc=[type=R_16F rows=32 cols=64 ld=32] D=0X7F8EB6003200 "
    "Ddesc=[type=R_16F rows=32 cols=64 ld=32] computeDesc=[computeType=COMPUTE_32F "
    "scaleType=R_32F] algo=[algoId=21 tile=MATMUL_TILE_32x32 stages=MATMUL_STAGES_64x1] "
    "workSpace=0X0 workSpaceSizeInBytes=0 beta=? outOfPlace=0 stream=0X7EB04D0";
constexpr char kCublasFp8Bias[] =
    "[2023-04-07 04:55:51][cublasLt][7861][Trace][cublasLtMatmul] A=0X7F969A002A00 "
    "Adesc=[type=R_8F_E4M3 rows=32 cols=16 ld=16 order=ORDER_ROW] B=0X7F969A002C00 "
    "Bdesc=[type=R_8F_E4M3 rows=16 cols=32 ld=16] C=0X0 Cdesc=[type=R_16F rows=32 cols=32 ld=32] "
    "D=0X7F969A001800 Ddesc=[type=R_16F rows=32 cols=32 ld=32] "
    "computeDesc=[computeType=COMPUTE_32F "
    "scaleType=R_32F epilogue=EPILOGUE_BIAS biasPointer=0x7f969a002e00 "
    "aScalePointer=0x7f969a002f00 "
    "bScalePointer=0x7f969a002f80 cScalePointer=0x7fadde800500 dScalePointer=0x7fadde800500] "
    "algo=[algoId=39 tile=MATMUL_TILE_256x64 stages=MATMUL_STAGES_128xAUTO] "
    "workSpace=0X7F969A003300 workSpaceSizeInBytes=131 beta=0 outOfPlace=1 stream=0X84A9450";

TEST(CublasltLog, PlainFp16) {
  std::vector<std::string> notes;
  const GemmProblem g = gemm_of(kCublasFp16, &notes);
  EXPECT_EQ(g.m, 32);
  EXPECT_EQ(g.n, 64);
  EXPECT_EQ(g.k, 16);
  EXPECT_EQ(g.trans_a, Transpose::kN);
  EXPECT_EQ(g.a_type, core::DType::kF16);
  EXPECT_EQ(g.beta, 0.0);
  EXPECT_EQ(notes.size(), 2u);  // alpha not logged; beta=? assumed 0
  expect_round_trip(g);
}

TEST(CublasltLog, Fp8RowMajorABiasAndScales) {
  const GemmProblem g = gemm_of(kCublasFp8Bias);
  // A is 32x16 row-major = column-major 16x32 read transposed: op(A) is M x K = 32 x 16.
  EXPECT_EQ(g.trans_a, Transpose::kT);
  EXPECT_EQ(g.m, 32);
  EXPECT_EQ(g.k, 16);
  EXPECT_EQ(g.n, 32);
  EXPECT_EQ(g.lda, 16);
  EXPECT_TRUE(g.bias);
  EXPECT_EQ(g.scale_a, ops::ScaleMode::kScalar);
  EXPECT_EQ(g.scale_b, ops::ScaleMode::kScalar);
  EXPECT_EQ(g.d_type, core::DType::kF16);
  expect_round_trip(g);
}

TEST(CublasltLog, OtherApiLinesAreRecognizedButNotMatmul) {
  const std::string heuristic =
      "[2023-04-07 04:57:13][cublasLt][8291][Api][cublasLtMatmulAlgoGetHeuristic] Adesc=[...]";
  EXPECT_TRUE(is_cublaslt_line(heuristic));
  EXPECT_FALSE(is_cublaslt_matmul_line(heuristic));
  EXPECT_TRUE(is_cublaslt_matmul_line(kCublasFp16));
}

// MIOpen gemm is row-major by default: C (m x n) = op(A) (m x k) op(B) (k x n). Check the
// column-major problem it becomes against a row-major product computed here.
TEST(MiopenGemm, RowMajorBecomesSwappedColumnMajor) {
  for (int ta = 0; ta < 2; ++ta) {
    for (int tb = 0; tb < 2; ++tb) {
      const std::string cmd = "gemm -m 5 -k 3 -n 4 -u " + std::to_string(ta) + " -v " +
                              std::to_string(tb) + " -A 1.5 -B 0";
      const GemmProblem g = gemm_of(cmd);
      auto data = reference::make_inputs(ops::Problem{g}, 7);
      ASSERT_TRUE(data.has_value());
      ASSERT_TRUE(reference::run_reference(ops::Problem{g}, *data).is_ok());
      // Buffers as MIOpen sees them: A' is the problem's B and B' is the problem's A.
      const std::vector<double>& a_rm = data->input("B")->data;   // row-major A (or A^T)
      const std::vector<double>& b_rm = data->input("A")->data;   // row-major B (or B^T)
      const std::vector<double>& c_cm = data->output("D")->data;  // n x m col-major = C row-major
      for (int i = 0; i < 5; ++i) {
        for (int j = 0; j < 4; ++j) {
          double acc = 0.0;
          for (int p = 0; p < 3; ++p) {
            const double a = ta ? a_rm[p * 5 + i] : a_rm[i * 3 + p];
            const double b = tb ? b_rm[j * 3 + p] : b_rm[p * 4 + j];
            acc += a * b;
          }
          EXPECT_NEAR(c_cm[i * 4 + j], 1.5 * acc, 1e-12) << cmd << " at " << i << "," << j;
        }
      }
      expect_round_trip(g);
    }
  }
}

TEST(MiopenGemm, ColumnMajorBatched) {
  const GemmProblem g = gemm_of("gemmfp16 -m 8 -k 4 -n 6 -C 1 -u 1 -b 3");
  EXPECT_EQ(g.m, 8);
  EXPECT_EQ(g.trans_a, Transpose::kT);
  EXPECT_EQ(g.lda, 4);
  EXPECT_EQ(g.batch, 3);
  EXPECT_EQ(g.stride_d, 48);
  EXPECT_EQ(g.a_type, core::DType::kF16);
}

}  // namespace
}  // namespace boo::parse
