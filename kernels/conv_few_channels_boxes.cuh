// How conv.padded_channels' direct kernel (kernels/conv_few_channels.cuh) stages its input tile
// with TMA boxes, how it tiles a plane (few_squarer_tiles) and where its filters' weights go
// (few_filter_from), in plain C++ so that host unit tests
// (tests/unit/jit/conv_few_channels_boxes_test.cc) and dispatch's model share it.
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

// The filters' reduction, one output channel's: element k = row lp + lead + s cs + ch (filter row
// `row` of `rows`, tap s of a row's S, channel ch < C; cs = C, or C + 1 with a zero channel) holds
// weight row (S C) + s C + ch. That weight's index, or -1 where k holds a zero (the lead, the zero
// channel, past a row's S cs taps, past the rows). The set-up fills the filters a 16-byte vector at
// a time from this inverse (kernels/conv_few_channels.cuh).
BOO_HD inline int few_filter_from(int k, int lp, int lead, int rows, int s_taps, int cs, int c) {
  const int row = k / lp, j = k - row * lp - lead;
  if (row >= rows || j < 0 || j >= s_taps * cs) return -1;
  const int s = j / cs, ch = j - s * cs;
  return ch < c ? row * s_taps * c + s * c + ch : -1;
}

// The output tiling of an ho x wo plane into tiles of at most `most` pixels: tiles_w columns of
// tw and tiles_h rows of th. The widest tiles (at most 64 columns, as grouped_tile_shape cuts)
// waste up to a fifth of the kernel's 256-pixel tiles on planes such as the stems' 112 x 112 (2 x
// 4 x 56 = 224-pixel tiles, 56 a plane); narrower ones (7 x 7 x 16 x 16: 49 a plane) can fill
// them. few_squarer_tiles takes, of every tiling with tiles at least 8 wide, the one of fewest
// tiles whose input tile (the points its taps reach: `reach_h` x `reach_w` of filter at strides
// `stride_h`, `stride_w`) has at most the widest tiles' points and at most 256 rows (TMA's box);
// ties go to the wider tiles. The widest tiling when nothing beats it (and for 1D planes).
struct FewTiling {
  int tiles_w = 1, tw = 1, tiles_h = 1, th = 1;
};
BOO_HD inline FewTiling few_squarer_tiles(int64_t ho, int64_t wo, int most, int64_t stride_h,
                                          int64_t stride_w, int64_t reach_h, int64_t reach_w) {
  const auto cut = [&](int64_t tiles_w) {
    FewTiling t;
    t.tiles_w = static_cast<int>(tiles_w);
    t.tw = static_cast<int>((wo + tiles_w - 1) / tiles_w);
    const int64_t rows = most / t.tw > 0 ? most / t.tw : 1;
    t.tiles_h = static_cast<int>((ho + rows - 1) / rows);
    t.th = static_cast<int>((ho + t.tiles_h - 1) / t.tiles_h);
    return t;
  };
  const auto points = [&](const FewTiling& t) {
    return ((t.th - 1) * stride_h + reach_h) * ((t.tw - 1) * stride_w + reach_w);
  };
  const int64_t widest = (wo + (most < 64 ? most : 64) - 1) / (most < 64 ? most : 64);
  FewTiling best = cut(widest);
  const int64_t most_points = points(best);
  for (int64_t tiles_w = widest + 1; (wo + tiles_w - 1) / tiles_w >= 8; ++tiles_w) {
    const FewTiling t = cut(tiles_w);
    if (static_cast<int64_t>(t.tiles_w) * t.tiles_h <
            static_cast<int64_t>(best.tiles_w) * best.tiles_h &&
        points(t) <= most_points && (t.th - 1) * stride_h + reach_h <= 256) {
      best = t;
    }
  }
  return best;
}

}  // namespace boo_kernels
