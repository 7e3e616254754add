// The CUDA side of reference/gpu_reference.h, in C++17 with plain structs (nvcc compiles it;
// the C++20 API around it lives in gpu_reference.cc). Functions return a cudaError_t value, or
// -1 for an unsupported type combination.
#pragma once

#include <cstdint>

namespace boo::reference::gpu::detail {

// Element types, in the order of core::DType.
enum ElemType : int { kF32 = 0, kF16 = 1, kBF16 = 2, kE4M3 = 3, kE5M2 = 4 };

struct RefGemm {
  int64_t m, n, k, batch;
  int64_t lda, ldb, ldc, ldd;
  int64_t stride_a, stride_b, stride_c, stride_d;
  double alpha, beta;
  int trans_a, trans_b;
  int a_type, b_type, c_type, d_type, bias_type;
  int activation;  // ops::Activation order
  const void* a;
  const void* b;
  const void* c;
  const void* bias;
  const float* alpha_vector;
  float scale;
};

struct ErrOut {
  double diff2;
  double ref2;
  double max_abs;
  unsigned long long nonfinite;
};

int fill_uniform(void* ptr, int type, int64_t count, uint64_t seed, float lo, float hi,
                 void* stream);
int gemm_reference(const RefGemm& g, float* out, void* stream);
// Synchronizes `stream`; fills `out`.
int compare_output(const RefGemm& g, const void* d, const float* ref, ErrOut* out, void* stream);
int bias_activation(const RefGemm& g, void* d, const void* bias, void* stream);

// A packed convolution output (either layout) seen as a flat array: the channel of element i is
// (i / channel_stride) % channels (channel_stride 1 channels-last, spatial size channels-first).
struct RefConvEpilogue {
  int64_t count;           // elements of y
  int64_t channel_stride;  // y's element stride of the channel dim
  int64_t channels;        // K
  int type;                // ElemType of y and bias (fp32, fp16 or bf16)
  int activation;          // ops::Activation order
};
// y = act(y + bias[channel]) in place; bias may be null.
int conv_bias_activation(const RefConvEpilogue& e, void* y, const void* bias, void* stream);
int launch_empty(void* stream);
int launch_hold(double us, void* stream);
int read_sweep(const void* buf, int64_t bytes, void* sink, void* stream);

}  // namespace boo::reference::gpu::detail
