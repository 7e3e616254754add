// conv.sm90_implicit's backward data as forward convolutions over stride phases (configs
// "_phases"): CUTLASS 4.2's sm90 dgrad is unit-stride and its tf32 kernels read K-major operands
// only, so strided backward data (every downsampling layer's) and fp32 backward data had only
// conv.direct. Each phase of dx (the positions a + s m, per spatial dimension) is a stride-1
// forward convolution of dy with the phase's taps turned around (conv_dgrad_phases_plan.cuh).
//
// ConvDgradPhasesRunner (behind ConvChannelsLastRunner: packed channels-last dx, dy and w, 16-byte
// channel vectors) writes every phase's turned filter (C x taps x K, packed) into the workspace in
// one launch, runs each phase that some tap meets on the inner forward runner (ConvSm90Runner with
// exact padding: the upper padding from the output extent) into its own packed buffer, then
// gathers the buffers into dx in one launch (zeros where no tap meets a phase). A single phase
// (stride 1) that skips no position writes dx itself. Where every phase meets a tap and padding
// the phases' filters to common taps costs at most twice the multiplies, with at most 128
// channels of dx (dgrad_stack_pays: ResNet's stride-2 3x3, 16 taps for 9), the phases run stacked:
// one convolution whose output channels are every phase's C side by side, one launch instead of a
// launch per phase.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "conv_common.cuh"
#include "conv_dgrad_phases_plan.cuh"
#include "entry_points.cuh"

namespace boo_kernels {

constexpr int kDgradMaxPhases = kDgradMaxStride * kDgradMaxStride * kDgradMaxStride;

// What the two copy kernels need of each phase: its taps per dimension (D, H, W), where its
// turned filter and its buffer are (element offsets into the workspace's two regions), and its
// extent (for the gather).
struct DgradPhaseCopy {
  int32_t first_tap[3], tap_step[3], taps[3];
  int32_t outputs[3];  // the buffer's extent: the phase's positions, those before and after
  int32_t skip[3];
  int64_t filter_offset;  // elements
  int64_t buffer_offset;  // elements; -1: no tap meets the phase (zeros)
};
struct DgradPhaseCopies {
  DgradPhaseCopy phase[kDgradMaxPhases];
  int32_t count;
  int32_t stride[3];
  // Stacked (dgrad_stack_pays): one convolution whose output channels are the phases' C
  // side by side; its filter's taps, the positions it computes before the phases' first, its
  // extent, and where each phase's taps sit (dgrad_stack) per dimension.
  int32_t stacked;
  int32_t stack_taps[3], stack_skip[3], stack_extent[3];
  int32_t stack_shift[3][kDgradMaxStride];
};

// One thread per element of every phase's turned filter: w'[c, j0, j1, j2, k] =
// w[k, c, tap(j0), tap(j1), tap(j2)], w in the caller's (K, C, D, H, W) strides; stacked, of the
// one filter w'[(phase, c), t0, t1, t2, k] (zero where t is none of the phase's taps).
template <class T>
__global__ void __launch_bounds__(256)
    conv_dgrad_phase_filters_kernel(const T* __restrict__ w, T* __restrict__ filters, BooConvArgs a,
                                    DgradPhaseCopies ph, int64_t total) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < total;
       i += step) {
    if (ph.stacked) {
      int64_t e = i;
      const int64_t k = e % a.k;
      e /= a.k;
      int64_t t[3];
      for (int d = 2; d >= 0; --d) {
        t[d] = e % ph.stack_taps[d];
        e /= ph.stack_taps[d];
      }
      const int64_t c = e % a.c;
      const int p = static_cast<int>(e / a.c);
      const DgradPhaseCopy& f = ph.phase[p];
      const int at[3] = {p / (ph.stride[1] * ph.stride[2]), (p / ph.stride[2]) % ph.stride[1],
                         p % ph.stride[2]};
      bool tap = true;
      int64_t src = k * a.w_stride[0] + c * a.w_stride[1];
      for (int d = 0; d < 3; ++d) {
        const int64_t j = ph.stack_shift[d][at[d]] - t[d];
        tap = tap && j >= 0 && j < f.taps[d];
        src += (f.first_tap[d] + j * f.tap_step[d]) * a.w_stride[2 + d];
      }
      filters[i] = tap ? w[src] : T(0);
      continue;
    }
    // The phase whose filter holds i: the last one with an offset at or below i among those
    // with taps (phases without taps hold no filter and keep their neighbour's offset).
    int p = 0;
    for (int q = 0; q < ph.count; ++q) {
      if (ph.phase[q].buffer_offset >= 0 && ph.phase[q].filter_offset <= i) p = q;
    }
    const DgradPhaseCopy& f = ph.phase[p];
    int64_t e = i - f.filter_offset;
    const int64_t k = e % a.k;
    e /= a.k;
    int64_t src = k * a.w_stride[0];
    for (int d = 2; d >= 0; --d) {
      const int64_t j = e % f.taps[d];
      e /= f.taps[d];
      const int64_t r = f.first_tap[d] + (f.taps[d] - 1 - j) * f.tap_step[d];
      src += r * a.w_stride[2 + d];
    }
    src += e * a.w_stride[1];  // e is now c
    filters[i] = w[src];
  }
}

// One thread per 16-byte vector of dx (packed N, D, H, W, C): the vector of its phase's buffer at
// the phase position, or zeros.
template <class T>
__global__ void __launch_bounds__(256)
    conv_dgrad_phase_gather_kernel(const T* __restrict__ buffers, T* __restrict__ dx, BooConvArgs a,
                                   DgradPhaseCopies ph, int64_t vectors) {
  constexpr int kVec = 16 / sizeof(T);
  const int64_t per_pixel = a.c / kVec;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t v = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; v < vectors;
       v += step) {
    int64_t rest = v / per_pixel;
    const int64_t cv = v - rest * per_pixel;
    int64_t pos[3];
    for (int d = 2; d >= 0; --d) {
      pos[d] = rest % a.in[d];
      rest /= a.in[d];
    }
    const int64_t n = rest;
    int p = 0;
    int64_t m[3];
    for (int d = 0; d < 3; ++d) {
      p = p * ph.stride[d] + static_cast<int>(pos[d] % ph.stride[d]);
      m[d] = pos[d] / ph.stride[d];
    }
    const DgradPhaseCopy& f = ph.phase[p];
    uint4 out = make_uint4(0, 0, 0, 0);
    if (ph.stacked) {
      for (int d = 0; d < 3; ++d) m[d] += ph.stack_skip[d];
      const int64_t at =
          ((n * ph.stack_extent[0] + m[0]) * ph.stack_extent[1] + m[1]) * ph.stack_extent[2] + m[2];
      out = reinterpret_cast<const uint4*>(buffers)[(at * ph.count + p) * per_pixel + cv];
    } else if (f.buffer_offset >= 0) {
      for (int d = 0; d < 3; ++d) m[d] += f.skip[d];
      const int64_t at = ((n * f.outputs[0] + m[0]) * f.outputs[1] + m[1]) * f.outputs[2] + m[2];
      out = reinterpret_cast<const uint4*>(buffers + f.buffer_offset)[at * per_pixel + cv];
    }
    reinterpret_cast<uint4*>(dx)[v] = out;
  }
}

template <class Inner, class T>
struct ConvDgradPhasesRunner {
  struct Plan {
    bool valid = false;
    DgradPhaseCopies copies{};
    int64_t filter_elements = 0, buffer_elements = 0;
    bool in_place = false;   // one phase (stride 1) that skips nothing: written straight to dx
    int64_t buffers_at = 0;  // bytes: the buffers' region, after the filters
    int64_t inner_at = 0;    // bytes: the inner runs' workspace (shared: they run in order)
    int64_t inner_bytes = 0, total = 0;
    BooConvArgs inner[kDgradMaxPhases] = {};
  };

  static int64_t round_up(int64_t v, int64_t q) { return (v + q - 1) / q * q; }
  // The inner arguments a plan runs: one stacked convolution, or one per phase.
  static int convolutions(const Plan& p) { return p.copies.stacked ? 1 : p.copies.count; }

  static const char* reject(const BooConvArgs& a) {
    if (const char* e = conv_geometry_error(a)) return e;
    if (a.direction != BOO_CONV_BACKWARD_DATA) return "stride phases run backward data only";
    if (a.groups != 1) return "stride phases need one group";
    if (a.n < 1 || a.c < 1 || a.k < 1) return "sizes must be >= 1";
    if (a.x == nullptr || a.w == nullptr || a.y == nullptr) return "a tensor pointer is null";
    if (a.c % (16 / static_cast<int64_t>(sizeof(T))) != 0) {
      return "C must be whole 16-byte vectors";
    }
    int64_t phases = 1;
    for (int d = 0; d < 3; ++d) {
      if (a.stride[d] > kDgradMaxStride) return "stride phases take strides of at most 3";
      phases *= a.stride[d];
      if ((a.in[d] + 2 * a.pad[d] - a.dilation[d] * (a.filter[d] - 1) - 1) / a.stride[d] + 1 !=
              a.out[d] ||
          a.in[d] + 2 * a.pad[d] < a.dilation[d] * (a.filter[d] - 1) + 1) {
        return "the output extent is not the convolution's";
      }
    }
    if (phases > kDgradMaxPhases) return "too many stride phases";
    const int64_t x_ext[3] = {a.in[0], a.in[1], a.in[2]};
    const int64_t y_ext[3] = {a.out[0], a.out[1], a.out[2]};
    if (!packed_channels_last(a.x_stride, x_ext, a.c, a.n) ||
        !packed_channels_last(a.y_stride, y_ext, a.k, a.n)) {
      return "stride phases need packed channels-last dx and dy";
    }
    return nullptr;
  }

  static Plan make_plan(const BooConvArgs& a, char* base) {
    Plan p;
    if (reject(a) != nullptr) return p;
    p.valid = true;
    DgradPhaseCopies& c = p.copies;
    for (int d = 0; d < 3; ++d) c.stride[d] = static_cast<int32_t>(a.stride[d]);
    c.count = static_cast<int32_t>(a.stride[0] * a.stride[1] * a.stride[2]);
    // Every phase's per-dimension plan first, then the regions' sizes.
    DgradPhase dims[kDgradMaxPhases][3];
    for (int q = 0; q < c.count; ++q) {
      const int64_t at[3] = {q / (a.stride[1] * a.stride[2]), (q / a.stride[2]) % a.stride[1],
                             q % a.stride[2]};
      DgradPhaseCopy& f = c.phase[q];
      bool taps = true, empty = false;
      int64_t filter = a.c * a.k, buffer = a.n * a.c;
      for (int d = 0; d < 3; ++d) {
        dims[q][d] = dgrad_phase(a.in[d], a.out[d], a.filter[d], a.stride[d], a.pad[d],
                                 a.dilation[d], at[d]);
        const DgradPhase& g = dims[q][d];
        f.first_tap[d] = static_cast<int32_t>(g.first_tap);
        f.tap_step[d] = static_cast<int32_t>(g.tap_step);
        f.taps[d] = static_cast<int32_t>(g.taps);
        f.outputs[d] = static_cast<int32_t>(g.skip + g.outputs + g.tail);
        f.skip[d] = static_cast<int32_t>(g.skip);
        taps = taps && g.taps > 0;
        empty = empty || g.outputs == 0;
        filter *= g.taps;
        buffer *= g.skip + g.outputs + g.tail;
      }
      f.filter_offset = p.filter_elements;
      f.buffer_offset = -1;
      if (taps && !empty) {
        f.buffer_offset = p.buffer_elements;
        p.filter_elements += filter;
        p.buffer_elements += round_up(buffer, 128);
      }
    }
    // Stacked: one convolution for every phase (its filter and buffer replace the phases').
    DgradStack st[3];
    for (int d = 0; d < 3; ++d) {
      st[d] = dgrad_stack(a.in[d], a.out[d], a.filter[d], a.stride[d], a.pad[d], a.dilation[d]);
    }
    c.stacked = dgrad_stack_pays(st, a.filter, a.stride, a.c) ? 1 : 0;
    if (c.stacked) {
      p.filter_elements = c.count * a.c * a.k;
      p.buffer_elements = c.count * a.c * a.n;
      for (int d = 0; d < 3; ++d) {
        c.stack_taps[d] = static_cast<int32_t>(st[d].taps);
        c.stack_skip[d] = static_cast<int32_t>(st[d].skip);
        c.stack_extent[d] = static_cast<int32_t>(st[d].extent);
        for (int q = 0; q < kDgradMaxStride; ++q) {
          c.stack_shift[d][q] = static_cast<int32_t>(st[d].shift[q]);
        }
        p.filter_elements *= st[d].taps;
        p.buffer_elements *= st[d].extent;
      }
    }
    // (In place: the buffer's extent is dx's, nothing skipped or computed past the end.)
    p.in_place = c.count == 1 && c.phase[0].buffer_offset >= 0 && c.phase[0].skip[0] == 0 &&
                 c.phase[0].skip[1] == 0 && c.phase[0].skip[2] == 0 &&
                 c.phase[0].outputs[0] == a.in[0] && c.phase[0].outputs[1] == a.in[1] &&
                 c.phase[0].outputs[2] == a.in[2];
    if (p.in_place) p.buffer_elements = 0;
    const int64_t bytes = static_cast<int64_t>(sizeof(T));
    p.buffers_at = round_up(p.filter_elements * bytes, 256);
    p.inner_at = round_up(p.buffers_at + p.buffer_elements * bytes, 256);
    // Each phase: a forward convolution of dy (K channels) into C channels; stacked, one into
    // the phases' C side by side.
    for (int q = 0; q < (c.stacked ? 1 : c.count); ++q) {
      const DgradPhaseCopy& f = c.phase[q];
      if (f.buffer_offset < 0) continue;
      BooConvArgs& in = p.inner[q];
      in = a;
      in.direction = BOO_CONV_FORWARD;
      in.c = a.k;
      in.k = a.c;
      in.bias = nullptr;
      for (int d = 0; d < 3; ++d) {
        const DgradPhase& g = dims[q][d];
        in.in[d] = a.out[d];
        in.out[d] = c.stacked ? st[d].extent : g.skip + g.outputs + g.tail;
        in.filter[d] = c.stacked ? st[d].taps : g.taps;
        in.stride[d] = 1;
        in.pad[d] = c.stacked ? st[d].lower : g.lower;
        in.dilation[d] = g.dilation;
      }
      if (c.stacked) in.k = c.count * a.c;  // (phase 0's filter and buffer are at 0)
      in.x = a.y;
      for (int s = 0; s < 5; ++s) in.x_stride[s] = a.y_stride[s];
      in.w = base + f.filter_offset * bytes;
      in.w_stride[1] = 1;
      in.w_stride[4] = a.k;
      in.w_stride[3] = a.k * in.filter[2];
      in.w_stride[2] = in.w_stride[3] * in.filter[1];
      in.w_stride[0] = in.w_stride[2] * in.filter[0];
      in.y = p.in_place ? a.x : base + p.buffers_at + f.buffer_offset * bytes;
      in.y_stride[1] = 1;
      in.y_stride[4] = in.k;
      in.y_stride[3] = in.k * in.out[2];
      in.y_stride[2] = in.y_stride[3] * in.out[1];
      in.y_stride[0] = in.y_stride[2] * in.out[0];
      const int64_t need = Inner::workspace(in);
      if (need < 0) {
        p.inner_bytes = -1;
        break;
      }
      if (need > p.inner_bytes) p.inner_bytes = need;
    }
    p.total = p.inner_at + (p.inner_bytes > 0 ? p.inner_bytes : 0);
    return p;
  }

  static int32_t supports(const BooConvArgs& a, char* why, int32_t len) {
    if (const char* r = reject(a)) return reject_verdict(r, why, len);
    const Plan p = make_plan(a, planning_workspace());
    if (p.inner_bytes < 0) {
      return reject_verdict("a stride phase's forward convolution is not the inner kernel's", why,
                            len);
    }
    for (int q = 0; q < convolutions(p); ++q) {
      if (p.copies.phase[q].buffer_offset < 0) continue;
      if (const int32_t rc = Inner::supports(p.inner[q], why, len); rc != BOO_OK) return rc;
    }
    return BOO_OK;
  }

  static int64_t workspace(const BooConvArgs& a) {
    return planned_workspace(make_plan(a, planning_workspace()));
  }

  static int32_t run(const BooConvArgs& a, void* ws, int64_t ws_bytes, void* stream, char* why,
                     int32_t len) {
    char* base = static_cast<char*>(ws);
    const Plan p = make_plan(a, base);  // invalid (inner_bytes 0) when rejected
    const int32_t ready =
        conv_wrapper_ready(reject(a), p.inner_bytes, "the inner kernel rejects a stride phase",
                           base, p.total, ws_bytes, why, len);
    if (ready != BOO_OK) return ready;
    const cudaStream_t s = static_cast<cudaStream_t>(stream);
    if (!a.dry_run && p.filter_elements > 0) {
      conv_dgrad_phase_filters_kernel<T><<<conv_copy_grid(p.filter_elements), 256, 0, s>>>(
          static_cast<const T*>(a.w), reinterpret_cast<T*>(base), a, p.copies, p.filter_elements);
      if (const cudaError_t e = cudaGetLastError(); e != cudaSuccess)
        return cuda_result(e, why, len);
    }
    void* inner_ws = p.inner_bytes > 0 ? base + p.inner_at : nullptr;
    for (int q = 0; q < convolutions(p); ++q) {
      if (p.copies.phase[q].buffer_offset < 0) continue;
      const int32_t rc = Inner::run(p.inner[q], inner_ws, p.inner_bytes, stream, why, len);
      if (rc != BOO_OK) return rc;
    }
    if (a.dry_run || p.in_place) return BOO_OK;
    const int64_t vectors =
        a.n * a.in[0] * a.in[1] * a.in[2] * a.c / (16 / static_cast<int64_t>(sizeof(T)));
    conv_dgrad_phase_gather_kernel<T>
        <<<conv_copy_grid(vectors), 256, 0, s>>>(reinterpret_cast<const T*>(base + p.buffers_at),
                                                 static_cast<T*>(a.x), a, p.copies, vectors);
    return cuda_result(cudaGetLastError(), why, len);
  }
};

}  // namespace boo_kernels
