// Tensor descriptors (dtype, logical dims, element strides) and overflow-checked size arithmetic.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "boo/core/dtype.h"
#include "boo/core/layout.h"
#include "boo/core/status.h"

namespace boo::core {

struct TensorDesc {
  DType dtype = DType::kF32;
  std::vector<int64_t> dims;     // logical order, outermost first
  std::vector<int64_t> strides;  // in elements, same order as dims

  int64_t element_count() const;
  // Elements of the buffer the strides address (largest offset + 1).
  int64_t span_elements() const;
  int64_t offset(std::span<const int64_t> index) const;
  bool operator==(const TensorDesc&) const = default;
};

// Row-major (packed) strides for `dims`.
std::vector<int64_t> packed_strides(std::span<const int64_t> dims);

// An activation or filter tensor with logical dims [N, C, spatial...] stored in `layout`
// (channels-first: N, C, D, H, W; channels-last: N, D, H, W, C in memory).
TensorDesc make_nc_spatial_tensor(DType dtype, int64_t n, int64_t c,
                                  std::span<const int64_t> spatial, Layout layout);

// Products and sums that report 64-bit overflow instead of wrapping.
Expected<int64_t> checked_mul(int64_t a, int64_t b);
Expected<int64_t> checked_product(std::span<const int64_t> values);

}  // namespace boo::core
