// What the convolution runners share: the checks of BooConvArgs' geometry that every one of them
// makes before its own (host code).
#pragma once

#include "entry_points.cuh"

namespace boo_kernels {

// nullptr when the spatial dimensions, sizes, strides, padding and dilations are valid, else why
// not.
inline const char* conv_geometry_error(const BooConvArgs& a) {
  if (a.spatial_dims < 1 || a.spatial_dims > 3) return "spatial_dims must be 1, 2 or 3";
  for (int i = 0; i < 3; ++i) {
    if (a.in[i] < 1 || a.filter[i] < 1 || a.out[i] < 1 || a.stride[i] < 1 || a.pad[i] < 0 ||
        a.dilation[i] < 1) {
      return "sizes, strides and dilations must be >= 1 and padding >= 0";
    }
  }
  return nullptr;
}

}  // namespace boo_kernels
