#include "boo/codegen/gemm_codegen.h"

#include <gtest/gtest.h>

#include "boo/codegen/conv_codegen.h"
#include "boo/codegen/embedded.h"

namespace boo::codegen {
namespace {

bool contains(const std::string& text, const std::string& what) {
  return text.find(what) != std::string::npos;
}

TEST(Embedded, FilesAndIncludesInline) {
  for (const char* f :
       {"abi.h", "gemm_sm90.cuh", "gemm_fallback.cuh", "entry_points.cuh", "activation.cuh"}) {
    EXPECT_TRUE(embedded_file(f).has_value()) << f;
  }
  auto text = inline_embedded_includes(
      "#include \"entry_points.cuh\"\n#include \"entry_points.cuh\"\n"
      "#include <cstdio>\nint x;\n");
  ASSERT_TRUE(text.has_value());
  EXPECT_EQ(text->find("#include \"entry_points.cuh\""), std::string::npos);
  EXPECT_EQ(text->find("// ---- begin entry_points.cuh"),
            text->rfind("// ---- begin entry_points.cuh"));  // once
  EXPECT_TRUE(contains(*text, "#include <cstdio>"));
  EXPECT_FALSE(contains(*text, "#pragma once"));
}

// CUTLASS takes the warpgroup MMA's N from its default widths (256, 192, 128, 96, 64, 32, ...)
// unless CUTE_SM90_EXTENDED_MMA_SHAPES_ENABLED is defined before cute's headers: a 128x160 conv
// tile ran as five N = 32 MMAs (26.5 us against 35 on an H200 with the define,
// bench/results/2026-11-28-weak-lines-h200.md).
TEST(Embedded, WarpgroupMmaTakesEveryWidth) {
  auto conv = space::ConvSm90Config::parse_name(
      "conv.sm90_implicit_fp16_f32acc_fprop_2d_nobias.none_t128x160x64_c1x1_coop");
  ASSERT_TRUE(conv.has_value()) << conv.status().message();
  auto conv_src = conv_sm90_source(*conv);
  ASSERT_TRUE(conv_src.has_value()) << conv_src.status().message();
  space::GemmSm90Config g;
  g.cls.a = g.cls.b = g.cls.d = core::DType::kBF16;
  auto gemm_src = gemm_sm90_source(g);
  ASSERT_TRUE(gemm_src.has_value()) << gemm_src.status().message();
  for (const std::string* t : {&conv_src->text, &gemm_src->text}) {
    const size_t define = t->find("#define CUTE_SM90_EXTENDED_MMA_SHAPES_ENABLED");
    ASSERT_NE(define, std::string::npos);
    EXPECT_LT(define, t->find("#include \"cute/"));
    EXPECT_LT(define, t->find("#include \"cutlass/"));
  }
}

space::GemmSm90Config bias_gelu_config() {
  space::GemmSm90Config c;
  c.cls.a = c.cls.b = c.cls.d = core::DType::kBF16;
  c.cls.trans_a = ops::Transpose::kT;
  c.cls.trans_b = ops::Transpose::kN;
  c.cls.bias = true;
  c.cls.bias_type = core::DType::kBF16;
  c.cls.activation = ops::Activation::kGeluTanh;
  c.tile_m = 128;
  c.tile_n = 256;
  c.tile_k = 64;
  c.cluster_m = 2;
  return c;
}

TEST(GemmSm90Codegen, InstanceSpellsTheConfig) {
  auto src = gemm_sm90_source(bias_gelu_config());
  ASSERT_TRUE(src.has_value()) << src.status().message();
  EXPECT_EQ(src->name, bias_gelu_config().kernel_name());
  const std::string& t = src->text;
  EXPECT_TRUE(contains(t, "using ElementA = cutlass::bfloat16_t;"));
  EXPECT_TRUE(contains(t, "using ElementC = void;"));
  EXPECT_TRUE(contains(t, "using LayoutA = cutlass::layout::RowMajor;"));
  EXPECT_TRUE(contains(t, "using LayoutB = cutlass::layout::ColumnMajor;"));
  EXPECT_TRUE(contains(t, "cute::Shape<cute::_128, cute::_256, cute::_64>"));
  EXPECT_TRUE(contains(t, "cute::Shape<cute::_2, cute::_1, cute::_1>"));
  EXPECT_TRUE(contains(t, "LinCombPerRowBiasEltAct<cutlass::epilogue::thread::GELU_taylor"));
  EXPECT_TRUE(contains(t, "KernelTmaWarpSpecializedCooperative"));
  EXPECT_TRUE(contains(t, "PersistentScheduler"));
  EXPECT_TRUE(contains(t, "BOO_GEMM_ENTRY_POINTS(Runner, \"" + src->name + "\")"));
  EXPECT_TRUE(contains(t, "typedef struct BooGemmArgs"));  // the ABI is inlined
  EXPECT_FALSE(contains(t, "#include \"gemm_sm90.cuh\""));
  EXPECT_TRUE(contains(t, "#include \"cutlass/gemm/device/gemm_universal_adapter.h\""));
}

TEST(GemmSm90Codegen, SchedulesEpiloguesAndTypes) {
  space::GemmSm90Config c = bias_gelu_config();
  c.schedule = space::GemmSchedule::kPingpong;
  c.tile_n = 128;
  c.cls.bias = false;
  c.cls.activation = ops::Activation::kNone;
  c.cls.has_c = true;
  c.cls.d = core::DType::kF32;
  auto src = gemm_sm90_source(c);
  ASSERT_TRUE(src.has_value()) << src.status().message();
  EXPECT_TRUE(contains(src->text, "KernelTmaWarpSpecializedPingpong"));
  EXPECT_TRUE(contains(src->text, "using Gemm = GemmOf<cutlass::epilogue::TmaWarpSpecialized, "));
  EXPECT_TRUE(contains(src->text, "fusion::LinearCombination<ElementD, float, ElementC, float>"));
  EXPECT_TRUE(contains(src->text, "using ElementC = float;"));
  c.schedule = space::GemmSchedule::kCooperative;
  c.scheduler = space::GemmScheduler::kSplitK;
  c.splits = 4;
  auto sk = gemm_sm90_source(c);
  ASSERT_TRUE(sk.has_value());
  EXPECT_TRUE(contains(sk->text, "StreamKScheduler"));
  EXPECT_EQ(sk->name, c.kernel_name());
}

TEST(GemmSm90Codegen, Fp8WithScalesAndThePaddedVariant) {
  space::GemmSm90Config c = bias_gelu_config();
  c.cls.a = core::DType::kF8E4M3;
  c.cls.b = core::DType::kF8E5M2;
  c.cls.scaled = true;
  c.cls.bias = false;
  c.cls.activation = ops::Activation::kNone;
  c.tile_k = 128;
  c.tile_n = 128;  // fp8's two sets of accumulators: at most 128x192 cooperative
  auto src = gemm_sm90_source(c);
  ASSERT_TRUE(src.has_value()) << src.status().message();
  EXPECT_TRUE(contains(src->text, "using ElementA = cutlass::float_e4m3_t;"));
  EXPECT_TRUE(contains(src->text, "using ElementB = cutlass::float_e5m2_t;"));
  EXPECT_TRUE(contains(src->text, "constexpr int kAlignA = 16;"));
  EXPECT_TRUE(contains(src->text,
                       "ScaledLinCombPerRowBiasEltAct<cutlass::epilogue::thread::Identity, "
                       "ElementD, float, ElementD, ElementC, float>"));
  EXPECT_TRUE(contains(src->text, "thread.scale_a_ptr = a.alpha_scale;"));
  EXPECT_FALSE(contains(src->text, "struct GemmPaddedRunner"));
  c.unaligned = true;
  auto padded = gemm_sm90_source(c);
  ASSERT_TRUE(padded.has_value()) << padded.status().message();
  EXPECT_EQ(padded->name.rfind("gemm.sm90_unaligned_", 0), 0u);
  EXPECT_TRUE(contains(padded->text, "struct GemmPaddedRunner"));
  EXPECT_TRUE(contains(padded->text,
                       "using Runner = boo_kernels::GemmPaddedRunner<"
                       "boo_kernels::GemmSm90Runner<Gemm, false, false, true, "
                       "false, kAlignA, kAlignB, kAlignD, true>, 1, 1, 2, 4, "));
  // Behind its copies a persistent kernel waits for them by grid dependency control (it
  // launches as their programmatic dependent); CUTLASS's stream-K scheduler does not compile
  // with it, so stream-K and split-K kernels go without (and launch after the copies).
  EXPECT_FALSE(contains(src->text, "#define CUTLASS_ENABLE_GDC_FOR_SM90"));
  EXPECT_TRUE(contains(padded->text, "#define CUTLASS_ENABLE_GDC_FOR_SM90 1"));
  for (auto s : {space::GemmScheduler::kStreamK, space::GemmScheduler::kSplitK}) {
    c.scheduler = s;
    c.schedule = space::GemmSchedule::kCooperative;
    c.splits = s == space::GemmScheduler::kSplitK ? 4 : 1;
    auto sk = gemm_sm90_source(c);
    ASSERT_TRUE(sk.has_value()) << sk.status().message();
    EXPECT_TRUE(contains(sk->text, "struct GemmPaddedRunner"));
    EXPECT_FALSE(contains(sk->text, "#define CUTLASS_ENABLE_GDC_FOR_SM90")) << sk->name;
  }
}

// fp8 mainloops are CUTLASS's accurate one under boo_kernels::Fp8Mainloop, given the thread's
// share of the tile; the header keeps CUTLASS's mma where three sets of it do not fit (more than
// 64: 128x192 cooperative, 128x128 pingpong). 16-bit kernels are CUTLASS's builder output as is.
TEST(GemmSm90Codegen, Fp8MainloopsOverlapTheirPromotionWhereThreeSetsFit) {
  space::GemmSm90Config c = bias_gelu_config();
  c.cls.a = c.cls.b = core::DType::kF8E4M3;
  c.cls.scaled = true;
  c.tile_k = 128;
  const auto mainloop_of = [&](int tile_m, int tile_n, space::GemmSchedule schedule) {
    c.tile_m = tile_m;
    c.tile_n = tile_n;
    c.schedule = schedule;
    auto src = gemm_sm90_source(c);
    EXPECT_TRUE(src.has_value()) << src.status().message();
    if (!src.has_value()) return std::string();
    EXPECT_TRUE(contains(src->text, "// ---- begin gemm_sm90_fp8.cuh"));
    const size_t at = src->text.find("using Mainloop = ");
    return src->text.substr(at, src->text.find(';', at) - at);
  };
  const std::string coop128 = mainloop_of(128, 128, space::GemmSchedule::kCooperative);
  EXPECT_EQ(coop128.rfind("using Mainloop = boo_kernels::Fp8Mainloop<typename ", 0), 0u);
  EXPECT_TRUE(contains(coop128, ">::CollectiveOp, 64>")) << coop128;
  EXPECT_TRUE(
      contains(mainloop_of(128, 192, space::GemmSchedule::kCooperative), ">::CollectiveOp, 96>"));
  EXPECT_TRUE(
      contains(mainloop_of(64, 128, space::GemmSchedule::kPingpong), ">::CollectiveOp, 64>"));
  c.cls.a = c.cls.b = core::DType::kBF16;
  c.cls.scaled = false;
  c.tile_k = 64;
  c.tile_m = 128;
  c.tile_n = 256;
  c.schedule = space::GemmSchedule::kCooperative;
  auto bf16 = gemm_sm90_source(c);
  ASSERT_TRUE(bf16.has_value()) << bf16.status().message();
  EXPECT_FALSE(contains(bf16->text, "Fp8Mainloop"));
  EXPECT_FALSE(contains(bf16->text, "// ---- begin gemm_sm90_fp8.cuh"));
  EXPECT_TRUE(contains(bf16->text, "using Mainloop = typename cutlass::gemm::collective::"));
}

TEST(GemmSm90Codegen, PlainUnalignedPersistentKernelsWriteDInPlace) {
  space::GemmSm90Config c = bias_gelu_config();
  c.cls.bias = false;
  c.cls.activation = ops::Activation::kNone;
  c.unaligned = true;
  auto direct = gemm_sm90_source(c);
  ASSERT_TRUE(direct.has_value()) << direct.status().message();
  EXPECT_TRUE(space::gemm_sm90_direct_d(c));
  // The object holds the TMA kernel and one writing D in place; the runner picks per call.
  EXPECT_TRUE(contains(direct->text,
                       "using Gemm = GemmOf<cutlass::epilogue::TmaWarpSpecializedCooperative, "
                       "kAlignD>::Gemm;"));
  EXPECT_TRUE(contains(direct->text,
                       "using GemmDirect = GemmOf<cutlass::epilogue::NoSmemWarpSpecialized, "
                       "1>::Gemm;"));
  EXPECT_TRUE(contains(direct->text,
                       ", boo_kernels::GemmSm90Runner<GemmDirect, false, false, false, false, "
                       "kAlignA, kAlignB, 1, true, false, true>, false>;"));
  // With C, a bias, an activation, fp8 scales, stream-K, or aligned: the TMA epilogue only.
  std::vector<space::GemmSm90Config> others(6, c);
  others[0].cls.has_c = true;
  others[1].cls.bias = true;
  others[2].cls.activation = ops::Activation::kRelu;
  others[3].cls.a = others[3].cls.b = core::DType::kF8E4M3;
  others[3].cls.scaled = true;
  others[3].tile_k = 128;
  others[3].tile_n = 128;
  others[4].scheduler = space::GemmScheduler::kStreamK;
  others[5].unaligned = false;
  for (const space::GemmSm90Config& o : others) {
    EXPECT_FALSE(space::gemm_sm90_direct_d(o)) << o.name();
    auto src = gemm_sm90_source(o);
    ASSERT_TRUE(src.has_value()) << o.name() << ": " << src.status().message();
    EXPECT_FALSE(contains(src->text, "NoSmemWarpSpecialized")) << o.name();
    EXPECT_FALSE(contains(src->text, "GemmDirect")) << o.name();
  }
}

TEST(GemmSm90Codegen, Tf32OperandsThatAreNotKMajorReachATnKernel) {
  space::GemmSm90Config c = bias_gelu_config();
  c.cls.a = c.cls.b = c.cls.d = core::DType::kF32;
  c.cls.bias_type = core::DType::kF32;
  c.cls.math = core::MathMode::kTF32;
  c.tile_k = 32;
  c.unaligned = true;
  for (auto [ta, tb] : {std::pair{ops::Transpose::kN, ops::Transpose::kN},
                        std::pair{ops::Transpose::kN, ops::Transpose::kT},
                        std::pair{ops::Transpose::kT, ops::Transpose::kT}}) {
    c.cls.trans_a = ta;
    c.cls.trans_b = tb;
    auto src = gemm_sm90_source(c);
    ASSERT_TRUE(src.has_value()) << src.status().message();
    EXPECT_TRUE(contains(src->text, "using LayoutA = cutlass::layout::RowMajor;")) << c.name();
    EXPECT_TRUE(contains(src->text, "using LayoutB = cutlass::layout::ColumnMajor;")) << c.name();
    EXPECT_TRUE(contains(src->text, "kAlignD, false, true, void, true>;")) << c.name();
    EXPECT_TRUE(contains(src->text, "#include \"transpose_copy.cuh\"") ||
                contains(src->text, "transpose_copy_kernel"))
        << c.name();
  }
  // Aligned, the same classes are not generated (gemm.sm90 needs K-major tf32).
  c.unaligned = false;
  EXPECT_FALSE(gemm_sm90_source(c).has_value());
  // A TN tf32 class behind the copies keeps its layouts and copies nothing around.
  c.unaligned = true;
  c.cls.trans_a = ops::Transpose::kT;
  c.cls.trans_b = ops::Transpose::kN;
  auto tn = gemm_sm90_source(c);
  ASSERT_TRUE(tn.has_value());
  EXPECT_TRUE(contains(tn->text, "kAlignD, false, true, void, false>;"));
}

TEST(GemmSm90Codegen, ParallelSplitKWritesFp32SlicesAndReducesWithTheEpilogue) {
  space::GemmSm90Config c = bias_gelu_config();
  c.scheduler = space::GemmScheduler::kSplitKParallel;
  c.splits = 12;
  auto src = gemm_sm90_source(c);
  ASSERT_TRUE(src.has_value()) << src.status().message();
  EXPECT_EQ(src->name, c.kernel_name());
  // The CUTLASS kernel: fp32 output, no C, no fused bias or activation, persistent.
  EXPECT_TRUE(contains(src->text, "using ElementD = float;"));
  EXPECT_TRUE(contains(src->text, "using ElementC = void;"));
  EXPECT_TRUE(contains(src->text, "constexpr int kAlignD = 4;"));
  EXPECT_TRUE(contains(src->text, "fusion::LinearCombination<ElementD, float, ElementC, float>"));
  EXPECT_TRUE(contains(src->text, "cutlass::gemm::PersistentScheduler"));
  EXPECT_FALSE(contains(src->text, "LinCombPerRowBiasEltAct"));
  // The reduction applies the class's epilogue (bias type, activation 3 = gelu_tanh).
  EXPECT_TRUE(contains(src->text, "struct GemmSplitParallelRunner"));
  EXPECT_TRUE(contains(src->text,
                       "using Runner = boo_kernels::GemmSplitParallelRunner<"
                       "boo_kernels::GemmSm90Runner<Gemm, false, false, false, false, kAlignA, "
                       "kAlignB, kAlignD>, __nv_bfloat16, __nv_bfloat16, 3, false, true, false, "
                       "kAlignA, kAlignB>;"))
      << src->text.substr(src->text.size() - 600);
  // No grid dependency control in the GEMM (measured no faster with it).
  EXPECT_FALSE(contains(src->text, "#define CUTLASS_ENABLE_GDC_FOR_SM90"));
}

// Swapped operands: the kernel's A is op(B)^T and its B op(A)^T, so types, layouts and the
// mainloop's alignments swap; D is row-major; the runner keeps the problem's alignments.
TEST(GemmSm90Codegen, SwappedOperandsFlipLayoutsAndWriteDRowMajor) {
  space::GemmSm90Config c;
  c.cls.a = core::DType::kF16;
  c.cls.b = core::DType::kF16;
  c.cls.d = core::DType::kF16;
  c.cls.trans_a = ops::Transpose::kT;  // A K-major
  c.cls.trans_b = ops::Transpose::kT;  // B N-major
  c.tile_m = 64;
  c.tile_n = 16;
  c.tile_k = 128;
  c.schedule = space::GemmSchedule::kPingpong;
  c.swap_ab = true;
  auto src = gemm_sm90_source(c);
  ASSERT_TRUE(src.has_value()) << src.status().message();
  const std::string& t = src->text;
  // The kernel's A is op(B)^T, N x K: B stored N x K (T) is M-major for the kernel.
  EXPECT_TRUE(contains(t, "using LayoutA = cutlass::layout::ColumnMajor;"));
  // The kernel's B is op(A)^T, K x M: A stored K x M (T) is K-major, ColumnMajor for a B.
  EXPECT_TRUE(contains(t, "using LayoutB = cutlass::layout::ColumnMajor;"));
  EXPECT_TRUE(contains(t, "using LayoutD = cutlass::layout::RowMajor;"));
  EXPECT_TRUE(contains(t, "ElementA, LayoutA, kMmaAlignA"));
  EXPECT_TRUE(contains(t, "kAlignA, kAlignB, kAlignD, false, true>"));
  // Unswapped, the same class keeps its layouts and a column-major D.
  c.swap_ab = false;
  auto plain = gemm_sm90_source(c);
  ASSERT_TRUE(plain.has_value());
  EXPECT_TRUE(contains(plain->text, "using LayoutA = cutlass::layout::RowMajor;"));
  EXPECT_TRUE(contains(plain->text, "using LayoutB = cutlass::layout::RowMajor;"));
  EXPECT_TRUE(contains(plain->text, "using LayoutD = cutlass::layout::ColumnMajor;"));
  EXPECT_FALSE(contains(plain->text, "false, true>"));
}

TEST(GemmSm90Codegen, InvalidConfigIsRejectedBeforeCodegen) {
  space::GemmSm90Config c = bias_gelu_config();
  c.tile_m = 64;  // cooperative needs 128
  auto src = gemm_sm90_source(c);
  ASSERT_FALSE(src.has_value());
  EXPECT_NE(src.status().message().find("tile M"), std::string::npos);
}

TEST(GemmFallbackCodegen, AnyClass) {
  space::GemmClass cls;
  cls.a = cls.b = core::DType::kF8E4M3;
  cls.d = core::DType::kF16;
  cls.alpha_vector = true;
  cls.activation = ops::Activation::kRelu6;
  auto src = gemm_fallback_source(cls);
  ASSERT_TRUE(src.has_value());
  EXPECT_EQ(src->name, std::string(kGemmFallbackPrefix) + cls.name());
  EXPECT_TRUE(contains(src->text, "GemmFallbackRunner<__nv_fp8_e4m3, __nv_fp8_e4m3, __half"));
  EXPECT_TRUE(contains(src->text, ", 7, false, false, true>"));  // relu6, no C, no bias, avec
}

}  // namespace
}  // namespace boo::codegen

namespace boo::codegen {
namespace {

TEST(GemmSkinnyCodegen, OperandRolesFollowTheNarrowSide) {
  space::GemmSkinnyConfig c;
  c.cls.a = core::DType::kF8E4M3;
  c.cls.b = core::DType::kF8E5M2;
  c.cls.d = core::DType::kBF16;
  c.cls.bias = true;
  c.cls.bias_type = core::DType::kF32;
  c.cls.activation = ops::Activation::kSilu;
  // The generated source names its kernel and instantiates the runner with these parameters.
  auto runner_is = [](const space::GemmSkinnyConfig& cfg, const std::string& params) {
    auto src = gemm_skinny_source(cfg);
    if (!src.has_value()) return ::testing::AssertionFailure() << src.status().message();
    if (src->name != cfg.kernel_name()) return ::testing::AssertionFailure() << src->name;
    if (!contains(src->text, "GemmSkinnyRunner<" + params + ">")) {
      return ::testing::AssertionFailure() << "no GemmSkinnyRunner<" << params << ">";
    }
    if (contains(src->text, "#include \"gemm_skinny.cuh\"")) {
      return ::testing::AssertionFailure() << "the header is not inlined";
    }
    return ::testing::AssertionSuccess();
  };
  EXPECT_TRUE(runner_is(
      c, "__nv_fp8_e4m3, __nv_fp8_e5m2, __nv_bfloat16, float, 4, false, true, false, false"));
  c.narrow_m = true;  // the large operand is B
  EXPECT_TRUE(runner_is(
      c, "__nv_fp8_e5m2, __nv_fp8_e4m3, __nv_bfloat16, float, 4, false, true, false, true"));
  c.stream = true;  // the streaming loop: the runner's last parameter
  EXPECT_TRUE(runner_is(
      c, "__nv_fp8_e5m2, __nv_fp8_e4m3, __nv_bfloat16, float, 4, false, true, false, true, true"));
}

}  // namespace
}  // namespace boo::codegen
