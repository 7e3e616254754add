#include "boo/parse/miopen_gemm.h"

#include "boo/core/strings.h"
#include "boo/core/tensor.h"
#include "boo/parse/flags.h"

namespace boo::parse {
namespace {

using core::Expected;
using core::invalid_argument;
using ops::Transpose;

constexpr std::string_view kOps[] = {"gemm", "gemmfp16", "gemmbfp16"};

const std::vector<FlagSpec>& gemm_flags() {
  // MIOpen's gemm_driver.hpp names, letters and defaults.
  static const std::vector<FlagSpec> kFlags = with_run_flags({
      {"forw", 'F', "1"},
      {"batch_count", 'b', "1"},
      {"isColMajor", 'C', "0"},
      {"a_h", 'm', "256"},
      {"a_w", 'k', "256"},
      {"b_w", 'n', "256"},
      {"alpha", 'A', "1.0"},
      {"beta", 'B', "0.0"},
      {"transA", 'u', "0"},
      {"transB", 'v', "0"},
  });
  return kFlags;
}

Expected<bool> read_01(const FlagValues& f, std::string_view name) {
  BOO_ASSIGN_OR_RETURN(int64_t v, f.get_int(name));
  if (v != 0 && v != 1) {
    return invalid_argument(f.spelled(name) + ": expected 0 or 1, got " + std::to_string(v));
  }
  return v == 1;
}

}  // namespace

std::span<const std::string_view> miopen_gemm_ops() { return kOps; }

Expected<ParsedCommand> parse_miopen_gemm(std::string_view op, std::span<const std::string> args) {
  ParsedCommand out;
  core::DType dtype = core::DType::kF32;
  if (op == "gemmfp16") dtype = core::DType::kF16;
  if (op == "gemmbfp16") dtype = core::DType::kBF16;
  BOO_ASSIGN_OR_RETURN(const FlagValues f, parse_flags(gemm_flags(), args, &out.notes));
  BOO_ASSIGN_OR_RETURN(out.run, read_run_options(f));
  BOO_ASSIGN_OR_RETURN(const int64_t forw, f.get_int("forw"));
  if (forw != 1) {
    return core::unsupported(f.spelled("forw") + " " + std::to_string(forw) +
                             ": MIOpen gemm commands have a forward pass only (-F 1)");
  }
  BOO_ASSIGN_OR_RETURN(const int64_t m, f.get_int("a_h"));
  BOO_ASSIGN_OR_RETURN(const int64_t k, f.get_int("a_w"));
  BOO_ASSIGN_OR_RETURN(const int64_t n, f.get_int("b_w"));
  for (auto [name, v] : {std::pair{"a_h", m}, std::pair{"a_w", k}, std::pair{"b_w", n}}) {
    if (v < 1) {
      return invalid_argument(f.spelled(name) + ": must be >= 1, got " + std::to_string(v));
    }
  }
  BOO_ASSIGN_OR_RETURN(const bool col_major, read_01(f, "isColMajor"));
  BOO_ASSIGN_OR_RETURN(const bool ta, read_01(f, "transA"));
  BOO_ASSIGN_OR_RETURN(const bool tb, read_01(f, "transB"));

  ops::GemmProblem g;
  g.a_type = g.b_type = g.c_type = g.d_type = g.bias_type = dtype;
  BOO_ASSIGN_OR_RETURN(g.alpha, f.get_double("alpha"));
  BOO_ASSIGN_OR_RETURN(g.beta, f.get_double("beta"));
  BOO_ASSIGN_OR_RETURN(g.batch, f.get_int("batch_count"));
  if (g.batch < 1) {
    return invalid_argument(f.spelled("batch_count") + ": must be >= 1, got " +
                            std::to_string(g.batch));
  }
  // Packed operands, as MIOpen's driver derives them (GetandSetData).
  const int64_t lda = col_major ? (ta ? k : m) : (ta ? m : k);
  const int64_t ldb = col_major ? (tb ? n : k) : (tb ? k : n);
  if (col_major) {
    g.m = m;
    g.n = n;
    g.k = k;
    g.trans_a = ta ? Transpose::kT : Transpose::kN;
    g.trans_b = tb ? Transpose::kT : Transpose::kN;
    g.lda = lda;
    g.ldb = ldb;
    g.ldc = g.ldd = m;
  } else {
    // Row-major C (m x n) is column-major C^T (n x m) = op(B)^T op(A)^T: swap the operands.
    g.m = n;
    g.n = m;
    g.k = k;
    g.trans_a = tb ? Transpose::kT : Transpose::kN;
    g.trans_b = ta ? Transpose::kT : Transpose::kN;
    g.lda = ldb;
    g.ldb = lda;
    g.ldc = g.ldd = n;
  }
  if (g.batch > 1) {
    auto size = [&](int64_t a, int64_t b) -> Expected<int64_t> {
      auto r = core::checked_mul(a, b);
      if (r) return r;
      return invalid_argument(f.spelled("batch_count") + " " + std::to_string(g.batch) +
                              ": the batch stride of -m " + std::to_string(m) + " -n " +
                              std::to_string(n) + " -k " + std::to_string(k) +
                              " overflows 64 bits");
    };
    BOO_ASSIGN_OR_RETURN(g.stride_a, size(g.m, g.k));
    BOO_ASSIGN_OR_RETURN(g.stride_b, size(g.k, g.n));
    BOO_ASSIGN_OR_RETURN(g.stride_c, size(g.m, g.n));
    g.stride_d = g.stride_c;
  }
  BOO_RETURN_IF_ERROR(g.validate());
  out.problems.push_back(std::move(g));
  return out;
}

}  // namespace boo::parse
