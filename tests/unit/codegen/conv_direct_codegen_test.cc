// The source generators of conv.direct and conv.depthwise: names, the runner instantiation per
// class, and the classes they refuse (kernels/conv_direct.cuh is compiled for real in
// tests/unit/jit/, kernels/conv_depthwise.cuh by CTest compile_check_conv_sm90).
#include <gtest/gtest.h>

#include "boo/codegen/conv_codegen.h"
#include "boo/codegen/embedded.h"

namespace boo::codegen {
namespace {

bool contains(const std::string& text, const std::string& what) {
  return text.find(what) != std::string::npos;
}

space::ConvClass make_class(core::DType t, ops::ConvDirection d, int dims, bool bias,
                            ops::Activation act) {
  space::ConvClass c;
  c.dtype = t;
  c.direction = d;
  c.spatial_dims = dims;
  c.bias = bias;
  c.activation = act;
  return c;
}

TEST(ConvDirectCodegen, EmbedsItsKernels) {
  EXPECT_TRUE(embedded_file("conv_direct.cuh").has_value());
  EXPECT_TRUE(embedded_file("conv_relayout.cuh").has_value());
}

TEST(ConvDirectCodegen, ForwardWithBiasAndActivation) {
  const space::ConvClass c =
      make_class(core::DType::kBF16, ops::ConvDirection::kForward, 2, true, ops::Activation::kRelu);
  auto src = conv_direct_source(c);
  ASSERT_TRUE(src.has_value()) << src.status().message();
  EXPECT_EQ(src->name, "conv.direct_bf16_f32acc_fprop_2d_bias.relu");
  const std::string& t = src->text;
  EXPECT_TRUE(contains(t, "boo_kernels::ConvDirectRunner<__nv_bfloat16, 0, true, 1>"));
  EXPECT_TRUE(contains(t, "BOO_CONV_ENTRY_POINTS(Runner, \"" + src->name + "\")"));
  EXPECT_TRUE(contains(t, "typedef struct BooConvArgs"));  // the ABI is inlined
  EXPECT_TRUE(contains(t, "struct ConvDirectRunner"));     // and so is the kernel
  EXPECT_TRUE(contains(t, "#define BOO_CONV_ENTRY_POINTS"));
  EXPECT_FALSE(contains(t, "#include \"conv_direct.cuh\""));
  EXPECT_FALSE(contains(t, "cutlass"));  // plain CUDA: compiles in seconds
}

TEST(ConvDirectCodegen, EveryDirectionAndType) {
  struct Case {
    space::ConvClass cls;
    std::string name;
    std::string runner;
  };
  const Case cases[] = {
      {make_class(core::DType::kF16, ops::ConvDirection::kBackwardData, 3, false,
                  ops::Activation::kNone),
       "conv.direct_fp16_f32acc_dgrad_3d_nobias.none",
       "boo_kernels::ConvDirectRunner<__half, 1, false, 0>"},
      {make_class(core::DType::kF32, ops::ConvDirection::kBackwardWeight, 1, false,
                  ops::Activation::kNone),
       "conv.direct_fp32_f32acc_wgrad_1d_nobias.none",
       "boo_kernels::ConvDirectRunner<float, 2, false, 0>"},
      {make_class(core::DType::kF32, ops::ConvDirection::kForward, 2, false,
                  ops::Activation::kGeluTanh),
       "conv.direct_fp32_f32acc_fprop_2d_nobias.gelu-tanh",
       "boo_kernels::ConvDirectRunner<float, 0, false, 3>"},
  };
  for (const Case& c : cases) {
    auto src = conv_direct_source(c.cls);
    ASSERT_TRUE(src.has_value()) << c.name << ": " << src.status().message();
    EXPECT_EQ(src->name, c.name);
    EXPECT_TRUE(contains(src->text, c.runner)) << c.name;
    // The name reads back as the class it was generated for.
    auto back = space::ConvClass::parse_name(src->name.substr(kConvDirectPrefix.size()));
    ASSERT_TRUE(back.has_value()) << back.status().message();
    EXPECT_EQ(*back, c.cls);
  }
}

TEST(ConvDirectCodegen, MathModeDoesNotChangeTheKernel) {
  space::ConvClass c =
      make_class(core::DType::kF32, ops::ConvDirection::kForward, 2, false, ops::Activation::kNone);
  auto exact = conv_direct_source(c);
  c.math = core::MathMode::kTF32;
  auto tf32 = conv_direct_source(c);
  ASSERT_TRUE(exact.has_value() && tf32.has_value());
  EXPECT_EQ(tf32->name, "conv.direct_fp32_tf32_fprop_2d_nobias.none");
  EXPECT_TRUE(contains(tf32->text, "boo_kernels::ConvDirectRunner<float, 0, false, 0>"));
}

TEST(ConvDirectCodegen, RejectsIncoherentClasses) {
  auto bias_dgrad = conv_direct_source(make_class(
      core::DType::kBF16, ops::ConvDirection::kBackwardData, 2, true, ops::Activation::kNone));
  ASSERT_FALSE(bias_dgrad.has_value());
  EXPECT_TRUE(contains(bias_dgrad.status().message(), "forward"));
  auto fp8 = conv_direct_source(make_class(core::DType::kF8E4M3, ops::ConvDirection::kForward, 2,
                                           false, ops::Activation::kNone));
  ASSERT_FALSE(fp8.has_value());
  EXPECT_TRUE(contains(fp8.status().message(), "fp8"));
}

TEST(ConvDepthwiseCodegen, ForwardBehindTheChannelsLastCopies) {
  EXPECT_TRUE(embedded_file("conv_depthwise.cuh").has_value());
  const space::ConvClass c =
      make_class(core::DType::kF16, ops::ConvDirection::kForward, 3, true, ops::Activation::kSilu);
  auto src = conv_depthwise_source(c);
  ASSERT_TRUE(src.has_value()) << src.status().message();
  EXPECT_EQ(src->name, "conv.depthwise_fp16_f32acc_fprop_3d_bias.silu");
  EXPECT_TRUE(contains(src->text,
                       "boo_kernels::ConvChannelsLastRunner<boo_kernels::ConvDepthwiseRunner<"
                       "__half, true, " +
                           std::to_string(static_cast<int>(ops::Activation::kSilu)) +
                           ">, __half>"));
  EXPECT_TRUE(contains(src->text, "struct ConvDepthwiseRunner"));
  EXPECT_TRUE(contains(src->text, "struct ConvChannelsLastRunner"));
  EXPECT_FALSE(contains(src->text, "#include \"conv_depthwise.cuh\""));
  // Backward data: the forward kernel on dy with the filter flipped, behind the same copies.
  auto dgrad = conv_depthwise_source(make_class(
      core::DType::kBF16, ops::ConvDirection::kBackwardData, 2, false, ops::Activation::kNone));
  ASSERT_TRUE(dgrad.has_value()) << dgrad.status().message();
  EXPECT_EQ(dgrad->name, "conv.depthwise_bf16_f32acc_dgrad_2d_nobias.none");
  EXPECT_TRUE(contains(dgrad->text,
                       "boo_kernels::ConvChannelsLastRunner<boo_kernels::ConvDepthwiseDgradRunner<"
                       "__nv_bfloat16>, __nv_bfloat16>"));
  // Backward weight: a reduction of its own behind the same copies; fp8 is nobody's.
  auto wgrad = conv_depthwise_source(make_class(
      core::DType::kF16, ops::ConvDirection::kBackwardWeight, 3, false, ops::Activation::kNone));
  ASSERT_TRUE(wgrad.has_value()) << wgrad.status().message();
  EXPECT_EQ(wgrad->name, "conv.depthwise_fp16_f32acc_wgrad_3d_nobias.none");
  EXPECT_TRUE(contains(wgrad->text,
                       "boo_kernels::ConvChannelsLastRunner<boo_kernels::ConvDepthwiseWgradRunner<"
                       "__half>, __half>"));
  auto fp8 = conv_depthwise_source(make_class(core::DType::kF8E4M3, ops::ConvDirection::kForward, 2,
                                              false, ops::Activation::kNone));
  ASSERT_FALSE(fp8.has_value());
  EXPECT_NE(fp8.status().message().find("conv.depthwise: no fp8"), std::string::npos);
}

TEST(ConvPointwiseCodegen, ForwardBehindTheChannelsLastCopies) {
  EXPECT_TRUE(embedded_file("conv_pointwise.cuh").has_value());
  const space::ConvClass c =
      make_class(core::DType::kBF16, ops::ConvDirection::kForward, 2, true, ops::Activation::kRelu);
  auto src = conv_pointwise_source(c);
  ASSERT_TRUE(src.has_value()) << src.status().message();
  EXPECT_EQ(src->name, "conv.pointwise_bf16_f32acc_fprop_2d_bias.relu");
  EXPECT_TRUE(contains(src->text,
                       "boo_kernels::ConvChannelsLastRunner<boo_kernels::ConvPointwiseRunner<"
                       "__nv_bfloat16, true, " +
                           std::to_string(static_cast<int>(ops::Activation::kRelu)) +
                           ">, __nv_bfloat16>"));
  EXPECT_TRUE(contains(src->text, "struct ConvPointwiseRunner"));
  // Forward only; no fp8.
  auto dgrad = conv_pointwise_source(make_class(
      core::DType::kBF16, ops::ConvDirection::kBackwardData, 2, false, ops::Activation::kNone));
  ASSERT_FALSE(dgrad.has_value());
  EXPECT_TRUE(contains(dgrad.status().message(), "forward pass only"));
  auto fp8 = conv_pointwise_source(make_class(core::DType::kF8E4M3, ops::ConvDirection::kForward, 2,
                                              false, ops::Activation::kNone));
  ASSERT_FALSE(fp8.has_value());
  EXPECT_TRUE(contains(fp8.status().message(), "conv.pointwise: no fp8"));
}

TEST(ConvGroupedDirectCodegen, ForwardSixteenBitBehindTheChannelsLastCopies) {
  EXPECT_TRUE(embedded_file("conv_grouped_direct.cuh").has_value());
  auto src = conv_grouped_direct_source(
      make_class(core::DType::kF16, ops::ConvDirection::kForward, 2, true, ops::Activation::kGelu));
  ASSERT_TRUE(src.has_value()) << src.status().message();
  EXPECT_EQ(src->name, "conv.grouped_fp16_f32acc_fprop_2d_bias.gelu");
  EXPECT_TRUE(contains(src->text,
                       "boo_kernels::ConvChannelsLastRunner<boo_kernels::ConvGroupedRunner<"
                       "__half, true, " +
                           std::to_string(static_cast<int>(ops::Activation::kGelu)) +
                           ">, __half>"));
  EXPECT_TRUE(contains(src->text, "struct ConvGroupedRunner"));
  // Forward only, tensor-core types only.
  auto wgrad = conv_grouped_direct_source(make_class(
      core::DType::kBF16, ops::ConvDirection::kBackwardWeight, 2, false, ops::Activation::kNone));
  ASSERT_FALSE(wgrad.has_value());
  EXPECT_TRUE(contains(wgrad.status().message(), "forward pass only"));
  auto fp32 = conv_grouped_direct_source(make_class(core::DType::kF32, ops::ConvDirection::kForward,
                                                    2, false, ops::Activation::kNone));
  ASSERT_FALSE(fp32.has_value());
  EXPECT_TRUE(contains(fp32.status().message(), "fp16 and bf16"));
}

TEST(ConvSplitWgradDirectCodegen, BackwardWeightSixteenBitBehindTheChannelsLastCopies) {
  EXPECT_TRUE(embedded_file("conv_wgrad_direct.cuh").has_value());
  auto src = conv_split_wgrad_direct_source(make_class(
      core::DType::kBF16, ops::ConvDirection::kBackwardWeight, 3, false, ops::Activation::kNone));
  ASSERT_TRUE(src.has_value()) << src.status().message();
  EXPECT_EQ(src->name, "conv.split_wgrad_bf16_f32acc_wgrad_3d_nobias.none");
  EXPECT_TRUE(contains(src->text,
                       "boo_kernels::ConvChannelsLastRunner<boo_kernels::ConvWgradDirectRunner<"
                       "__nv_bfloat16>, __nv_bfloat16>"));
  EXPECT_TRUE(contains(src->text, "struct ConvWgradDirectRunner"));
  EXPECT_EQ(conv_own_kernel("conv.split_wgrad")->prefix, kConvSplitWgradDirectPrefix);
  // Backward weight only, tensor-core types only.
  auto fprop = conv_split_wgrad_direct_source(make_class(
      core::DType::kF16, ops::ConvDirection::kForward, 2, false, ops::Activation::kNone));
  ASSERT_FALSE(fprop.has_value());
  EXPECT_TRUE(contains(fprop.status().message(), "backward weight only"));
  // fp32 in tf32 (mma.sync m16n8k8); fp32 products (--math fp32) stay on conv.direct.
  auto fp32 = conv_split_wgrad_direct_source(make_class(
      core::DType::kF32, ops::ConvDirection::kBackwardWeight, 2, false, ops::Activation::kNone));
  ASSERT_FALSE(fp32.has_value());
  EXPECT_TRUE(contains(fp32.status().message(), "fp16, bf16 and tf32"));
  space::ConvClass tf32 = make_class(core::DType::kF32, ops::ConvDirection::kBackwardWeight, 2,
                                     false, ops::Activation::kNone);
  tf32.math = core::MathMode::kTF32;
  auto tf32_src = conv_split_wgrad_direct_source(tf32);
  ASSERT_TRUE(tf32_src.has_value()) << tf32_src.status().message();
  EXPECT_EQ(tf32_src->name, "conv.split_wgrad_fp32_tf32_wgrad_2d_nobias.none");
  EXPECT_TRUE(contains(tf32_src->text,
                       "boo_kernels::ConvChannelsLastRunner<boo_kernels::ConvWgradDirectRunner<"
                       "float>, float>"));
  EXPECT_TRUE(contains(tf32_src->text, "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32"));
}

TEST(ConvFewChannelsCodegen, ForwardSixteenBitBehindTheChannelsLastCopies) {
  EXPECT_TRUE(embedded_file("conv_few_channels.cuh").has_value());
  auto src = conv_few_channels_source(make_class(core::DType::kBF16, ops::ConvDirection::kForward,
                                                 2, true, ops::Activation::kRelu));
  ASSERT_TRUE(src.has_value()) << src.status().message();
  EXPECT_EQ(src->name, "conv.padded_channels_bf16_f32acc_fprop_2d_bias.relu");
  EXPECT_TRUE(contains(src->text,
                       "boo_kernels::ConvChannelsLastRunner<boo_kernels::ConvFewChannelsRunner<"
                       "__nv_bfloat16, true, 1>, __nv_bfloat16>"));
  EXPECT_TRUE(contains(src->text, "struct ConvFewChannelsRunner"));
  EXPECT_EQ(conv_own_kernel("conv.padded_channels")->prefix, kConvFewChannelsPrefix);
  // Forward only, tensor-core types only.
  auto dgrad = conv_few_channels_source(make_class(
      core::DType::kF16, ops::ConvDirection::kBackwardData, 2, false, ops::Activation::kNone));
  ASSERT_FALSE(dgrad.has_value());
  EXPECT_TRUE(contains(dgrad.status().message(), "forward pass only"));
  auto fp32 = conv_few_channels_source(make_class(core::DType::kF32, ops::ConvDirection::kForward,
                                                  2, false, ops::Activation::kNone));
  ASSERT_FALSE(fp32.has_value());
  EXPECT_TRUE(contains(fp32.status().message(), "fp16 and bf16"));
}

TEST(ConvSm90TapsCodegen, ForwardSixteenBitBehindTheChannelsLastCopies) {
  EXPECT_TRUE(embedded_file("conv_taps_wgmma.cuh").has_value());
  auto src = conv_sm90_taps_source(
      make_class(core::DType::kF16, ops::ConvDirection::kForward, 2, true, ops::Activation::kSilu));
  ASSERT_TRUE(src.has_value()) << src.status().message();
  EXPECT_EQ(src->name, "conv.sm90_taps_fp16_f32acc_fprop_2d_bias.silu");
  EXPECT_TRUE(contains(src->text,
                       "boo_kernels::ConvChannelsLastRunner<boo_kernels::ConvTapsRunner<__half, "
                       "true, 4>, __half>"));
  EXPECT_TRUE(contains(src->text, "struct ConvTapsRunner"));
  // Its primitives come along: the TMA store and the wgmma with both operands in shared memory,
  // the macro cases of its tile widths from 64 to 256 positions among them (their operand lists
  // are checked by ptxas in compile_check_conv_taps and by the GPU list, not here).
  EXPECT_TRUE(contains(src->text, "cp.async.bulk.tensor.4d.global.shared::cta.bulk_group"));
  EXPECT_TRUE(contains(src->text, "wgmma.mma_async.sync.aligned.m64n\" #N \"k16.f32.\" TYPE"));
  EXPECT_TRUE(contains(src->text, "BOO_WGMMA_SS_CASE(64, 32, 32, 33, 34)"));
  EXPECT_TRUE(contains(src->text, "BOO_WGMMA_SS_CASE(256, 128, 128, 129, 130)"));
  EXPECT_TRUE(contains(src->text, "struct TapsPlan"));
  EXPECT_EQ(conv_own_kernel("conv.sm90_taps")->prefix, kConvSm90TapsPrefix);
  // Forward and backward data (the same runner, the filter turned around), tensor-core types
  // only.
  auto dgrad = conv_sm90_taps_source(make_class(
      core::DType::kBF16, ops::ConvDirection::kBackwardData, 2, false, ops::Activation::kNone));
  ASSERT_TRUE(dgrad.has_value()) << dgrad.status().message();
  EXPECT_EQ(dgrad->name, "conv.sm90_taps_bf16_f32acc_dgrad_2d_nobias.none");
  EXPECT_TRUE(contains(dgrad->text, "conv_taps_turn_filter_kernel"));
  auto wgrad = conv_sm90_taps_source(make_class(
      core::DType::kBF16, ops::ConvDirection::kBackwardWeight, 2, false, ops::Activation::kNone));
  ASSERT_FALSE(wgrad.has_value());
  EXPECT_TRUE(contains(wgrad.status().message(), "forward pass and backward data only"));
  auto fp32 = conv_sm90_taps_source(make_class(core::DType::kF32, ops::ConvDirection::kForward, 2,
                                               false, ops::Activation::kNone));
  ASSERT_FALSE(fp32.has_value());
  EXPECT_TRUE(contains(fp32.status().message(), "fp16 and bf16"));
}

}  // namespace
}  // namespace boo::codegen
