// conv.direct: the always-correct convolution (kernels/conv_direct.cuh), one translation unit
// per class. The runner takes sizes, strides and layouts at launch, so the class fixes only the
// element type, the direction and the forward epilogue; the math mode does not matter (the
// kernel forms exact fp32 products) and the spatial dimensions only name the kernel.
#include "boo/codegen/conv_codegen.h"
#include "codegen_util.h"

namespace boo::codegen {

core::Expected<KernelSource> conv_direct_source(const space::ConvClass& cls) {
  if (core::is_fp8(cls.dtype)) {
    return core::unsupported("conv.direct: no fp8 convolutions (class " + cls.name() + ")");
  }
  const bool forward = cls.direction == ops::ConvDirection::kForward;
  if (!forward && (cls.bias || cls.activation != ops::Activation::kNone)) {
    return core::invalid_argument(
        "conv.direct: bias and activation belong to the forward pass (class " + cls.name() + ")");
  }
  const std::string name = std::string(kConvDirectPrefix) + cls.name();
  std::string b;
  b += "#include \"conv_direct.cuh\"\n\n";
  b += "namespace {\n";
  b += "using Runner = boo_kernels::ConvDirectRunner<" + cuda_type(cls.dtype) + ", " +
       std::to_string(static_cast<int>(cls.direction)) + ", " + bool_text(cls.bias) + ", " +
       std::to_string(static_cast<int>(cls.activation)) + ">;\n";
  b += "}  // namespace\n\n";
  b += "BOO_CONV_ENTRY_POINTS(Runner, \"" + name + "\")\n";
  return finish(name, b);
}

}  // namespace boo::codegen
