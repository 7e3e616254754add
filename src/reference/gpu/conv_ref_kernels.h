// The CUDA side of the GPU convolution reference (reference/gpu_reference.h: conv_reference,
// compare_conv_output), in C++17 with plain structs like gpu_kernels.h. Written from the
// definition of the convolution (reference/conv_ref.cc is its CPU twin), never from kernels/:
// the reference must not share code with the kernels it checks.
#pragma once

#include <cstdint>

#include "gpu_kernels.h"

namespace boo::reference::gpu::detail {

// ops::ConvDirection order.
enum RefConvDirection : int { kConvForward = 0, kConvBackwardData = 1, kConvBackwardWeight = 2 };

// One convolution with spatial dims padded to 3 (leading unit dims for 1D and 2D problems).
// Strides are element strides of each tensor's logical dims [dim0, dim1, D, H, W]: x is
// [N, C, in], w is [K, C / groups, fil], y is [N, K, out]; a padded unit dim's stride is never
// multiplied by more than 0.
struct RefConv {
  int direction;  // RefConvDirection: which tensor is the output
  int type;       // ElemType of x, w, y and bias (fp32, fp16 or bf16)
  int64_t n, c, k, groups;
  int64_t in[3], fil[3], out[3];
  int64_t stride[3], pad[3], dil[3];
  int64_t x_stride[5], w_stride[5], y_stride[5];
  // The direction's inputs (the output's pointer is ignored); bias is K values or null.
  const void* x;
  const void* w;
  const void* y;
  const void* bias;
};

// The output tensor (y forward, x backward data, w backward weight) in fp32, packed in the
// logical row-major order of its dims: [N][K][out] forward, [N][C][in] backward data,
// [K][C / groups][fil] backward weight. Sums in fp64; the forward adds the bias (no activation:
// the caller applies it). Asynchronous on `stream`, except that backward weight may allocate
// and free a stream-ordered workspace.
int conv_reference(const RefConv& c, float* out, void* stream);

// Compares the output tensor `got` (the problem's type and strides) with a packed fp32
// reference of the same order as conv_reference's. Synchronizes `stream`; fills `out`.
int compare_conv_output(const RefConv& c, const void* got, const float* ref, ErrOut* out,
                        void* stream);

}  // namespace boo::reference::gpu::detail
