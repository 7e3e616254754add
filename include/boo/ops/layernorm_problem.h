// LayerNormProblem: layer normalization over the trailing dims of `shape` starting at
// `normalized_dim`, seen as rows x cols (rows = product of the leading dims). Forward returns
// y = (x - mean) * rstd [* weight + bias] and the per-row fp32 mean and rstd; backward returns
// any subset of dx, dweight, dbias (BOO's -F codes 2, 4, 8).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "boo/core/dtype.h"
#include "boo/core/status.h"

namespace boo::ops {

// Bits of LayerNormProblem::parts (BOO's -F codes).
enum LayerNormPart : uint8_t {
  kLayerNormForward = 1,
  kLayerNormDx = 2,
  kLayerNormDweight = 4,
  kLayerNormDbias = 8,
};

struct LayerNormProblem {
  core::DType dtype = core::DType::kF32;  // x, y, weight, bias, dy, dx, dweight, dbias
  std::vector<int64_t> shape = {1, 1};
  int normalized_dim = 1;  // first normalized dim: 0 <= normalized_dim < shape.size()
  double eps = 1e-5;
  bool affine = true;  // weight and bias of `cols` elements (MIOpen/BOO -m 1)
  uint8_t parts = kLayerNormForward;

  bool operator==(const LayerNormProblem&) const = default;

  core::Status validate() const;
  int64_t rows() const;
  int64_t cols() const;
  bool forward() const { return parts & kLayerNormForward; }

  // Per element: forward 6 (mean, variance, normalize) + 2 with affine; dx 9; dweight, dbias 2.
  double flops() const;
  int64_t min_bytes() const;
  // e.g. layernorm_bf16_f32acc_x8192x4096_norm1_eps1e-05_affine_fwd
  std::string key() const;
  // e.g. layernormbfp16 -X 8192x4096 -o 1 -e 1e-05 -m 1 -F 1
  std::string to_command() const;
};

}  // namespace boo::ops
