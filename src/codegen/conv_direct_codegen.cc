// The direct convolution kernels of our own, one translation unit per class: conv.direct, the
// always-correct convolution (kernels/conv_direct.cuh), conv.depthwise, the depthwise kernels
// (kernels/conv_depthwise.cuh), conv.pointwise, the few-channel 1x1 forward kernel
// (kernels/conv_pointwise.cuh), and conv.grouped's direct kernel for narrow groups
// (kernels/conv_grouped_direct.cuh), and conv.split_wgrad's direct kernel for backward weight of
// small layers (kernels/conv_wgrad_direct.cuh), and conv.padded_channels' direct kernel for few
// input channels (kernels/conv_few_channels.cuh), and conv.sm90_taps, the wgmma kernel for
// stride-1 layers with C (forward) or K (backward data) a multiple of 8 up to 64
// (kernels/conv_taps_wgmma.cuh). Their
// runners take sizes, strides and layouts at launch, so the class fixes only the element type, the
// direction and the forward epilogue; the math mode does not matter (the kernels form exact fp32
// products), except for conv.split_wgrad's, which runs fp32 in tf32 only, and the spatial
// dimensions only name the kernel.
#include "boo/codegen/conv_codegen.h"
#include "codegen_util.h"

namespace boo::codegen {

namespace {

core::Status check_direct_class(std::string_view algorithm, const space::ConvClass& cls) {
  if (core::is_fp8(cls.dtype)) {
    return core::unsupported(std::string(algorithm) + ": no fp8 convolutions (class " + cls.name() +
                             ")");
  }
  if (cls.direction != ops::ConvDirection::kForward &&
      (cls.bias || cls.activation != ops::Activation::kNone)) {
    return core::invalid_argument(std::string(algorithm) +
                                  ": bias and activation belong to the forward pass (class " +
                                  cls.name() + ")");
  }
  return core::Status::ok();
}

// Forward-only kernels refuse the backward classes.
core::Status check_forward(std::string_view kernel, const space::ConvClass& cls) {
  if (cls.direction == ops::ConvDirection::kForward) return core::Status::ok();
  return core::invalid_argument(std::string(kernel) + " runs the forward pass only (class " +
                                cls.name() + ")");
}

// The template arguments of a forward epilogue: "bias, activation".
std::string epilogue_args(const space::ConvClass& cls) {
  return bool_text(cls.bias) + ", " + std::to_string(static_cast<int>(cls.activation));
}

// An inner runner of element type T behind the channels-last copies.
std::string channels_last(const std::string& inner, const std::string& t) {
  return "boo_kernels::ConvChannelsLastRunner<" + inner + ", " + t + ">";
}

// `header` defines `runner` (a template of element type and, as the class asks, direction,
// bias and activation); the translation unit exports it under `name`.
core::Expected<KernelSource> direct_source(const std::string& name, std::string_view header,
                                           const std::string& runner) {
  std::string b;
  b += "#include \"" + std::string(header) + "\"\n\n";
  b += "namespace {\n";
  b += "using Runner = " + runner + ";\n";
  b += "}  // namespace\n\n";
  b += "BOO_CONV_ENTRY_POINTS(Runner, \"" + name + "\")\n";
  return finish(name, b);
}

}  // namespace

core::Expected<KernelSource> conv_direct_source(const space::ConvClass& cls) {
  BOO_RETURN_IF_ERROR(check_direct_class("conv.direct", cls));
  return direct_source(std::string(kConvDirectPrefix) + cls.name(), "conv_direct.cuh",
                       "boo_kernels::ConvDirectRunner<" + cuda_type(cls.dtype) + ", " +
                           std::to_string(static_cast<int>(cls.direction)) + ", " +
                           epilogue_args(cls) + ">");
}

core::Expected<KernelSource> conv_depthwise_source(const space::ConvClass& cls) {
  BOO_RETURN_IF_ERROR(check_direct_class("conv.depthwise", cls));
  const std::string t = cuda_type(cls.dtype);
  // Backward data is the forward kernel on dy with the filter flipped (stride 1, K = C);
  // backward weight a two-stage reduction of its own.
  // The forward pass takes packed NCHW tensors as they are where its plane kernel applies.
  std::string runner;
  if (cls.direction == ops::ConvDirection::kBackwardData) {
    runner = channels_last("boo_kernels::ConvDepthwiseDgradRunner<" + t + ">", t);
  } else if (cls.direction == ops::ConvDirection::kBackwardWeight) {
    runner = channels_last("boo_kernels::ConvDepthwiseWgradRunner<" + t + ">", t);
  } else {
    runner = "boo_kernels::ConvDepthwiseForwardRunner<" +
             channels_last(
                 "boo_kernels::ConvDepthwiseRunner<" + t + ", " + epilogue_args(cls) + ">", t) +
             ", " + t + ", " + epilogue_args(cls) + ">";
  }
  return direct_source(std::string(kConvDepthwisePrefix) + cls.name(), "conv_depthwise.cuh",
                       runner);
}

core::Expected<KernelSource> conv_pointwise_source(const space::ConvClass& cls) {
  BOO_RETURN_IF_ERROR(check_direct_class("conv.pointwise", cls));
  BOO_RETURN_IF_ERROR(check_forward("conv.pointwise", cls));
  const std::string t = cuda_type(cls.dtype);
  return direct_source(
      std::string(kConvPointwisePrefix) + cls.name(), "conv_pointwise.cuh",
      channels_last("boo_kernels::ConvPointwiseRunner<" + t + ", " + epilogue_args(cls) + ">", t));
}

core::Expected<KernelSource> conv_grouped_direct_source(const space::ConvClass& cls) {
  BOO_RETURN_IF_ERROR(check_direct_class("conv.grouped", cls));
  BOO_RETURN_IF_ERROR(check_forward("conv.grouped's direct kernel", cls));
  if (cls.dtype != core::DType::kF16 && cls.dtype != core::DType::kBF16) {
    return core::invalid_argument(
        "conv.grouped's direct kernel runs on fp16 and bf16 tensor cores only (class " +
        cls.name() + ")");
  }
  const std::string t = cuda_type(cls.dtype);
  return direct_source(
      std::string(kConvGroupedDirectPrefix) + cls.name(), "conv_grouped_direct.cuh",
      channels_last("boo_kernels::ConvGroupedRunner<" + t + ", " + epilogue_args(cls) + ">", t));
}

core::Expected<KernelSource> conv_split_wgrad_direct_source(const space::ConvClass& cls) {
  BOO_RETURN_IF_ERROR(check_direct_class("conv.split_wgrad", cls));
  if (cls.direction != ops::ConvDirection::kBackwardWeight) {
    return core::invalid_argument(
        "conv.split_wgrad's direct kernel runs backward weight only (class " + cls.name() + ")");
  }
  const bool tf32 = cls.dtype == core::DType::kF32 && cls.math == core::MathMode::kTF32;
  if (cls.dtype != core::DType::kF16 && cls.dtype != core::DType::kBF16 && !tf32) {
    return core::invalid_argument(
        "conv.split_wgrad's direct kernel runs on fp16, bf16 and tf32 tensor cores only (class " +
        cls.name() + ")");
  }
  const std::string t = cuda_type(cls.dtype);
  return direct_source(std::string(kConvSplitWgradDirectPrefix) + cls.name(),
                       "conv_wgrad_direct.cuh",
                       channels_last("boo_kernels::ConvWgradDirectRunner<" + t + ">", t));
}

core::Expected<KernelSource> conv_few_channels_source(const space::ConvClass& cls) {
  BOO_RETURN_IF_ERROR(check_direct_class("conv.padded_channels", cls));
  BOO_RETURN_IF_ERROR(check_forward("conv.padded_channels' direct kernel", cls));
  if (cls.dtype != core::DType::kF16 && cls.dtype != core::DType::kBF16) {
    return core::invalid_argument(
        "conv.padded_channels' direct kernel runs on fp16 and bf16 tensor cores only (class " +
        cls.name() + ")");
  }
  const std::string t = cuda_type(cls.dtype);
  return direct_source(
      std::string(kConvFewChannelsPrefix) + cls.name(), "conv_few_channels.cuh",
      channels_last("boo_kernels::ConvFewChannelsRunner<" + t + ", " + epilogue_args(cls) + ">",
                    t));
}

core::Expected<KernelSource> conv_sm90_taps_source(const space::ConvClass& cls) {
  BOO_RETURN_IF_ERROR(check_direct_class("conv.sm90_taps", cls));
  if (cls.direction == ops::ConvDirection::kBackwardWeight) {
    return core::invalid_argument(
        "conv.sm90_taps runs the forward pass and backward data only (class " + cls.name() + ")");
  }
  if (cls.dtype != core::DType::kF16 && cls.dtype != core::DType::kBF16) {
    return core::invalid_argument("conv.sm90_taps runs on fp16 and bf16 tensor cores only (class " +
                                  cls.name() + ")");
  }
  const std::string t = cuda_type(cls.dtype);
  return direct_source(
      std::string(kConvSm90TapsPrefix) + cls.name(), "conv_taps_wgmma.cuh",
      channels_last("boo_kernels::ConvTapsRunner<" + t + ", " + epilogue_args(cls) + ">", t));
}

const ConvOwnKernel* conv_own_kernel(std::string_view algorithm) {
  for (const ConvOwnKernel& k : kConvOwnKernels) {
    if (k.name == algorithm) return &k;
  }
  return nullptr;
}

}  // namespace boo::codegen
