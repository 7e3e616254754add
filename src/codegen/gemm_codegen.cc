#include "boo/codegen/gemm_codegen.h"

#include "codegen_util.h"

namespace boo::codegen {
namespace {

using core::DType;
using space::GemmClass;

int alignment(DType t) { return 16 / core::dtype_bytes(t); }

}  // namespace

core::Expected<KernelSource> gemm_sm90_source(const space::GemmSm90Config& config) {
  BOO_RETURN_IF_ERROR(space::check_gemm_sm90(config));
  const GemmClass& c = config.cls;
  const bool coop = config.schedule == space::GemmSchedule::kCooperative;
  // Parallel split-K: the CUTLASS kernel writes each slice's fp32 sums, persistent and without
  // epilogue; the reduction (gemm_split_parallel.cuh) applies the class's epilogue.
  const bool parallel = config.scheduler == space::GemmScheduler::kSplitKParallel;
  const bool stream_k = config.scheduler != space::GemmScheduler::kPersistent && !parallel;
  const std::string element_c = c.has_c && !parallel ? cutlass_type(c.d) : "void";
  const std::string element_d = parallel ? "float" : cutlass_type(c.d);
  const std::string act = cutlass_activation(c.activation);
  std::string fusion;
  if (parallel) {
    fusion = "cutlass::epilogue::fusion::LinearCombination<ElementD, float, ElementC, float>";
  } else if (c.scaled) {
    // D = act(scaleA * scaleB * alpha * acc + beta * C + bias): the per-tensor scales come as
    // one device scalar (BooGemmArgs::alpha_scale); a null bias pointer reads as zero.
    fusion = "cutlass::epilogue::fusion::ScaledLinCombPerRowBiasEltAct<" +
             (act.empty() ? std::string("cutlass::epilogue::thread::Identity") : act) +
             ", ElementD, float, " + (c.bias ? cutlass_type(c.bias_type) : "ElementD") +
             ", ElementC, float>";
  } else if (c.bias && !act.empty()) {
    fusion = "cutlass::epilogue::fusion::LinCombPerRowBiasEltAct<" + act + ", ElementD, float, " +
             cutlass_type(c.bias_type) + ", ElementC, float>";
  } else if (c.bias) {
    fusion = "cutlass::epilogue::fusion::LinCombPerRowBias<ElementD, float, " +
             cutlass_type(c.bias_type) + ", ElementC, float>";
  } else if (!act.empty()) {
    fusion =
        "cutlass::epilogue::fusion::LinCombEltAct<" + act + ", ElementD, float, ElementC, float>";
  } else {
    fusion = "cutlass::epilogue::fusion::LinearCombination<ElementD, float, ElementC, float>";
  }
  const std::string name = config.kernel_name();
  std::string b;
  // Behind the padded copies a persistent kernel launches as their programmatic dependent:
  // CUTLASS's grid dependency control makes its loads wait for them (kernels/gemm_padded.cuh).
  // (CUTLASS 4.2's stream-K scheduler, which split-K runs on too, does not compile with it:
  // sm90_tile_scheduler_stream_k.hpp:337 binds a const member to a non-const reference.)
  if (config.unaligned && config.scheduler == space::GemmScheduler::kPersistent) {
    b += "#define CUTLASS_ENABLE_GDC_FOR_SM90 1\n";
  }
  // (Parallel split-K's GEMM stays without it: with grid dependency control its reduction
  // launched under the GEMM's last tiles, and gained nothing, 45.2 against 45.2 us on
  // 128 x 384 x 147456; bench/results/2026-11-30-gemm-tiles-h200.md.)
  b += "#include \"gemm_sm90.cuh\"\n";
  // fp8 operands: CUTLASS's accurate fp8 mainloop with its promotion overlapped where three
  // sets of accumulators fit (kernels/gemm_sm90_fp8.cuh).
  const bool fp8 = core::is_fp8(c.a);
  if (fp8) b += "#include \"gemm_sm90_fp8.cuh\"\n";
  if (config.unaligned) b += "#include \"gemm_padded.cuh\"\n";
  if (parallel) b += "#include \"gemm_split_parallel.cuh\"\n";
  b += "#include \"cutlass/epilogue/fusion/operations.hpp\"\n";
  b += "#include \"cutlass/epilogue/thread/activation.h\"\n";
  b += "#include \"cutlass_activation.cuh\"\n\n";
  b += "namespace {\n";
  // Swapped operands: the kernel's A is op(B)^T (N x K), its B is op(A)^T (K x M) and its D is
  // D^T, so each operand's layout flips and D is row-major. kAlignA and kAlignB stay the
  // problem's (the runner checks the problem's leading dimensions with them).
  const bool swap = config.swap_ab;
  // tf32 operands that are not K-major reach the kernel as K-major copies (space::
  // gemm_sm90_transposes): the kernel is TN.
  const bool k_major = config.unaligned && space::gemm_sm90_transposes(c);
  const bool kernel_a_t =
      k_major || (swap ? c.trans_b == ops::Transpose::kN : c.trans_a == ops::Transpose::kT);
  const bool kernel_b_t =
      !k_major && (swap ? c.trans_a == ops::Transpose::kN : c.trans_b == ops::Transpose::kT);
  b += "using ElementA = " + cutlass_type(swap ? c.b : c.a) + ";\n";
  b += "using ElementB = " + cutlass_type(swap ? c.a : c.b) + ";\n";
  b += "using ElementC = " + element_c + ";\n";
  b += "using ElementD = " + element_d + ";\n";
  b += std::string("using LayoutA = cutlass::layout::") +
       (kernel_a_t ? "RowMajor" : "ColumnMajor") + ";  // the kernel's A is M x K\n";
  b += std::string("using LayoutB = cutlass::layout::") +
       (kernel_b_t ? "RowMajor" : "ColumnMajor") + ";  // the kernel's B is K x N\n";
  b += std::string("using LayoutD = cutlass::layout::") + (swap ? "RowMajor" : "ColumnMajor") +
       ";\n";
  b += "constexpr int kAlignA = " + std::to_string(alignment(c.a)) + ";\n";
  b += "constexpr int kAlignB = " + std::to_string(alignment(c.b)) + ";\n";
  b += "constexpr int kMmaAlignA = " + std::to_string(alignment(swap ? c.b : c.a)) + ";\n";
  b += "constexpr int kMmaAlignB = " + std::to_string(alignment(swap ? c.a : c.b)) + ";\n";
  // D written in place, element by element, where it would otherwise be copied (space::
  // gemm_sm90_direct_d): the object holds a second kernel with CUTLASS's epilogue without shared
  // memory, and the runner takes it where D is not TMA-aligned (kernels/gemm_padded.cuh).
  const bool direct_d_possible = space::gemm_sm90_direct_d(config);
  b += "constexpr int kAlignD = " +
       std::to_string(parallel ? alignment(DType::kF32) : alignment(c.d)) + ";\n";
  b += "using TileShape = cute::Shape<cute::_" + std::to_string(config.tile_m) + ", cute::_" +
       std::to_string(config.tile_n) + ", cute::_" + std::to_string(config.tile_k) + ">;\n";
  b += "using ClusterShape = cute::Shape<cute::_" + std::to_string(config.cluster_m) + ", cute::_" +
       std::to_string(config.cluster_n) + ", cute::_1>;\n";
  b += "using FusionOp = " + fusion + ";\n";
  const std::string tma_schedule = std::string("cutlass::epilogue::") +
                                   (coop ? "TmaWarpSpecializedCooperative" : "TmaWarpSpecialized");
  b += "template <class EpilogueSchedule, int kAlignDK>\nstruct GemmOf {\n";
  b += "  using Epilogue = typename cutlass::epilogue::collective::CollectiveBuilder<\n"
       "      cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, TileShape, ClusterShape,\n"
       "      cutlass::epilogue::collective::EpilogueTileAuto, float, float, ElementC, LayoutD,\n"
       "      kAlignDK, ElementD, LayoutD, kAlignDK, EpilogueSchedule, FusionOp>::CollectiveOp;\n";
  b += std::string(fp8 ? "  using Mainloop = boo_kernels::Fp8Mainloop<" : "  using Mainloop = ") +
       "typename cutlass::gemm::collective::CollectiveBuilder<\n"
       "      cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, ElementA, LayoutA, kMmaAlignA,\n"
       "      ElementB, LayoutB, kMmaAlignB, float, TileShape, ClusterShape,\n"
       "      cutlass::gemm::collective::StageCountAutoCarveout<static_cast<int>(\n"
       "          sizeof(typename Epilogue::SharedStorage))>,\n"
       "      cutlass::gemm::" +
       std::string(coop ? "KernelTmaWarpSpecializedCooperative"
                        : "KernelTmaWarpSpecializedPingpong") +
       ">::CollectiveOp" +
       (fp8 ? ", " + std::to_string(space::gemm_sm90_accumulators(config)) + ">" : "") + ";\n";
  b += "  using Kernel = cutlass::gemm::kernel::GemmUniversal<cute::Shape<int, int, int, int>,\n"
       "      Mainloop, Epilogue, cutlass::gemm::" +
       std::string(stream_k ? "StreamKScheduler" : "PersistentScheduler") + ">;\n";
  b += "  using Gemm = cutlass::gemm::device::GemmUniversalAdapter<Kernel>;\n};\n";
  b += "using Gemm = GemmOf<" + tma_schedule + ", kAlignD>::Gemm;\n";
  if (direct_d_possible) {
    b += "using GemmDirect = GemmOf<cutlass::epilogue::NoSmemWarpSpecialized, 1>::Gemm;\n";
  }
  // Behind the padded copies the bias buffer is a multiple of 16 bytes long.
  const std::string sm90_runner =
      parallel ? "boo_kernels::GemmSm90Runner<Gemm, false, false, false, false, kAlignA, kAlignB, "
                 "kAlignD>"
               : "boo_kernels::GemmSm90Runner<Gemm, " + bool_text(c.has_c) + ", " +
                     bool_text(c.bias) + ", " + bool_text(c.scaled) + ", " + bool_text(stream_k) +
                     ", kAlignA, kAlignB, kAlignD" +
                     (config.unaligned ? ", true>"
                      : swap           ? ", false, true>"
                                       : ">");
  if (parallel) {
    b += "using Runner = boo_kernels::GemmSplitParallelRunner<" + sm90_runner + ", " +
         cuda_type(c.d) + ", " + cuda_type(c.bias ? c.bias_type : DType::kF32) + ", " +
         std::to_string(static_cast<int>(c.activation)) + ", " + bool_text(c.has_c) + ", " +
         bool_text(c.bias) + ", " + bool_text(c.scaled) + ", kAlignA, kAlignB>;\n";
  } else if (config.unaligned) {
    auto bytes = [](DType t) { return std::to_string(core::dtype_bytes(t)); };
    b += "using Runner = boo_kernels::GemmPaddedRunner<" + sm90_runner + ", " + bytes(c.a) + ", " +
         bytes(c.b) + ", " + bytes(c.d) + ", " + bytes(c.bias ? c.bias_type : DType::kF32) +
         ", kAlignA, kAlignB, kAlignD, " + bool_text(c.has_c) + ", " + bool_text(c.bias) +
         (direct_d_possible ? ", boo_kernels::GemmSm90Runner<GemmDirect, " + bool_text(c.has_c) +
                                  ", " + bool_text(c.bias) + ", " + bool_text(c.scaled) + ", " +
                                  bool_text(stream_k) + ", kAlignA, kAlignB, 1, true, false, true>"
                            : ", void") +
         ", " + bool_text(k_major) + ">;\n";
  } else {
    b += "using Runner = " + sm90_runner + ";\n";
  }
  b += "}  // namespace\n\n";
  b += "BOO_GEMM_ENTRY_POINTS(Runner, \"" + name + "\")\n";
  return finish(name, b);
}

core::Expected<KernelSource> gemm_skinny_source(const space::GemmSkinnyConfig& config) {
  BOO_RETURN_IF_ERROR(space::check_gemm_skinny(config));
  const GemmClass& c = config.cls;
  const std::string name = config.kernel_name();
  // The large operand R is op(A) for a narrow N, op(B)^T for a narrow M.
  const DType tr = config.narrow_m ? c.b : c.a;
  const DType ts = config.narrow_m ? c.a : c.b;
  std::string b;
  b += "#include \"gemm_skinny.cuh\"\n\n";
  b += "namespace {\n";
  b += "using Runner = boo_kernels::GemmSkinnyRunner<" + cuda_type(tr) + ", " + cuda_type(ts) +
       ", " + cuda_type(c.d) + ", " + cuda_type(c.bias ? c.bias_type : DType::kF32) + ", " +
       std::to_string(static_cast<int>(c.activation)) + ", " + bool_text(c.has_c) + ", " +
       bool_text(c.bias) + ", " + bool_text(c.alpha_vector) + ", " + bool_text(config.narrow_m) +
       (config.stream ? ", true" : "") + ">;\n";
  b += "}  // namespace\n\n";
  b += "BOO_GEMM_ENTRY_POINTS(Runner, \"" + name + "\")\n";
  return finish(name, b);
}

core::Expected<KernelSource> gemm_fallback_source(const GemmClass& c) {
  const std::string name = std::string(kGemmFallbackPrefix) + c.name();
  std::string b;
  b += "#include \"gemm_fallback.cuh\"\n\n";
  b += "namespace {\n";
  b += "using Runner = boo_kernels::GemmFallbackRunner<" + cuda_type(c.a) + ", " + cuda_type(c.b) +
       ", " + cuda_type(c.d) + ", " + cuda_type(c.bias ? c.bias_type : DType::kF32) + ", " +
       std::to_string(static_cast<int>(c.activation)) + ", " + bool_text(c.has_c) + ", " +
       bool_text(c.bias) + ", " + bool_text(c.alpha_vector) + ">;\n";
  b += "}  // namespace\n\n";
  b += "BOO_GEMM_ENTRY_POINTS(Runner, \"" + name + "\")\n";
  return finish(name, b);
}

}  // namespace boo::codegen
