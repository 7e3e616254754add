// gemm.sm90_unaligned: runs a gemm.sm90 kernel (TMA needs 16-byte aligned pointers, leading
// dimensions and batch strides) on operands that are aligned only to their element size. Each
// operand that TMA cannot read is copied into a padded, aligned buffer in the workspace (its
// leading dimension rounded up to 16 bytes); an output that TMA cannot write is produced in such
// a buffer and copied out. Operands that are already aligned are used in place, so an lm-head
// GEMM with M = 50257 (only D misaligned) pays one extra pass over D. Every epilogue, scheduler
// and split of the inner kernel carries over. cp.async mainloops cannot help here: they need
// 4-byte alignment, and a 16-bit operand with an odd leading dimension has only 2.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "entry_points.cuh"
#include "shifted_copy.cuh"

namespace boo_kernels {

constexpr int kPadThreads = 256;
constexpr int kPadPerThread = 4;  // independent loads in flight per thread

template <class W>
__global__ void __launch_bounds__(kPadThreads)
    pad_copy_kernel(const W* __restrict__ src, int64_t ld_src, int64_t stride_src,
                    W* __restrict__ dst, int64_t ld_dst, int64_t stride_dst, int64_t rows,
                    int64_t cols, int64_t batch) {
  const int64_t span = static_cast<int64_t>(kPadThreads) * kPadPerThread;
  for (int64_t b = blockIdx.z; b < batch; b += gridDim.z) {
    for (int64_t c = blockIdx.y; c < cols; c += gridDim.y) {
      const W* s = src + b * stride_src + c * ld_src;
      W* d = dst + b * stride_dst + c * ld_dst;
      for (int64_t r0 = static_cast<int64_t>(blockIdx.x) * span; r0 < rows;
           r0 += static_cast<int64_t>(gridDim.x) * span) {
        W v[kPadPerThread];
#pragma unroll
        for (int i = 0; i < kPadPerThread; ++i) {
          const int64_t r = r0 + i * kPadThreads + threadIdx.x;
          if (r < rows) v[i] = s[r];
        }
#pragma unroll
        for (int i = 0; i < kPadPerThread; ++i) {
          const int64_t r = r0 + i * kPadThreads + threadIdx.x;
          if (r < rows) d[r] = v[i];
        }
      }
    }
  }
}

// Whether the shifted copy beats pad_copy_kernel's element copies on a matrix: dense on both
// sides (one long column: views 3.7-4x faster, an lm-head's misaligned A 1.17x), or columns of at
// least kShiftLongColumnBytes (an lm-head's padded D, 100 KB columns: 3-4%). Columns of 1-2 KB
// (1001 x 520 x 777, 512 x 512 x 512 with odd leading dimensions) measured 8% slower than element
// copies, also at one chunk a lane (H200, 2026-11-28, bench/results/
// 2026-11-28-shifted-copy-h200.md); lengths between were not measured.
constexpr int64_t kShiftLongColumnBytes = 64 * 1024;
inline bool shifted_copy_pays(int64_t ld_src, int64_t stride_src, int64_t ld_dst,
                              int64_t stride_dst, int64_t rows, int64_t cols, int64_t batch,
                              int element_bytes) {
  return shifted_copy_dense(ld_src, stride_src, ld_dst, stride_dst, rows, cols, batch) ||
         rows * element_bytes >= kShiftLongColumnBytes;
}

// dst(r, c, b) = src(r, c, b) for a rows x cols x batch column-major matrix (either may be
// broadcast over the batch with stride 0; dst only when src is too), both aligned only to the
// element size. The shifted copy (kernels/shifted_copy.cuh: 16-byte loads and stores) where it
// measured faster: dense matrices and long columns; pad_copy_kernel's element copies elsewhere.
template <int kBytes>
cudaError_t pad_copy(const void* src, int64_t ld_src, int64_t stride_src, void* dst, int64_t ld_dst,
                     int64_t stride_dst, int64_t rows, int64_t cols, int64_t batch,
                     cudaStream_t stream) {
  using W = typename CopyWord<kBytes>::type;
  if (BOO_SHIFTED_COPY &&
      shifted_copy_pays(ld_src, stride_src, ld_dst, stride_dst, rows, cols, batch, kBytes)) {
    return shifted_copy<W>(src, ld_src, stride_src, dst, ld_dst, stride_dst, rows, cols, batch,
                           stream);
  }
  const int64_t span = static_cast<int64_t>(kPadThreads) * kPadPerThread;
  const int64_t bx = (rows + span - 1) / span;
  dim3 grid(static_cast<unsigned>(bx < 1024 ? bx : 1024),
            static_cast<unsigned>(cols < 65535 ? cols : 65535),
            static_cast<unsigned>(batch < 65535 ? batch : 65535));
  pad_copy_kernel<W><<<grid, kPadThreads, 0, stream>>>(static_cast<const W*>(src), ld_src,
                                                       stride_src, static_cast<W*>(dst), ld_dst,
                                                       stride_dst, rows, cols, batch);
  return cudaGetLastError();
}

// Inner: a GemmSm90Runner. kAlign*: the elements per 16 bytes of each operand.
template <class Inner, int kBytesA, int kBytesB, int kBytesD, int kBytesBias, int kAlignA,
          int kAlignB, int kAlignD, bool kHasC, bool kHasBias>
struct GemmPaddedRunner {
  // One operand's copy: where it lives in the workspace and its padded layout.
  struct Copy {
    bool needed = false;
    int64_t rows = 0, cols = 0, batch = 1;
    int64_t ld = 0, stride = 0;  // padded layout
    int64_t offset = 0, bytes = 0;
  };
  struct Plan {
    Copy a, b, c, d, bias;
    int64_t inner_bytes = 0;  // the inner kernel's workspace, at offset 0
    int64_t total = 0;
    BooGemmArgs inner{};  // pointers into the workspace are offsets from `base` until bound
  };

  static bool misaligned(const void* p) { return (reinterpret_cast<uintptr_t>(p) % 16) != 0; }
  static int64_t round_up(int64_t x, int64_t q) { return (x + q - 1) / q * q; }

  // A matrix operand of `rows` x `cols` per batch: copied when TMA cannot read it in place.
  static Copy plan_copy(const void* p, int64_t ld, int64_t stride, int64_t rows, int64_t cols,
                        int64_t batch, int align, int bytes) {
    Copy c;
    c.needed = misaligned(p) || ld % align != 0 || (batch > 1 && stride % align != 0);
    c.rows = rows;
    c.cols = cols;
    // A broadcast operand (stride 0) stays broadcast.
    c.batch = batch > 1 && stride != 0 ? batch : 1;
    c.ld = round_up(rows, align);
    c.stride = c.batch > 1 ? c.ld * cols : 0;
    c.bytes = c.ld * cols * c.batch * bytes;
    return c;
  }

  // The copies the arguments need and the inner kernel's arguments over them (the padded
  // operands point at `base` plus their offsets).
  static Plan make_plan(const BooGemmArgs& a, char* base) {
    Plan p;
    const int64_t batch = a.batch;
    p.a = plan_copy(a.a, a.lda, a.stride_a, a.trans_a ? a.k : a.m, a.trans_a ? a.m : a.k, batch,
                    kAlignA, kBytesA);
    p.b = plan_copy(a.b, a.ldb, a.stride_b, a.trans_b ? a.n : a.k, a.trans_b ? a.k : a.n, batch,
                    kAlignB, kBytesB);
    if (kHasC) {
      p.c = plan_copy(a.c, a.ldc, a.stride_c, a.m, a.n, batch, kAlignD, kBytesD);
    }
    p.d = plan_copy(a.d, a.ldd, a.stride_d, a.m, a.n, batch, kAlignD, kBytesD);
    p.d.batch = batch;  // every batch of D is written
    p.d.stride = batch > 1 ? p.d.ld * a.n : 0;
    p.d.bytes = p.d.ld * a.n * batch * kBytesD;
    if (kHasBias) {
      // gemm_sm90.cuh reads the bias in 16-byte vectors: aligned, and a multiple of 16 bytes.
      p.bias.needed = misaligned(a.bias) || (a.m * kBytesBias) % 16 != 0;
      p.bias.rows = a.m;
      p.bias.cols = 1;
      p.bias.ld = round_up(a.m, 16);  // GemmSm90Runner<..., kBiasPadded = true> relies on it
      p.bias.bytes = p.bias.ld * kBytesBias;
    }
    p.inner = a;
    // Each copy takes the next 256-byte-aligned slot of the workspace, and the inner kernel
    // reads it (padded leading dimension and batch stride) instead of the caller's operand.
    int64_t offset = 0;
    auto place = [&](Copy& c, auto& ptr, int64_t& ld, int64_t& stride) {
      if (!c.needed) return;
      c.offset = offset;
      offset = round_up(offset + c.bytes, 256);
      ptr = base + c.offset;
      ld = c.ld;
      stride = c.stride;
    };
    place(p.a, p.inner.a, p.inner.lda, p.inner.stride_a);
    place(p.b, p.inner.b, p.inner.ldb, p.inner.stride_b);
    place(p.c, p.inner.c, p.inner.ldc, p.inner.stride_c);
    place(p.d, p.inner.d, p.inner.ldd, p.inner.stride_d);
    int64_t bias_ld = 0, bias_stride = 0;  // a vector: no leading dimension to change
    place(p.bias, p.inner.bias, bias_ld, bias_stride);
    const int64_t copies = offset;
    // The inner workspace follows the copies (its size does not depend on the pointers).
    p.inner_bytes = Inner::workspace(p.inner);
    p.total = copies + (p.inner_bytes > 0 ? p.inner_bytes : 0);
    return p;
  }

  static int32_t supports(const BooGemmArgs& a, char* why, int32_t len) {
    if (a.m < 1 || a.n < 1 || a.k < 1 || a.batch < 1) {
      write_why(why, len, "empty problem");
      return BOO_UNSUPPORTED;
    }
    const Plan p = make_plan(a, planning_workspace());
    return Inner::supports(p.inner, why, len);
  }

  static int64_t workspace(const BooGemmArgs& a) {
    const Plan p = make_plan(a, planning_workspace());
    if (p.inner_bytes < 0) return -1;
    return p.total;
  }

  static int32_t run(const BooGemmArgs& a, void* ws, int64_t ws_bytes, void* stream, char* why,
                     int32_t len) {
    char* base = static_cast<char*>(ws);
    Plan p = make_plan(a, base);
    if (p.inner_bytes < 0) {
      write_why(why, len, "the inner kernel rejects the padded problem");
      return BOO_UNSUPPORTED;
    }
    if (p.total > ws_bytes) {
      write_why(why, len, "workspace too small for the padded operands");
      return BOO_ERROR;
    }
    const int64_t copies = p.total - (p.inner_bytes > 0 ? p.inner_bytes : 0);
    void* inner_ws = p.inner_bytes > 0 ? base + copies : nullptr;
    const cudaStream_t s = static_cast<cudaStream_t>(stream);
    cudaError_t e = cudaSuccess;
    if (!a.dry_run) {
      if (p.a.needed && e == cudaSuccess) {
        e = pad_copy<kBytesA>(a.a, a.lda, a.stride_a, base + p.a.offset, p.a.ld, p.a.stride,
                              p.a.rows, p.a.cols, p.a.batch, s);
      }
      if (p.b.needed && e == cudaSuccess) {
        e = pad_copy<kBytesB>(a.b, a.ldb, a.stride_b, base + p.b.offset, p.b.ld, p.b.stride,
                              p.b.rows, p.b.cols, p.b.batch, s);
      }
      if (p.c.needed && e == cudaSuccess) {
        e = pad_copy<kBytesD>(a.c, a.ldc, a.stride_c, base + p.c.offset, p.c.ld, p.c.stride,
                              p.c.rows, p.c.cols, p.c.batch, s);
      }
      if (p.bias.needed && e == cudaSuccess) {
        e = pad_copy<kBytesBias>(a.bias, a.m, 0, base + p.bias.offset, p.bias.ld, 0, a.m, 1, 1, s);
      }
      if (e != cudaSuccess) return cuda_result(e, why, len);
    }
    const int32_t rc = Inner::run(p.inner, inner_ws, p.inner_bytes, stream, why, len);
    if (rc != BOO_OK || a.dry_run || !p.d.needed) return rc;
    e = pad_copy<kBytesD>(base + p.d.offset, p.d.ld, p.d.stride, a.d, a.ldd, a.stride_d, a.m, a.n,
                          a.batch, s);
    return cuda_result(e, why, len);
  }
};

}  // namespace boo_kernels
