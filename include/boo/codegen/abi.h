/* The C entry ABI between boo and every JIT-compiled kernel object (DESIGN.md §4).
 * Plain C, no device code: it is included by the host library and embedded verbatim into
 * every generated translation unit. Bump BOO_ABI_VERSION on any change. */
#ifndef BOO_CODEGEN_ABI_H_
#define BOO_CODEGEN_ABI_H_

#include <stdint.h>

#define BOO_ABI_VERSION 6

/* Device counters every launch gets (BooGemmArgs::semaphores): zero when a kernel starts, and
 * the kernel leaves them zero when it ends (the last block to use a counter resets it). They
 * belong to one stream at a time, like the workspace. */
#define BOO_SEMAPHORE_COUNT 65536

/* Kinds of argument struct a kernel object takes. */
#define BOO_KIND_GEMM 1
#define BOO_KIND_CONV 2
#define BOO_KIND_LAYERNORM 3

/* Return codes of the entry points. */
#define BOO_OK 0
#define BOO_UNSUPPORTED 1 /* the arguments are outside what this kernel implements */
#define BOO_ERROR 2       /* a CUDA or CUTLASS error; the message says which */

typedef struct BooKernelInfo {
  int32_t abi_version; /* BOO_ABI_VERSION of the object */
  int32_t kind;        /* BOO_KIND_* */
  const char* name;    /* the kernel name it was generated for */
} BooKernelInfo;

/* D[b] = act(alpha * scale * op(A[b]) op(B[b]) + beta * C[b] + bias), column-major BLAS
 * convention (see ops::GemmProblem). Pointers are device pointers. */
typedef struct BooGemmArgs {
  int64_t m, n, k, batch;
  const void* a;
  const void* b;
  const void* c; /* may be NULL when beta == 0 */
  void* d;
  const void* bias;          /* M values, or NULL */
  const float* alpha_scale;  /* device scalar multiplied into alpha (fp8 scales), or NULL */
  const float* alpha_vector; /* M per-row alpha factors (fp32), or NULL */
  uint32_t* semaphores;      /* BOO_SEMAPHORE_COUNT zeroed counters, or NULL (dry runs) */
  int64_t lda, ldb, ldc, ldd;
  int64_t stride_a, stride_b, stride_c, stride_d;
  float alpha, beta;
  int32_t trans_a, trans_b; /* 0: N, 1: T */
  int32_t splits;           /* split-K slices (scheduler splitk), else 1 */
  int32_t swizzle;          /* tile swizzle of persistent schedulers: 1, 2, 4 or 8 */
  int32_t raster;           /* tile raster order: 0 CUTLASS's heuristic, 1 along M, 2 along N */
  int32_t sm_count;         /* SMs of the device, for persistent schedulers */
  int32_t device;           /* CUDA device ordinal */
  int32_t dry_run;          /* 1: do everything but the launch (host-overhead measurements) */
} BooGemmArgs;

/* Directions of BooConvArgs (the order of ops::ConvDirection). */
#define BOO_CONV_FORWARD 0
#define BOO_CONV_BACKWARD_DATA 1
#define BOO_CONV_BACKWARD_WEIGHT 2

/* One convolution (ops::ConvProblem) with its tensors. Spatial entries are D, H, W: a 2D
 * problem has D = 1 (filter 1, stride 1, pad 0, dilation 1), a 1D problem also H = 1. Strides
 * are in elements, in the logical order (N, C, D, H, W) for x, (K, C/G, D, H, W) for w and
 * (N, K, D, H, W) for y, so any layout is described; kernels that need one layout check them.
 * Forward reads x, w (and bias) and writes y = act(conv(x, w) + bias); backward data reads y
 * (dy) and w and writes x (dx); backward weight reads x and y (dy) and writes w (dw). */
typedef struct BooConvArgs {
  int32_t direction;    /* BOO_CONV_* */
  int32_t spatial_dims; /* 1, 2 or 3 (what the problem is; the arrays always hold 3) */
  int64_t n, c, k, groups;
  int64_t in[3], filter[3], out[3];
  int64_t stride[3], pad[3], dilation[3];
  int64_t x_stride[5], w_stride[5], y_stride[5];
  void* x;
  void* w;
  void* y;
  const void* bias; /* K values (forward), or NULL */
  int32_t sm_count; /* SMs of the device */
  int32_t device;   /* CUDA device ordinal */
  int32_t dry_run;  /* 1: do everything but the launch */
} BooConvArgs;

/* Parts of BooLayerNormArgs (the bits of ops::LayerNormPart, BOO's -F codes). */
#define BOO_LAYERNORM_FORWARD 1
#define BOO_LAYERNORM_DX 2
#define BOO_LAYERNORM_DWEIGHT 4
#define BOO_LAYERNORM_DBIAS 8

/* One layer norm (ops::LayerNormProblem) over packed row-major rows x cols, fp32 math. The
 * forward reads x (weight, bias) and writes y = (x - mean) rstd [* weight + bias], mean and rstd
 * (fp32, one per row; either may be NULL). The backward reads dy, x, the forward's mean and
 * rstd (and weight for dx) and writes the parts asked for: dx, dweight = sum_rows dy xhat,
 * dbias = sum_rows dy (columns reduced in a fixed order: the result is deterministic). */
typedef struct BooLayerNormArgs {
  int64_t rows, cols;
  int32_t parts;  /* BOO_LAYERNORM_* bits: FORWARD alone, or any of DX, DWEIGHT, DBIAS */
  int32_t affine; /* 1: weight and bias of cols values */
  double eps;
  const void* x;
  const void* weight; /* cols values, or NULL when affine == 0 */
  const void* bias;   /* cols values, or NULL when affine == 0 */
  void* y;            /* forward */
  float* mean;        /* rows values: written by the forward, read by the backward */
  float* rstd;
  const void* dy; /* backward */
  void* dx;       /* backward outputs, NULL when not asked for */
  void* dweight;
  void* dbias;
  int32_t sm_count; /* SMs of the device */
  int32_t device;   /* CUDA device ordinal */
  int32_t dry_run;  /* 1: do everything but the launch */
} BooLayerNormArgs;

/* Entry points every kernel object exports (C linkage):
 *   int32_t boo_info(BooKernelInfo* info);
 *   int32_t boo_supports(const void* args, char* why, int32_t why_len);
 *   int64_t boo_workspace(const void* args);           bytes, or -1 when unsupported
 *   int32_t boo_run(const void* args, void* workspace, int64_t workspace_bytes, void* stream,
 *                   char* why, int32_t why_len);
 * `args` points to the struct of the object's kind. `why` receives a one-line reason. */
typedef int32_t (*BooInfoFn)(BooKernelInfo*);
typedef int32_t (*BooSupportsFn)(const void*, char*, int32_t);
typedef int64_t (*BooWorkspaceFn)(const void*);
typedef int32_t (*BooRunFn)(const void*, void*, int64_t, void*, char*, int32_t);

#endif /* BOO_CODEGEN_ABI_H_ */
