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

TEST(ConvDgradPhasesPlan, EveryPhaseSumsExactlyTheForwardPairs) {
  int checked = 0;
  for (int64_t in = 1; in <= 13; ++in) {
    for (int64_t filter = 1; filter <= 7; ++filter) {
      for (int64_t stride = 1; stride <= 3; ++stride) {
        for (int64_t pad = 0; pad <= 4; ++pad) {
          for (int64_t dilation = 1; dilation <= 3; ++dilation) {
            const int64_t span = in + 2 * pad - dilation * (filter - 1) - 1;
            if (span < 0) continue;
            const int64_t out = span / stride + 1;
            int64_t positions = 0;
            for (int64_t a = 0; a < stride; ++a) {
              const DgradPhase ph = dgrad_phase(in, out, filter, stride, pad, dilation, a);
              positions += ph.outputs;
              if (ph.taps > 0) {
                // The stride-1 convolution's output extent is the phase's positions and those
                // it computes before and after them, and no padding is negative.
                EXPECT_GE(ph.lower, 0);
                EXPECT_GE(ph.upper, 0);
                EXPECT_EQ(out + ph.lower + ph.upper - (ph.taps - 1) * ph.dilation,
                          ph.skip + ph.outputs + ph.tail);
              }
              for (int64_t m = 0; m < ph.outputs; ++m) {
                const int64_t i = a + stride * m;
                const Pairs want = reference(i, out, filter, stride, pad, dilation);
                const Pairs got = ph.taps > 0 ? phase_pairs(ph, m, out) : Pairs{};
                ASSERT_EQ(got, want)
                    << "in " << in << " filter " << filter << " stride " << stride << " pad " << pad
                    << " dilation " << dilation << " phase " << a << " m " << m;
                ++checked;
              }
            }
            EXPECT_EQ(positions, in);
          }
        }
      }
    }
  }
  EXPECT_GT(checked, 10000);
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
