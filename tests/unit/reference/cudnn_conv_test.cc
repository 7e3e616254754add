// The cuDNN baseline's host logic: ConvProblem -> cuDNN tensor/filter/convolution shapes for
// every layout, direction and spatial rank (1D lifted to 2D), math types, activation mapping,
// epilogue candidates, names; and create() failing with a Status, not a crash, without a GPU.
#include "boo/reference/cudnn_conv.h"

#include <gtest/gtest.h>

#include <climits>
#include <string>
#include <vector>

#include "boo/core/layout.h"
#include "boo/ops/activation.h"
#include "boo/ops/conv_problem.h"
#include "boo/runtime/device.h"

namespace boo::reference {
namespace {

using core::Layout;
using ops::Activation;
using ops::ConvDirection;
using ops::ConvProblem;
namespace cd = cudnn_detail;

ConvProblem Problem(int dims, int64_t n, int64_t c, int64_t k, std::vector<int64_t> input,
                    std::vector<int64_t> filter) {
  ConvProblem p;
  p.spatial_dims = dims;
  p.n = n;
  p.c = c;
  p.k = k;
  p.input = std::move(input);
  p.filter = std::move(filter);
  p.stride.assign(dims, 1);
  p.padding.assign(dims, 0);
  p.dilation.assign(dims, 1);
  return p;
}

TEST(CudnnConvCreate, FailsWithAStatusWithoutAGpu) {
  const bool have_gpu = runtime::list_devices().has_value();
  auto conv = CudnnConv::create();
  if (have_gpu && conv.has_value()) GTEST_SKIP() << "a GPU and cuDNN are present";
  if (have_gpu) GTEST_SKIP() << "a GPU is present; cuDNN said: " << conv.status().to_string();
  ASSERT_FALSE(conv.has_value());
  const core::Status s = conv.status();
  // kUnavailable (no GPU or driver) in a cuDNN build; kUnsupported in a build without cuDNN.
  EXPECT_TRUE(s.code() == core::StatusCode::kUnavailable ||
              s.code() == core::StatusCode::kUnsupported)
      << s.to_string();
  EXPECT_FALSE(s.message().empty());
  EXPECT_TRUE(s.message().find("GPU") != std::string::npos ||
              s.message().find("cuDNN") != std::string::npos)
      << s.message();
}

TEST(CudnnNdTensor, TwoDLayouts) {
  // N=2, C=3, H=4, W=5.
  const auto nchw = cd::nd_tensor(core::make_nc_spatial_tensor(
      core::DType::kF16, 2, 3, std::vector<int64_t>{4, 5}, Layout::kChannelsFirst));
  ASSERT_TRUE(nchw.has_value()) << nchw.status().to_string();
  EXPECT_EQ(nchw->dims, (std::vector<int>{2, 3, 4, 5}));
  EXPECT_EQ(nchw->strides, (std::vector<int>{60, 20, 5, 1}));
  const auto nhwc = cd::nd_tensor(core::make_nc_spatial_tensor(
      core::DType::kF16, 2, 3, std::vector<int64_t>{4, 5}, Layout::kChannelsLast));
  ASSERT_TRUE(nhwc.has_value());
  EXPECT_EQ(nhwc->dims, (std::vector<int>{2, 3, 4, 5}));
  EXPECT_EQ(nhwc->strides, (std::vector<int>{60, 1, 15, 3}));
}

TEST(CudnnNdTensor, OneDIsLiftedToTwoDWithPackedHStride) {
  // N=2, C=3, W=7: NCW -> NCHW with H=1 (H stride W), NWC -> NHWC with H=1 (H stride W*C).
  const auto ncw = cd::nd_tensor(core::make_nc_spatial_tensor(
      core::DType::kF32, 2, 3, std::vector<int64_t>{7}, Layout::kChannelsFirst));
  ASSERT_TRUE(ncw.has_value());
  EXPECT_EQ(ncw->dims, (std::vector<int>{2, 3, 1, 7}));
  EXPECT_EQ(ncw->strides, (std::vector<int>{21, 7, 7, 1}));
  const auto nwc = cd::nd_tensor(core::make_nc_spatial_tensor(
      core::DType::kF32, 2, 3, std::vector<int64_t>{7}, Layout::kChannelsLast));
  ASSERT_TRUE(nwc.has_value());
  EXPECT_EQ(nwc->dims, (std::vector<int>{2, 3, 1, 7}));
  EXPECT_EQ(nwc->strides, (std::vector<int>{21, 1, 21, 3}));
}

TEST(CudnnNdTensor, ThreeDLayouts) {
  // N=1, C=2, D=3, H=4, W=5.
  const auto ndhwc = cd::nd_tensor(core::make_nc_spatial_tensor(
      core::DType::kBF16, 1, 2, std::vector<int64_t>{3, 4, 5}, Layout::kChannelsLast));
  ASSERT_TRUE(ndhwc.has_value());
  EXPECT_EQ(ndhwc->dims, (std::vector<int>{1, 2, 3, 4, 5}));
  EXPECT_EQ(ndhwc->strides, (std::vector<int>{120, 1, 40, 10, 2}));
  const auto ncdhw = cd::nd_tensor(core::make_nc_spatial_tensor(
      core::DType::kBF16, 1, 2, std::vector<int64_t>{3, 4, 5}, Layout::kChannelsFirst));
  ASSERT_TRUE(ncdhw.has_value());
  EXPECT_EQ(ncdhw->strides, (std::vector<int>{120, 60, 20, 5, 1}));
}

TEST(CudnnDescribeConv, TwoDForwardWithGroupsPaddingStrideDilation) {
  ConvProblem p = Problem(2, 4, 16, 32, {20, 30}, {3, 5});
  p.groups = 4;
  p.padding = {1, 2};
  p.stride = {2, 1};
  p.dilation = {1, 2};
  p.in_layout = Layout::kChannelsLast;
  p.fil_layout = Layout::kChannelsLast;
  p.out_layout = Layout::kChannelsFirst;  // mixed layouts are described as they are
  p.bias = true;
  const auto d = cd::describe_conv(p);
  ASSERT_TRUE(d.has_value()) << d.status().to_string();
  EXPECT_EQ(d->nb_dims, 4);
  EXPECT_EQ(d->x.dims, (std::vector<int>{4, 16, 20, 30}));
  EXPECT_EQ(d->x.strides, (std::vector<int>{9600, 1, 480, 16}));
  // out = (20 + 2 - 2 - 1) / 2 + 1 = 10, (30 + 4 - 8 - 1) / 1 + 1 = 26.
  EXPECT_EQ(d->y.dims, (std::vector<int>{4, 32, 10, 26}));
  EXPECT_EQ(d->y.strides, (std::vector<int>{8320, 260, 26, 1}));
  EXPECT_EQ(d->filter, (std::vector<int>{32, 4, 3, 5}));  // K, C / G, R, S
  EXPECT_EQ(d->filter_format, cd::TensorFormat::kNhwc);
  EXPECT_EQ(d->padding, (std::vector<int>{1, 2}));
  EXPECT_EQ(d->stride, (std::vector<int>{2, 1}));
  EXPECT_EQ(d->dilation, (std::vector<int>{1, 2}));
  EXPECT_EQ(d->groups, 4);
  EXPECT_EQ(d->bias.dims, (std::vector<int>{1, 32, 1, 1}));
  EXPECT_EQ(d->bias.strides, (std::vector<int>{32, 1, 1, 1}));
}

TEST(CudnnDescribeConv, OneDIsTwoDWithUnitHeight) {
  for (Layout layout : {Layout::kChannelsFirst, Layout::kChannelsLast}) {
    for (ConvDirection dir :
         {ConvDirection::kForward, ConvDirection::kBackwardData, ConvDirection::kBackwardWeight}) {
      ConvProblem p = Problem(1, 2, 8, 6, {100}, {5});
      p.padding = {2};
      p.stride = {3};
      p.dilation = {2};
      p.direction = dir;
      p.in_layout = p.fil_layout = p.out_layout = layout;
      const auto d = cd::describe_conv(p);
      ASSERT_TRUE(d.has_value()) << d.status().to_string();
      EXPECT_EQ(d->nb_dims, 4);
      EXPECT_EQ(d->x.dims, (std::vector<int>{2, 8, 1, 100}));
      // out = (100 + 4 - 8 - 1) / 3 + 1 = 32.
      EXPECT_EQ(d->y.dims, (std::vector<int>{2, 6, 1, 32}));
      EXPECT_EQ(d->filter, (std::vector<int>{6, 8, 1, 5}));
      EXPECT_EQ(d->padding, (std::vector<int>{0, 2}));
      EXPECT_EQ(d->stride, (std::vector<int>{1, 3}));
      EXPECT_EQ(d->dilation, (std::vector<int>{1, 2}));
      EXPECT_EQ(d->filter_format, layout == Layout::kChannelsLast ? cd::TensorFormat::kNhwc
                                                                  : cd::TensorFormat::kNchw);
      EXPECT_EQ(d->bias.dims, (std::vector<int>{1, 6, 1, 1}));
    }
  }
}

TEST(CudnnDescribeConv, ThreeDBackwardWeight) {
  ConvProblem p = Problem(3, 2, 4, 8, {5, 6, 7}, {3, 3, 3});
  p.padding = {1, 1, 1};
  p.direction = ConvDirection::kBackwardWeight;
  p.in_layout = p.fil_layout = p.out_layout = Layout::kChannelsLast;
  const auto d = cd::describe_conv(p);
  ASSERT_TRUE(d.has_value()) << d.status().to_string();
  EXPECT_EQ(d->nb_dims, 5);
  EXPECT_EQ(d->x.dims, (std::vector<int>{2, 4, 5, 6, 7}));
  EXPECT_EQ(d->x.strides, (std::vector<int>{840, 1, 168, 28, 4}));
  EXPECT_EQ(d->y.dims, (std::vector<int>{2, 8, 5, 6, 7}));
  EXPECT_EQ(d->filter, (std::vector<int>{8, 4, 3, 3, 3}));
  EXPECT_EQ(d->padding, (std::vector<int>{1, 1, 1}));
  EXPECT_EQ(d->bias.dims, (std::vector<int>{1, 8, 1, 1, 1}));
}

TEST(CudnnDescribeConv, TransposedIsTheMirroredBackwardData) {
  // A stride-2 transposed conv from 8x8 to 16x16 is stored as the 16x16 -> 8x8 convolution
  // computed backward data: cuDNN's dx is the transposed conv's output (the larger tensor).
  ConvProblem p = Problem(2, 1, 32, 64, {16, 16}, {2, 2});
  p.stride = {2, 2};
  p.direction = ConvDirection::kBackwardData;
  p.transposed = true;
  const auto d = cd::describe_conv(p);
  ASSERT_TRUE(d.has_value()) << d.status().to_string();
  EXPECT_EQ(d->x.dims, (std::vector<int>{1, 32, 16, 16}));
  EXPECT_EQ(d->y.dims, (std::vector<int>{1, 64, 8, 8}));
  EXPECT_EQ(d->filter, (std::vector<int>{64, 32, 2, 2}));
}

TEST(CudnnDescribeConv, SizesBeyond32BitsAreUnsupported) {
  // 65536 x 65536 single-channel images: the batch stride is 2^32 elements.
  ConvProblem p = Problem(2, 2, 1, 1, {65536, 65536}, {1, 1});
  const auto d = cd::describe_conv(p);
  ASSERT_FALSE(d.has_value());
  EXPECT_EQ(d.status().code(), core::StatusCode::kUnsupported) << d.status().to_string();
  EXPECT_NE(d.status().message().find("32-bit"), std::string::npos);
}

TEST(CudnnDescribeConv, InvalidProblemIsAnError) {
  ConvProblem p = Problem(2, 1, 3, 4, {2, 2}, {3, 3});  // output size 0
  EXPECT_FALSE(cd::describe_conv(p).has_value());
}

TEST(CudnnMathType, ExactFp32UsesFmaOnly) {
  ConvProblem p = Problem(2, 1, 8, 8, {8, 8}, {3, 3});
  p.dtype = core::DType::kF32;
  p.math = core::MathMode::kF32;
  EXPECT_EQ(cd::math_type(p), cd::MathType::kFma);
  EXPECT_TRUE(cd::math_type_allowed(p, cd::MathType::kFma));
  EXPECT_FALSE(cd::math_type_allowed(p, cd::MathType::kTensorOp));
  EXPECT_FALSE(cd::math_type_allowed(p, cd::MathType::kDefault));  // tf32 by default on Ampere+
  EXPECT_FALSE(cd::math_type_allowed(p, cd::MathType::kTensorOpAllowConversion));

  p.math = core::MathMode::kTF32;
  EXPECT_EQ(cd::math_type(p), cd::MathType::kTensorOp);
  EXPECT_TRUE(cd::math_type_allowed(p, cd::MathType::kTensorOp));
  EXPECT_TRUE(cd::math_type_allowed(p, cd::MathType::kDefault));
  EXPECT_TRUE(cd::math_type_allowed(p, cd::MathType::kFma));
  EXPECT_FALSE(cd::math_type_allowed(p, cd::MathType::kTensorOpAllowConversion));  // fp16

  for (core::DType t : {core::DType::kF16, core::DType::kBF16}) {
    p.dtype = t;
    p.math = core::MathMode::kF32;
    EXPECT_EQ(cd::math_type(p), cd::MathType::kTensorOp);
    EXPECT_TRUE(cd::math_type_allowed(p, cd::MathType::kTensorOp));
  }
  EXPECT_EQ(cd::math_type_name(cd::MathType::kTensorOp), "tensor-op");
  EXPECT_EQ(cd::math_type_name(cd::MathType::kFma), "fma");
}

TEST(CudnnActivation, EveryActivationMapsOrIsAbsent) {
  using M = cd::ActivationMode;
  EXPECT_EQ(cd::activation_spec(Activation::kNone), (cd::ActivationSpec{M::kIdentity}));
  EXPECT_EQ(cd::activation_spec(Activation::kRelu), (cd::ActivationSpec{M::kRelu}));
  EXPECT_EQ(cd::activation_spec(Activation::kSigmoid), (cd::ActivationSpec{M::kSigmoid}));
  EXPECT_EQ(cd::activation_spec(Activation::kTanh), (cd::ActivationSpec{M::kTanh}));
  EXPECT_EQ(cd::activation_spec(Activation::kRelu6), (cd::ActivationSpec{M::kClippedRelu, 6.0}));
  EXPECT_EQ(cd::activation_spec(Activation::kSilu), (cd::ActivationSpec{M::kSwish, 0.0, 1.0}));
  EXPECT_FALSE(cd::activation_spec(Activation::kGelu).has_value());
  EXPECT_FALSE(cd::activation_spec(Activation::kGeluTanh).has_value());
  // Every activation boo knows is handled (no silent fall-through).
  int mapped = 0;
  for (Activation a : ops::kAllActivations) mapped += cd::activation_spec(a).has_value();
  EXPECT_EQ(mapped, 6);
}

TEST(CudnnEpilogue, CandidatesPerBiasAndActivation) {
  using E = cd::Epilogue;
  ConvProblem p = Problem(2, 1, 8, 8, {8, 8}, {3, 3});
  EXPECT_EQ(cd::epilogue_candidates(p), (std::vector<E>{E::kNone}));
  p.bias = true;
  EXPECT_EQ(cd::epilogue_candidates(p), (std::vector<E>{E::kFused, E::kCudnnOps, E::kKernel}));
  p.activation = Activation::kRelu;
  EXPECT_EQ(cd::epilogue_candidates(p), (std::vector<E>{E::kFused, E::kCudnnOps, E::kKernel}));
  p.activation = Activation::kGelu;
  EXPECT_EQ(cd::epilogue_candidates(p), (std::vector<E>{E::kKernel}));
  p.activation = Activation::kGeluTanh;
  EXPECT_EQ(cd::epilogue_candidates(p), (std::vector<E>{E::kKernel}));
  for (Activation a :
       {Activation::kSilu, Activation::kSigmoid, Activation::kTanh, Activation::kRelu6}) {
    p.activation = a;
    EXPECT_EQ(cd::epilogue_candidates(p), (std::vector<E>{E::kCudnnOps, E::kKernel}))
        << ops::activation_name(a);
  }
  // Without a bias the fused call (which always adds one) is out.
  p.bias = false;
  p.activation = Activation::kRelu;
  EXPECT_EQ(cd::epilogue_candidates(p), (std::vector<E>{E::kCudnnOps, E::kKernel}));
  p.activation = Activation::kGelu;
  EXPECT_EQ(cd::epilogue_candidates(p), (std::vector<E>{E::kKernel}));
  // Backward passes have no epilogue.
  p.activation = Activation::kNone;
  for (ConvDirection dir : {ConvDirection::kBackwardData, ConvDirection::kBackwardWeight}) {
    p.direction = dir;
    EXPECT_EQ(cd::epilogue_candidates(p), (std::vector<E>{E::kNone}));
  }
  EXPECT_EQ(cd::epilogue_name(E::kCudnnOps), "cudnn-ops");
  EXPECT_EQ(cd::epilogue_name(E::kFused), "fused");
}

TEST(CudnnNames, AlgorithmsVersionsBytes) {
  EXPECT_EQ(cd::algo_name(ConvDirection::kForward, 1), "IMPLICIT_PRECOMP_GEMM");
  EXPECT_EQ(cd::algo_name(ConvDirection::kForward, 7), "WINOGRAD_NONFUSED");
  EXPECT_EQ(cd::algo_name(ConvDirection::kForward, 9), "ALGO_9?");
  EXPECT_EQ(cd::algo_name(ConvDirection::kBackwardData, 0), "ALGO_0");
  EXPECT_EQ(cd::algo_name(ConvDirection::kBackwardData, 3), "FFT_TILING");
  EXPECT_EQ(cd::algo_name(ConvDirection::kBackwardWeight, 3), "ALGO_3");
  EXPECT_EQ(cd::algo_name(ConvDirection::kBackwardWeight, 6), "FFT_TILING");
  EXPECT_EQ(cd::algo_name(ConvDirection::kBackwardWeight, -1), "ALGO_-1?");

  EXPECT_EQ(cd::version_string(91900), "9.19.0");
  EXPECT_EQ(cd::version_string(90100), "9.1.0");
  EXPECT_EQ(cd::version_string(8907), "8.9.7");

  EXPECT_EQ(cd::format_bytes(0), "0B");
  EXPECT_EQ(cd::format_bytes(512), "512B");
  EXPECT_EQ(cd::format_bytes(1536), "1.5KB");
  EXPECT_EQ(cd::format_bytes(1258291), "1.2MB");
  EXPECT_EQ(cd::format_bytes(int64_t{3} << 30), "3.0GB");
}

TEST(CudnnSearchWorkspace, CappedByLimitAndFreeMemory) {
  constexpr int64_t kMiB = int64_t{1} << 20;
  constexpr int64_t kGiB = int64_t{1} << 30;
  EXPECT_EQ(cd::search_workspace_bytes(80 * kGiB), kGiB);  // the 1 GiB cap
  EXPECT_EQ(cd::search_workspace_bytes(80 * kGiB, 2 * kGiB), 2 * kGiB);
  EXPECT_EQ(cd::search_workspace_bytes(512 * kMiB), 256 * kMiB);  // 256 MiB stay free
  EXPECT_EQ(cd::search_workspace_bytes(100 * kMiB), 0);
  EXPECT_EQ(cd::search_workspace_bytes(0), 0);
}

}  // namespace
}  // namespace boo::reference
