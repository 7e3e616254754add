// What the conv dispatcher's models share (conv_dispatcher.cc: CUTLASS configs and dispatch;
// conv_direct_models.cc: boo's own conv kernels): integer helpers and the layout copies' bytes.
#pragma once

#include <cstdint>
#include <vector>

#include "boo/core/dtype.h"
#include "boo/core/layout.h"
#include "boo/ops/conv_problem.h"

namespace boo::dispatch::conv_model {

inline int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// The planes of a spatial extent (the output's or the input's, depth first in 3D): batch x depth.
inline int64_t planes_of(const ops::ConvProblem& p, const std::vector<int64_t>& extent) {
  return p.n * (extent.size() == 3 ? extent[0] : 1);
}

inline int64_t product(const std::vector<int64_t>& v) {
  int64_t p = 1;
  for (int64_t x : v) p *= x;
  return p;
}

// Bytes the layout copies of conv_relayout.cuh move (read + write) for tensors that are not
// channels-last.
inline int64_t relayout_bytes(const ops::ConvProblem& p) {
  int64_t bytes = 0;
  if (p.in_layout != core::Layout::kChannelsLast) bytes += 2 * p.x_desc().element_count();
  if (p.fil_layout != core::Layout::kChannelsLast) bytes += 2 * p.w_desc().element_count();
  if (p.out_layout != core::Layout::kChannelsLast) bytes += 2 * p.y_desc().element_count();
  return bytes * core::dtype_bytes(p.dtype);
}

}  // namespace boo::dispatch::conv_model
