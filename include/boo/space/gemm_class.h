// GemmClass: the part of a GemmProblem that changes generated GEMM code — operand types, math,
// transposes and the epilogue (C operand, bias and its type, activation). Problems of one class
// share kernels; sizes, leading dimensions, strides and alpha/beta are launch arguments.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "boo/core/dtype.h"
#include "boo/core/status.h"
#include "boo/ops/gemm_problem.h"

namespace boo::space {

struct GemmClass {
  core::DType a = core::DType::kBF16;
  core::DType b = core::DType::kBF16;
  core::DType d = core::DType::kBF16;
  bool has_c = false;  // beta != 0: C is read (of type d)
  core::MathMode math = core::MathMode::kF32;
  ops::Transpose trans_a = ops::Transpose::kT;
  ops::Transpose trans_b = ops::Transpose::kN;
  bool bias = false;
  core::DType bias_type = core::DType::kF32;  // meaningful only with a bias
  ops::Activation activation = ops::Activation::kNone;
  bool alpha_vector = false;
  bool scaled = false;  // per-tensor fp8 scales (scaleA or scaleB)

  bool operator==(const GemmClass&) const = default;

  // e.g. "bf16.bf16.void.bf16_f32acc_tn_bias.bf16.gelu-tanh" (the activation spells '_' as '-'
  // so that '_' separates fields; "_avec" and "_scaled" follow when set).
  std::string name() const;
  // Parses name(); `text` must be exactly a class name.
  static core::Expected<GemmClass> parse_name(std::string_view text);
};

GemmClass gemm_class_of(const ops::GemmProblem& p);

// An activation's name in config names ('_' spelled '-', since '_' separates fields), and back.
std::string act_token(ops::Activation a);
core::Expected<ops::Activation> parse_act_token(std::string_view token);

// Every class a GEMM algorithm may be asked about in tests: 16-bit and tf32 types, all
// transposes, every epilogue shape.
std::vector<GemmClass> sample_gemm_classes();

}  // namespace boo::space
