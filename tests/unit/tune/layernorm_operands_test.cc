// The host side of the layer norm numerics (tune/layernorm_operands.h): where each output sits in
// a backend's output buffer, the §8 tolerance per dtype, the gate without a vendor, and the
// finite-difference gradients the driver checks boo's backward against, here against the
// reference's analytic backward. The GPU side runs on the device (`boo driver -V 1`).
#include "boo/tune/layernorm_operands.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "boo/reference/layernorm_ref.h"
#include "boo/reference/problem_data.h"

namespace boo::tune {
namespace {

using core::DType;
using ops::LayerNormProblem;

LayerNormProblem Problem(std::vector<int64_t> shape, int normalized_dim, DType t, uint8_t parts,
                         bool affine = true) {
  LayerNormProblem p;
  p.shape = std::move(shape);
  p.normalized_dim = normalized_dim;
  p.dtype = t;
  p.parts = parts;
  p.affine = affine;
  return p;
}

std::vector<std::string> Names(const std::vector<LayerNormOutput>& outs) {
  std::vector<std::string> names;
  for (const LayerNormOutput& o : outs) names.push_back(o.name);
  return names;
}

// Every output at a 256-byte aligned offset, after the previous one's end, inside the buffer.
void ExpectPackedAndAligned(const LayerNormProblem& p) {
  const std::vector<LayerNormOutput> outs = layernorm_outputs(p);
  int64_t end = 0;
  for (const LayerNormOutput& o : outs) {
    EXPECT_EQ(o.offset % 256, 0) << o.name;
    EXPECT_GE(o.offset, end) << o.name;
    EXPECT_LT(o.offset - end, 256) << o.name << ": no more padding than the alignment needs";
    end = o.offset + o.elements * core::dtype_bytes(o.dtype);
  }
  EXPECT_GE(layernorm_output_bytes(p), end);
  EXPECT_EQ(layernorm_output_bytes(p) % 256, 0);
}

TEST(LayerNormOutputs, ForwardWritesYMeanRstd) {
  // rows 3, cols 5 x 7 = 35: y is 105 bf16 values (210 bytes), mean and rstd 3 fp32 each.
  const LayerNormProblem p = Problem({3, 5, 7}, 1, DType::kBF16, ops::kLayerNormForward);
  const std::vector<LayerNormOutput> outs = layernorm_outputs(p);
  ASSERT_EQ(Names(outs), (std::vector<std::string>{"y", "mean", "rstd"}));
  EXPECT_EQ(outs[0].dtype, DType::kBF16);
  EXPECT_EQ(outs[0].elements, 105);
  EXPECT_EQ(outs[0].offset, 0);
  EXPECT_EQ(outs[1].dtype, DType::kF32);
  EXPECT_EQ(outs[1].elements, 3);
  EXPECT_EQ(outs[1].offset, 256);
  EXPECT_EQ(outs[2].dtype, DType::kF32);
  EXPECT_EQ(outs[2].elements, 3);
  EXPECT_EQ(outs[2].offset, 512);
  EXPECT_EQ(layernorm_output_bytes(p), 768);
  ExpectPackedAndAligned(p);
}

TEST(LayerNormOutputs, ForwardWithoutWeightHasTheSameOutputs) {
  const LayerNormProblem p = Problem({64, 1000}, 1, DType::kF32, ops::kLayerNormForward, false);
  const std::vector<LayerNormOutput> outs = layernorm_outputs(p);
  ASSERT_EQ(Names(outs), (std::vector<std::string>{"y", "mean", "rstd"}));
  EXPECT_EQ(outs[0].elements, 64000);
  EXPECT_EQ(outs[1].offset, 256000);  // 64000 fp32 values, already a multiple of 256 bytes
  EXPECT_EQ(outs[2].offset, 256256);
  EXPECT_EQ(layernorm_output_bytes(p), 256512);
  ExpectPackedAndAligned(p);
}

TEST(LayerNormOutputs, FullBackwardWritesDxDweightDbias) {
  // -F 14; normalized over the last two dims: rows 2, cols 3 x 33 = 99.
  const LayerNormProblem p = Problem({2, 3, 33}, 1, DType::kF16, 14);
  const std::vector<LayerNormOutput> outs = layernorm_outputs(p);
  ASSERT_EQ(Names(outs), (std::vector<std::string>{"dx", "dweight", "dbias"}));
  EXPECT_EQ(outs[0].elements, 198);  // 396 bytes
  EXPECT_EQ(outs[1].elements, 99);   // 198 bytes
  EXPECT_EQ(outs[2].elements, 99);
  EXPECT_EQ(outs[0].offset, 0);
  EXPECT_EQ(outs[1].offset, 512);
  EXPECT_EQ(outs[2].offset, 768);
  EXPECT_EQ(layernorm_output_bytes(p), 1024);
  for (const LayerNormOutput& o : outs) EXPECT_EQ(o.dtype, DType::kF16) << o.name;
  ExpectPackedAndAligned(p);
}

TEST(LayerNormOutputs, BackwardWritesOnlyTheAskedParts) {
  const LayerNormProblem dx = Problem({4, 10}, 1, DType::kBF16, ops::kLayerNormDx);
  EXPECT_EQ(Names(layernorm_outputs(dx)), (std::vector<std::string>{"dx"}));
  EXPECT_EQ(layernorm_output_bytes(dx), 256);
  ExpectPackedAndAligned(dx);

  const LayerNormProblem dx_dw = Problem({4, 100}, 1, DType::kBF16, 6);  // -F 6
  const std::vector<LayerNormOutput> outs = layernorm_outputs(dx_dw);
  ASSERT_EQ(Names(outs), (std::vector<std::string>{"dx", "dweight"}));
  EXPECT_EQ(outs[1].offset, 1024);  // 400 bf16 values: 800 bytes
  EXPECT_EQ(outs[1].elements, 100);
  ExpectPackedAndAligned(dx_dw);

  const LayerNormProblem db = Problem({4, 100}, 1, DType::kF32, ops::kLayerNormDbias);
  EXPECT_EQ(Names(layernorm_outputs(db)), (std::vector<std::string>{"dbias"}));
  EXPECT_EQ(layernorm_outputs(db)[0].offset, 0);

  // Without weight and bias only dx can be asked for (-m 0 -F 2).
  const LayerNormProblem plain = Problem({7, 3}, 1, DType::kF32, ops::kLayerNormDx, false);
  ASSERT_TRUE(plain.validate().is_ok());
  EXPECT_EQ(Names(layernorm_outputs(plain)), (std::vector<std::string>{"dx"}));
  EXPECT_EQ(layernorm_output_bytes(plain), 256);
}

TEST(LayerNormTolerance, PerDtype) {
  EXPECT_DOUBLE_EQ(layernorm_tolerance(Problem({4, 8}, 1, DType::kBF16, 1)), 1e-2);
  EXPECT_DOUBLE_EQ(layernorm_tolerance(Problem({4, 8}, 1, DType::kF16, 1)), 5e-3);
  EXPECT_DOUBLE_EQ(layernorm_tolerance(Problem({4, 8}, 1, DType::kF32, 1)), 1e-5);
  // The direction does not change it.
  EXPECT_DOUBLE_EQ(layernorm_tolerance(Problem({4, 8}, 1, DType::kF16, 14)), 5e-3);
}

TEST(JudgeLayerNorm, ToleranceAloneWithoutVendor) {
  reference::ErrorStats e;
  e.rel_fro = 4e-3;
  e.count = 10;
  Numerics n = judge_layernorm(Problem({4, 8}, 1, DType::kBF16, 1), e, "cpu fp64");
  EXPECT_TRUE(n.passed) << n.verdict;
  EXPECT_FALSE(n.vendor.has_value());
  EXPECT_EQ(n.reference, "cpu fp64");
  e.rel_fro = 6e-3;  // within bf16's 1e-2, above fp16's 5e-3
  EXPECT_TRUE(judge_layernorm(Problem({4, 8}, 1, DType::kBF16, 1), e, "cpu fp64").passed);
  n = judge_layernorm(Problem({4, 8}, 1, DType::kF16, 1), e, "cpu fp64");
  EXPECT_FALSE(n.passed);
  EXPECT_EQ(n.verdict, "error 0.006 above the tolerance 0.005");
  e.rel_fro = INFINITY;
  e.nonfinite = 3;
  n = judge_layernorm(Problem({4, 8}, 1, DType::kBF16, 1), e, "cpu fp64");
  EXPECT_FALSE(n.passed);
  EXPECT_EQ(n.verdict, "3 NaN/Inf or unwritten outputs");
}

// Finite differences against the reference's analytic backward on the same inputs.
void ExpectFdMatchesBackward(const std::vector<int64_t>& shape, int normalized_dim, bool affine,
                             uint8_t parts, DType t = DType::kF32) {
  const LayerNormProblem p = Problem(shape, normalized_dim, t, parts, affine);
  ASSERT_TRUE(p.validate().is_ok());
  auto data = reference::make_inputs(ops::Problem{p}, 7);
  ASSERT_TRUE(data.has_value()) << data.status().message();
  auto fd = layernorm_fd_gradients(p, *data);
  ASSERT_TRUE(fd.has_value()) << fd.status().message();

  ASSERT_TRUE(reference::run_reference(ops::Problem{p}, *data).is_ok());
  const std::string what = p.key();
  auto check = [&](const char* name, const std::vector<double>& got, bool asked) {
    const reference::HostTensor* ref = data->output(name);
    if (!asked) {
      EXPECT_TRUE(got.empty()) << what << " " << name;
      EXPECT_EQ(ref, nullptr) << what << " " << name;
      return;
    }
    ASSERT_NE(ref, nullptr) << what << " " << name;
    ASSERT_EQ(got.size(), ref->data.size()) << what << " " << name;
    const reference::ErrorStats e = reference::compare(got, ref->data);
    EXPECT_LT(e.rel_fro, 1e-6) << what << " " << name;
    EXPECT_LT(e.max_abs, 1e-6) << what << " " << name;
  };
  check("dx", fd->dx, parts & ops::kLayerNormDx);
  check("dweight", fd->dweight, parts & ops::kLayerNormDweight);
  check("dbias", fd->dbias, parts & ops::kLayerNormDbias);
}

TEST(LayerNormFdGradients, MatchTheAnalyticBackward) {
  for (int64_t cols : {1, 2, 5, 33}) {
    ExpectFdMatchesBackward({3, cols}, 1, true, 14);
    ExpectFdMatchesBackward({3, cols}, 1, false, ops::kLayerNormDx);
  }
  // Several normalized dims, bf16 inputs (values rounded to bf16; the math is fp64 either way).
  ExpectFdMatchesBackward({2, 3, 4, 5}, 2, true, 14, DType::kBF16);
  ExpectFdMatchesBackward({4, 17}, 1, true, 6, DType::kF16);
  ExpectFdMatchesBackward({4, 17}, 1, true, ops::kLayerNormDweight);
  ExpectFdMatchesBackward({4, 17}, 1, true, ops::kLayerNormDbias);
}

TEST(LayerNormFdGradients, LargeEpsAndTheRelativeCheckHold) {
  // A large eps weighs in rstd: differences of the forward follow it as the analytic form does.
  LayerNormProblem p = Problem({5, 9}, 1, DType::kF32, 14);
  p.eps = 0.5;
  auto data = reference::make_inputs(ops::Problem{p}, 3);
  ASSERT_TRUE(data.has_value());
  auto fd = layernorm_fd_gradients(p, *data);
  ASSERT_TRUE(fd.has_value());
  ASSERT_TRUE(reference::run_reference(ops::Problem{p}, *data).is_ok());
  EXPECT_LT(reference::compare(fd->dx, data->output("dx")->data).rel_fro, 1e-8);
  EXPECT_LT(reference::compare(fd->dweight, data->output("dweight")->data).rel_fro, 1e-8);
}

TEST(LayerNormFdGradients, ForwardProblemsAreRefused) {
  const LayerNormProblem p = Problem({3, 8}, 1, DType::kF32, ops::kLayerNormForward);
  auto data = reference::make_inputs(ops::Problem{p}, 1);
  ASSERT_TRUE(data.has_value());
  auto fd = layernorm_fd_gradients(p, *data);
  ASSERT_FALSE(fd.has_value());
  EXPECT_EQ(fd.status().code(), core::StatusCode::kUnsupported);
}

}  // namespace
}  // namespace boo::tune
