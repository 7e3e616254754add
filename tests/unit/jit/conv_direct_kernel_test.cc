// conv.direct (kernels/conv_direct.cuh), conv.depthwise (kernels/conv_depthwise.cuh) and the
// channels-last wrapper (kernels/conv_relayout.cuh) through the real JIT (nvcc, no GPU): the
// compiled objects' host sides accept every layout, group count and dimensionality, refuse what
// they cannot run with a reason, and plan the workspace of the layout copies (also what dispatch's
// conv_workspace_for finds for pointers that are not 16-byte aligned). Small compiles
// (plain CUDA, no CUTLASS: about 10 s each); skipped where the toolkit or CUTLASS is missing.
// Numerics run on the GPU (tests/gpu/).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "boo/codegen/conv_codegen.h"
#include "boo/codegen/embedded.h"
#include "boo/dispatch/conv_args.h"
#include "boo/dispatch/conv_dispatcher.h"
#include "boo/jit/kernel_cache.h"
#include "jit_test_util.h"

namespace boo::jit {
namespace {

using core::Layout;
using ops::ConvDirection;

constexpr core::Layout kFirst = Layout::kChannelsFirst;
constexpr core::Layout kLast = Layout::kChannelsLast;

// Stand-ins for device buffers: 256-byte aligned, never dereferenced (nothing is launched).
char* const kBase = reinterpret_cast<char*>(uintptr_t{1} << 30);
dispatch::ConvPointers pointers() {
  return {kBase, kBase + (uintptr_t{1} << 26), kBase + (uintptr_t{2} << 26),
          kBase + (uintptr_t{3} << 26)};
}

// 2D, N 2, C 16, K 32, 9x11 input, 3x3 filter, padding 1 (output 9x11).
ops::ConvProblem problem_2d(core::DType t, ConvDirection d, Layout in, Layout fil, Layout out) {
  ops::ConvProblem p;
  p.spatial_dims = 2;
  p.n = 2;
  p.c = 16;
  p.k = 32;
  p.input = {9, 11};
  p.filter = {3, 3};
  p.stride = {1, 1};
  p.padding = {1, 1};
  p.dilation = {1, 1};
  p.direction = d;
  p.dtype = t;
  p.in_layout = in;
  p.fil_layout = fil;
  p.out_layout = out;
  return p;
}

BooConvArgs args_of(const ops::ConvProblem& p, const dispatch::ConvPointers& ptrs = pointers()) {
  EXPECT_TRUE(p.validate().is_ok()) << p.validate().message();
  return dispatch::make_conv_args(p, ptrs, 0, 132);
}

int64_t round256(int64_t bytes) { return (bytes + 255) / 256 * 256; }

// The same problem in 1D (37 wide, a filter of 5) and in 3D (5x6x7, a 3x1x3 filter, stride 2
// along W).
ops::ConvProblem as_1d(ops::ConvProblem p, int64_t stride, int64_t padding) {
  p.spatial_dims = 1;
  p.input = {37};
  p.filter = {5};
  p.stride = {stride};
  p.padding = {padding};
  p.dilation = {1};
  return p;
}
ops::ConvProblem as_3d(ops::ConvProblem p) {
  p.spatial_dims = 3;
  p.input = {5, 6, 7};
  p.filter = {3, 1, 3};
  p.stride = {1, 1, 2};
  p.padding = {1, 0, 1};
  p.dilation = {1, 1, 1};
  return p;
}

// A 2D bf16 forward class with a bias and `act`.
space::ConvClass forward_class(ops::Activation act) {
  space::ConvClass cls;
  cls.dtype = core::DType::kBF16;
  cls.direction = ConvDirection::kForward;
  cls.spatial_dims = 2;
  cls.bias = true;
  cls.activation = act;
  return cls;
}

// A problem the kernel takes, with the workspace its copies need.
struct Accepted {
  std::string what;
  ops::ConvProblem p;
  int64_t workspace;
};
// A problem the kernel refuses, with a word of the reason it gives.
struct Refused {
  std::string what;
  ops::ConvProblem p;
  std::string why;
};

// Each accepted problem: supported, the expected workspace, a dry run that launches nothing
// (BOO_ERROR when the copies need a workspace and none is given). Each refused one: unsupported
// with its reason, no workspace.
void expect_verdicts(const LoadedKernel& k, const std::vector<Accepted>& accepted,
                     const std::vector<Refused>& refused) {
  char why[256] = {0};
  for (const Accepted& c : accepted) {
    BooConvArgs a = args_of(c.p);
    EXPECT_EQ(k.supports(&a, why, sizeof(why)), BOO_OK) << c.what << ": " << why;
    EXPECT_EQ(k.workspace(&a), c.workspace) << c.what;
    a.dry_run = 1;
    EXPECT_EQ(k.run(&a, nullptr, 0, nullptr, why, sizeof(why)),
              c.workspace > 0 ? BOO_ERROR : BOO_OK)
        << c.what << ": " << why;
  }
  for (const Refused& r : refused) {
    const BooConvArgs a = args_of(r.p);
    why[0] = 0;
    EXPECT_EQ(k.supports(&a, why, sizeof(why)), BOO_UNSUPPORTED) << r.what;
    EXPECT_NE(std::string(why).find(r.why), std::string::npos) << r.what << ": " << why;
    EXPECT_EQ(k.workspace(&a), -1) << r.what;
  }
}

class ConvDirectKernelTest : public boo::testing::RealCompilerTest {
 protected:
  ConvDirectKernelTest() : RealCompilerTest("conv_direct_kernel") {}

  // conv.depthwise's kernel for a 2D class without bias or activation.
  std::shared_ptr<const LoadedKernel> depthwise(core::DType t, ConvDirection d) {
    space::ConvClass cls;
    cls.dtype = t;
    cls.direction = d;
    return compile(codegen::conv_depthwise_source(cls));
  }
};

TEST_F(ConvDirectKernelTest, DirectForwardAcceptsAnyLayoutGroupsAndDimensions) {
  const auto kernel = compile(codegen::conv_direct_source(forward_class(ops::Activation::kRelu)));
  ASSERT_NE(kernel, nullptr);
  const LoadedKernel& k = *kernel;
  EXPECT_EQ(k.kind, BOO_KIND_CONV);
  EXPECT_EQ(k.name, "conv.direct_bf16_f32acc_fprop_2d_bias.relu");

  auto fwd = [](Layout layout) {
    ops::ConvProblem p =
        problem_2d(core::DType::kBF16, ConvDirection::kForward, layout, layout, layout);
    p.bias = true;
    p.activation = ops::Activation::kRelu;
    return p;
  };
  std::vector<std::pair<std::string, ops::ConvProblem>> accepted;
  accepted.push_back({"NCHW", fwd(kFirst)});
  accepted.push_back({"NHWC", fwd(kLast)});
  ops::ConvProblem mixed = fwd(kFirst);
  mixed.fil_layout = kLast;
  accepted.push_back({"NCHW x, KYXC w", mixed});
  ops::ConvProblem grouped = fwd(kLast);
  grouped.groups = 4;
  grouped.stride = {2, 3};
  grouped.dilation = {2, 1};
  accepted.push_back({"groups 4, stride 2x3, dilation 2x1", grouped});
  ops::ConvProblem depthwise = fwd(kFirst);
  depthwise.groups = depthwise.c = 16;
  depthwise.k = 32;  // channel multiplier 2
  accepted.push_back({"depthwise", depthwise});
  accepted.push_back({"1D", as_1d(fwd(kFirst), 2, 0)});
  accepted.push_back({"3D", as_3d(fwd(kLast))});
  char why[256] = {0};
  for (const auto& [what, p] : accepted) {
    const BooConvArgs a = args_of(p);
    EXPECT_EQ(k.supports(&a, why, sizeof(why)), BOO_OK) << what << ": " << why;
    EXPECT_EQ(k.workspace(&a), 0) << what;
  }

  // Refusals carry a reason.
  ops::ConvProblem dgrad = fwd(kFirst);
  dgrad.direction = ConvDirection::kBackwardData;
  dgrad.bias = false;
  dgrad.activation = ops::Activation::kNone;
  BooConvArgs a = args_of(dgrad);
  why[0] = 0;
  EXPECT_EQ(k.supports(&a, why, sizeof(why)), BOO_UNSUPPORTED);
  EXPECT_NE(std::string(why).find("direction"), std::string::npos) << why;
  EXPECT_EQ(k.workspace(&a), -1);

  ops::ConvProblem no_bias = fwd(kFirst);
  no_bias.bias = false;
  a = args_of(no_bias);
  why[0] = 0;
  EXPECT_EQ(k.supports(&a, why, sizeof(why)), BOO_UNSUPPORTED);
  EXPECT_NE(std::string(why).find("bias"), std::string::npos) << why;

  a = args_of(fwd(kLast));
  a.x = nullptr;
  why[0] = 0;
  EXPECT_EQ(k.supports(&a, why, sizeof(why)), BOO_UNSUPPORTED);
  EXPECT_NE(std::string(why).find("pointer"), std::string::npos) << why;

  a = args_of(fwd(kLast));
  a.groups = 3;  // 16 channels do not split into 3 groups
  why[0] = 0;
  EXPECT_EQ(k.supports(&a, why, sizeof(why)), BOO_UNSUPPORTED);
  EXPECT_NE(std::string(why).find("groups"), std::string::npos) << why;

  // A dry run checks everything but launches nothing (no GPU here).
  a = args_of(fwd(kFirst));
  a.dry_run = 1;
  EXPECT_EQ(k.run(&a, nullptr, 0, nullptr, why, sizeof(why)), BOO_OK) << why;
}

// conv.depthwise (kernels/conv_depthwise.cuh) behind the channels-last copies: it takes forward
// depthwise problems of every layout, multiplier and dimensionality (the tiled kernel or the
// strip kernel, chosen at launch), plans the copies of what is not channels-last, and says why
// it refuses the rest.
TEST_F(ConvDirectKernelTest, DepthwiseTakesForwardDepthwiseAndSaysWhyNotOtherwise) {
  const auto kernel =
      compile(codegen::conv_depthwise_source(forward_class(ops::Activation::kRelu6)));
  ASSERT_NE(kernel, nullptr);
  const LoadedKernel& k = *kernel;
  EXPECT_EQ(k.name, "conv.depthwise_bf16_f32acc_fprop_2d_bias.relu6");

  auto dw = [](Layout layout, int64_t c, int64_t out_channels) {
    ops::ConvProblem p =
        problem_2d(core::DType::kBF16, ConvDirection::kForward, layout, layout, layout);
    p.c = p.groups = c;
    p.k = out_channels;
    p.bias = true;
    p.activation = ops::Activation::kRelu6;
    return p;
  };
  std::vector<Accepted> accepted;
  accepted.push_back({"NHWC, 16 channels (tiled)", dw(kLast, 16, 16), 0});
  accepted.push_back({"NHWC, multiplier 2", dw(kLast, 16, 32), 0});
  accepted.push_back({"NHWC, 5 channels (strip)", dw(kLast, 5, 5), 0});
  // NCHW: x and y are copied (2 x 16 x 9 x 11 bf16 each); the K x 1 x 3 x 3 filter is the same
  // either way.
  accepted.push_back({"NCHW", dw(kFirst, 16, 16), 2 * round256(2 * 16 * 9 * 11 * 2)});
  // Packed NCHW with W a whole 16-byte vector and a "same" filter along W (also 1D, 3D,
  // multiplier 2 and a strided H): the plane kernel on the caller's tensors, so a dry run needs
  // no workspace. The workspace asked for is still the copies' (x and y here): dispatch plans
  // with aligned stand-in pointers, and misaligned real ones take the copies.
  ops::ConvProblem planes = dw(kFirst, 16, 16);
  planes.input = {9, 16};
  ops::ConvProblem planes_mult = planes;
  planes_mult.k = 32;
  planes_mult.stride = {2, 1};
  ops::ConvProblem planes_1d = as_1d(dw(kFirst, 16, 16), 1, 2);
  planes_1d.input = {40};
  ops::ConvProblem planes_3d = as_3d(dw(kFirst, 16, 16));
  planes_3d.input = {5, 6, 8};
  planes_3d.stride = {1, 1, 1};
  for (const ops::ConvProblem& p : {planes, planes_mult, planes_1d, planes_3d}) {
    const BooConvArgs a = args_of(p);
    char why[256] = {0};
    EXPECT_EQ(k.supports(&a, why, sizeof(why)), BOO_OK) << p.key() << ": " << why;
    const int64_t x_bytes = p.x_desc().element_count() * 2,
                  y_bytes = p.y_desc().element_count() * 2;
    EXPECT_EQ(k.workspace(&a), round256(x_bytes) + round256(y_bytes)) << p.key();
    BooConvArgs dry = a;
    dry.dry_run = 1;
    EXPECT_EQ(k.run(&dry, nullptr, 0, nullptr, why, sizeof(why)), BOO_OK) << p.key() << ": " << why;
  }
  ops::ConvProblem strided = dw(kLast, 16, 16);
  strided.stride = {2, 3};
  strided.dilation = {2, 1};
  accepted.push_back({"stride 2x3, dilation 2x1", strided, 0});
  accepted.push_back({"1D", as_1d(dw(kLast, 16, 16), 1, 2), 0});
  accepted.push_back({"3D", as_3d(dw(kLast, 16, 16)), 0});

  // Refusals carry a reason.
  std::vector<Refused> refused;
  ops::ConvProblem dgrad = dw(kLast, 16, 16);
  dgrad.direction = ConvDirection::kBackwardData;
  dgrad.bias = false;
  dgrad.activation = ops::Activation::kNone;
  refused.push_back({"backward data (its own kernel)", dgrad, "forward pass only"});
  ops::ConvProblem grouped = dw(kLast, 16, 16);
  grouped.groups = 4;
  refused.push_back({"groups 4 of 16", grouped, "groups = C"});
  ops::ConvProblem no_bias = dw(kLast, 16, 16);
  no_bias.bias = false;
  refused.push_back({"no bias pointer", no_bias, "bias"});
  ops::ConvProblem huge = dw(kLast, 16, 16);
  huge.input = {64, 64};
  huge.filter = {60, 60};
  huge.padding = {0, 0};
  refused.push_back({"60x60 filter", huge, "too many taps"});
  expect_verdicts(k, accepted, refused);
  // x 8 bytes past a 16-byte boundary: the copies, which need their workspace.
  dispatch::ConvPointers misaligned = pointers();
  misaligned.x = static_cast<char*>(misaligned.x) + 8;
  BooConvArgs shifted = args_of(planes, misaligned);
  shifted.dry_run = 1;
  char why[256] = {0};
  EXPECT_EQ(k.run(&shifted, nullptr, 0, nullptr, why, sizeof(why)), BOO_ERROR);
  EXPECT_NE(std::string(why).find("workspace"), std::string::npos) << why;

  // Dispatch plans the workspace with aligned stand-ins (none for packed NHWC) and runs with the
  // caller's pointers: a view whose x starts 8 bytes past a 16-byte boundary needs x's copy,
  // which conv_workspace_for finds (it used to run with the planned 0 bytes and fail).
  const ops::ConvProblem nhwc = dw(kLast, 16, 16);
  dispatch::ConvPlan plan;
  plan.problem = nhwc;
  plan.config = k.name;
  plan.kernel = kernel;
  const BooConvArgs planned = args_of(nhwc);
  plan.workspace_bytes = k.workspace(&planned);
  EXPECT_EQ(plan.workspace_bytes, 0);
  const auto same = dispatch::conv_workspace_for(plan, planned);
  ASSERT_TRUE(same.has_value()) << same.status().message();
  EXPECT_EQ(*same, 0);
  BooConvArgs view = args_of(nhwc, misaligned);
  const auto need = dispatch::conv_workspace_for(plan, view);
  ASSERT_TRUE(need.has_value()) << need.status().message();
  EXPECT_EQ(*need, round256(nhwc.x_desc().element_count() * 2));
  view.dry_run = 1;
  EXPECT_EQ(k.run(&view, kBase, 0, nullptr, why, sizeof(why)), BOO_ERROR) << "planned bytes";
  EXPECT_EQ(k.run(&view, kBase, *need, nullptr, why, sizeof(why)), BOO_OK) << why;
}

// conv.pointwise (kernels/conv_pointwise.cuh) behind the channels-last copies: forward 1x1
// convolutions of at most 64 channels each way in every layout and dimensionality; the rest
// refused with a reason.
TEST_F(ConvDirectKernelTest, PointwiseTakesFewChannel1x1ForwardAndSaysWhyNotOtherwise) {
  const auto kernel =
      compile(codegen::conv_pointwise_source(forward_class(ops::Activation::kGelu)));
  ASSERT_NE(kernel, nullptr);
  const LoadedKernel& k = *kernel;
  EXPECT_EQ(k.name, "conv.pointwise_bf16_f32acc_fprop_2d_bias.gelu");
  auto pw = [](Layout layout, int64_t c, int64_t out_channels) {
    ops::ConvProblem p =
        problem_2d(core::DType::kBF16, ConvDirection::kForward, layout, layout, layout);
    p.c = c;
    p.k = out_channels;
    p.filter = {1, 1};
    p.padding = {0, 0};
    p.bias = true;
    p.activation = ops::Activation::kGelu;
    return p;
  };
  std::vector<Accepted> accepted;
  accepted.push_back({"NHWC, C = K = 35", pw(kLast, 35, 35), 0});
  accepted.push_back({"NHWC, C = 3, K = 64", pw(kLast, 3, 64), 0});
  accepted.push_back({"NHWC, C = 64, K = 1", pw(kLast, 64, 1), 0});
  // NCHW: x and y are copied (2 x 5 x 9 x 11 and 2 x 7 x 9 x 11 bf16).
  accepted.push_back(
      {"NCHW", pw(kFirst, 5, 7), round256(2 * 5 * 99 * 2) + round256(2 * 7 * 99 * 2)});
  ops::ConvProblem one_d = as_1d(pw(kLast, 35, 35), 1, 0);
  one_d.filter = {1};
  accepted.push_back({"1D", one_d, 0});
  ops::ConvProblem three_d = as_3d(pw(kLast, 35, 35));
  three_d.filter = {1, 1, 1};
  three_d.stride = {1, 1, 1};
  three_d.padding = {0, 0, 0};
  accepted.push_back({"3D", three_d, 0});

  std::vector<Refused> refused;
  ops::ConvProblem three = pw(kLast, 35, 35);
  three.filter = {3, 3};
  three.padding = {1, 1};
  refused.push_back({"3x3 filter", three, "1x1 filter"});
  ops::ConvProblem strided = pw(kLast, 35, 35);
  strided.stride = {2, 2};
  refused.push_back({"stride 2", strided, "stride 1"});
  ops::ConvProblem grouped = pw(kLast, 32, 32);
  grouped.groups = 2;
  refused.push_back({"groups 2", grouped, "groups = 1"});
  refused.push_back({"C = 65", pw(kLast, 65, 35), "at most 64"});
  refused.push_back({"K = 65", pw(kLast, 35, 65), "at most 64"});
  ops::ConvProblem no_bias = pw(kLast, 35, 35);
  no_bias.bias = false;
  refused.push_back({"no bias pointer", no_bias, "bias"});
  expect_verdicts(k, accepted, refused);
}

// conv.grouped's direct kernel (kernels/conv_grouped_direct.cuh) behind the channels-last
// copies: forward grouped convolutions with C/G and K/G in 8..32 in every layout and
// dimensionality, any stride, padding and dilation whose tile fits in shared memory; the rest
// refused with a reason.
TEST_F(ConvDirectKernelTest, GroupedDirectTakesNarrowGroupsAndSaysWhyNotOtherwise) {
  const auto kernel =
      compile(codegen::conv_grouped_direct_source(forward_class(ops::Activation::kSilu)));
  ASSERT_NE(kernel, nullptr);
  const LoadedKernel& k = *kernel;
  EXPECT_EQ(k.name, "conv.grouped_bf16_f32acc_fprop_2d_bias.silu");
  auto gp = [](Layout layout, int64_t c, int64_t out_channels, int64_t groups) {
    ops::ConvProblem p =
        problem_2d(core::DType::kBF16, ConvDirection::kForward, layout, layout, layout);
    p.c = c;
    p.k = out_channels;
    p.groups = groups;
    p.bias = true;
    p.activation = ops::Activation::kSilu;
    return p;
  };
  std::vector<Accepted> accepted;
  accepted.push_back({"NHWC, G = 2 of 8", gp(kLast, 16, 32, 2), 0});
  accepted.push_back({"NHWC, G = 4 of 32 x 8", gp(kLast, 128, 32, 4), 0});
  accepted.push_back({"NHWC, G = 3 of 24", gp(kLast, 72, 72, 3), 0});
  // NCHW: x and y are copied, the filter too (K x C/G x 3 x 3 to K x 3 x 3 x C/G).
  accepted.push_back(
      {"NCHW", gp(kFirst, 16, 32, 2),
       round256(2 * 16 * 99 * 2) + round256(32 * 8 * 9 * 2) + round256(2 * 32 * 99 * 2)});
  ops::ConvProblem strided = gp(kLast, 16, 32, 2);
  strided.stride = {2, 3};
  strided.dilation = {2, 1};
  strided.padding = {2, 0};
  accepted.push_back({"stride 2x3, dilation 2x1", strided, 0});
  accepted.push_back({"1D", as_1d(gp(kLast, 16, 32, 2), 2, 2), 0});
  accepted.push_back({"3D", as_3d(gp(kLast, 16, 32, 2)), 0});
  std::vector<Refused> refused;
  refused.push_back({"C/G = 4", gp(kLast, 16, 32, 4), "C/G and K/G"});
  refused.push_back({"C/G = 64", gp(kLast, 128, 128, 2), "C/G and K/G"});
  ops::ConvProblem wide = gp(kLast, 64, 64, 2);
  wide.input = {40, 40};
  wide.filter = {11, 11};
  wide.padding = {5, 5};
  wide.dilation = {3, 3};
  wide.padding = {15, 15};
  refused.push_back({"11x11 dilated by 3", wide, "shared memory"});
  // 64 output columns at stride 17: the input tile spans 1072 columns (its tables pack 10 bits).
  ops::ConvProblem far = as_1d(gp(kLast, 16, 32, 2), 17, 0);
  far.input = {1088};
  far.filter = {1};
  refused.push_back({"stride 17 over 64 columns", far, "1024 rows or columns"});
  ops::ConvProblem no_bias = gp(kLast, 16, 32, 2);
  no_bias.bias = false;
  refused.push_back({"no bias pointer", no_bias, "bias"});
  expect_verdicts(k, accepted, refused);
}

// conv.depthwise's backward data (ConvDepthwiseDgradRunner): stride 1 and K = C in every layout
// and dimensionality, the forward kernel on dy with the filter flipped, no workspace of its own;
// the rest refused with a reason.
TEST_F(ConvDirectKernelTest, DepthwiseBackwardDataRunsTheForwardKernelOnAFlippedFilter) {
  const auto kernel = depthwise(core::DType::kBF16, ConvDirection::kBackwardData);
  ASSERT_NE(kernel, nullptr);
  const LoadedKernel& k = *kernel;
  EXPECT_EQ(k.name, "conv.depthwise_bf16_f32acc_dgrad_2d_nobias.none");
  auto dw = [](Layout layout, int64_t c) {
    ops::ConvProblem p =
        problem_2d(core::DType::kBF16, ConvDirection::kBackwardData, layout, layout, layout);
    p.c = p.k = p.groups = c;
    return p;
  };
  std::vector<Accepted> accepted;
  accepted.push_back({"NHWC, 16 channels", dw(kLast, 16), 0});
  accepted.push_back({"NHWC, 5 channels", dw(kLast, 5), 0});
  accepted.push_back({"NCHW", dw(kFirst, 16), 2 * round256(2 * 16 * 9 * 11 * 2)});
  ops::ConvProblem dilated = dw(kLast, 16);
  dilated.dilation = {2, 1};
  dilated.padding = {2, 0};
  accepted.push_back({"dilation 2x1, padding 2x0", dilated, 0});
  accepted.push_back({"1D", as_1d(dw(kLast, 16), 1, 1), 0});
  ops::ConvProblem d3 = as_3d(dw(kLast, 16));
  d3.stride = {1, 1, 1};
  accepted.push_back({"3D", d3, 0});
  std::vector<Refused> refused;
  ops::ConvProblem strided = dw(kLast, 16);
  strided.stride = {2, 1};
  refused.push_back({"stride 2", strided, "stride 1"});
  ops::ConvProblem mult = dw(kLast, 16);
  mult.k = 32;
  refused.push_back({"multiplier 2", mult, "multiplier 1"});
  ops::ConvProblem wide = dw(kLast, 16);
  wide.padding = {3, 1};
  refused.push_back({"padding 3 on a 3x3 filter", wide, "padding within the dilated filter"});
  expect_verdicts(k, accepted, refused);
}

// conv.depthwise's backward weight (ConvDepthwiseWgradRunner): any stride, dilation and
// multiplier in every layout, filters of more taps than a thread keeps (7x7: six groups of
// taps), an fp32 partial per slice in its workspace; more than 64 taps, images past int
// offsets and non-depthwise problems refused with a reason.
TEST_F(ConvDirectKernelTest, DepthwiseBackwardWeightReducesSlicesInItsWorkspace) {
  const auto kernel = depthwise(core::DType::kF16, ConvDirection::kBackwardWeight);
  ASSERT_NE(kernel, nullptr);
  const LoadedKernel& k = *kernel;
  EXPECT_EQ(k.name, "conv.depthwise_fp16_f32acc_wgrad_2d_nobias.none");
  auto dw = [](Layout layout, int64_t c, int64_t out_channels) {
    ops::ConvProblem p =
        problem_2d(core::DType::kF16, ConvDirection::kBackwardWeight, layout, layout, layout);
    p.c = p.groups = c;
    p.k = out_channels;
    return p;
  };
  ops::ConvProblem strided = dw(kLast, 16, 32);
  strided.stride = {2, 3};
  strided.dilation = {2, 1};
  ops::ConvProblem d3 = as_3d(dw(kLast, 8, 8));
  ops::ConvProblem seven = dw(kLast, 24, 24);
  seven.input = {20, 20};
  seven.filter = {7, 7};
  seven.padding = {3, 3};
  char why[256] = {0};
  for (const ops::ConvProblem& p : {dw(kLast, 16, 16), dw(kLast, 5, 5), dw(kFirst, 16, 16), strided,
                                    as_1d(dw(kLast, 16, 16), 2, 1), d3, seven}) {
    BooConvArgs a = args_of(p);
    EXPECT_EQ(k.supports(&a, why, sizeof(why)), BOO_OK) << p.key() << ": " << why;
    // At least one fp32 partial per filter element, in 256-byte pieces.
    const int64_t ws = k.workspace(&a);
    EXPECT_GE(ws, p.k * p.filter[0] * (p.filter.size() > 1 ? p.filter[1] : 1) * 4) << p.key();
    EXPECT_EQ(ws % 256, 0) << p.key();
    a.dry_run = 1;
    EXPECT_EQ(k.run(&a, nullptr, 0, nullptr, why, sizeof(why)), BOO_ERROR) << p.key();
    EXPECT_NE(std::string(why).find("workspace"), std::string::npos) << why;
    void* fake = reinterpret_cast<void*>(uintptr_t{1} << 20);
    EXPECT_EQ(k.run(&a, fake, ws, nullptr, why, sizeof(why)), BOO_OK) << p.key() << ": " << why;
  }
  ops::ConvProblem big = dw(kLast, 16, 16);
  big.input = {20, 20};
  big.filter = {9, 9};
  big.padding = {4, 4};
  ops::ConvProblem grouped = dw(kLast, 16, 16);
  grouped.groups = 4;
  ops::ConvProblem huge = dw(kLast, 64, 64);
  huge.input = {8192, 8192};  // 2^32 elements in one image
  expect_verdicts(k, {},
                  {{"9x9 filter", big, "at most 64 filter taps"},
                   {"groups 4 of 16", grouped, "groups = C"},
                   {"an image of 2^32 elements", huge, "2^31 elements"}});
}

// ConvChannelsLastRunner over conv.direct, one per direction behind a runner that picks by the
// arguments' direction: one compile covers all three (conv.sm90_implicit wraps its CUTLASS
// runner the same way).
constexpr char kChannelsLastSource[] = R"(#include "abi.h"
#include "conv_direct.cuh"
#include "conv_relayout.cuh"

namespace {
template <int kDirection>
using Wrapped = boo_kernels::ConvChannelsLastRunner<
    boo_kernels::ConvDirectRunner<__half, kDirection, false, 0>, __half>;

struct Runner {
  static int32_t supports(const BooConvArgs& a, char* why, int32_t len) {
    switch (a.direction) {
      case BOO_CONV_FORWARD: return Wrapped<BOO_CONV_FORWARD>::supports(a, why, len);
      case BOO_CONV_BACKWARD_DATA: return Wrapped<BOO_CONV_BACKWARD_DATA>::supports(a, why, len);
      case BOO_CONV_BACKWARD_WEIGHT:
        return Wrapped<BOO_CONV_BACKWARD_WEIGHT>::supports(a, why, len);
    }
    boo_kernels::write_why(why, len, "unknown direction");
    return BOO_UNSUPPORTED;
  }
  static int64_t workspace(const BooConvArgs& a) {
    switch (a.direction) {
      case BOO_CONV_FORWARD: return Wrapped<BOO_CONV_FORWARD>::workspace(a);
      case BOO_CONV_BACKWARD_DATA: return Wrapped<BOO_CONV_BACKWARD_DATA>::workspace(a);
      case BOO_CONV_BACKWARD_WEIGHT: return Wrapped<BOO_CONV_BACKWARD_WEIGHT>::workspace(a);
    }
    return -1;
  }
  static int32_t run(const BooConvArgs& a, void* ws, int64_t bytes, void* stream, char* why,
                     int32_t len) {
    switch (a.direction) {
      case BOO_CONV_FORWARD:
        return Wrapped<BOO_CONV_FORWARD>::run(a, ws, bytes, stream, why, len);
      case BOO_CONV_BACKWARD_DATA:
        return Wrapped<BOO_CONV_BACKWARD_DATA>::run(a, ws, bytes, stream, why, len);
      case BOO_CONV_BACKWARD_WEIGHT:
        return Wrapped<BOO_CONV_BACKWARD_WEIGHT>::run(a, ws, bytes, stream, why, len);
    }
    boo_kernels::write_why(why, len, "unknown direction");
    return BOO_UNSUPPORTED;
  }
};
}  // namespace

BOO_CONV_ENTRY_POINTS(Runner, "test.conv_channels_last_fp16")
)";

TEST_F(ConvDirectKernelTest, ChannelsLastWrapperCopiesOnlyWhatIsNotPackedChannelsLast) {
  auto text = codegen::inline_embedded_includes(kChannelsLastSource);
  ASSERT_TRUE(text.has_value()) << text.status().message();
  auto kernel = cache_->get({"test.conv_channels_last_fp16", *text});
  ASSERT_TRUE(kernel.has_value()) << kernel.status().message();
  const LoadedKernel& k = **kernel;
  EXPECT_EQ(k.kind, BOO_KIND_CONV);

  // fp16 slots of the 2D problem, each rounded to 256 bytes.
  const int64_t x_slot = round256(2 * 16 * 9 * 11 * 2);  // 6336 -> 6400
  const int64_t w_slot = round256(32 * 16 * 3 * 3 * 2);  // 9216
  const int64_t y_slot = round256(2 * 32 * 9 * 11 * 2);  // 12672 -> 12800
  const core::DType t = core::DType::kF16;
  struct Case {
    std::string what;
    ops::ConvProblem p;
    int64_t workspace;
  };
  const Case cases[] = {
      {"forward, all NHWC", problem_2d(t, ConvDirection::kForward, kLast, kLast, kLast), 0},
      {"forward, NCHW x", problem_2d(t, ConvDirection::kForward, kFirst, kLast, kLast), x_slot},
      {"forward, NCHW y", problem_2d(t, ConvDirection::kForward, kLast, kLast, kFirst), y_slot},
      {"forward, KCYX w", problem_2d(t, ConvDirection::kForward, kLast, kFirst, kLast), w_slot},
      {"forward, all NCHW (MIOpen's default)",
       problem_2d(t, ConvDirection::kForward, kFirst, kFirst, kFirst), x_slot + w_slot + y_slot},
      {"backward data, all NHWC", problem_2d(t, ConvDirection::kBackwardData, kLast, kLast, kLast),
       0},
      {"backward data, NCHW dx", problem_2d(t, ConvDirection::kBackwardData, kFirst, kLast, kLast),
       x_slot},
      {"backward data, all NCHW",
       problem_2d(t, ConvDirection::kBackwardData, kFirst, kFirst, kFirst),
       x_slot + w_slot + y_slot},
      {"backward weight, NCHW x",
       problem_2d(t, ConvDirection::kBackwardWeight, kFirst, kLast, kLast), x_slot},
      {"backward weight, NCHW x, KCYX dw",
       problem_2d(t, ConvDirection::kBackwardWeight, kFirst, kFirst, kLast), x_slot + w_slot},
      {"backward weight, NCHW dy",
       problem_2d(t, ConvDirection::kBackwardWeight, kLast, kLast, kFirst), y_slot},
  };
  char why[256] = {0};
  for (const Case& c : cases) {
    const BooConvArgs a = args_of(c.p);
    EXPECT_EQ(k.supports(&a, why, sizeof(why)), BOO_OK) << c.what << ": " << why;
    EXPECT_EQ(k.workspace(&a), c.workspace) << c.what;
  }

  // A pointer that is not 16-byte aligned is copied even in the packed layout.
  dispatch::ConvPointers ptrs = pointers();
  ptrs.x = kBase + 2;
  BooConvArgs a = args_of(problem_2d(t, ConvDirection::kForward, kLast, kLast, kLast), ptrs);
  EXPECT_EQ(k.workspace(&a), x_slot);

  // Dimensions of extent 1 have no stride that matters: a 1x1 image with N = 1 in NCHW, and a
  // 1D NCW problem with one channel, are already packed channels-last.
  ops::ConvProblem one_pixel = problem_2d(t, ConvDirection::kForward, kFirst, kFirst, kFirst);
  one_pixel.n = 1;
  one_pixel.input = {1, 1};
  one_pixel.filter = {1, 1};
  one_pixel.padding = {0, 0};
  a = args_of(one_pixel);
  EXPECT_EQ(k.workspace(&a), 0);
  ops::ConvProblem single = one_pixel;
  single.spatial_dims = 1;
  single.c = 1;
  single.k = 1;
  single.input = {29};
  single.filter = {3};
  single.stride = {1};
  single.padding = {1};
  single.dilation = {1};
  a = args_of(single);
  EXPECT_EQ(k.workspace(&a), 0);
  // With K = 4 the NKW output is no longer channels-last (the 4 x 1 x 3 filter still is).
  single.k = 4;
  a = args_of(single);
  EXPECT_EQ(k.workspace(&a), round256(4 * 29 * 2));

  // 3D NCDHW: the x and y slots cover every element.
  ops::ConvProblem conv3d = problem_2d(t, ConvDirection::kForward, kFirst, kLast, kFirst);
  conv3d.spatial_dims = 3;
  conv3d.input = {3, 4, 5};
  conv3d.filter = {1, 3, 3};
  conv3d.stride = {1, 1, 1};
  conv3d.padding = {0, 1, 1};
  conv3d.dilation = {1, 1, 1};
  a = args_of(conv3d);
  EXPECT_EQ(k.workspace(&a), round256(2 * 16 * 60 * 2) + round256(2 * 32 * 60 * 2));

  // The run plans the same slots: a dry run with the planned workspace passes, one byte less
  // fails before anything is launched.
  a = args_of(problem_2d(t, ConvDirection::kBackwardWeight, kFirst, kFirst, kLast));
  a.dry_run = 1;
  char* ws = kBase + (uintptr_t{4} << 26);
  EXPECT_EQ(k.run(&a, ws, x_slot + w_slot, nullptr, why, sizeof(why)), BOO_OK) << why;
  why[0] = 0;
  EXPECT_EQ(k.run(&a, ws, x_slot + w_slot - 1, nullptr, why, sizeof(why)), BOO_ERROR);
  EXPECT_NE(std::string(why).find("workspace"), std::string::npos) << why;

  // The inner kernel's refusals come through.
  a = args_of(problem_2d(t, ConvDirection::kForward, kFirst, kFirst, kFirst));
  a.y = nullptr;
  why[0] = 0;
  EXPECT_EQ(k.supports(&a, why, sizeof(why)), BOO_UNSUPPORTED);
  EXPECT_NE(std::string(why).find("pointer"), std::string::npos) << why;
  EXPECT_EQ(k.workspace(&a), -1);
}

// The same wrapper with kPad = 8 (conv.padded_channels): channel counts that are not 16-byte
// fp16 vectors get padded slots, a bias slot when K is padded, and groups are never padded.
constexpr char kPaddedSource[] = R"(#include "abi.h"
#include "conv_direct.cuh"
#include "conv_relayout.cuh"

namespace {
using Runner = boo_kernels::ConvChannelsLastRunner<
    boo_kernels::ConvDirectRunner<__half, BOO_CONV_FORWARD, true, 0>, __half, 8>;
}  // namespace

BOO_CONV_ENTRY_POINTS(Runner, "test.conv_padded_fp16")
)";

TEST_F(ConvDirectKernelTest, PaddingWrapperGivesMisalignedChannelsZeroFilledSlots) {
  auto text = codegen::inline_embedded_includes(kPaddedSource);
  ASSERT_TRUE(text.has_value()) << text.status().message();
  auto kernel = cache_->get({"test.conv_padded_fp16", *text});
  ASSERT_TRUE(kernel.has_value()) << kernel.status().message();
  const LoadedKernel& k = **kernel;
  const core::DType t = core::DType::kF16;
  char why[256] = {0};

  // C = 3, K = 35 with a bias, all NHWC: x to 8 channels, w to 40 x 8, y to 40, bias to 40.
  ops::ConvProblem p = problem_2d(t, ConvDirection::kForward, kLast, kLast, kLast);
  p.c = 3;
  p.k = 35;
  p.bias = true;
  BooConvArgs a = args_of(p);
  EXPECT_EQ(k.supports(&a, why, sizeof(why)), BOO_OK) << why;
  const int64_t x_slot = round256(2 * 8 * 9 * 11 * 2);
  const int64_t w_slot = round256(40 * 8 * 3 * 3 * 2);
  const int64_t y_slot = round256(2 * 40 * 9 * 11 * 2);
  const int64_t bias_slot = round256(40 * 2);
  EXPECT_EQ(k.workspace(&a), x_slot + w_slot + y_slot + bias_slot);
  // With an aligned K only x and w are padded, and the bias is used in place.
  p.k = 32;
  a = args_of(p);
  EXPECT_EQ(k.workspace(&a), x_slot + round256(32 * 8 * 9 * 2));
  // ... unless it is not 16-byte aligned: then it is copied into a slot of its own (kernels with
  // a TMA epilogue read it in 16-byte pieces; a misaligned bias once failed their check).
  dispatch::ConvPointers shifted = pointers();
  shifted.bias = kBase + (uintptr_t{3} << 26) + 2;
  a = args_of(p, shifted);
  EXPECT_EQ(k.supports(&a, why, sizeof(why)), BOO_OK) << why;
  EXPECT_EQ(k.workspace(&a), x_slot + round256(32 * 8 * 9 * 2) + round256(32 * 2));
  // Aligned channels: nothing to copy in NHWC.
  p.c = 16;
  a = args_of(p);
  EXPECT_EQ(k.workspace(&a), 0);
  // Two groups of 3 channels are not padded (the inner kernel sees the caller's channels).
  p.c = 6;
  p.k = 6;
  p.groups = 2;
  a = args_of(p);
  EXPECT_EQ(k.workspace(&a), 0);

  // A dry run plans the same slots as the workspace query.
  p = problem_2d(t, ConvDirection::kForward, kFirst, kFirst, kFirst);
  p.c = 5;
  p.bias = true;
  a = args_of(p);
  a.dry_run = 1;
  const int64_t bytes = k.workspace(&a);
  EXPECT_EQ(bytes, x_slot + round256(32 * 8 * 9 * 2) + round256(2 * 32 * 9 * 11 * 2));
  char* ws = kBase + (uintptr_t{4} << 26);
  EXPECT_EQ(k.run(&a, ws, bytes, nullptr, why, sizeof(why)), BOO_OK) << why;
  EXPECT_EQ(k.run(&a, ws, bytes - 1, nullptr, why, sizeof(why)), BOO_ERROR);
}

}  // namespace
}  // namespace boo::jit
