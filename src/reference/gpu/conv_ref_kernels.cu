// Kernels of the GPU convolution reference (see conv_ref_kernels.h). C++17: nvcc compiles this
// file. One thread per output element (a grid-stride loop, 64-bit indices) summing in fp64: slow
// next to the kernels it checks, but exact enough to judge them and independent of their code.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "conv_ref_kernels.h"
#include "error_accumulator.cuh"

namespace boo::reference::gpu::detail {
namespace {

__device__ __forceinline__ double load(const float* p) { return static_cast<double>(*p); }
__device__ __forceinline__ double load(const __half* p) {
  return static_cast<double>(__half2float(*p));
}
__device__ __forceinline__ double load(const __nv_bfloat16* p) {
  return static_cast<double>(__bfloat162float(*p));
}

// x, w, y and bias share one type: fp32, fp16 or bf16 (ConvProblem rejects fp8).
template <class Fn>
int with_conv_type(int t, Fn&& fn) {
  switch (t) {
    case kF32:
      return fn(float{});
    case kF16:
      return fn(__half{});
    case kBF16:
      return fn(__nv_bfloat16{});
  }
  return -1;
}

constexpr int kThreads = 256;

unsigned blocks_for(int64_t n) {
  int64_t blocks = (n + kThreads - 1) / kThreads;
  if (blocks < 1) blocks = 1;
  if (blocks > 65535 * 8) blocks = 65535 * 8;  // the grid-stride loops cover the rest
  return static_cast<unsigned>(blocks);
}

// Dims and element strides of a 5-dim tensor in the padded [dim0, dim1, D, H, W] form.
struct Tensor5 {
  int64_t dims[5];
  int64_t strides[5];
};

Tensor5 output_tensor(const RefConv& c) {
  Tensor5 t;
  const int64_t* spatial = c.out;
  const int64_t* strides = c.y_stride;
  t.dims[0] = c.n;
  t.dims[1] = c.k;
  if (c.direction == kConvBackwardData) {
    spatial = c.in;
    strides = c.x_stride;
    t.dims[1] = c.c;
  } else if (c.direction == kConvBackwardWeight) {
    spatial = c.fil;
    strides = c.w_stride;
    t.dims[0] = c.k;
    t.dims[1] = c.c / c.groups;
  }
  for (int i = 0; i < 3; ++i) t.dims[2 + i] = spatial[i];
  for (int i = 0; i < 5; ++i) t.strides[i] = strides[i];
  return t;
}

int64_t element_count(const Tensor5& t) {
  return t.dims[0] * t.dims[1] * t.dims[2] * t.dims[3] * t.dims[4];
}

// The logical index [i0..i4] of packed row-major position `idx` in `dims`.
__device__ __forceinline__ void unpack(int64_t idx, const int64_t (&dims)[5], int64_t (&i)[5]) {
  for (int a = 4; a > 0; --a) {
    i[a] = idx % dims[a];
    idx /= dims[a];
  }
  i[0] = idx;
}

// y[n, k, o] = bias[k] + sum over c in k's group and taps r of x[n, c, o * s - p + r * d] w[k, c,
// r].
template <class T>
__global__ void conv_fwd_ref_kernel(RefConv p, float* out) {
  const int64_t cg = p.c / p.groups;
  const int64_t kg = p.k / p.groups;
  const int64_t dims[5] = {p.n, p.k, p.out[0], p.out[1], p.out[2]};
  const int64_t total = p.n * p.k * p.out[0] * p.out[1] * p.out[2];
  const T* __restrict__ x = static_cast<const T*>(p.x);
  const T* __restrict__ w = static_cast<const T*>(p.w);
  const int64_t* xs = p.x_stride;
  const int64_t* ws = p.w_stride;
  for (int64_t idx = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; idx < total;
       idx += int64_t{gridDim.x} * blockDim.x) {
    int64_t o[5];
    unpack(idx, dims, o);
    const int64_t n = o[0];
    const int64_t k = o[1];
    const int64_t c0 = (k / kg) * cg;
    double acc = 0.0;
    for (int64_t r0 = 0; r0 < p.fil[0]; ++r0) {
      const int64_t i0 = o[2] * p.stride[0] - p.pad[0] + r0 * p.dil[0];
      if (i0 < 0 || i0 >= p.in[0]) continue;
      for (int64_t r1 = 0; r1 < p.fil[1]; ++r1) {
        const int64_t i1 = o[3] * p.stride[1] - p.pad[1] + r1 * p.dil[1];
        if (i1 < 0 || i1 >= p.in[1]) continue;
        for (int64_t r2 = 0; r2 < p.fil[2]; ++r2) {
          const int64_t i2 = o[4] * p.stride[2] - p.pad[2] + r2 * p.dil[2];
          if (i2 < 0 || i2 >= p.in[2]) continue;
          const T* xp = x + n * xs[0] + c0 * xs[1] + i0 * xs[2] + i1 * xs[3] + i2 * xs[4];
          const T* wp = w + k * ws[0] + r0 * ws[2] + r1 * ws[3] + r2 * ws[4];
          for (int64_t cc = 0; cc < cg; ++cc) acc += load(xp + cc * xs[1]) * load(wp + cc * ws[1]);
        }
      }
    }
    if (p.bias != nullptr) acc += load(static_cast<const T*>(p.bias) + k);
    out[idx] = static_cast<float>(acc);
  }
}

// dx[n, c, i] = sum over k in c's group and taps r with i = o * s - p + r * d (o a whole output
// position) of dy[n, k, o] w[k, c % (C / G), r]: the adjoint of the forward pass in x.
template <class T>
__global__ void conv_bwd_data_ref_kernel(RefConv p, float* out) {
  const int64_t cg = p.c / p.groups;
  const int64_t kg = p.k / p.groups;
  const int64_t dims[5] = {p.n, p.c, p.in[0], p.in[1], p.in[2]};
  const int64_t total = p.n * p.c * p.in[0] * p.in[1] * p.in[2];
  const T* __restrict__ dy = static_cast<const T*>(p.y);
  const T* __restrict__ w = static_cast<const T*>(p.w);
  const int64_t* ys = p.y_stride;
  const int64_t* ws = p.w_stride;
  for (int64_t idx = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; idx < total;
       idx += int64_t{gridDim.x} * blockDim.x) {
    int64_t i[5];
    unpack(idx, dims, i);
    const int64_t n = i[0];
    const int64_t c = i[1];
    const int64_t k0 = (c / cg) * kg;
    const int64_t cc = c % cg;
    double acc = 0.0;
    for (int64_t r0 = 0; r0 < p.fil[0]; ++r0) {
      const int64_t t0 = i[2] + p.pad[0] - r0 * p.dil[0];
      if (t0 < 0 || t0 % p.stride[0] != 0 || t0 / p.stride[0] >= p.out[0]) continue;
      for (int64_t r1 = 0; r1 < p.fil[1]; ++r1) {
        const int64_t t1 = i[3] + p.pad[1] - r1 * p.dil[1];
        if (t1 < 0 || t1 % p.stride[1] != 0 || t1 / p.stride[1] >= p.out[1]) continue;
        for (int64_t r2 = 0; r2 < p.fil[2]; ++r2) {
          const int64_t t2 = i[4] + p.pad[2] - r2 * p.dil[2];
          if (t2 < 0 || t2 % p.stride[2] != 0 || t2 / p.stride[2] >= p.out[2]) continue;
          const T* dyp = dy + n * ys[0] + k0 * ys[1] + (t0 / p.stride[0]) * ys[2] +
                         (t1 / p.stride[1]) * ys[3] + (t2 / p.stride[2]) * ys[4];
          const T* wp = w + k0 * ws[0] + cc * ws[1] + r0 * ws[2] + r1 * ws[3] + r2 * ws[4];
          for (int64_t kk = 0; kk < kg; ++kk) acc += load(dyp + kk * ys[1]) * load(wp + kk * ws[0]);
        }
      }
    }
    out[idx] = static_cast<float>(acc);
  }
}

// dw[k, cc, r] = sum over n and output positions o of x[n, c, o * s - p + r * d] dy[n, k, o]
// (c = k's group's first channel + cc): the adjoint of the forward pass in w. The sum has
// N * prod(out) terms, often far more than there are weights, so blockIdx.y splits the rows
// (n, o0, o1) of it into `splits` ranges whose fp64 sums land in `partial` ([split][weight]) for
// sum_splits_kernel to add in a fixed order; with one split the sum goes straight to `out`.
template <class T>
__global__ void conv_bwd_weight_ref_kernel(RefConv p, int64_t splits, double* partial, float* out) {
  const int64_t cg = p.c / p.groups;
  const int64_t kg = p.k / p.groups;
  const int64_t dims[5] = {p.k, cg, p.fil[0], p.fil[1], p.fil[2]};
  const int64_t weights = p.k * cg * p.fil[0] * p.fil[1] * p.fil[2];
  const int64_t rows = p.n * p.out[0] * p.out[1];
  const int64_t split = blockIdx.y;
  const int64_t per = rows / splits;
  const int64_t extra = rows % splits;
  const int64_t row_begin = split * per + (split < extra ? split : extra);
  const int64_t row_end = row_begin + per + (split < extra ? 1 : 0);
  const T* __restrict__ x = static_cast<const T*>(p.x);
  const T* __restrict__ dy = static_cast<const T*>(p.y);
  const int64_t* xs = p.x_stride;
  const int64_t* ys = p.y_stride;
  for (int64_t idx = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; idx < weights;
       idx += int64_t{gridDim.x} * blockDim.x) {
    int64_t wi[5];
    unpack(idx, dims, wi);
    const int64_t k = wi[0];
    const int64_t c = (k / kg) * cg + wi[1];
    double acc = 0.0;
    for (int64_t row = row_begin; row < row_end; ++row) {
      const int64_t o1 = row % p.out[1];
      const int64_t o0 = (row / p.out[1]) % p.out[0];
      const int64_t n = row / (p.out[1] * p.out[0]);
      const int64_t i0 = o0 * p.stride[0] - p.pad[0] + wi[2] * p.dil[0];
      if (i0 < 0 || i0 >= p.in[0]) continue;
      const int64_t i1 = o1 * p.stride[1] - p.pad[1] + wi[3] * p.dil[1];
      if (i1 < 0 || i1 >= p.in[1]) continue;
      const T* xrow = x + n * xs[0] + c * xs[1] + i0 * xs[2] + i1 * xs[3];
      const T* dyrow = dy + n * ys[0] + k * ys[1] + o0 * ys[2] + o1 * ys[3];
      for (int64_t o2 = 0; o2 < p.out[2]; ++o2) {
        const int64_t i2 = o2 * p.stride[2] - p.pad[2] + wi[4] * p.dil[2];
        if (i2 < 0 || i2 >= p.in[2]) continue;
        acc += load(xrow + i2 * xs[4]) * load(dyrow + o2 * ys[4]);
      }
    }
    if (partial != nullptr) {
      partial[split * weights + idx] = acc;
    } else {
      out[idx] = static_cast<float>(acc);
    }
  }
}

__global__ void sum_splits_kernel(const double* partial, int64_t splits, int64_t weights,
                                  float* out) {
  for (int64_t idx = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; idx < weights;
       idx += int64_t{gridDim.x} * blockDim.x) {
    double acc = 0.0;
    for (int64_t s = 0; s < splits; ++s) acc += partial[s * weights + idx];
    out[idx] = static_cast<float>(acc);
  }
}

template <class T>
__global__ void conv_compare_kernel(Tensor5 t, const T* got, const float* ref, ErrOut* acc) {
  ErrorAccumulator err;
  const int64_t total = t.dims[0] * t.dims[1] * t.dims[2] * t.dims[3] * t.dims[4];
  for (int64_t idx = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; idx < total;
       idx += int64_t{gridDim.x} * blockDim.x) {
    int64_t i[5];
    unpack(idx, t.dims, i);
    const int64_t off = i[0] * t.strides[0] + i[1] * t.strides[1] + i[2] * t.strides[2] +
                        i[3] * t.strides[3] + i[4] * t.strides[4];
    err.add(load(got + off), ref[idx]);
  }
  // Every thread of the block reaches the shuffles: the loop above has no early exit.
  err.flush(acc);
}

// Threads wanted in flight for the backward-weight sum; beyond about a million (~4 per SM slot
// of an H100) more splits only add partial sums to write and add.
constexpr int64_t kWeightThreads = int64_t{1} << 20;

template <class T>
int conv_bwd_weight(const RefConv& c, float* out, cudaStream_t s) {
  const int64_t weights = c.k * (c.c / c.groups) * c.fil[0] * c.fil[1] * c.fil[2];
  const int64_t rows = c.n * c.out[0] * c.out[1];
  int64_t splits = kWeightThreads / weights;
  if (splits > rows) splits = rows;
  if (splits > 65535) splits = 65535;  // gridDim.y
  if (splits < 1) splits = 1;
  const dim3 grid(blocks_for(weights), static_cast<unsigned>(splits));
  if (splits == 1) {
    conv_bwd_weight_ref_kernel<T><<<grid, kThreads, 0, s>>>(c, 1, nullptr, out);
    return static_cast<int>(cudaGetLastError());
  }
  // splits * weights <= kWeightThreads here: at most 8 MiB of partial sums.
  double* partial = nullptr;
  int err = cudaMallocAsync(reinterpret_cast<void**>(&partial),
                            static_cast<size_t>(splits * weights) * sizeof(double), s);
  if (err != cudaSuccess) return err;
  conv_bwd_weight_ref_kernel<T><<<grid, kThreads, 0, s>>>(c, splits, partial, out);
  err = cudaGetLastError();
  if (err == cudaSuccess) {
    sum_splits_kernel<<<blocks_for(weights), kThreads, 0, s>>>(partial, splits, weights, out);
    err = cudaGetLastError();
  }
  const int free_err = cudaFreeAsync(partial, s);
  return err != cudaSuccess ? err : free_err;
}

}  // namespace

int conv_reference(const RefConv& c, float* out, void* stream) {
  const cudaStream_t s = static_cast<cudaStream_t>(stream);
  if (element_count(output_tensor(c)) <= 0) return cudaSuccess;
  return with_conv_type(c.type, [&](auto t) {
    using T = decltype(t);
    switch (c.direction) {
      case kConvForward: {
        const int64_t total = c.n * c.k * c.out[0] * c.out[1] * c.out[2];
        conv_fwd_ref_kernel<T><<<blocks_for(total), kThreads, 0, s>>>(c, out);
        return static_cast<int>(cudaGetLastError());
      }
      case kConvBackwardData: {
        const int64_t total = c.n * c.c * c.in[0] * c.in[1] * c.in[2];
        conv_bwd_data_ref_kernel<T><<<blocks_for(total), kThreads, 0, s>>>(c, out);
        return static_cast<int>(cudaGetLastError());
      }
      case kConvBackwardWeight:
        return conv_bwd_weight<T>(c, out, s);
    }
    return -1;
  });
}

int compare_conv_output(const RefConv& c, const void* got, const float* ref, ErrOut* out,
                        void* stream) {
  const cudaStream_t s = static_cast<cudaStream_t>(stream);
  const Tensor5 t = output_tensor(c);
  ErrOut* acc = nullptr;
  int err = cudaMalloc(&acc, sizeof(ErrOut));
  if (err != cudaSuccess) return err;
  err = cudaMemsetAsync(acc, 0, sizeof(ErrOut), s);
  if (err == cudaSuccess && element_count(t) > 0) {
    err = with_conv_type(c.type, [&](auto td) {
      using T = decltype(td);
      conv_compare_kernel<T><<<blocks_for(element_count(t)), kThreads, 0, s>>>(
          t, static_cast<const T*>(got), ref, acc);
      return static_cast<int>(cudaGetLastError());
    });
  }
  if (err == cudaSuccess) {
    err = cudaMemcpyAsync(out, acc, sizeof(ErrOut), cudaMemcpyDeviceToHost, s);
  }
  if (err == cudaSuccess) err = cudaStreamSynchronize(s);
  const int free_err = cudaFree(acc);
  return err != cudaSuccess ? err : free_err;
}

}  // namespace boo::reference::gpu::detail
