// Backward data as forward convolutions over stride phases, in plain C++ so that host unit tests
// replay it (tests/unit/jit/conv_dgrad_phases_plan_test.cc) and the dispatcher mirrors it.
//
// Along one spatial dimension, with dx extent I, dy extent O, filter R, stride s, padding p and
// dilation d, the forward convolution read x[s o + r d - p] for output o and tap r, so
//   dx[i] = sum over (o, r) with s o + r d - p = i of dy[o] w[r].
// The positions i = a + s m of one phase a (0 <= a < s) meet the taps r with (a + p - r d) a
// multiple of s: r0, r0 + t, r0 + 2 t, ... (t = s / gcd(s, d)), each at dy offset
// o = m + (a + p - r d) / s, which falls by d' = d / gcd(s, d) from one tap to the next. Read
// backwards, that is a stride-1 forward convolution of dy with the phase's taps turned around
// (tap j of the turned filter is r0 + (T - 1 - j) t), dilation d', lower padding
// L = (T - 1) d' - (a + p - r0 d) / s and the upper padding that makes its output the phase's
// M = ceil((I - a) / s) positions. Where L would be negative (the phase's first position reads
// past dy's first element: a stride above the filter's reach) the convolution starts at dy's
// first element with L = 0 and computes -L positions before the phase's first (`skip`), which
// are dropped; likewise where U would be negative (the phase ends before dy does) it computes
// -U positions past its last (`tail`) with U = 0, so that no padding is negative (CUTLASS's TMA
// im2col takes none). A phase that no tap meets is zero. With s = 1 there is one phase, the whole
// filter turned around (padding (R - 1) d - p).
#pragma once

#include <cstdint>

namespace boo_kernels {

// Strides of at most this along each dimension (27 phases in 3D), for the runner and dispatch.
constexpr int kDgradMaxStride = 3;

struct DgradPhase {
  int64_t first_tap = 0;  // r0
  int64_t tap_step = 1;   // t
  int64_t taps = 0;       // T: 0 when no tap meets the phase
  int64_t dilation = 1;   // d'
  int64_t lower = 0;      // L >= 0
  int64_t upper = 0;      // U >= 0
  int64_t outputs = 0;    // M: the phase's positions a, a + s, ... below I
  int64_t skip = 0;       // outputs the convolution computes before the phase's first position
  int64_t tail = 0;       // and after its last
  int64_t offset = 0;     // dy's offset of the first original tap: (a + p - r0 d) / s
};

inline int64_t dgrad_phase_gcd(int64_t a, int64_t b) {
  while (b != 0) {
    const int64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

// Floor division for a positive divisor.
inline int64_t dgrad_phase_floor_div(int64_t a, int64_t b) {
  return a >= 0 ? a / b : -((-a + b - 1) / b);
}

// Phase a of one dimension (sizes >= 1, padding >= 0, 0 <= a < stride).
inline DgradPhase dgrad_phase(int64_t in, int64_t out, int64_t filter, int64_t stride, int64_t pad,
                              int64_t dilation, int64_t a) {
  DgradPhase ph;
  ph.outputs = a < in ? (in - a + stride - 1) / stride : 0;
  const int64_t g = dgrad_phase_gcd(stride, dilation);
  ph.tap_step = stride / g;
  ph.dilation = dilation / g;
  ph.first_tap = -1;
  for (int64_t r = 0; r < filter && r < stride; ++r) {
    const int64_t v = a + pad - r * dilation;
    if (v - dgrad_phase_floor_div(v, stride) * stride == 0) {
      ph.first_tap = r;
      break;
    }
  }
  if (ph.first_tap < 0) {
    ph.first_tap = 0;
    ph.taps = 0;
    return ph;
  }
  ph.taps = (filter - 1 - ph.first_tap) / ph.tap_step + 1;
  const int64_t o0 = dgrad_phase_floor_div(a + pad - ph.first_tap * dilation, stride);
  ph.offset = o0;
  ph.lower = (ph.taps - 1) * ph.dilation - o0;
  ph.upper = (ph.outputs - 1 + o0) - (out - 1);
  if (ph.lower < 0) {
    ph.skip = -ph.lower;
    ph.lower = 0;
  }
  if (ph.upper < 0) {
    ph.tail = -ph.upper;
    ph.upper = 0;
  }
  return ph;
}

// The original tap behind tap j of the phase's turned filter.
inline int64_t dgrad_phase_tap(const DgradPhase& ph, int64_t j) {
  return ph.first_tap + (ph.taps - 1 - j) * ph.tap_step;
}

// All phases of one dimension as one convolution, their outputs side by side along the channels
// (stacked): each phase's taps at a common offset. With d' = 1, phase a's original tap j
// (r0 + j t, at dy offset m + o_a - j) sits at tap `shift[a] - j` of a filter of `taps` taps
// read from dy at m - (lower - skip) + tap, where lower - skip = max_a (T_a - 1 - o_a); phases
// with fewer taps get zeros, phases with fewer positions compute past their last. Not `ok` where
// a phase meets no tap or d' > 1.
struct DgradStack {
  bool ok = false;
  int64_t taps = 0;
  int64_t lower = 0, upper = 0;  // >= 0
  int64_t skip = 0;              // outputs computed before every phase's first position
  int64_t extent = 0;            // the convolution's outputs
  int64_t shift[kDgradMaxStride] = {};
};

inline DgradStack dgrad_stack(int64_t in, int64_t out, int64_t filter, int64_t stride, int64_t pad,
                              int64_t dilation) {
  DgradStack st;
  if (stride > kDgradMaxStride) return st;
  int64_t lower = 0, positions = 0;
  DgradPhase ph[kDgradMaxStride];
  for (int64_t a = 0; a < stride; ++a) {
    ph[a] = dgrad_phase(in, out, filter, stride, pad, dilation, a);
    if (ph[a].taps == 0 || ph[a].outputs == 0 || ph[a].dilation != 1) return st;
    const int64_t need = ph[a].taps - 1 - ph[a].offset;
    lower = a == 0 || need > lower ? need : lower;
    positions = ph[a].outputs > positions ? ph[a].outputs : positions;
  }
  for (int64_t a = 0; a < stride; ++a) {
    st.shift[a] = lower + ph[a].offset;
    st.taps = st.shift[a] + 1 > st.taps ? st.shift[a] + 1 : st.taps;
  }
  st.skip = lower < 0 ? -lower : 0;
  st.lower = lower + st.skip;
  st.extent = st.skip + positions;
  st.upper = (st.extent - 1) + (st.taps - 1) + 1 - out - st.lower;
  if (st.upper < 0) {
    st.extent -= st.upper;
    st.upper = 0;
  }
  st.ok = true;
  return st;
}

// Whether a problem's phases run stacked (per dimension D, H, W): more than one phase, every
// dimension stackable, at most twice the multiplies of the phases run apart (those are the
// filter's taps, each in one phase: the product of the filter extents), and at most
// kDgradStackMaxChannels channels of dx. Measured on an H200 (bench/results/
// 2026-11-29-dgrad-phases-h200.md): stacking a stride-2 3x3 took C = 64 from 66.4 to 51.9 us,
// left C = 128 and 256 within 2%, and took C = 512 from 116.9 to 154.1 us (the padded taps'
// multiplies where the phases apart already fill the GPU).
constexpr int64_t kDgradStackMaxChannels = 128;
inline bool dgrad_stack_pays(const DgradStack st[3], const int64_t filter[3],
                             const int64_t stride[3], int64_t channels) {
  if (channels > kDgradStackMaxChannels) return false;
  double ratio = 1.0;
  int64_t phases = 1;
  for (int d = 0; d < 3; ++d) {
    if (!st[d].ok) return false;
    phases *= stride[d];
    ratio *= static_cast<double>(stride[d] * st[d].taps) / static_cast<double>(filter[d]);
  }
  return phases > 1 && ratio <= 2.0;
}

}  // namespace boo_kernels
