// layernorm.rowwise (kernels/layernorm_rowwise.cuh): one translation unit per config. Every
// config field is a template argument of the runner (the element type, the direction, the
// vector width, threads per row, rows per block and the register items, 0 for stream); the
// sizes, eps, the affine flag and the parts of the backward are launch arguments. A backward
// register config also asserts that the kernel's shared memory is what the space computes.
#include "boo/codegen/layernorm_codegen.h"

#include "codegen_util.h"

namespace boo::codegen {

core::Expected<KernelSource> layernorm_rowwise_source(const space::LayerNormRowwiseConfig& config) {
  BOO_RETURN_IF_ERROR(space::check_layernorm_rowwise(config));
  const std::string name = config.name();
  std::string b;
  b += "#include \"layernorm_rowwise.cuh\"\n\n";
  b += "namespace {\n";
  b += "using Runner = boo_kernels::LayerNormRowwiseRunner<" + cuda_type(config.dtype) + ", " +
       bool_text(config.backward) + ", " + std::to_string(config.vec) + ", " +
       std::to_string(config.threads) + ", " + std::to_string(config.rows) + ", " +
       std::to_string(config.items) + ">;\n";
  if (config.backward && config.items > 0) {
    // Dispatch's model reads the kernel's shared memory from the space
    // (LayerNormRowwiseConfig::backward_smem_bytes); the compiler checks that they agree.
    b += "static_assert(Runner::Shape::kPipelined == " + bool_text(config.backward_pipelined()) +
         " && Runner::Shape::kHolds == " + bool_text(config.backward_holds()) +
         " && Runner::Shape::kSmemBytes == " + std::to_string(config.backward_smem_bytes()) +
         ", \"space::LayerNormRowwiseConfig mirrors BackwardShape\");\n";
  }
  b += "}  // namespace\n\n";
  b += "BOO_LAYERNORM_ENTRY_POINTS(Runner, \"" + name + "\")\n";
  return finish(name, b);
}

}  // namespace boo::codegen
