// Helpers shared by the reference tests: logical iteration over HostTensors (whatever their
// strides), logical inner products and copies between layouts.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <vector>

#include "boo/reference/host_tensor.h"

namespace boo::reference::testing {

// Calls fn(index) for every logical index of `dims` (row-major order).
inline void ForEachIndex(const std::vector<int64_t>& dims,
                         const std::function<void(const std::vector<int64_t>&)>& fn) {
  for (int64_t d : dims) {
    if (d <= 0) return;
  }
  std::vector<int64_t> idx(dims.size(), 0);
  while (true) {
    fn(idx);
    size_t i = dims.size();
    while (i > 0) {
      --i;
      if (++idx[i] < dims[i]) break;
      idx[i] = 0;
      if (i == 0) return;
    }
    if (dims.empty()) return;
  }
}

// sum over logical indices of a[i] * b[i]; a and b must have the same logical dims.
inline double LogicalDot(const HostTensor& a, const HostTensor& b) {
  double s = 0.0;
  ForEachIndex(a.desc.dims, [&](const std::vector<int64_t>& i) { s += a.at(i) * b.at(i); });
  return s;
}

// Copies logical values from `src` into `dst` (same dims, any strides).
inline void LogicalCopy(const HostTensor& src, HostTensor& dst) {
  ForEachIndex(src.desc.dims, [&](const std::vector<int64_t>& i) { dst.at(i) = src.at(i); });
}

// max over logical indices of |a[i] - b[i]|; infinity when any difference is NaN.
inline double LogicalMaxDiff(const HostTensor& a, const HostTensor& b) {
  double m = 0.0;
  ForEachIndex(a.desc.dims, [&](const std::vector<int64_t>& i) {
    const double d = std::fabs(a.at(i) - b.at(i));
    m = std::isnan(d) ? INFINITY : std::max(m, d);
  });
  return m;
}

}  // namespace boo::reference::testing
