#include "boo/dispatch/conv_args.h"

#include <cstdint>
#include <cstring>

namespace boo::dispatch {
void conv_spatial3(const std::vector<int64_t>& v, int64_t fill, int64_t out[3]) {
  const size_t lead = 3 - v.size();
  for (size_t i = 0; i < 3; ++i) out[i] = i < lead ? fill : v[i - lead];
}

void conv_strides5(const core::TensorDesc& t, int64_t out[5]) {
  const size_t dims = t.strides.size() - 2;
  out[0] = t.strides[0];
  out[1] = t.strides[1];
  int64_t spatial[3];
  conv_spatial3(std::vector<int64_t>(t.strides.begin() + 2, t.strides.end()), 0, spatial);
  for (size_t i = 0; i < 3 - dims; ++i) spatial[i] = t.strides[0];
  for (int i = 0; i < 3; ++i) out[2 + i] = spatial[i];
}

bool ConvPointers::aligned_16() const {
  for (const void* p : {static_cast<const void*>(x), static_cast<const void*>(w),
                        static_cast<const void*>(y), bias}) {
    if (reinterpret_cast<uintptr_t>(p) % 16 != 0) return false;
  }
  return true;
}

BooConvArgs make_conv_args(const ops::ConvProblem& p, const ConvPointers& ptrs, int device,
                           int sm_count) {
  BooConvArgs a;
  std::memset(&a, 0, sizeof(a));
  a.direction = static_cast<int32_t>(p.direction);
  a.spatial_dims = p.spatial_dims;
  a.n = p.n;
  a.c = p.c;
  a.k = p.k;
  a.groups = p.groups;
  conv_spatial3(p.input, 1, a.in);
  conv_spatial3(p.filter, 1, a.filter);
  conv_spatial3(p.output(), 1, a.out);
  conv_spatial3(p.stride, 1, a.stride);
  conv_spatial3(p.padding, 0, a.pad);
  conv_spatial3(p.dilation, 1, a.dilation);
  conv_strides5(p.x_desc(), a.x_stride);
  conv_strides5(p.w_desc(), a.w_stride);
  conv_strides5(p.y_desc(), a.y_stride);
  a.x = ptrs.x;
  a.w = ptrs.w;
  a.y = ptrs.y;
  a.bias = p.bias ? ptrs.bias : nullptr;
  a.sm_count = sm_count;
  a.device = device;
  return a;
}

}  // namespace boo::dispatch
