#include "boo/core/tensor.h"

namespace boo::core {

int64_t TensorDesc::element_count() const {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

int64_t TensorDesc::span_elements() const {
  int64_t last = 0;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] == 0) return 0;
    last += (dims[i] - 1) * strides[i];
  }
  return last + 1;
}

int64_t TensorDesc::offset(std::span<const int64_t> index) const {
  int64_t off = 0;
  for (size_t i = 0; i < index.size(); ++i) off += index[i] * strides[i];
  return off;
}

std::vector<int64_t> packed_strides(std::span<const int64_t> dims) {
  std::vector<int64_t> strides(dims.size(), 1);
  for (size_t i = dims.size(); i-- > 1;) strides[i - 1] = strides[i] * dims[i];
  return strides;
}

TensorDesc make_nc_spatial_tensor(DType dtype, int64_t n, int64_t c,
                                  std::span<const int64_t> spatial, Layout layout) {
  TensorDesc t;
  t.dtype = dtype;
  t.dims = {n, c};
  t.dims.insert(t.dims.end(), spatial.begin(), spatial.end());
  t.strides.assign(t.dims.size(), 1);
  if (layout == Layout::kChannelsFirst) {
    t.strides = packed_strides(t.dims);
  } else {
    // Memory order N, spatial..., C.
    int64_t stride = 1;
    t.strides[1] = stride;
    stride *= c;
    for (size_t i = t.dims.size(); i-- > 2;) {
      t.strides[i] = stride;
      stride *= t.dims[i];
    }
    t.strides[0] = stride;
  }
  return t;
}

Expected<int64_t> checked_mul(int64_t a, int64_t b) {
  int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) {
    return invalid_argument("size overflows 64 bits: " + std::to_string(a) + " x " +
                            std::to_string(b));
  }
  return r;
}

Expected<int64_t> checked_product(std::span<const int64_t> values) {
  int64_t r = 1;
  for (int64_t v : values) {
    BOO_ASSIGN_OR_RETURN(r, checked_mul(r, v));
  }
  return r;
}

}  // namespace boo::core
