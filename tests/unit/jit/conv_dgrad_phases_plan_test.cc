// The stride phases of conv.sm90_implicit's backward data (kernels/conv_dgrad_phases_plan.cuh):
// along one dimension, every (dy position, tap) pair that reaches a dx position through the
// forward convolution must be exactly the pairs the phase's stride-1 forward convolution sums
// (turned taps, lower padding, dilation, positions skipped), its output extent must be the
// phase's positions and those it computes around them, no padding negative, and
// a phase that no tap meets must get no pair. Checked by brute force over small geometries.
#include "../../../kernels/conv_dgrad_phases_plan.cuh"

#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <string>
#include <utility>

namespace boo_kernels {
namespace {

using Pairs = std::set<std::pair<int64_t, int64_t>>;  // (dy position, original tap)

// What the forward convolution sends to dx[i]: every (o, r) with s o + r d - p = i.
Pairs reference(int64_t i, int64_t out, int64_t filter, int64_t stride, int64_t pad,
                int64_t dilation) {
  Pairs pairs;
  for (int64_t o = 0; o < out; ++o) {
    for (int64_t r = 0; r < filter; ++r) {
      if (stride * o + r * dilation - pad == i) pairs.insert({o, r});
    }
  }
  return pairs;
}

// What phase `ph`'s forward convolution sums for its output m: input m - L + j d' (inside dy)
// times turned tap j.
Pairs phase_pairs(const DgradPhase& ph, int64_t m, int64_t out) {
  Pairs pairs;
  for (int64_t j = 0; j < ph.taps; ++j) {
    const int64_t q = m + ph.skip - ph.lower + j * ph.dilation;
    if (q >= 0 && q < out) pairs.insert({q, dgrad_phase_tap(ph, j)});
  }
  return pairs;
}

// One dimension of a convolution: dx extent, dy extent, filter, stride, padding, dilation.
struct Geometry {
  int64_t in, out, filter, stride, pad, dilation;
};
std::string text(const Geometry& g) {
  return "in " + std::to_string(g.in) + " filter " + std::to_string(g.filter) + " stride " +
         std::to_string(g.stride) + " pad " + std::to_string(g.pad) + " dilation " +
         std::to_string(g.dilation);
}

// Calls fn on every valid small geometry (dx extents 1..13, filters 1..7, strides 1..3,
// padding 0..4, dilation 1..3).
template <class Fn>
void for_each_geometry(Fn fn) {
  for (int64_t in = 1; in <= 13; ++in) {
    for (int64_t filter = 1; filter <= 7; ++filter) {
      for (int64_t stride = 1; stride <= 3; ++stride) {
        for (int64_t pad = 0; pad <= 4; ++pad) {
          for (int64_t dilation = 1; dilation <= 3; ++dilation) {
            const int64_t span = in + 2 * pad - dilation * (filter - 1) - 1;
            if (span >= 0) fn(Geometry{in, span / stride + 1, filter, stride, pad, dilation});
          }
        }
      }
    }
  }
}

TEST(ConvDgradPhasesPlan, EveryPhaseSumsExactlyTheForwardPairs) {
  int checked = 0;
  for_each_geometry([&](const Geometry& g) {
    int64_t positions = 0;
    for (int64_t a = 0; a < g.stride; ++a) {
      const DgradPhase ph = dgrad_phase(g.in, g.out, g.filter, g.stride, g.pad, g.dilation, a);
      positions += ph.outputs;
      if (ph.taps > 0) {
        // The stride-1 convolution's output extent is the phase's positions and those it
        // computes before and after them, and no padding is negative.
        EXPECT_GE(ph.lower, 0);
        EXPECT_GE(ph.upper, 0);
        EXPECT_EQ(g.out + ph.lower + ph.upper - (ph.taps - 1) * ph.dilation,
                  ph.skip + ph.outputs + ph.tail);
      }
      for (int64_t m = 0; m < ph.outputs; ++m) {
        const Pairs want =
            reference(a + g.stride * m, g.out, g.filter, g.stride, g.pad, g.dilation);
        const Pairs got = ph.taps > 0 ? phase_pairs(ph, m, g.out) : Pairs{};
        ASSERT_EQ(got, want) << text(g) << " phase " << a << " m " << m;
        ++checked;
      }
    }
    EXPECT_EQ(positions, g.in);
  });
  EXPECT_GT(checked, 10000);
}

TEST(ConvDgradPhasesPlan, StackedPhasesSumExactlyTheForwardPairs) {
  // One convolution for all phases: phase a's output m is the stacked convolution's output
  // m + skip, whose tap t reads dy at m - (lower - skip) + t and carries original tap
  // first + (shift[a] - t) step where that is one of the phase's taps (else a zero weight).
  int checked = 0;
  for_each_geometry([&](const Geometry& g) {
    const DgradStack st = dgrad_stack(g.in, g.out, g.filter, g.stride, g.pad, g.dilation);
    if (!st.ok) return;
    EXPECT_GE(st.lower, 0);
    EXPECT_GE(st.upper, 0);
    EXPECT_EQ(g.out + st.lower + st.upper - (st.taps - 1), st.extent);
    for (int64_t a = 0; a < g.stride; ++a) {
      const DgradPhase ph = dgrad_phase(g.in, g.out, g.filter, g.stride, g.pad, g.dilation, a);
      ASSERT_GT(ph.taps, 0);
      EXPECT_LE(st.skip + ph.outputs, st.extent);
      for (int64_t m = 0; m < ph.outputs; ++m) {
        Pairs got;
        for (int64_t t = 0; t < st.taps; ++t) {
          const int64_t j = st.shift[a] - t;
          const int64_t q = m + st.skip - st.lower + t;
          if (j >= 0 && j < ph.taps && q >= 0 && q < g.out) {
            got.insert({q, ph.first_tap + j * ph.tap_step});
          }
        }
        ASSERT_EQ(got, reference(a + g.stride * m, g.out, g.filter, g.stride, g.pad, g.dilation))
            << text(g) << " phase " << a << " m " << m;
        ++checked;
      }
    }
  });
  EXPECT_GT(checked, 5000);
  // ResNet's stride-2 3x3: two taps a phase, no padding below, one row above; twice the taps
  // of the phases apart in 2D (16 against 9), which still pays. A 1x1 stride 2 does not stack.
  const DgradStack down = dgrad_stack(56, 28, 3, 2, 1, 1);
  ASSERT_TRUE(down.ok);
  EXPECT_EQ(down.taps, 2);
  EXPECT_EQ(down.lower, 0);
  EXPECT_EQ(down.upper, 1);
  EXPECT_EQ(down.extent, 28);
  const DgradStack rows[3] = {dgrad_stack(1, 1, 1, 1, 0, 1), down, down};
  const int64_t filter[3] = {1, 3, 3}, stride[3] = {1, 2, 2};
  EXPECT_TRUE(dgrad_stack_pays(rows, filter, stride, 64));
  EXPECT_FALSE(dgrad_stack_pays(rows, filter, stride, 512));  // measured slower stacked
  EXPECT_FALSE(dgrad_stack(56, 28, 1, 2, 0, 1).ok);
}

TEST(ConvDgradPhasesPlan, ResNetDownsamplingLayers) {
  // 3x3, stride 2, padding 1 over 56 positions: phase 0 is the centre tap alone, phase 1 the
  // outer two, turned (tap 2 first), reading one row of dy's upper padding.
  const DgradPhase even = dgrad_phase(56, 28, 3, 2, 1, 1, 0);
  EXPECT_EQ(even.taps, 1);
  EXPECT_EQ(dgrad_phase_tap(even, 0), 1);
  EXPECT_EQ(even.lower, 0);
  EXPECT_EQ(even.upper, 0);
  EXPECT_EQ(even.outputs, 28);
  const DgradPhase odd = dgrad_phase(56, 28, 3, 2, 1, 1, 1);
  EXPECT_EQ(odd.taps, 2);
  EXPECT_EQ(dgrad_phase_tap(odd, 0), 2);
  EXPECT_EQ(dgrad_phase_tap(odd, 1), 0);
  EXPECT_EQ(odd.lower, 0);
  EXPECT_EQ(odd.upper, 1);
  // 1x1, stride 2 (the projection shortcut): odd positions get nothing.
  EXPECT_EQ(dgrad_phase(56, 28, 1, 2, 0, 1, 1).taps, 0);
  // Stride 1: one phase, the whole filter turned, padding (R - 1) d - p.
  const DgradPhase one = dgrad_phase(56, 56, 3, 1, 1, 1, 0);
  EXPECT_EQ(one.taps, 3);
  EXPECT_EQ(dgrad_phase_tap(one, 0), 2);
  EXPECT_EQ(one.lower, 1);
  EXPECT_EQ(one.upper, 1);
}

}  // namespace
}  // namespace boo_kernels
