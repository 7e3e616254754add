// How conv.padded_channels' direct kernel (kernels/conv_few_channels.cuh) stages its input tile
// with TMA boxes, in plain C++ so that host unit tests
// (tests/unit/jit/conv_few_channels_boxes_test.cc) check it without a GPU.
//
// The kernel reads, for output pixel column px of a tile and one filter row, lp consecutive
// elements of one input row that start at element px x stride x C past the tile's origin (S taps
// x C channels, with one leading element where the origin would be odd, rounded up to even; the
// origin is the tile's first input column, less that element). x is mapped as rows of W C
// elements in 16-byte vectors (5D: 8 elements, W C / 8 vectors, H, D, images) and a box starts on
// a vector: the innermost box coordinate is always 0, since on an H200 a box that starts inside
// a vector or is wider than the innermost extent traps the copy
// (bench/results/2026-11-29-few-tma-h200.md). So the origin lies `shift` elements (0, 2, 4 or 6:
// even) past the start of its box, a tile's own constant. A box holds E <= 2048 elements of ih rows
// (x id planes); a tile row wider than that is copied as `boxes` boxes whose starts are `step`
// elements (whole vectors) apart, and pixel px reads all its elements from box b = px stride C /
// step, at shift + px stride C - b step. Each box lands densely (rows of E elements),
// `box_elements` apart (a multiple of 64 elements: every box starts at a 128-byte boundary).
#pragma once

#include <cstdint>

#include "host_device.cuh"

namespace boo_kernels {

constexpr int kFewBoxMaxElements = 2048;  // 256 vectors of 8 16-bit elements
constexpr int kFewBoxMaxShift = 6;        // the origin's place in its vector, at most

struct FewBoxes {
  int e = 0;             // elements of a box row: a multiple of 8, at most 2048
  int step = 0;          // elements between consecutive boxes' first elements (a multiple of 8)
  int boxes = 0;         // boxes a tile row
  int box_elements = 0;  // shared-memory elements a box takes (E ih id, rounded up to 64)
};

// The boxes of a tile of tw output columns at column stride `stride` (pixel starts px stride c,
// px < tw), lp elements a filter row, ih x id staged rows, over rows of `row` (= W C) elements.
// False where TMA cannot stage it: a row that is not a whole number of 16-byte vectors, odd pixel
// starts (the kernel reads pairs as aligned 32-bit words), or more than 256 rows or planes.
BOO_HD inline bool few_boxes(int64_t row, int tw, int64_t stride, int c, int lp, int ih, int id,
                             FewBoxes* b) {
  if (row % 8 != 0 || row < 8 || (stride * c) % 2 != 0 || lp % 2 != 0 || ih > 256 || id > 256) {
    return false;
  }
  const int64_t last = static_cast<int64_t>(tw - 1) * stride * c;  // the last pixel's start
  const auto up8 = [](int64_t v) { return (v + 7) / 8 * 8; };
  int64_t step = up8(last + 1), e = up8(step + lp + kFewBoxMaxShift);
  if (e > kFewBoxMaxElements) {
    e = kFewBoxMaxElements;
    step = (e - lp - kFewBoxMaxShift) / 8 * 8;
    if (step < 8 || step < stride * c) return false;
  }
  b->e = static_cast<int>(e);
  b->step = static_cast<int>(step);
  b->boxes = static_cast<int>(last / step + 1);
  b->box_elements = static_cast<int>((e * ih * id + 63) / 64 * 64);
  return true;
}

// TMA staging of a tile of tw output columns over rows of W points of C channels at column
// stride `stride` and padding `pad`, S taps a filter row: the filter row's reduction (`lead`:
// one leading element where the tile's origin, its first column's first element
// (column x stride - pad) C, is odd, as it is for every tile alike; `lp`: lead + S C, rounded up
// to even) and the boxes (few_boxes). False where TMA cannot stage it. The kernel's plan and
// dispatch's model both decide with this.
BOO_HD inline bool few_tma_staging(int64_t w, int c, int s, int64_t stride, int64_t pad, int tw,
                                   int ih, int id, int* lead, int* lp, FewBoxes* b) {
  *lead = static_cast<int>(pad * c % 2);
  *lp = (s * c + *lead + 1) / 2 * 2;
  return few_boxes(w * c, tw, stride, c, *lp, ih, id, b);
}

// The staged element (from the stage's start, less the tile's shift) where pixel (py, px) of the
// tile reads its first element of filter row 0: box px stride c / step, row py stride_h of it.
BOO_HD inline int few_box_pixel(const FewBoxes& b, int py, int px, int64_t stride_h, int64_t stride,
                                int c) {
  const int start = static_cast<int>(px * stride * c);
  const int box = start / b.step;
  return box * b.box_elements + static_cast<int>(py * stride_h) * b.e + start - box * b.step;
}

}  // namespace boo_kernels
