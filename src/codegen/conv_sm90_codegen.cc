// conv.sm90_implicit configs to CUDA source: CUTLASS 3 conv collective builders (sm90 GMMA,
// TMA im2col) + epilogue builder with the bias/activation fusion, wrapped for any layout.
#include "boo/codegen/conv_codegen.h"
#include "codegen_util.h"

namespace boo::codegen {
namespace {

using core::DType;
using ops::ConvDirection;

std::string_view cutlass_operator(ConvDirection d) {
  switch (d) {
    case ConvDirection::kForward:
      return "cutlass::conv::Operator::kFprop";
    case ConvDirection::kBackwardData:
      return "cutlass::conv::Operator::kDgrad";
    case ConvDirection::kBackwardWeight:
      return "cutlass::conv::Operator::kWgrad";
  }
  return "";
}

// Layout tags of CUTLASS conv: activations N(D)(H)WC; a filter written by wgrad K(C)S(R)(T).
std::string activation_layout(int dims) {
  return dims == 1   ? "cutlass::layout::TensorNWC"
         : dims == 2 ? "cutlass::layout::TensorNHWC"
                     : "cutlass::layout::TensorNDHWC";
}
std::string filter_output_layout(int dims) {
  return dims == 1   ? "cutlass::layout::TensorKCS"
         : dims == 2 ? "cutlass::layout::TensorKCSR"
                     : "cutlass::layout::TensorKCSRT";
}

}  // namespace

core::Expected<KernelSource> conv_sm90_source(const space::ConvSm90Config& config) {
  BOO_RETURN_IF_ERROR(space::check_conv_sm90(config));
  const space::ConvClass& c = config.cls;
  const std::string element = cutlass_type(c.dtype);
  const std::string act = cutlass_activation(c.activation);
  // The output is ((pixels), K) with K contiguous: the per-channel bias runs along the GEMM's
  // N mode, a per-column bias in CUTLASS's terms.
  std::string fusion;
  const bool split = config.wgrad_splits > 0;
  if (split) {
    // Each slice writes fp32 partial sums; the split runner reduces them.
    fusion = "cutlass::epilogue::fusion::LinearCombination<float, float, float, float>";
  } else if (c.bias && !act.empty()) {
    fusion = "cutlass::epilogue::fusion::LinCombPerColBiasEltAct<" + act +
             ", Element, float, Element, Element, float>";
  } else if (c.bias) {
    fusion =
        "cutlass::epilogue::fusion::LinCombPerColBias<Element, float, Element, Element, float>";
  } else if (!act.empty()) {
    fusion =
        "cutlass::epilogue::fusion::LinCombEltAct<" + act + ", Element, float, Element, float>";
  } else {
    fusion = "cutlass::epilogue::fusion::LinearCombination<Element, float, Element, float>";
  }
  const std::string out_layout = c.direction == ConvDirection::kBackwardWeight
                                     ? filter_output_layout(c.spatial_dims)
                                     : activation_layout(c.spatial_dims);
  const std::string name = config.name();
  std::string b;
  b += "#include \"conv_sm90.cuh\"\n";
  if (config.persistent()) b += "#include \"conv_sm90_persistent.cuh\"\n";
  b += "#include \"conv_relayout.cuh\"\n";
  b += "#include \"conv_space_to_depth.cuh\"\n";
  b += "#include \"conv_grouped.cuh\"\n";
  b += "#include \"conv_split_wgrad.cuh\"\n";
  if (config.dgrad_phases) b += "#include \"conv_dgrad_phases.cuh\"\n";
  b += "#include \"cutlass/conv/collective/collective_builder.hpp\"\n";
  b += "#include \"cutlass/conv/kernel/conv_universal.hpp\"\n";
  b += "#include \"cutlass/epilogue/collective/collective_builder.hpp\"\n";
  b += "#include \"cutlass/epilogue/fusion/operations.hpp\"\n";
  b += "#include \"cutlass/epilogue/thread/activation.h\"\n";
  b += "#include \"cutlass_activation.cuh\"\n\n";
  b += "namespace {\n";
  b += "using Element = " + element + ";\n";
  b += "constexpr int kAlign = " + std::to_string(16 / core::dtype_bytes(c.dtype)) + ";\n";
  b += std::string("using ElementOut = ") + (split ? "float" : "Element") + ";\n";
  b += std::string("constexpr int kAlignOut = ") + (split ? "4" : "kAlign") + ";\n";
  // Stride phases run backward data as the class's forward kernel.
  const ConvDirection kernel_direction =
      config.dgrad_phases ? ConvDirection::kForward : c.direction;
  b += "constexpr auto kOp = " + std::string(cutlass_operator(kernel_direction)) + ";\n";
  b += "using LayoutAct = " + activation_layout(c.spatial_dims) + ";\n";
  b += "using LayoutOut = " + out_layout + ";\n";
  // The reduction mode is a tuple (filter taps x channels); backward weight's N mode too (C
  // x filter taps): its tile is a rank-1 tuple, as CUTLASS's own wgrad tests write it.
  const std::string tile_n = c.direction == ConvDirection::kBackwardWeight
                                 ? "cute::Shape<cute::_" + std::to_string(config.tile_n) + ">"
                                 : "cute::_" + std::to_string(config.tile_n);
  b += "using TileShape = cute::Shape<cute::_" + std::to_string(config.tile_m) + ", " + tile_n +
       ", cute::Shape<cute::_" + std::to_string(config.tile_k) + ">>;\n";
  b += "using ClusterShape = cute::Shape<cute::_" + std::to_string(config.cluster_m) + ", cute::_" +
       std::to_string(config.cluster_n) + ", cute::_1>;\n";
  b += "using FusionOp = " + fusion + ";\n";
  b += "using Epilogue = typename cutlass::epilogue::collective::CollectiveBuilder<\n"
       "    cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, TileShape, ClusterShape,\n"
       "    cutlass::epilogue::collective::EpilogueTileAuto, float, float,\n"
       "    void, LayoutOut, kAlignOut, ElementOut, LayoutOut, kAlignOut,\n"
       "    cutlass::epilogue::" +
       std::string(config.schedule == space::ConvSchedule::kCooperative
                       ? "TmaWarpSpecializedCooperative"
                       : "TmaWarpSpecialized") +
       ", FusionOp>::CollectiveOp;\n";
  b += "using ProblemShape = cutlass::conv::ConvProblemShape<kOp, " +
       std::to_string(c.spatial_dims) + ">;\n";
  if (config.persistent()) {
    const std::string schedule = config.schedule == space::ConvSchedule::kCooperative
                                     ? "boo_kernels::ConvPersistentCooperative"
                                     : "boo_kernels::ConvPersistentPingpong";
    b += "using Mainloop = typename boo_kernels::ConvPersistentMainloop<" + schedule +
         ", kOp, Element, " + std::to_string(c.spatial_dims) +
         ", TileShape, ClusterShape,\n"
         "    static_cast<int>(sizeof(typename Epilogue::SharedStorage))>::CollectiveOp;\n";
    b += "using Kernel = boo_kernels::ConvPersistentKernel<ProblemShape, Mainloop, Epilogue>;\n";
  } else {
    const std::string stage_count =
        config.stages > 0
            ? "cutlass::conv::collective::StageCount<" + std::to_string(config.stages) + ">"
            : "cutlass::conv::collective::StageCountAutoCarveout<static_cast<int>(\n"
              "        sizeof(typename Epilogue::SharedStorage))>";
    b += "using Mainloop = typename cutlass::conv::collective::CollectiveBuilder<\n"
         "    cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, kOp,\n"
         "    Element, LayoutAct, kAlign, Element, LayoutAct, kAlign, float, TileShape,\n"
         "    ClusterShape, " +
         stage_count +
         ",\n"
         "    cutlass::conv::collective::KernelScheduleAuto>::CollectiveOp;\n";
    b += "using Kernel = cutlass::conv::kernel::ConvUniversal<ProblemShape, Mainloop, "
         "Epilogue>;\n";
  }
  b += "using Conv = cutlass::conv::device::ConvUniversalAdapter<Kernel>;\n";
  b += "using Inner = boo_kernels::ConvSm90Runner<Conv, " +
       std::to_string(static_cast<int>(kernel_direction)) + ", " + std::to_string(c.spatial_dims) +
       ", " + bool_text(c.bias) + (config.dgrad_phases ? ", true" : "") + ">;\n";
  // NCHW (or any other layout, or an unaligned pointer) runs through packed channels-last
  // copies in the workspace: GPU layout transforms, no host copies. Channel counts that are not
  // whole 16-byte vectors are padded with zeros in the same copies (conv.padded_channels).
  b += "using Relaid = boo_kernels::ConvChannelsLastRunner<" +
       std::string(config.dgrad_phases
                       ? "boo_kernels::ConvDgradPhasesRunner<Inner, " + cuda_type(c.dtype) + ">"
                       : "Inner") +
       ", " + cuda_type(c.dtype) + ", kAlign>;\n";
  if (split) {
    b += "using Runner = boo_kernels::ConvChannelsLastRunner<boo_kernels::ConvSplitWgradRunner<"
         "Inner, " +
         cuda_type(c.dtype) + ", " + std::to_string(config.wgrad_splits) + ">, " +
         cuda_type(c.dtype) + ">;\n";
  } else if (config.space_to_depth) {
    // The blocked channels fill whole 64-byte k-blocks (the smallest tile K).
    b += "using Runner = boo_kernels::ConvSpaceToDepthRunner<Relaid, " + cuda_type(c.dtype) + ", " +
         std::to_string(64 / core::dtype_bytes(c.dtype)) + ">;\n";
  } else if (config.dense_groups) {
    b += "using Runner = boo_kernels::ConvGroupDenseRunner<Relaid, " + cuda_type(c.dtype) + ">;\n";
  } else {
    b += "using Runner = Relaid;\n";
  }
  b += "}  // namespace\n\n";
  b += "BOO_CONV_ENTRY_POINTS(Runner, \"" + name + "\")\n";
  return finish(name, b);
}

}  // namespace boo::codegen
