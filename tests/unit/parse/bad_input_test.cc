// Bad input for every parser, through the default registry: each case must fail with the
// expected StatusCode and a one-line message that names the offending flag or field and value.
#include <gtest/gtest.h>

#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "boo/core/status.h"
#include "boo/parse/registry.h"

namespace boo::parse {
namespace {

using core::StatusCode;

constexpr StatusCode kInvalid = StatusCode::kInvalidArgument;
constexpr StatusCode kUnsupported = StatusCode::kUnsupported;

struct BadCase {
  std::string name;  // gtest parameter name
  std::string line;
  StatusCode code;
  std::vector<std::string> substrings;  // all must appear in the message
};

std::ostream& operator<<(std::ostream& os, const BadCase& c) { return os << c.line; }

// hipBLASLt: a valid line's required fields; `extra` (", key: value" ...) completes it.
std::string hip(const std::string& extra) {
  return "- {function: matmul, M: 128, N: 64, K: 32, transA: T, transB: N, a_type: bf16_r, "
         "b_type: bf16_r" +
         extra + "}";
}

// The valid hipBLASLt line with one of its fields' text replaced.
std::string hip_replace(const std::string& from, const std::string& to) {
  std::string line = hip("");
  line.replace(line.find(from), from.size(), to);
  return line;
}

// cuBLASLt: a valid fp16 trace line with the D layout and computeDesc replaceable.
constexpr char kCuPrefix[] = "[2023-04-07 04:57:13][cublasLt][8291][Trace][cublasLtMatmul] ";
constexpr char kCuA[] = "A=0X1 Adesc=[type=R_16F rows=32 cols=16 ld=32] ";
constexpr char kCuB[] = "B=0X2 Bdesc=[type=R_16F rows=16 cols=64 ld=16] ";
constexpr char kCuC[] = "C=0X3 Cdesc=[type=R_16F rows=32 cols=64 ld=32] ";
constexpr char kCuD[] = "D=0X3 Ddesc=[type=R_16F rows=32 cols=64 ld=32] ";
constexpr char kCuCompute[] = "computeDesc=[computeType=COMPUTE_32F scaleType=R_32F] ";
constexpr char kCuTail[] = "algo=[algoId=21] workSpace=0X0 workSpaceSizeInBytes=0 beta=0";

std::string cu(const std::string& ab, const std::string& d = kCuD,
               const std::string& compute = kCuCompute, const std::string& tail = kCuTail) {
  return kCuPrefix + ab + kCuC + d + compute + tail;
}
const std::string kCuAB = std::string(kCuA) + kCuB;

std::vector<BadCase> bad_cases() {
  std::vector<BadCase> v = {
      // --- MIOpen conv: flag syntax ---------------------------------------------------------
      {"conv_unknown_flag", "conv -n 1 -Q 3", kInvalid, {"unknown flag", "'-Q'"}},
      {"conv_unknown_long_flag", "conv --batch_size 4", kInvalid, {"'--batch_size'"}},
      {"conv_value_missing_at_end", "conv -n 1 -c", kInvalid, {"-c: missing value"}},
      {"conv_value_missing_before_flag", "conv -n -c 3", kInvalid, {"-n: missing value"}},
      {"conv_non_numeric", "conv -n abc", kInvalid, {"-n:", "'abc'"}},
      {"conv_non_integer", "conv -H 1.5", kInvalid, {"-H:", "'1.5'"}},
      {"conv_int_out_of_range",
       "conv -n 99999999999999999999",
       kInvalid,
       {"-n:", "'99999999999999999999'"}},
      {"conv_stray_word", "conv -n 1 foo", kInvalid, {"'foo'"}},
      {"conv_flag_given_twice", "conv -n 1 -n 2", kInvalid, {"-n:", "'1'", "'2'"}},
      {"conv_iter_zero", "conv -i 0", kInvalid, {"-i:", "got 0"}},
      // --- MIOpen conv: sizes ---------------------------------------------------------------
      {"conv_n_zero", "conv -n 0", kInvalid, {"-n:", "got 0"}},
      {"conv_n_negative", "conv -n -1", kInvalid, {"-n:", "got -1"}},
      {"conv_c_zero", "conv -c 0", kInvalid, {"-c:", "got 0"}},
      {"conv_c_negative", "conv -c -2", kInvalid, {"-c:", "got -2"}},
      {"conv_k_zero", "conv -k 0", kInvalid, {"-k:", "got 0"}},
      {"conv_k_negative", "conv -k -4", kInvalid, {"-k:", "got -4"}},
      {"conv_H_zero", "conv -H 0", kInvalid, {"-H:", "got 0"}},
      {"conv_H_negative", "conv -H -5", kInvalid, {"-H:", "got -5"}},
      {"conv_W_zero", "conv -W 0", kInvalid, {"-W:", "got 0"}},
      {"conv_W_negative", "conv -W -7", kInvalid, {"-W:", "got -7"}},
      {"conv_y_zero", "conv -y 0", kInvalid, {"-y:", "got 0"}},
      {"conv_y_negative", "conv -y -1", kInvalid, {"-y:", "got -1"}},
      {"conv_x_zero", "conv -x 0", kInvalid, {"-x:", "got 0"}},
      {"conv_x_negative", "conv -x -3", kInvalid, {"-x:", "got -3"}},
      {"conv_g_zero", "conv -g 0", kInvalid, {"-g:", "got 0"}},
      {"conv_g_negative", "conv -g -2", kInvalid, {"-g:", "got -2"}},
      {"conv_in_d_zero", "conv --spatial_dim 3 -! 0", kInvalid, {"-!:", "got 0"}},
      // The long form given: the message names it, not the short form the checks use.
      {"conv_in_d_zero_long", "conv --spatial_dim 3 --in_d 0", kInvalid, {"--in_d:", "got 0"}},
      {"conv_pad_h_negative_long", "conv --pad_h -1", kInvalid, {"--pad_h:", "got -1"}},
      {"conv_fil_w_zero_long", "conv --fil_w 0", kInvalid, {"--fil_w:", "got 0"}},
      {"conv_batchsize_zero_long", "conv --batchsize 0", kInvalid, {"--batchsize:", "got 0"}},
      {"conv_pad_h_negative", "conv -p -1", kInvalid, {"-p:", "got -1"}},
      {"conv_pad_w_negative", "conv -q -2", kInvalid, {"-q:", "got -2"}},
      {"conv_stride_h_zero", "conv -u 0", kInvalid, {"-u:", "got 0"}},
      {"conv_stride_w_zero", "conv -v 0", kInvalid, {"-v:", "got 0"}},
      {"conv_stride_d_zero", "conv --spatial_dim 3 -# 0", kInvalid, {"-#:", "got 0"}},
      {"conv_dilation_h_zero", "conv -l 0", kInvalid, {"-l:", "got 0"}},
      {"conv_dilation_w_zero", "conv -j 0", kInvalid, {"-j:", "got 0"}},
      {"conv_output_not_positive",
       "conv -n 1 -c 1 -k 1 -H 4 -W 4 -y 7 -x 7 -p 0 -q 0",
       kInvalid,
       {"output size -2", "-H 4", "-y 7"}},
      {"conv_c_not_divisible_by_g", "conv -c 6 -k 8 -g 4", kInvalid, {"-c 6", "-g 4"}},
      {"conv_k_not_divisible_by_g", "conv -c 8 -k 6 -g 4", kInvalid, {"-k 6", "-g 4"}},
      {"conv_element_count_overflow",
       "conv -n 4000000000 -c 4000000000 -H 4000000000",
       kInvalid,
       {"-n 4000000000", "-c 4000000000", "-H 4000000000", "overflows 64 bits"}},
      {"conv_spatial_above_2_40",
       "conv -H 10000000000000",
       kInvalid,
       {"-H 10000000000000", "2^40"}},
      {"conv_dilated_filter_overflow",
       "conv -H 10 -W 10 -y 1000000000000 -l 1000000000000",
       kInvalid,
       {"-y 1000000000000", "-l 1000000000000"}},
      {"conv_trans_output_overflow",
       "conv -m trans -n 1 -c 1 -k 1 -H 1000000000000 -W 1 -y 1 -x 1 -u 1000000000000",
       kInvalid,
       {"-H 1000000000000", "-u 1000000000000", "overflows 64 bits"}},
      // --- MIOpen conv: ops, modes, layouts, options ------------------------------------------
      {"conv_int8_unsupported", "convint8 -n 1", kUnsupported, {"convint8"}},
      {"conv_fp8_unsupported", "convfp8 -n 1", kUnsupported, {"convfp8"}},
      {"unknown_op", "convfoo -n 1", kInvalid, {"unknown op", "'convfoo'"}},
      {"driver_without_op", "./bin/MIOpenDriver", kInvalid, {"MIOpenDriver", "missing op"}},
      {"empty_line", "   ", kInvalid, {"empty command"}},
      {"conv_mode_not_conv_or_trans", "conv -m deconv", kInvalid, {"-m:", "'deconv'"}},
      {"conv_trans_output_pad_ge_stride",
       "conv -m trans -u 2 -Y 2",
       kInvalid,
       {"-Y:", "stride 2", "got 2"}},
      {"conv_trans_output_pad_negative", "conv -m trans -v 2 -X -1", kInvalid, {"-X:", "got -1"}},
      {"conv_trans_padding_too_large",
       "conv -n 1 -c 4 -k 4 -H 1 -W 5 -y 1 -x 3 -m trans -q 10",
       kInvalid,
       {"-W 5", "padding 10", "-m trans"}},
      {"conv_spatial_dim_4", "conv --spatial_dim 4", kInvalid, {"--spatial_dim:", "got 4"}},
      {"conv_2d_layout_with_3d",
       "conv --spatial_dim 3 --in_layout NCHW",
       kInvalid,
       {"--in_layout:", "'NCHW'", "3D"}},
      {"conv_3d_layout_with_2d",
       "conv --out_layout NDHWC",
       kInvalid,
       {"--out_layout:", "'NDHWC'", "2D"}},
      {"conv_chwn_layout", "conv --fil_layout CHWN", kInvalid, {"--fil_layout:", "'CHWN'"}},
      {"conv_chwn_layout_short", "conv -I chwn", kInvalid, {"-I:", "'CHWN'"}},
      {"conv_forw_8", "conv -F 8", kInvalid, {"-F:", "got 8"}},
      {"conv_forw_negative", "conv -F -1", kInvalid, {"-F:", "got -1"}},
      {"conv_bias_2", "conv -b 2", kInvalid, {"-b:", "got 2"}},
      {"conv_unknown_activation", "conv --activation mish", kInvalid, {"--activation:", "'mish'"}},
      {"conv_bias_without_forward", "conv -b 1 -F 2", kInvalid, {"-b/--activation", "-F 2"}},
      {"conv_activation_with_trans",
       "conv -m trans --activation relu -F 1",
       kUnsupported,
       {"--activation", "-m trans"}},
      {"conv_math_tf32_bf16", "convbfp16 --math tf32", kInvalid, {"--math tf32", "convbfp16"}},
      {"conv_math_unknown", "conv --math fp64", kInvalid, {"--math:", "'fp64'"}},
      {"conv_pad_mode_unknown", "conv -z bogus", kInvalid, {"-z:", "'bogus'"}},
      {"conv_pad_val_unsupported", "conv -r 1", kUnsupported, {"-r 1"}},
      {"conv_vector_length_unsupported", "conv -L 4", kUnsupported, {"-L 4"}},
      {"conv_cast_type_unsupported", "conv -U fp8", kUnsupported, {"-U fp8"}},
      // --- layer norm -----------------------------------------------------------------------
      {"ln_zero_dim", "layernorm -X 8x0x4 -o 2", kInvalid, {"-X 8x0x4", "got 0"}},
      {"ln_zero_dim_long", "layernorm --input 8x0x4 -o 2", kInvalid, {"--input 8x0x4", "got 0"}},
      {"ln_negative_dim", "layernorm -X 8x-2 -o 1", kInvalid, {"-X 8x-2", "got -2"}},
      {"ln_non_numeric_dim", "layernorm -X 8xax4 -o 1", kInvalid, {"-X", "'8xax4'", "'a'"}},
      {"ln_empty_dim", "layernorm -X 8xx4 -o 1", kInvalid, {"-X", "'8xx4'"}},
      {"ln_default_o_out_of_range",
       "layernorm -X 8x4",
       kInvalid,
       {"-o:", "-X 8x4", "got 3", "default; pass -o"}},
      {"ln_o_too_large", "layernorm -X 8x4 -o 2", kInvalid, {"-o:", "got 2"}},
      {"ln_o_negative", "layernorm -X 8x4 -o -1", kInvalid, {"-o:", "got -1"}},
      {"ln_forw_3", "layernorm -X 8x4 -o 1 -F 3", kInvalid, {"-F:", "got 3"}},
      {"ln_forw_16", "layernorm -X 8x4 -o 1 -F 16", kInvalid, {"-F:", "got 16"}},
      {"ln_forw_4_without_affine", "layernorm -X 8x4 -o 1 -F 4 -m 0", kInvalid, {"-F 4", "-m"}},
      {"ln_mode_2", "layernorm -X 8x4 -o 1 -m 2", kInvalid, {"-m:", "got 2"}},
      {"ln_eps_negative", "layernorm -X 8x4 -o 1 -e -0.5", kInvalid, {"-e:", "-0.5"}},
      {"ln_eps_non_numeric", "layernorm -X 8x4 -o 1 -e abc", kInvalid, {"-e:", "'abc'"}},
      {"ln_eps_not_finite", "layernorm -X 8x4 -o 1 -e 1e400", kInvalid, {"-e:", "'1e400'"}},
      {"ln_layout_suffix", "layernorm -X 8x4x2x2,NCHW -o 3", kUnsupported, {"-X", "8x4x2x2,NCHW"}},
      {"ln_element_count_overflow",
       "layernorm -X 4000000000x4000000000x4000000000 -o 1",
       kInvalid,
       {"-X 4000000000x4000000000x4000000000", "overflows 64 bits"}},
      // --- MIOpen gemm ----------------------------------------------------------------------
      {"gemm_m_zero", "gemm -m 0", kInvalid, {"-m:", "got 0"}},
      {"gemm_n_negative", "gemm -n -3", kInvalid, {"-n:", "got -3"}},
      {"gemm_k_zero", "gemm -k 0", kInvalid, {"-k:", "got 0"}},
      {"gemm_col_major_2", "gemm -C 2", kInvalid, {"-C:", "got 2"}},
      {"gemm_trans_a_5", "gemm -u 5", kInvalid, {"-u:", "got 5"}},
      {"gemm_batch_zero", "gemm -b 0", kInvalid, {"-b:", "got 0"}},
      {"gemm_alpha_non_numeric", "gemm -A x", kInvalid, {"-A:", "'x'"}},
      {"gemm_backward_unsupported", "gemm -F 2", kUnsupported, {"-F 2"}},
      {"gemm_batch_stride_overflow",
       "gemm -m 4000000000 -n 4000000000 -k 4000000000 -b 2",
       kInvalid,
       {"-b 2", "-m 4000000000", "overflows 64 bits"}},
      // --- hipBLASLt YAML -------------------------------------------------------------------
      {"hip_truncated",
       "- {function: matmul, M: 128, N: 64, K: 32",
       kInvalid,
       {"missing closing '}'"}},
      {"hip_missing_M",
       "- {function: matmul, N: 64, K: 32, transA: T, transB: N, a_type: bf16_r, b_type: bf16_r}",
       kInvalid,
       {"missing field 'M'"}},
      {"hip_non_numeric_lda", hip(", lda: abc"), kInvalid, {"lda:", "'abc'"}},
      {"hip_lda_below_rows", hip(", lda: 16"), kInvalid, {"lda:", ">= 32", "got 16"}},
      {"hip_ldc_below_M", hip(", ldc: 100"), kInvalid, {"ldc:", ">= 128", "got 100"}},
      {"hip_M_negative",
       "- {function: matmul, M: -5, N: 64, K: 32, transA: T, transB: N, "
       "a_type: bf16_r, b_type: bf16_r}",
       kInvalid,
       {"M:", "got -5"}},
      {"hip_unknown_field", hip(", foo_bar: 7"), kInvalid, {"'foo_bar'", "'7'"}},
      {"hip_duplicate_field", hip(", M: 256"), kInvalid, {"'M'", "twice", "'128'", "'256'"}},
      {"hip_unknown_a_type",
       hip_replace("a_type: bf16_r", "a_type: q7_r"),
       kInvalid,
       {"a_type", "'q7_r'"}},
      {"hip_fnuz_fp8",
       "- {function: matmul, M: 128, N: 64, K: 32, transA: T, transB: N, "
       "a_type: f8_fnuz_r, b_type: f8_fnuz_r}",
       kUnsupported,
       {"a_type", "f8_fnuz_r"}},
      {"hip_gradient", hip(", gradient: true"), kUnsupported, {"gradient", "true"}},
      {"hip_gradient_not_bool", hip(", gradient: maybe"), kInvalid, {"gradient:", "'maybe'"}},
      {"hip_use_e", hip(", use_e: true"), kUnsupported, {"use_e", "true"}},
      {"hip_scaleA_vector", hip(", scaleA: 2"), kUnsupported, {"scaleA 2"}},
      {"hip_scaleA_block", hip(", scaleA: 3"), kUnsupported, {"scaleA 3"}},
      {"hip_scaleB_negative", hip(", scaleB: -1"), kInvalid, {"scaleB:", "got -1"}},
      {"hip_activation_clamp",
       hip(", activation_type: clamp"),
       kUnsupported,
       {"activation_type", "clamp"}},
      {"hip_activation_unknown",
       hip(", activation_type: mish"),
       kInvalid,
       {"activation_type:", "'mish'"}},
      {"hip_compute_f16",
       hip(", compute_type: c_f16_r"),
       kUnsupported,
       {"compute_type", "'c_f16_r'"}},
      {"hip_tf32_with_bf16",
       hip(", compute_type: c_xf32_r"),
       kInvalid,
       {"compute_type c_xf32_r", "bf16_r"}},
      {"hip_function_not_matmul",
       "- {function: something_else, M: 128, N: 64, K: 32}",
       kUnsupported,
       {"function", "'something_else'"}},
      {"hip_batch_overlapping_stride_d",
       hip(", ldd: 128, batch_count: 2, stride_a: 4096, stride_b: 2048, stride_c: 8192, "
           "stride_d: 100"),
       kInvalid,
       {"stride_d:", ">= 8192", "got 100"}},
      {"hip_text_after_brace", hip("") + " trailing", kInvalid, {"after '}'", "'trailing'"}},
      {"hip_nested_brace", hip(", nested: {a: 1}"), kInvalid, {"'nested'", "nested '{'"}},
      {"hip_trans_X", hip_replace("transA: T", "transA: X"), kInvalid, {"transA:", "'X'"}},
      {"hip_bias_source_a",
       hip(", bias_vector: true, bias_source: a"),
       kUnsupported,
       {"bias_source", "'a'"}},
      {"hip_scale_type_f16", hip(", scale_type: f16_r"), kUnsupported, {"scale_type", "'f16_r'"}},
      {"hip_complex_alpha", hip(", alphai: 1.0"), kUnsupported, {"alphai 1"}},
      {"hip_batch_mode", hip(", batch_mode: 1"), kUnsupported, {"batch_mode 1"}},
      {"hip_call_count_zero", hip(", call_count: 0"), kInvalid, {"call_count:", "got 0"}},
      {"hip_swizzle", hip(", swizzleA: true"), kUnsupported, {"swizzleA", "true"}},
      {"hip_mixed_inputs",
       hip_replace("b_type: bf16_r", "b_type: f16_r"),
       kUnsupported,
       {"a_type bf16_r", "b_type f16_r"}},
      {"hip_fp8_output", hip(", d_type: f8_r"), kUnsupported, {"d_type f8_r"}},
      {"hip_alpha_nan", hip(", alpha: nan"), kInvalid, {"alpha:", "'nan'"}},
      {"hip_size_overflow",
       "- {function: matmul, M: 4000000000, N: 4000000000, K: 4000000000, transA: T, "
       "transB: N, a_type: bf16_r, b_type: bf16_r}",
       kInvalid,
       {"lda 4000000000", "overflows 64 bits"}},
      // --- cuBLASLt trace -------------------------------------------------------------------
      {"cu_missing_Ddesc", cu(kCuAB, ""), kInvalid, {"missing Ddesc"}},
      {"cu_missing_computeDesc", cu(kCuAB, kCuD, ""), kInvalid, {"missing computeDesc"}},
      {"cu_unclosed_bracket_at_end",
       kCuPrefix + kCuAB + kCuC + "D=0X3 Ddesc=[type=R_16F rows=32",
       kInvalid,
       {"'Ddesc=['", "no closing ']'"}},
      {"cu_unclosed_bracket_mid_line",
       cu(kCuAB, "D=0X3 Ddesc=[type=R_16F rows=32 cols=64 "),
       kInvalid,
       {"'Ddesc=['", "no closing ']'"}},
      {"cu_inconsistent_rows",
       cu(kCuAB, "D=0X3 Ddesc=[type=R_16F rows=48 cols=64 ld=48] "),
       kInvalid,
       {"inconsistent", "Ddesc rows=48 cols=64", "Adesc rows=32 cols=16"}},
      {"cu_int8_type",
       cu("A=0X1 Adesc=[type=R_8I rows=32 cols=16 ld=32] B=0X2 Bdesc=[type=R_8I rows=16 "
          "cols=64 ld=16] "),
       kUnsupported,
       {"Adesc", "type=R_8I"}},
      {"cu_epilogue_unsupported",
       cu(kCuAB, kCuD, "computeDesc=[computeType=COMPUTE_32F epilogue=EPILOGUE_DGELU_BGRAD] "),
       kUnsupported,
       {"epilogue=EPILOGUE_DGELU_BGRAD"}},
      {"cu_compute_16f",
       cu(kCuAB, kCuD, "computeDesc=[computeType=COMPUTE_16F] "),
       kUnsupported,
       {"computeType=COMPUTE_16F"}},
      {"cu_transa_op_c",
       cu(kCuAB, kCuD, "computeDesc=[transa=OP_C] "),
       kUnsupported,
       {"transa=OP_C"}},
      {"cu_rows_non_numeric",
       cu(kCuAB, "D=0X3 Ddesc=[type=R_16F rows=abc cols=64 ld=32] "),
       kInvalid,
       {"Ddesc rows", "'abc'"}},
      {"cu_rows_missing",
       cu(kCuAB, "D=0X3 Ddesc=[type=R_16F cols=64 ld=32] "),
       kInvalid,
       {"Ddesc", "rows="}},
      {"cu_batch_count_mismatch",
       cu(kCuAB, "D=0X3 Ddesc=[type=R_16F rows=32 cols=64 ld=32 batchCount=2] "),
       kInvalid,
       {"Adesc batchCount=1", "Ddesc batchCount=2"}},
      {"cu_beta_non_numeric", cu(kCuAB, kCuD, kCuCompute, "beta=zz"), kInvalid, {"beta:", "'zz'"}},
      {"cu_stray_word", cu(kCuAB, kCuD, kCuCompute, "garbage"), kInvalid, {"'garbage'"}},
      {"cu_ld_below_rows",
       cu("A=0X1 Adesc=[type=R_16F rows=32 cols=16 ld=8] " + std::string(kCuB)),
       kInvalid,
       {"lda:", "got 8"}},
      {"miopen_time_not_a_switch",
       "conv -n 1 -c 8 -H 5 -W 5 -k 4 -y 3 -x 3 -t 5",
       kInvalid,
       {"-t:", "expected 0 or 1", "got 5"}},
      {"miopen_verify_not_a_switch",
       "conv -n 1 -c 8 -H 5 -W 5 -k 4 -y 3 -x 3 --verify -3",
       kInvalid,
       {"--verify:", "expected 0 or 1", "got -3"}},
      {"cu_not_matmul",
       "[2023-04-07 04:57:13][cublasLt][8291][Trace][cublasLtMatmulAlgoGetIds] x=1",
       kInvalid,
       {"cublasLtMatmul"}},
  };
  return v;
}

class BadInputTest : public testing::TestWithParam<BadCase> {};

TEST_P(BadInputTest, FailsWithCodeAndOneLineMessageNamingFlagAndValue) {
  const BadCase& c = GetParam();
  const auto result = make_default_registry().parse(c.line);
  ASSERT_FALSE(result.has_value()) << "accepted: " << c.line;
  const core::Status s = result.status();
  EXPECT_EQ(s.code(), c.code) << s.to_string();
  ASSERT_FALSE(c.substrings.empty());
  for (const std::string& sub : c.substrings) {
    EXPECT_NE(s.message().find(sub), std::string::npos)
        << "message lacks \"" << sub << "\": " << s.message();
  }
  EXPECT_EQ(s.message().find('\n'), std::string::npos) << s.message();
  EXPECT_FALSE(s.message().empty());
}

INSTANTIATE_TEST_SUITE_P(BadInput, BadInputTest, testing::ValuesIn(bad_cases()),
                         [](const testing::TestParamInfo<BadCase>& info) {
                           return info.param.name;
                         });

TEST(BadInputTable, HasEnoughDistinctCases) {
  const std::vector<BadCase> cases = bad_cases();
  EXPECT_GE(cases.size(), 45u);
  std::set<std::string> lines;
  for (const BadCase& c : cases) lines.insert(c.line);
  EXPECT_EQ(lines.size(), cases.size()) << "two cases test the same line";
}

}  // namespace
}  // namespace boo::parse
