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
// With kPad > 1 (conv.padded_channels, DESIGN.md §3) a problem of one group whose C or K is not
// a multiple of kPad runs on the inner kernel with both rounded up to it: the copies append zero
// channels to x, w (and zero filters to w, zero bias values to the bias), the inner kernel
// computes the padded problem, and the copy out drops the padded channels. Zeros in every padded
// input make the padded products vanish in all three directions.
//
// Which tensors are read and which one is written depends on the direction: forward reads x and
// w and writes y; backward data reads y (dy) and w and writes x (dx); backward weight reads x
// and y (dy) and writes w (dw). The bias (forward) is passed through untouched.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <initializer_list>

#include "conv_common.cuh"
#include "entry_points.cuh"
#include "shifted_copy.cuh"

namespace boo_kernels {

constexpr int kRelayoutThreads = 256;  // conv_copy_grid's block size

// BOO_NVCC_FLAGS=-DBOO_CONV_COPY_DEPENDENT=0 launches every layout copy after the kernel before it
// has finished (as before the programmatic dependent launches; for measuring).
#ifndef BOO_CONV_COPY_DEPENDENT
#define BOO_CONV_COPY_DEPENDENT 1
#endif

// How a layout copy is ordered after the kernel before it on the stream. kCopyAfter: an ordinary
// launch. kCopyWaitFirst: a programmatic dependent launch that waits for that kernel (its
// completion and its writes) before it reads anything: the output's copy after the convolution.
// kCopyWaitLast: a programmatic dependent launch that reads nothing that kernel writes (an input's
// copy after another input's): it copies first and waits last, so that its grid completes only
// after the kernel before it has, and a kernel launched after it in the ordinary way finds both
// copies done. Every copy kernel lets its own dependent launch once all its blocks have started.
enum ConvCopyOrder : int { kCopyAfter = 0, kCopyWaitFirst = 1, kCopyWaitLast = 2 };
__device__ __forceinline__ void copy_order_begin(int order) {
  cudaTriggerProgrammaticLaunchCompletion();
  if (order == kCopyWaitFirst) cudaGridDependencySynchronize();
}
__device__ __forceinline__ void copy_order_end(int order) {
  if (order == kCopyWaitLast) cudaGridDependencySynchronize();
}
// Launches a copy kernel in `order` (kCopyAfter: <<<>>>; else a programmatic dependent launch).
template <class... Params, class... Args>
cudaError_t launch_copy(void (*kernel)(Params...), dim3 grid, dim3 block, int order,
                        cudaStream_t stream, Args... args) {
  return launch_maybe_dependent(order != kCopyAfter, kernel, grid, block, stream, args..., order);
}

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
                              int64_t total, int order) {
  copy_order_begin(order);
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
  copy_order_end(order);
}

// dst[b] = transpose(src[b]) for `batch` row-major rows x cols matrices (batch stride
// rows * cols in both): 64 x 64 tiles through shared memory, so both the reads and the writes
// are runs of 64 neighbouring elements (128 bytes of 16-bit types). NCHW <-> NHWC is this with
// rows x cols = C x HW (or HW x C). Each of the 256 threads has 16 loads in flight: on an H100
// 32 x 32 tiles with 4 loads a thread moved an NCHW bf16 activation at about 1 TB/s (ncu,
// bench/results/2026-11-26-conv-nchw-profile-h100.md).
constexpr int kTransposeTile = 64;
template <class T>
__global__ void __launch_bounds__(256)
    conv_transpose_kernel(const T* __restrict__ src, T* __restrict__ dst, int64_t rows,
                          int64_t cols, int order) {
  copy_order_begin(order);
  __shared__ T tile[kTransposeTile][kTransposeTile + 1];
  const int64_t batch = static_cast<int64_t>(blockIdx.z) * rows * cols;
  const int64_t r0 = static_cast<int64_t>(blockIdx.y) * kTransposeTile;
  const int64_t c0 = static_cast<int64_t>(blockIdx.x) * kTransposeTile;
  T v[2][kTransposeTile / 8];
#pragma unroll
  for (int h = 0; h < 2; ++h) {
#pragma unroll
    for (int j = 0; j < kTransposeTile / 8; ++j) {
      const int64_t r = r0 + threadIdx.y + 8 * j;
      const int64_t c = c0 + threadIdx.x + 32 * h;
      if (r < rows && c < cols) v[h][j] = src[batch + r * cols + c];
    }
  }
#pragma unroll
  for (int h = 0; h < 2; ++h) {
#pragma unroll
    for (int j = 0; j < kTransposeTile / 8; ++j) {
      tile[threadIdx.y + 8 * j][threadIdx.x + 32 * h] = v[h][j];
    }
  }
  __syncthreads();
#pragma unroll
  for (int h = 0; h < 2; ++h) {
#pragma unroll
    for (int j = 0; j < kTransposeTile / 8; ++j) {
      const int64_t c = c0 + threadIdx.y + 8 * j;
      const int64_t r = r0 + threadIdx.x + 32 * h;
      if (r < rows && c < cols) {
        dst[batch + c * rows + r] = tile[threadIdx.x + 32 * h][threadIdx.y + 8 * j];
      }
    }
  }
  copy_order_end(order);
}

// The same transpose for matrices with fewer than kNarrowSide rows or columns (a C = 3 image's
// 3 x HW, a 3x3 filter's C x 9), where square tiles would stay mostly empty: one thread per
// element of the long side walks the short one, so that each of a warp's loads and stores
// covers neighbouring elements on one side or the other. (At 16 the tiles are faster: an NCHW
// C = 16 image measured 0.53x cuDNN this way, 0.70x on tiles; bench/results/
// 2026-11-26-conv-nchw-h100.md.)
constexpr int kNarrowSide = 16;
template <class T>
__global__ void __launch_bounds__(256)
    conv_transpose_narrow_kernel(const T* __restrict__ src, T* __restrict__ dst, int64_t rows,
                                 int64_t cols, int order) {
  copy_order_begin(order);
  const int64_t batch = static_cast<int64_t>(blockIdx.y) * rows * cols;
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (rows < kNarrowSide) {  // i: a column
    if (i < cols) {
      T v[kNarrowSide];
#pragma unroll
      for (int r = 0; r < kNarrowSide; ++r) {
        if (r < rows) v[r] = src[batch + r * cols + i];
      }
#pragma unroll
      for (int r = 0; r < kNarrowSide; ++r) {
        if (r < rows) dst[batch + i * rows + r] = v[r];
      }
    }
  } else if (i < rows) {  // i: a row; cols < kNarrowSide
    T v[kNarrowSide];
#pragma unroll
    for (int c = 0; c < kNarrowSide; ++c) {
      if (c < cols) v[c] = src[batch + i * cols + c];
    }
#pragma unroll
    for (int c = 0; c < kNarrowSide; ++c) {
      if (c < cols) dst[batch + c * rows + i] = v[c];
    }
  }
  copy_order_end(order);
}

// dst[r][c] = src[r][c] where r < src_rows and c < src_ch, else 0, for the dst_rows x dst_ch
// row-major dst: appends zero channels and zero rows (padding), or drops them (dst smaller).
template <class T, class Index>
__global__ void __launch_bounds__(kRelayoutThreads)
    conv_channel_pad_kernel(const T* __restrict__ src, int64_t src_rows, int64_t src_ch,
                            T* __restrict__ dst, int64_t dst_ch, int64_t total, int order) {
  copy_order_begin(order);
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < total;
       i += step) {
    const Index row = static_cast<Index>(i) / static_cast<Index>(dst_ch);
    const int64_t c = i - static_cast<int64_t>(row) * dst_ch;
    const bool inside = static_cast<int64_t>(row) < src_rows && c < src_ch;
    dst[i] = inside ? src[static_cast<int64_t>(row) * src_ch + c] : T(0);
  }
  copy_order_end(order);
}

// The same, one thread per 16-byte vector of dst (dst_ch a whole number of vectors, dst 16-byte
// aligned): one division per vector instead of one per element, and vector stores.
template <class T, class Index>
__global__ void __launch_bounds__(kRelayoutThreads)
    conv_channel_pad_vector_kernel(const T* __restrict__ src, int64_t src_rows, int64_t src_ch,
                                   T* __restrict__ dst, int64_t dst_ch, int64_t vectors,
                                   int order) {
  copy_order_begin(order);
  constexpr int kVec = 16 / sizeof(T);
  const Index per_row = static_cast<Index>(dst_ch / kVec);
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < vectors;
       i += step) {
    const Index row = static_cast<Index>(i) / per_row;
    const int64_t c0 = static_cast<int64_t>(static_cast<Index>(i) - row * per_row) * kVec;
    const bool row_inside = static_cast<int64_t>(row) < src_rows;
    const T* from = src + static_cast<int64_t>(row) * src_ch;
    alignas(16) T out[kVec];
#pragma unroll
    for (int j = 0; j < kVec; ++j) {
      out[j] = row_inside && c0 + j < src_ch ? from[c0 + j] : T(0);
    }
    reinterpret_cast<uint4*>(dst)[i] = *reinterpret_cast<const uint4*>(out);
  }
  copy_order_end(order);
}

template <class T>
cudaError_t conv_channel_pad_copy(const void* src, int64_t src_rows, int64_t src_ch, void* dst,
                                  int64_t dst_rows, int64_t dst_ch, cudaStream_t stream,
                                  int order = kCopyAfter) {
  const int64_t total = dst_rows * dst_ch;
  if (total == 0) return cudaSuccess;
  constexpr int64_t kVec = 16 / sizeof(T);
  const T* from = static_cast<const T*>(src);
  T* to = static_cast<T*>(dst);
  if ((dst_ch * static_cast<int64_t>(sizeof(T))) % 16 == 0 &&
      reinterpret_cast<uintptr_t>(dst) % 16 == 0) {
    const int64_t vectors = total / kVec;
    const dim3 grid(conv_copy_grid(vectors));
    return vectors <= int64_t{0xffffffff}
               ? launch_copy(conv_channel_pad_vector_kernel<T, uint32_t>, grid, kRelayoutThreads,
                             order, stream, from, src_rows, src_ch, to, dst_ch, vectors)
               : launch_copy(conv_channel_pad_vector_kernel<T, uint64_t>, grid, kRelayoutThreads,
                             order, stream, from, src_rows, src_ch, to, dst_ch, vectors);
  }
  const dim3 grid(conv_copy_grid(total));
  return total <= int64_t{0xffffffff}
             ? launch_copy(conv_channel_pad_kernel<T, uint32_t>, grid, kRelayoutThreads, order,
                           stream, from, src_rows, src_ch, to, dst_ch, total)
             : launch_copy(conv_channel_pad_kernel<T, uint64_t>, grid, kRelayoutThreads, order,
                           stream, from, src_rows, src_ch, to, dst_ch, total);
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
                               cudaStream_t stream, int order = kCopyAfter) {
  // Packed channels-first <-> packed channels-last (what NCHW users need): a batched transpose
  // of C x S matrices, S the spatial size.
  const int64_t n = extent[0], ch = extent[1];
  const int64_t sp = extent[2] * extent[3] * extent[4];
  const int64_t first[5] = {ch * sp, sp, extent[3] * extent[4], extent[4], 1};
  const int64_t last[5] = {sp * ch, 1, extent[3] * extent[4] * ch, extent[4] * ch, ch};
#if BOO_SHIFTED_COPY
  // One packed layout on both sides (a view whose pointer is not 16-byte aligned): one flat copy
  // in 16-byte vectors, shifted.
  // (An ordinary launch in any order: it does not wait as a dependent.)
  if ((same_strides(extent, src_stride, last) && same_strides(extent, dst_stride, last)) ||
      (same_strides(extent, src_stride, first) && same_strides(extent, dst_stride, first))) {
    const int64_t elements = n * ch * sp;
    using W = typename CopyWord<sizeof(T)>::type;
    return shifted_copy<W>(src, elements, 0, dst, elements, 0, elements, 1, 1, stream);
  }
#endif
  const bool to_last =
      same_strides(extent, src_stride, first) && same_strides(extent, dst_stride, last);
  const bool to_first =
      same_strides(extent, src_stride, last) && same_strides(extent, dst_stride, first);
  if (to_last || to_first) {
    const int64_t rows = to_last ? ch : sp;
    const int64_t cols = to_last ? sp : ch;
    if (std::min(rows, cols) < kNarrowSide) {
      const int64_t blocks = (std::max(rows, cols) + 255) / 256;
      if (blocks < (int64_t{1} << 31) && n <= 65535) {
        const dim3 grid(static_cast<unsigned>(blocks), static_cast<unsigned>(n));
        return launch_copy(conv_transpose_narrow_kernel<T>, grid, 256, order, stream,
                           static_cast<const T*>(src), static_cast<T*>(dst), rows, cols);
      }
    }
    const int64_t grid_x = (cols + kTransposeTile - 1) / kTransposeTile;
    const int64_t grid_y = (rows + kTransposeTile - 1) / kTransposeTile;
    if (grid_x < (int64_t{1} << 31) && grid_y <= 65535 && n <= 65535) {
      const dim3 grid(static_cast<unsigned>(grid_x), static_cast<unsigned>(grid_y),
                      static_cast<unsigned>(n));
      return launch_copy(conv_transpose_kernel<T>, grid, dim3(32, 8), order, stream,
                         static_cast<const T*>(src), static_cast<T*>(dst), rows, cols);
    }
  }
  // Order the dimensions by decreasing destination stride (a stable insertion sort of five).
  int dims[5] = {0, 1, 2, 3, 4};
  for (int i = 1; i < 5; ++i) {
    for (int j = i; j > 0; --j) {
      const int64_t a =
          dst_stride[dims[j - 1]] < 0 ? -dst_stride[dims[j - 1]] : dst_stride[dims[j - 1]];
      const int64_t b = dst_stride[dims[j]] < 0 ? -dst_stride[dims[j]] : dst_stride[dims[j]];
      if (a >= b) break;
      const int t = dims[j - 1];
      dims[j - 1] = dims[j];
      dims[j] = t;
    }
  }
  RelayoutCopy c;
  int64_t total = 1;
  for (int i = 0; i < 5; ++i) {
    c.extent[i] = extent[dims[i]];
    c.src[i] = src_stride[dims[i]];
    c.dst[i] = dst_stride[dims[i]];
    total *= extent[i];
  }
  const dim3 grid(conv_copy_grid(total));
  const T* from = static_cast<const T*>(src);
  T* to = static_cast<T*>(dst);
  return total <= int64_t{0xffffffff}
             ? launch_copy(conv_relayout_copy_kernel<T, uint32_t>, grid, kRelayoutThreads, order,
                           stream, from, to, c, total)
             : launch_copy(conv_relayout_copy_kernel<T, uint64_t>, grid, kRelayoutThreads, order,
                           stream, from, to, c, total);
}

// Inner: a conv runner (supports / workspace / run over BooConvArgs) that needs packed
// channels-last tensors with 16-byte aligned pointers. T: the element type of x, w, y (and the
// bias). kPad: the channel multiple the inner kernel needs (1: it takes any channel count).
template <class Inner, class T, int kPad = 1>
struct ConvChannelsLastRunner {
  // One tensor's relayout: its logical extent, the extent the inner kernel sees (channels, and
  // w's filters, rounded up to kPad), its packed channels-last strides and, when it is copied,
  // its slot in the workspace.
  struct Tensor {
    bool copy = false;
    bool output = false;  // written by the convolution (copied out after the inner run)
    int64_t logical[5] = {};
    int64_t extent[5] = {};
    int64_t packed[5] = {};
    int64_t offset = 0;
    int64_t bytes = 0;

    bool padded() const { return logical[0] != extent[0] || logical[1] != extent[1]; }
    // Rows of C (or K) channels when packed channels-last: everything but the channel dim.
    int64_t rows(const int64_t e[5]) const { return e[0] * e[2] * e[3] * e[4]; }
  };
  struct Plan {
    bool valid = false;
    Tensor x, w, y;
    int64_t bias_offset = -1;  // the bias's slot: when K is padded (zeros appended) or the bias
                               // is not 16-byte aligned (what TMA-epilogue kernels need)
    int64_t copies = 0;        // bytes of the slots, from offset 0
    int64_t inner_bytes = 0;   // the inner kernel's workspace, after the slots
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
  static bool is_packed(const int64_t stride[5], const int64_t extent[5], const int64_t packed[5]) {
    for (int i = 0; i < 5; ++i) {
      if (extent[i] > 1 && stride[i] != packed[i]) return false;
    }
    return true;
  }

  // Sets up `t` for a tensor at `ptr` with the caller's `stride`, points the inner arguments'
  // tensor at its workspace slot when it is copied, and gives the inner arguments the packed
  // strides either way (so the inner kernel sees one canonical description).
  static void place(Tensor& t, void* ptr, const int64_t stride[5], char* base, int64_t& offset,
                    void*& inner_ptr, int64_t inner_stride[5]) {
    packed_channels_last(t.extent, t.packed);
    t.copy = t.padded() || misaligned(ptr) || !is_packed(stride, t.logical, t.packed);
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
    // Each tensor's byte count (padded) must fit int64 (a product of positive values, checked
    // by division so that nothing overflows on the way).
    const int64_t c = a.c + kPad, k = a.k + kPad;
    const int64_t x[5] = {a.n, c, a.in[0], a.in[1], a.in[2]};
    const int64_t w[5] = {k, c / a.groups, a.filter[0], a.filter[1], a.filter[2]};
    const int64_t y[5] = {a.n, k, a.out[0], a.out[1], a.out[2]};
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
    // Channel padding: one group only (padding a group's channels would move the others).
    const bool pad = kPad > 1 && a.groups == 1 && (a.c % kPad != 0 || a.k % kPad != 0);
    const int64_t c = pad ? round_up(a.c, kPad) : a.c;
    const int64_t k = pad ? round_up(a.k, kPad) : a.k;
    p.inner.c = c;
    p.inner.k = k;
    const int64_t x_extent[5] = {a.n, a.c, a.in[0], a.in[1], a.in[2]};
    const int64_t w_extent[5] = {a.k, a.c / a.groups, a.filter[0], a.filter[1], a.filter[2]};
    const int64_t y_extent[5] = {a.n, a.k, a.out[0], a.out[1], a.out[2]};
    for (int i = 0; i < 5; ++i) {
      p.x.logical[i] = p.x.extent[i] = x_extent[i];
      p.w.logical[i] = p.w.extent[i] = w_extent[i];
      p.y.logical[i] = p.y.extent[i] = y_extent[i];
    }
    p.x.extent[1] = c;
    p.w.extent[0] = k;
    p.w.extent[1] = c / a.groups;
    p.y.extent[1] = k;
    p.x.output = a.direction == BOO_CONV_BACKWARD_DATA;
    p.w.output = a.direction == BOO_CONV_BACKWARD_WEIGHT;
    p.y.output = a.direction == BOO_CONV_FORWARD;
    // Each copy takes the next 256-byte-aligned slot: x, w, y (and the bias) in that order.
    int64_t offset = 0;
    place(p.x, a.x, a.x_stride, base, offset, p.inner.x, p.inner.x_stride);
    place(p.w, a.w, a.w_stride, base, offset, p.inner.w, p.inner.w_stride);
    place(p.y, a.y, a.y_stride, base, offset, p.inner.y, p.inner.y_stride);
    if (a.bias != nullptr && (k != a.k || misaligned(a.bias))) {
      p.bias_offset = offset;
      offset = round_up(offset + k * static_cast<int64_t>(sizeof(T)), 256);
      p.inner.bias = base + p.bias_offset;
    }
    p.copies = offset;
    // The inner workspace follows the slots; its size does not depend on where they are.
    p.inner_bytes = Inner::workspace(p.inner);
    p.total = p.copies + (p.inner_bytes > 0 ? p.inner_bytes : 0);
    return p;
  }

  static int32_t supports(const BooConvArgs& a, char* why, int32_t len) {
    const Plan p = make_plan(a, planning_workspace());
    if (!p.valid) {
      write_why(why, len, "invalid sizes, direction or a missing tensor pointer");
      return BOO_UNSUPPORTED;
    }
    return Inner::supports(p.inner, why, len);
  }

  static int64_t workspace(const BooConvArgs& a) {
    return planned_workspace(make_plan(a, planning_workspace()));
  }

  // Copies an input tensor into its slot (padding it with zeros), or the output's slot out to
  // the caller's tensor (dropping the padding), in `order` after the kernel before it.
  static cudaError_t copy(const Tensor& t, const void* src, const int64_t src_stride[5], void* dst,
                          const int64_t dst_stride[5], bool into_slot, int order, cudaStream_t s) {
    if (!t.padded()) {
      return conv_relayout_copy<T>(src, src_stride, dst, dst_stride, t.logical, s, order);
    }
    int64_t caller_packed[5];
    packed_channels_last(t.logical, caller_packed);
    if (is_packed(into_slot ? src_stride : dst_stride, t.logical, caller_packed)) {
      // Packed channels-last on both sides: rows of channels, padded or cut.
      const int64_t rows = t.rows(t.logical), padded_rows = t.rows(t.extent);
      return into_slot ? conv_channel_pad_copy<T>(src, rows, t.logical[1], dst, padded_rows,
                                                  t.extent[1], s, order)
                       : conv_channel_pad_copy<T>(src, padded_rows, t.extent[1], dst, rows,
                                                  t.logical[1], s, order);
    }
    if (into_slot) {
      // Any other layout: zeros first, then the logical elements into the padded layout (an
      // ordinary launch after the memset).
      const cudaError_t e = cudaMemsetAsync(dst, 0, static_cast<size_t>(t.bytes), s);
      if (e != cudaSuccess) return e;
      order = kCopyAfter;
    }
    return conv_relayout_copy<T>(src, src_stride, dst, dst_stride, t.logical, s, order);
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
    // The first input copy starts after whatever came before it; the others (and the bias's) are
    // programmatic dependents that wait last, so they run beside it, and the inner kernel starts
    // after all of them in the ordinary way. The output's copy is a programmatic dependent of
    // the inner kernel's last launch and waits first. (So an inner runner's first launch must be
    // an ordinary one, or wait before it reads: the copies let their dependents start early.)
    constexpr bool kDependent = BOO_CONV_COPY_DEPENDENT != 0;
    int next = kCopyAfter;
    if (!a.dry_run) {
      const Tensor* tensors[3] = {&p.x, &p.w, &p.y};
      const void* ptrs[3] = {a.x, a.w, a.y};
      const int64_t* strides[3] = {a.x_stride, a.w_stride, a.y_stride};
      for (int i = 0; i < 3; ++i) {
        const Tensor& t = *tensors[i];
        if (!t.copy || t.output) continue;
        const cudaError_t e =
            copy(t, ptrs[i], strides[i], base + t.offset, t.packed, true, next, s);
        if (e != cudaSuccess) return cuda_result(e, why, len);
        if (kDependent) next = kCopyWaitLast;
      }
      if (p.bias_offset >= 0) {
        const cudaError_t e =
            conv_channel_pad_copy<T>(a.bias, 1, a.k, base + p.bias_offset, 1, p.inner.k, s, next);
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
    const cudaError_t e = copy(out, base + out.offset, out.packed, dst, dst_stride, false,
                               kDependent ? kCopyWaitFirst : kCopyAfter, s);
    return cuda_result(e, why, len);
  }
};

}  // namespace boo_kernels
