// Packed channels-last tensors for convolution kernels that need them (conv.sm90_implicit's
// TMA im2col): x as N,D,H,W,C, w as K,D,H,W,C/G and y as N,D,H,W,K, densely packed, with
// 16-byte aligned pointers. ConvChannelsLastRunner wraps such an inner runner and accepts any
// layout: each tensor that is not packed channels-last (NCHW, what MIOpen users pass by
// default, or any other strides) or whose pointer is not 16-byte aligned is copied into a packed
// channels-last buffer in the workspace, and the output tensor is produced in such a buffer and
// copied out into the caller's layout. These copies are the "GPU layout transform, no host
// copies" of DESIGN.md §3: NCHW problems run on the NHWC algorithms. Tensors already packed
// channels-last and aligned are used in place, so an NHWC problem pays nothing.
//
// Which tensors are read and which one is written depends on the direction: forward reads x and
// w and writes y; backward data reads y (dy) and w and writes x (dx); backward weight reads x
// and y (dy) and writes w (dw). The bias (forward) is passed through untouched.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <initializer_list>

#include "entry_points.cuh"

namespace boo_kernels {

constexpr int kRelayoutThreads = 256;
constexpr int64_t kRelayoutMaxBlocks = int64_t{1} << 20;

// A 5-D copy with its dimensions ordered outermost first by the destination's strides, so that
// neighbouring threads write neighbouring elements.
struct RelayoutCopy {
  int64_t extent[5];
  int64_t src[5];  // element strides of the source
  int64_t dst[5];  // element strides of the destination
};

// dst(i) = src(i) for every index i of the 5-D extent. Index is uint32_t when the element count
// fits (the five divisions per element are then several times cheaper).
template <class T, class Index>
__global__ void __launch_bounds__(kRelayoutThreads)
    conv_relayout_copy_kernel(const T* __restrict__ src, T* __restrict__ dst, RelayoutCopy c,
                              int64_t total) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < total;
       i += step) {
    Index rest = static_cast<Index>(i);
    int64_t s = 0;
    int64_t d = 0;
#pragma unroll
    for (int dim = 4; dim > 0; --dim) {
      const Index extent = static_cast<Index>(c.extent[dim]);
      const int64_t v = static_cast<int64_t>(rest % extent);
      rest /= extent;
      s += v * c.src[dim];
      d += v * c.dst[dim];
    }
    s += static_cast<int64_t>(rest) * c.src[0];
    d += static_cast<int64_t>(rest) * c.dst[0];
    dst[d] = src[s];
  }
}

// dst[b] = transpose(src[b]) for `batch` row-major rows x cols matrices (batch stride
// rows * cols in both): 32 x 32 tiles through shared memory, so both the reads and the writes
// are runs of 32 neighbouring elements. NCHW <-> NHWC is this with rows x cols = C x HW (or
// HW x C); the per-element copy above reaches about 0.5 TB/s on it, this several times more.
template <class T>
__global__ void __launch_bounds__(256)
    conv_transpose_kernel(const T* __restrict__ src, T* __restrict__ dst, int64_t rows,
                          int64_t cols) {
  __shared__ T tile[32][33];
  const int64_t batch = static_cast<int64_t>(blockIdx.z) * rows * cols;
  const int64_t r0 = static_cast<int64_t>(blockIdx.y) * 32;
  const int64_t c0 = static_cast<int64_t>(blockIdx.x) * 32;
  for (int i = threadIdx.y; i < 32; i += 8) {
    const int64_t r = r0 + i;
    const int64_t c = c0 + threadIdx.x;
    if (r < rows && c < cols) tile[i][threadIdx.x] = src[batch + r * cols + c];
  }
  __syncthreads();
  for (int i = threadIdx.y; i < 32; i += 8) {
    const int64_t c = c0 + i;
    const int64_t r = r0 + threadIdx.x;
    if (r < rows && c < cols) dst[batch + c * rows + r] = tile[threadIdx.x][i];
  }
}

// Whether `stride` addresses an (N, C, D, H, W) tensor of `extent` like `expect` does (strides
// of extent-1 dims never matter).
inline bool same_strides(const int64_t extent[5], const int64_t stride[5],
                         const int64_t expect[5]) {
  for (int i = 0; i < 5; ++i) {
    if (extent[i] > 1 && stride[i] != expect[i]) return false;
  }
  return true;
}

// Copies a tensor of logical extent `extent` (N or K, C, D, H, W) between two strided layouts.
template <class T>
cudaError_t conv_relayout_copy(const void* src, const int64_t src_stride[5], void* dst,
                               const int64_t dst_stride[5], const int64_t extent[5],
                               cudaStream_t stream) {
  // Packed channels-first <-> packed channels-last (what NCHW users need): a batched transpose
  // of C x S matrices, S the spatial size.
  const int64_t n = extent[0], ch = extent[1];
  const int64_t sp = extent[2] * extent[3] * extent[4];
  const int64_t first[5] = {ch * sp, sp, extent[3] * extent[4], extent[4], 1};
  const int64_t last[5] = {sp * ch, 1, extent[3] * extent[4] * ch, extent[4] * ch, ch};
  const bool to_last =
      same_strides(extent, src_stride, first) && same_strides(extent, dst_stride, last);
  const bool to_first =
      same_strides(extent, src_stride, last) && same_strides(extent, dst_stride, first);
  if (to_last || to_first) {
    const int64_t rows = to_last ? ch : sp;
    const int64_t cols = to_last ? sp : ch;
    const int64_t grid_x = (cols + 31) / 32;
    const int64_t grid_y = (rows + 31) / 32;
    if (grid_x < (int64_t{1} << 31) && grid_y <= 65535 && n <= 65535) {
      const dim3 grid(static_cast<unsigned>(grid_x), static_cast<unsigned>(grid_y),
                      static_cast<unsigned>(n));
      conv_transpose_kernel<T><<<grid, dim3(32, 8), 0, stream>>>(static_cast<const T*>(src),
                                                                 static_cast<T*>(dst), rows, cols);
      return cudaGetLastError();
    }
  }
  // Order the dimensions by decreasing destination stride (a stable insertion sort of five).
  int order[5] = {0, 1, 2, 3, 4};
  for (int i = 1; i < 5; ++i) {
    for (int j = i; j > 0; --j) {
      const int64_t a =
          dst_stride[order[j - 1]] < 0 ? -dst_stride[order[j - 1]] : dst_stride[order[j - 1]];
      const int64_t b = dst_stride[order[j]] < 0 ? -dst_stride[order[j]] : dst_stride[order[j]];
      if (a >= b) break;
      const int t = order[j - 1];
      order[j - 1] = order[j];
      order[j] = t;
    }
  }
  RelayoutCopy c;
  int64_t total = 1;
  for (int i = 0; i < 5; ++i) {
    c.extent[i] = extent[order[i]];
    c.src[i] = src_stride[order[i]];
    c.dst[i] = dst_stride[order[i]];
    total *= extent[i];
  }
  const int64_t blocks = (total + kRelayoutThreads - 1) / kRelayoutThreads;
  const unsigned grid =
      static_cast<unsigned>(blocks < kRelayoutMaxBlocks ? blocks : kRelayoutMaxBlocks);
  if (total <= int64_t{0xffffffff}) {
    conv_relayout_copy_kernel<T, uint32_t><<<grid, kRelayoutThreads, 0, stream>>>(
        static_cast<const T*>(src), static_cast<T*>(dst), c, total);
  } else {
    conv_relayout_copy_kernel<T, uint64_t><<<grid, kRelayoutThreads, 0, stream>>>(
        static_cast<const T*>(src), static_cast<T*>(dst), c, total);
  }
  return cudaGetLastError();
}

// Inner: a conv runner (supports / workspace / run over BooConvArgs) that needs packed
// channels-last tensors with 16-byte aligned pointers. T: the element type of x, w and y.
template <class Inner, class T>
struct ConvChannelsLastRunner {
  // One tensor's relayout: its logical extent, its packed channels-last strides and, when it
  // is copied, its slot in the workspace.
  struct Tensor {
    bool copy = false;
    bool output = false;  // written by the convolution (copied out after the inner run)
    int64_t extent[5] = {};
    int64_t packed[5] = {};
    int64_t offset = 0;
    int64_t bytes = 0;
  };
  struct Plan {
    bool valid = false;
    Tensor x, w, y;
    int64_t copies = 0;       // bytes of the slots, from offset 0
    int64_t inner_bytes = 0;  // the inner kernel's workspace, after the slots
    int64_t total = 0;
    BooConvArgs inner{};
  };

  static int64_t round_up(int64_t v, int64_t q) { return (v + q - 1) / q * q; }
  static bool misaligned(const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 != 0; }

  // Strides of (N, C, D, H, W) stored as N, D, H, W, C with nothing between elements.
  static void packed_channels_last(const int64_t e[5], int64_t s[5]) {
    s[1] = 1;
    s[4] = e[1];
    s[3] = e[4] * s[4];
    s[2] = e[3] * s[3];
    s[0] = e[2] * s[2];
  }

  // Whether `stride` addresses the same elements as the packed layout: a dimension of extent 1
  // is never stepped along, so its stride does not matter.
  static bool is_packed(const int64_t stride[5], const Tensor& t) {
    for (int i = 0; i < 5; ++i) {
      if (t.extent[i] > 1 && stride[i] != t.packed[i]) return false;
    }
    return true;
  }

  // Sets up `t` for a tensor at `ptr` with the caller's `stride`, points the inner arguments'
  // tensor at its workspace slot when it is copied, and gives the inner arguments the packed
  // strides either way (so the inner kernel sees one canonical description).
  static void place(Tensor& t, void* ptr, const int64_t stride[5], char* base, int64_t& offset,
                    void*& inner_ptr, int64_t inner_stride[5]) {
    packed_channels_last(t.extent, t.packed);
    t.copy = misaligned(ptr) || !is_packed(stride, t);
    int64_t elements = 1;
    for (int i = 0; i < 5; ++i) elements *= t.extent[i];
    t.bytes = elements * static_cast<int64_t>(sizeof(T));
    for (int i = 0; i < 5; ++i) inner_stride[i] = t.packed[i];
    if (!t.copy) return;
    t.offset = offset;
    offset = round_up(offset + t.bytes, 256);
    inner_ptr = base + t.offset;
  }

  static bool sizes_valid(const BooConvArgs& a) {
    if (a.direction < BOO_CONV_FORWARD || a.direction > BOO_CONV_BACKWARD_WEIGHT) return false;
    if (a.n < 1 || a.c < 1 || a.k < 1 || a.groups < 1 || a.c % a.groups != 0) return false;
    for (int i = 0; i < 3; ++i) {
      if (a.in[i] < 1 || a.filter[i] < 1 || a.out[i] < 1) return false;
    }
    // Each tensor's byte count must fit int64 (a product of positive values, checked by
    // division so that nothing overflows on the way).
    const int64_t x[5] = {a.n, a.c, a.in[0], a.in[1], a.in[2]};
    const int64_t w[5] = {a.k, a.c / a.groups, a.filter[0], a.filter[1], a.filter[2]};
    const int64_t y[5] = {a.n, a.k, a.out[0], a.out[1], a.out[2]};
    for (const int64_t* e : {x, w, y}) {
      int64_t p = static_cast<int64_t>(sizeof(T));
      for (int i = 0; i < 5; ++i) {
        if (e[i] > (INT64_MAX / 4) / p) return false;  // headroom for the 256-byte rounding
        p *= e[i];
      }
    }
    return a.x != nullptr && a.w != nullptr && a.y != nullptr;
  }

  // The copies the arguments need and the inner kernel's arguments over them; `base` is where
  // the workspace starts (a stand-in when only sizes are wanted).
  static Plan make_plan(const BooConvArgs& a, char* base) {
    Plan p;
    if (!sizes_valid(a)) return p;
    p.valid = true;
    p.inner = a;
    const int64_t x_extent[5] = {a.n, a.c, a.in[0], a.in[1], a.in[2]};
    const int64_t w_extent[5] = {a.k, a.c / a.groups, a.filter[0], a.filter[1], a.filter[2]};
    const int64_t y_extent[5] = {a.n, a.k, a.out[0], a.out[1], a.out[2]};
    for (int i = 0; i < 5; ++i) {
      p.x.extent[i] = x_extent[i];
      p.w.extent[i] = w_extent[i];
      p.y.extent[i] = y_extent[i];
    }
    p.x.output = a.direction == BOO_CONV_BACKWARD_DATA;
    p.w.output = a.direction == BOO_CONV_BACKWARD_WEIGHT;
    p.y.output = a.direction == BOO_CONV_FORWARD;
    // Each copy takes the next 256-byte-aligned slot: x, w, y in that order.
    int64_t offset = 0;
    place(p.x, a.x, a.x_stride, base, offset, p.inner.x, p.inner.x_stride);
    place(p.w, a.w, a.w_stride, base, offset, p.inner.w, p.inner.w_stride);
    place(p.y, a.y, a.y_stride, base, offset, p.inner.y, p.inner.y_stride);
    p.copies = offset;
    // The inner workspace follows the slots; its size does not depend on where they are.
    p.inner_bytes = Inner::workspace(p.inner);
    p.total = p.copies + (p.inner_bytes > 0 ? p.inner_bytes : 0);
    return p;
  }

  // Stand-in for the workspace while planning: 256-byte aligned, never dereferenced.
  static char* stand_in() { return reinterpret_cast<char*>(uintptr_t{1} << 20); }

  static int32_t supports(const BooConvArgs& a, char* why, int32_t len) {
    const Plan p = make_plan(a, stand_in());
    if (!p.valid) {
      write_why(why, len, "invalid sizes, direction or a missing tensor pointer");
      return BOO_UNSUPPORTED;
    }
    return Inner::supports(p.inner, why, len);
  }

  static int64_t workspace(const BooConvArgs& a) {
    const Plan p = make_plan(a, stand_in());
    if (!p.valid || p.inner_bytes < 0) return -1;
    return p.total;
  }

  static int32_t run(const BooConvArgs& a, void* ws, int64_t ws_bytes, void* stream, char* why,
                     int32_t len) {
    char* base = static_cast<char*>(ws);
    const Plan p = make_plan(a, base);
    if (!p.valid) {
      write_why(why, len, "invalid sizes, direction or a missing tensor pointer");
      return BOO_UNSUPPORTED;
    }
    if (p.inner_bytes < 0) {
      write_why(why, len, "the inner kernel rejects the channels-last problem");
      return BOO_UNSUPPORTED;
    }
    if (p.total > ws_bytes || (p.copies > 0 && base == nullptr)) {
      write_why(why, len, "workspace too small for the channels-last copies");
      return BOO_ERROR;
    }
    if (p.copies > 0 && misaligned(base)) {
      write_why(why, len, "the workspace is not 16-byte aligned");
      return BOO_ERROR;
    }
    const cudaStream_t s = static_cast<cudaStream_t>(stream);
    if (!a.dry_run) {
      const Tensor* tensors[3] = {&p.x, &p.w, &p.y};
      const void* ptrs[3] = {a.x, a.w, a.y};
      const int64_t* strides[3] = {a.x_stride, a.w_stride, a.y_stride};
      for (int i = 0; i < 3; ++i) {
        const Tensor& t = *tensors[i];
        if (!t.copy || t.output) continue;
        const cudaError_t e =
            conv_relayout_copy<T>(ptrs[i], strides[i], base + t.offset, t.packed, t.extent, s);
        if (e != cudaSuccess) return cuda_result(e, why, len);
      }
    }
    void* inner_ws = p.inner_bytes > 0 ? base + p.copies : nullptr;
    const int32_t rc = Inner::run(p.inner, inner_ws, p.inner_bytes, stream, why, len);
    if (rc != BOO_OK || a.dry_run) return rc;
    const Tensor& out = p.x.output ? p.x : p.w.output ? p.w : p.y;
    if (!out.copy) return BOO_OK;
    void* dst = p.x.output ? a.x : p.w.output ? a.w : a.y;
    const int64_t* dst_stride = p.x.output ? a.x_stride : p.w.output ? a.w_stride : a.y_stride;
    const cudaError_t e =
        conv_relayout_copy<T>(base + out.offset, out.packed, dst, dst_stride, out.extent, s);
    return cuda_result(e, why, len);
  }
};

}  // namespace boo_kernels
