#include "boo/ops/layernorm_problem.h"

#include <algorithm>
#include <cmath>

#include "boo/core/strings.h"
#include "boo/core/tensor.h"

namespace boo::ops {
namespace {

using core::invalid_argument;
using core::Status;

std::string shape_text(const std::vector<int64_t>& shape) {
  std::string s;
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? "x" : "") + std::to_string(shape[i]);
  return s;
}

}  // namespace

Status LayerNormProblem::validate() const {
  if (shape.empty()) return invalid_argument("-X: the input shape has no dims");
  if (shape.size() > 8) {
    return invalid_argument("-X " + shape_text(shape) + ": at most 8 dims are supported");
  }
  for (int64_t d : shape) {
    if (d < 1) {
      return invalid_argument("-X " + shape_text(shape) + ": every dim must be >= 1, got " +
                              std::to_string(d));
    }
  }
  // Every operand's bytes (up to 3 tensors of the shape, 8 bytes of stats per row) must fit in
  // 64 bits, so that min_bytes() and the kernels' offsets cannot overflow.
  auto elems = core::checked_product(shape);
  int64_t bytes = 0;
  if (!elems || __builtin_mul_overflow(*elems, 4 * core::dtype_bytes(dtype) + 8, &bytes)) {
    return invalid_argument("-X " + shape_text(shape) +
                            ": element count (or the operands' bytes) overflows 64 bits");
  }
  if (normalized_dim < 0 || normalized_dim >= static_cast<int>(shape.size())) {
    return invalid_argument("-o: the first normalized dim must be in [0, " +
                            std::to_string(shape.size() - 1) + "] for -X " + shape_text(shape) +
                            ", got " + std::to_string(normalized_dim));
  }
  if (!(eps >= 0.0) || !std::isfinite(eps)) {
    return invalid_argument("-e: epsilon must be finite and >= 0, got " + core::format_double(eps));
  }
  if (core::is_fp8(dtype)) {
    return core::unsupported("fp8 layer norm is not supported");
  }
  if (parts == 0 || parts > 15) {
    return invalid_argument(
        "-F: expected 1 (forward) or a sum of 2 (dx), 4 (dweight), "
        "8 (dbias), got " +
        std::to_string(parts));
  }
  if (forward() && parts != kLayerNormForward) {
    return invalid_argument("-F " + std::to_string(parts) +
                            ": forward (1) cannot be combined with backward parts (2, 4, 8)");
  }
  if (!affine && (parts & (kLayerNormDweight | kLayerNormDbias))) {
    return invalid_argument("-F " + std::to_string(parts) +
                            ": dweight (4) and dbias (8) need weight and bias (-m 1)");
  }
  return Status::ok();
}

int64_t LayerNormProblem::rows() const {
  int64_t r = 1;
  for (int i = 0; i < normalized_dim && i < static_cast<int>(shape.size()); ++i) r *= shape[i];
  return r;
}

int64_t LayerNormProblem::cols() const {
  int64_t c = 1;
  for (size_t i = static_cast<size_t>(std::max(normalized_dim, 0)); i < shape.size(); ++i) {
    c *= shape[i];
  }
  return c;
}

double LayerNormProblem::flops() const {
  const double elems = static_cast<double>(rows()) * static_cast<double>(cols());
  if (forward()) return elems * (affine ? 8.0 : 6.0);
  double per = 0.0;
  if (parts & kLayerNormDx) per += 9.0;
  if (parts & kLayerNormDweight) per += 2.0;
  if (parts & kLayerNormDbias) per += 2.0;
  return elems * per;
}

int64_t LayerNormProblem::min_bytes() const {
  const int64_t e = core::dtype_bytes(dtype);
  const int64_t elems = rows() * cols();
  const int64_t stats = 2 * rows() * 4;  // fp32 mean and rstd
  if (forward()) {
    return 2 * elems * e + stats + (affine ? 2 * cols() * e : 0);
  }
  // dy is always read; x and the stats are needed for dx and dweight; dbias needs only dy.
  int64_t bytes = elems * e;
  if (parts & (kLayerNormDx | kLayerNormDweight)) bytes += elems * e + stats;
  if ((parts & kLayerNormDx) && affine) bytes += cols() * e;
  if (parts & kLayerNormDx) bytes += elems * e;
  if (parts & kLayerNormDweight) bytes += cols() * e;
  if (parts & kLayerNormDbias) bytes += cols() * e;
  return bytes;
}

std::string LayerNormProblem::key() const {
  std::string s = "layernorm_" + std::string(core::dtype_name(dtype)) + "_f32acc_x" +
                  shape_text(shape) + "_norm" + std::to_string(normalized_dim) + "_eps" +
                  core::format_double(eps) + (affine ? "_affine_" : "_noaffine_");
  if (forward()) return s + "fwd";
  s += "bwd";
  if (parts & kLayerNormDx) s += ".dx";
  if (parts & kLayerNormDweight) s += ".dweight";
  if (parts & kLayerNormDbias) s += ".dbias";
  return s;
}

std::string LayerNormProblem::to_command() const {
  std::string op = dtype == core::DType::kF16    ? "layernormfp16"
                   : dtype == core::DType::kBF16 ? "layernormbfp16"
                                                 : "layernorm";
  return op + " -X " + shape_text(shape) + " -o " + std::to_string(normalized_dim) + " -e " +
         core::format_double(eps) + " -m " + (affine ? "1" : "0") + " -F " + std::to_string(parts);
}

}  // namespace boo::ops
