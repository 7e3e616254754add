// Convolution configs to CUDA source: one translation unit per kernel exporting the C entry
// points of abi.h over BooConvArgs (DESIGN.md §4).
#pragma once

#include <string_view>

#include "boo/codegen/gemm_codegen.h"
#include "boo/core/status.h"
#include "boo/space/conv_sm90.h"

namespace boo::codegen {

// CUTLASS 3 ConvUniversal instance (check_conv_sm90 must hold). Tensors that are not packed
// channels-last run through copies into the workspace (kernels/conv_relayout.cuh).
core::Expected<KernelSource> conv_sm90_source(const space::ConvSm90Config& config);

// conv.direct: the always-correct kernel for a class (any layout, groups, stride, padding,
// dilation; every dtype; fp32 accumulation). The name is kConvDirectPrefix + class name.
core::Expected<KernelSource> conv_direct_source(const space::ConvClass& cls);
inline constexpr std::string_view kConvDirectPrefix = "conv.direct_";

// conv.depthwise: the forward depthwise kernel (G = C, K = m C) for a class, behind the
// channels-last copies of kernels/conv_relayout.cuh. The name is kConvDepthwisePrefix + class
// name.
core::Expected<KernelSource> conv_depthwise_source(const space::ConvClass& cls);
inline constexpr std::string_view kConvDepthwisePrefix = "conv.depthwise_";

// conv.pointwise: forward 1x1 convolutions (stride 1, no padding, groups 1) with at most 64
// input and 64 output channels, a pixel-streaming kernel behind the channels-last copies. The
// name is kConvPointwisePrefix + class name.
core::Expected<KernelSource> conv_pointwise_source(const space::ConvClass& cls);
inline constexpr std::string_view kConvPointwisePrefix = "conv.pointwise_";

// conv.grouped's direct kernel: forward grouped convolutions with C/G and K/G in 8..32 (multiples
// of 8), each group its own small implicit GEMM on mma.sync, behind the channels-last copies
// (kernels/conv_grouped_direct.cuh); 16-bit types only. The name is kConvGroupedDirectPrefix +
// class name. (conv.grouped's other configs are conv.sm90_implicit configs run on the dense
// expansion.)
core::Expected<KernelSource> conv_grouped_direct_source(const space::ConvClass& cls);
inline constexpr std::string_view kConvGroupedDirectPrefix = "conv.grouped_";

// conv.split_wgrad's direct kernel: backward weight with C and K multiples of 8, every tap of a
// tile of pixels multiplied out of one staging of dy and x in shared memory, on mma.sync, the
// pixels split into fp32 slices summed in a fixed order (kernels/conv_wgrad_direct.cuh); 16-bit
// types, and fp32 in tf32 math (not --math fp32). The name is kConvSplitWgradDirectPrefix + class
// name. (conv.split_wgrad's other configs are conv.sm90_implicit configs run on slices of the
// batch.)
core::Expected<KernelSource> conv_split_wgrad_direct_source(const space::ConvClass& cls);
inline constexpr std::string_view kConvSplitWgradDirectPrefix = "conv.split_wgrad_";

// conv.padded_channels' direct kernel: forward convolutions with at most 16 input channels (the
// C = 3 stems), K a multiple of 8, on mma.sync without padding the channels: the reduction runs
// over each filter row's taps x channels as consecutive elements of the staged input
// (kernels/conv_few_channels.cuh); 16-bit types only. The name is kConvFewChannelsPrefix + class
// name. (conv.padded_channels' other configs are conv.sm90_implicit configs run behind the
// padding copies.)
core::Expected<KernelSource> conv_few_channels_source(const space::ConvClass& cls);
inline constexpr std::string_view kConvFewChannelsPrefix = "conv.padded_channels_";

// conv.sm90_taps: forward convolutions of stride 1 with C = 64 and K a multiple of 64, at most 9
// taps (1D and 2D), on wgmma: every tap a shifted descriptor into one TMA-staged input tile, the
// output stored by TMA (kernels/conv_taps_wgmma.cuh); backward data of stride 1 with K = 64 as
// the forward pass over dy with the filter turned around; 16-bit types only. The name is
// kConvSm90TapsPrefix + class name.
core::Expected<KernelSource> conv_sm90_taps_source(const space::ConvClass& cls);
inline constexpr std::string_view kConvSm90TapsPrefix = "conv.sm90_taps_";

// The direct kernels of our own, each with one config per class (prefix + class name) and its
// generator: the one list that dispatch (forced configs, tuning-DB rows, sources) and
// `boo codegen` read.
struct ConvOwnKernel {
  std::string_view name;  // the algorithm
  std::string_view prefix;
  core::Expected<KernelSource> (*source)(const space::ConvClass&);
};
inline constexpr ConvOwnKernel kConvOwnKernels[] = {
    {"conv.direct", kConvDirectPrefix, &conv_direct_source},
    {"conv.depthwise", kConvDepthwisePrefix, &conv_depthwise_source},
    {"conv.pointwise", kConvPointwisePrefix, &conv_pointwise_source},
    {"conv.grouped", kConvGroupedDirectPrefix, &conv_grouped_direct_source},
    {"conv.split_wgrad", kConvSplitWgradDirectPrefix, &conv_split_wgrad_direct_source},
    {"conv.padded_channels", kConvFewChannelsPrefix, &conv_few_channels_source},
    {"conv.sm90_taps", kConvSm90TapsPrefix, &conv_sm90_taps_source}};
// The entry of `algorithm`, or nullptr.
const ConvOwnKernel* conv_own_kernel(std::string_view algorithm);

}  // namespace boo::codegen
