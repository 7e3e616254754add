// gemm.sm90_unaligned: runs a gemm.sm90 kernel (TMA needs 16-byte aligned pointers, leading
// dimensions and batch strides) on operands that are aligned only to their element size. Each
// operand that TMA cannot read is copied into a padded, aligned buffer in the workspace (its
// leading dimension rounded up to 16 bytes); an output that TMA cannot write is produced in such
// a buffer and copied out, unless a second inner kernel (InnerDirect: CUTLASS's epilogue
// without shared memory, element by element; space::gemm_sm90_direct_d says which objects hold
// one) writes it in place.
// Operands that are already aligned are used in place. Every epilogue, scheduler and split of
// the inner kernel carries over. The copies before the GEMM are one launch (pad_copies.cuh);
// the GEMM and D's copy out launch as programmatic dependents (kPadDependent). cp.async
// mainloops cannot help here: they need 4-byte alignment, and a 16-bit operand with an odd
// leading dimension has only 2. With kKMajor (tf32: warpgroup MMA reads K-major tf32 only) an
// M-major A or an N-major B is copied as its transpose (transpose_copy.cuh) and the inner kernel,
// compiled TN, reads it K-major.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "entry_points.cuh"
#include "pad_copies.cuh"
#include "transpose_copy.cuh"

// BOO_NVCC_FLAGS=-DBOO_PAD_DEPENDENT=0 starts every launch after the one before it has finished
// (as before the programmatic dependent launches; for measuring).
#ifndef BOO_PAD_DEPENDENT
#define BOO_PAD_DEPENDENT 1
#endif
// Where an object holds a kernel that writes D in place (for measuring): 1 where D would
// otherwise be copied (the default), 0 never (D is copied), 2 always (aligned D too).
#ifndef BOO_PAD_DIRECT_D
#define BOO_PAD_DIRECT_D 1
#endif

namespace boo_kernels {

// Whether the inner kernel and D's copy launch as programmatic dependents. The inner kernel's
// loads wait for the copies only where CUTLASS's grid dependency control is compiled in
// (src/codegen/gemm_codegen.cc defines CUTLASS_ENABLE_GDC_FOR_SM90 for gemm.sm90_unaligned's
// persistent kernels; stream-K and split-K ones launch each kernel after the last).
#if BOO_PAD_DEPENDENT && defined(CUTLASS_ENABLE_GDC_FOR_SM90)
constexpr bool kPadDependent = true;
#else
constexpr bool kPadDependent = false;
#endif

// Inner: a GemmSm90Runner. kAlign*: the elements per 16 bytes of each operand. InnerDirect (or
// void): a GemmSm90Runner of the same GEMM whose epilogue writes D element by element, run where
// D would otherwise be copied (a class without C: nothing else is then copied for D). kKMajor:
// Inner reads A and B K-major (transA T, transB N) whatever the problem's transposes.
template <class Inner, int kBytesA, int kBytesB, int kBytesD, int kBytesBias, int kAlignA,
          int kAlignB, int kAlignD, bool kHasC, bool kHasBias, class InnerDirect = void,
          bool kKMajor = false>
struct GemmPaddedRunner {
  // One operand's copy: where it lives in the workspace and its padded layout. A transposed
  // copy reads the caller's rows x cols matrix and writes its cols x rows transpose.
  struct Copy {
    bool needed = false, transposed = false;
    int64_t rows = 0, cols = 0, batch = 1;
    int64_t ld = 0, stride = 0;  // padded layout
    int64_t offset = 0, bytes = 0;
  };
  static constexpr bool kHasDirect = !std::is_void_v<InnerDirect>;
  static_assert(!kHasDirect || !kHasC, "D is written in place only without C");
  struct Plan {
    Copy a, b, c, d, bias;
    bool direct = false;      // InnerDirect runs, D in place
    int64_t inner_bytes = 0;  // the inner kernel's workspace, at offset 0
    int64_t total = 0;
    BooGemmArgs inner{};  // pointers into the workspace are offsets from `base` until bound
  };

  static int64_t direct_workspace(const BooGemmArgs& a) {
    if constexpr (kHasDirect) return InnerDirect::workspace(a);
    return -1;
  }

  static bool misaligned(const void* p) { return (reinterpret_cast<uintptr_t>(p) % 16) != 0; }
  static int64_t round_up(int64_t x, int64_t q) { return (x + q - 1) / q * q; }

  // A matrix operand of `rows` x `cols` per batch: copied when TMA cannot read it in place, or
  // (`transposed`, always) copied as its cols x rows transpose.
  static Copy plan_copy(const void* p, int64_t ld, int64_t stride, int64_t rows, int64_t cols,
                        int64_t batch, int align, int bytes, bool transposed = false) {
    Copy c;
    c.transposed = transposed;
    c.needed = transposed || misaligned(p) || ld % align != 0 || (batch > 1 && stride % align != 0);
    c.rows = rows;
    c.cols = cols;
    // A broadcast operand (stride 0) stays broadcast.
    c.batch = batch > 1 && stride != 0 ? batch : 1;
    // The buffer's columns: `along` elements (padded to `align`), `across` of them.
    const int64_t along = transposed ? cols : rows, across = transposed ? rows : cols;
    c.ld = padded_copy_ld(along, align, bytes);
    c.stride = c.batch > 1 ? c.ld * across : 0;
    c.bytes = c.ld * across * c.batch * bytes;
    return c;
  }

  // The copies the arguments need and the inner kernel's arguments over them (the padded
  // operands point at `base` plus their offsets).
  static Plan make_plan(const BooGemmArgs& a, char* base) {
    Plan p;
    const int64_t batch = a.batch;
    const bool turn_a = kKMajor && !a.trans_a, turn_b = kKMajor && a.trans_b;
    // turn_a implies transA N (A stored m x k), turn_b transB T (B stored n x k).
    p.a = plan_copy(a.a, a.lda, a.stride_a, a.trans_a ? a.k : a.m, a.trans_a ? a.m : a.k, batch,
                    kAlignA, kBytesA, turn_a);
    p.b = plan_copy(a.b, a.ldb, a.stride_b, a.trans_b ? a.n : a.k, a.trans_b ? a.k : a.n, batch,
                    kAlignB, kBytesB, turn_b);
    if (kHasC) {
      p.c = plan_copy(a.c, a.ldc, a.stride_c, a.m, a.n, batch, kAlignD, kBytesD);
    }
    p.d = plan_copy(a.d, a.ldd, a.stride_d, a.m, a.n, batch, kAlignD, kBytesD);
    p.direct = kHasDirect && BOO_PAD_DIRECT_D != 0 && (p.d.needed || BOO_PAD_DIRECT_D == 2);
    p.d.needed = p.d.needed && !p.direct;
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
    if (turn_a) p.inner.trans_a = 1;
    if (turn_b) p.inner.trans_b = 0;
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
    // The inner workspace follows the copies. Its size must not depend on the pointers, which
    // pick the inner kernel where the object holds two: the larger of the two.
    // (The TMA kernel is sized on an aligned stand-in for D: it refuses the D the in-place
    // kernel takes.)
    p.inner_bytes = p.direct ? direct_workspace(p.inner) : Inner::workspace(p.inner);
    if constexpr (kHasDirect) {
      BooGemmArgs tma = p.inner;
      tma.d = planning_workspace();
      tma.ldd = p.d.ld;  // D's padded layout
      tma.stride_d = p.d.stride;
      const int64_t other = p.direct ? Inner::workspace(tma) : direct_workspace(p.inner);
      if (p.inner_bytes >= 0 && other > p.inner_bytes) p.inner_bytes = other;
    }
    p.total = copies + (p.inner_bytes > 0 ? p.inner_bytes : 0);
    return p;
  }

  static int32_t supports(const BooGemmArgs& a, char* why, int32_t len) {
    if (a.m < 1 || a.n < 1 || a.k < 1 || a.batch < 1) {
      write_why(why, len, "empty problem");
      return BOO_UNSUPPORTED;
    }
    const Plan p = make_plan(a, planning_workspace());
    if constexpr (kHasDirect) {
      if (p.direct) return InnerDirect::supports(p.inner, why, len);
    }
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
    bool copied = false;
    if (!a.dry_run) {
      // The transposes first, each a launch of its own; then the element copies of A, B, C and
      // the bias in one launch (pad_copies.cuh), which starts after them.
      if (p.a.transposed) {
        e = transpose_copy<kBytesA>(a.a, a.lda, a.stride_a, base + p.a.offset, p.a.ld, p.a.stride,
                                    p.a.rows, p.a.cols, p.a.batch, s);
      }
      if (p.b.transposed && e == cudaSuccess) {
        e = transpose_copy<kBytesB>(a.b, a.ldb, a.stride_b, base + p.b.offset, p.b.ld, p.b.stride,
                                    p.b.rows, p.b.cols, p.b.batch, s);
      }
      PadCopyJobs jobs{};
      if (p.a.needed && !p.a.transposed && e == cudaSuccess) {
        e = pad_copy<kBytesA>(&jobs, a.a, a.lda, a.stride_a, base + p.a.offset, p.a.ld, p.a.stride,
                              p.a.rows, p.a.cols, p.a.batch, s);
      }
      if (p.b.needed && !p.b.transposed && e == cudaSuccess) {
        e = pad_copy<kBytesB>(&jobs, a.b, a.ldb, a.stride_b, base + p.b.offset, p.b.ld, p.b.stride,
                              p.b.rows, p.b.cols, p.b.batch, s);
      }
      if (p.c.needed && e == cudaSuccess) {
        e = pad_copy<kBytesD>(&jobs, a.c, a.ldc, a.stride_c, base + p.c.offset, p.c.ld, p.c.stride,
                              p.c.rows, p.c.cols, p.c.batch, s);
      }
      if (p.bias.needed && e == cudaSuccess) {
        e = pad_copy<kBytesBias>(&jobs, a.bias, a.m, 0, base + p.bias.offset, p.bias.ld, 0, a.m, 1,
                                 1, s);
      }
      if (e == cudaSuccess) e = launch_pad_copies(jobs, false, s);
      if (e != cudaSuccess) return cuda_result(e, why, len);
      copied = p.a.needed || p.b.needed || p.c.needed || p.bias.needed;
    }
    // After the copies the inner kernel launches as their programmatic dependent: its blocks set
    // up while the copies finish, and its loads wait for them (kPadDependent).
    const bool dependent = kPadDependent && copied;
    int32_t rc;
    if constexpr (kHasDirect) {
      rc = p.direct
               ? InnerDirect::run(p.inner, inner_ws, p.inner_bytes, stream, why, len, dependent)
               : Inner::run(p.inner, inner_ws, p.inner_bytes, stream, why, len, dependent);
    } else {
      rc = Inner::run(p.inner, inner_ws, p.inner_bytes, stream, why, len, dependent);
    }
    if (rc != BOO_OK || a.dry_run || !p.d.needed) return rc;
    // D's copy out, as the inner kernel's programmatic dependent (element copies or a shifted
    // copy).
    PadCopyJobs out{};
    e = pad_copy<kBytesD>(&out, base + p.d.offset, p.d.ld, p.d.stride, a.d, a.ldd, a.stride_d, a.m,
                          a.n, a.batch, s, /*dependent=*/kPadDependent);
    if (e == cudaSuccess) e = launch_pad_copies(out, kPadDependent, s);
    return cuda_result(e, why, len);
  }
};

}  // namespace boo_kernels
