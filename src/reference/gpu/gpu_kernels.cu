// Kernels of the GPU reference helpers (see gpu_kernels.h). C++17: nvcc compiles this file.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include "error_accumulator.cuh"
#include "gpu_kernels.h"

namespace boo::reference::gpu::detail {
namespace {

__device__ __forceinline__ uint64_t mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

template <class T>
__device__ __forceinline__ T from_f(float v) {
  return static_cast<T>(v);
}
template <>
__device__ __forceinline__ __nv_bfloat16 from_f<__nv_bfloat16>(float v) {
  return __float2bfloat16_rn(v);
}
template <>
__device__ __forceinline__ __half from_f<__half>(float v) {
  return __float2half_rn(v);
}
template <class T>
__device__ __forceinline__ float to_f(T v) {
  return static_cast<float>(v);
}
template <>
__device__ __forceinline__ float to_f<__nv_bfloat16>(__nv_bfloat16 v) {
  return __bfloat162float(v);
}
template <>
__device__ __forceinline__ float to_f<__half>(__half v) {
  return __half2float(v);
}

// Activations in the order of ops::Activation, as reference/activation.cc defines them. Written
// here again rather than shared with kernels/activation.cuh on purpose: the reference must not
// reuse the code it checks.
__device__ __forceinline__ float activate(int act, float v) {
  switch (act) {
    case 1:
      return fmaxf(v, 0.0f);
    case 2:
      return 0.5f * v * (1.0f + erff(v * 0.70710678118654752f));
    case 3:
      return 0.5f * v * (1.0f + tanhf(0.7978845608028654f * (v + 0.044715f * v * v * v)));
    case 4:
      return v / (1.0f + expf(-v));
    case 5:
      return 1.0f / (1.0f + expf(-v));
    case 6:
      return tanhf(v);
    case 7:
      return fminf(fmaxf(v, 0.0f), 6.0f);
    default:
      return v;
  }
}

template <class T>
__global__ void fill_kernel(T* p, int64_t n, uint64_t seed, float lo, float hi) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n;
       i += int64_t{gridDim.x} * blockDim.x) {
    const uint64_t r = mix(seed * 0x9e3779b97f4a7c15ull + static_cast<uint64_t>(i) + 1);
    const float u = static_cast<float>(r >> 40) * (1.0f / 16777216.0f);
    p[i] = from_f<T>(lo + (hi - lo) * u);
  }
}

template <class Fn>
int with_type(int t, Fn&& fn) {
  switch (t) {
    case kF32:
      return fn(float{});
    case kF16:
      return fn(__half{});
    case kBF16:
      return fn(__nv_bfloat16{});
    case kE4M3:
      return fn(__nv_fp8_e4m3{});
    case kE5M2:
      return fn(__nv_fp8_e5m2{});
  }
  return -1;
}

// Outputs, C and bias are fp32, fp16 or bf16: fewer instantiations.
template <class Fn>
int with_out_type(int t, Fn&& fn) {
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

// Input pairs: equal 16/32-bit types, or any two fp8 types.
template <class Fn>
int with_input_types(int a, int b, Fn&& fn) {
  const bool fp8a = a == kE4M3 || a == kE5M2;
  const bool fp8b = b == kE4M3 || b == kE5M2;
  if (fp8a && fp8b) {
    return with_type(
        a, [&](auto ta) { return b == kE4M3 ? fn(ta, __nv_fp8_e4m3{}) : fn(ta, __nv_fp8_e5m2{}); });
  }
  if (a != b) return -1;
  return with_out_type(a, [&](auto t) { return fn(t, t); });
}

dim3 grid_for(int64_t n) {
  int64_t blocks = (n + 255) / 256;
  if (blocks < 1) blocks = 1;
  if (blocks > 65535 * 8) blocks = 65535 * 8;
  return dim3(static_cast<unsigned>(blocks));
}

constexpr int kRefTile = 32;

// D_ref[b][j][i] = act(alpha_i * scale * sum_k op(A)(i,k) op(B)(k,j) + beta C(i,j) + bias[i]):
// one thread per output, 32x32 slices of op(A) and op(B) staged in shared memory.
template <class TA, class TB, class TC, class TBias>
__global__ void gemm_ref_kernel(RefGemm g, float* out) {
  __shared__ float sa[kRefTile][kRefTile + 1];
  __shared__ float sb[kRefTile][kRefTile + 1];
  const int64_t i = blockIdx.y * int64_t{kRefTile} + threadIdx.y;  // row of D
  const int64_t j = blockIdx.x * int64_t{kRefTile} + threadIdx.x;  // column of D
  const int64_t row0 = blockIdx.y * int64_t{kRefTile};
  const int64_t batch = blockIdx.z;
  const TA* A = static_cast<const TA*>(g.a) + batch * g.stride_a;
  const TB* B = static_cast<const TB*>(g.b) + batch * g.stride_b;
  float acc = 0.0f;
  for (int64_t k0 = 0; k0 < g.k; k0 += kRefTile) {
    // sa[r][kk] = op(A)(row0 + r, k0 + kk); sb[kk][c] = op(B)(k0 + kk, col0 + c).
    const int64_t ar = row0 + threadIdx.y;
    const int64_t ak = k0 + threadIdx.x;
    sa[threadIdx.y][threadIdx.x] =
        (ar < g.m && ak < g.k) ? to_f(A[g.trans_a ? ak + ar * g.lda : ar + ak * g.lda]) : 0.0f;
    const int64_t bk = k0 + threadIdx.y;
    sb[threadIdx.y][threadIdx.x] =
        (j < g.n && bk < g.k) ? to_f(B[g.trans_b ? j + bk * g.ldb : bk + j * g.ldb]) : 0.0f;
    __syncthreads();
#pragma unroll 8
    for (int kk = 0; kk < kRefTile; ++kk) acc += sa[threadIdx.y][kk] * sb[kk][threadIdx.x];
    __syncthreads();
  }
  if (i >= g.m || j >= g.n) return;
  float alpha = static_cast<float>(g.alpha) * g.scale;
  if (g.alpha_vector != nullptr) alpha *= g.alpha_vector[i];
  float v = alpha * acc;
  if (g.beta != 0.0) {
    v += static_cast<float>(g.beta) *
         to_f(static_cast<const TC*>(g.c)[batch * g.stride_c + i + j * g.ldc]);
  }
  if (g.bias != nullptr) v += to_f(static_cast<const TBias*>(g.bias)[i]);
  out[(batch * g.n + j) * g.m + i] = activate(g.activation, v);
}

template <class TD>
__global__ void compare_kernel(RefGemm g, const TD* d, const float* ref, ErrOut* acc) {
  ErrorAccumulator err;
  const int64_t total = g.m * g.n * g.batch;
  for (int64_t idx = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; idx < total;
       idx += int64_t{gridDim.x} * blockDim.x) {
    const int64_t i = idx % g.m;
    const int64_t j = (idx / g.m) % g.n;
    const int64_t b = idx / (g.m * g.n);
    err.add(to_f(d[b * g.stride_d + i + j * g.ldd]), ref[idx]);
  }
  err.flush(acc);
}

template <class TD, class TBias>
__global__ void bias_act_kernel(RefGemm g, TD* d, const TBias* bias) {
  const int64_t total = g.m * g.n * g.batch;
  for (int64_t idx = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; idx < total;
       idx += int64_t{gridDim.x} * blockDim.x) {
    const int64_t i = idx % g.m;
    const int64_t j = (idx / g.m) % g.n;
    const int64_t b = idx / (g.m * g.n);
    TD* x = d + b * g.stride_d + i + j * g.ldd;
    const float v = to_f(*x) + (bias != nullptr ? to_f(bias[i]) : 0.0f);
    *x = from_f<TD>(activate(g.activation, v));
  }
}

// One read and one write per element: memory-bound, so the channel index costs at most one
// division by a runtime value, 32-bit (~3x cheaper than 64-bit) when the tensor has < 2^31
// elements: unsigned, so idx + stride (< 2^31 + 2^27) cannot wrap.
template <class T, class Index>
__global__ void conv_bias_act_kernel(T* y, const T* bias, Index count, Index channel_stride,
                                     Index channels, int act) {
  for (Index idx = blockIdx.x * Index{blockDim.x} + threadIdx.x; idx < count;
       idx += Index{gridDim.x} * blockDim.x) {
    float v = to_f(y[idx]);
    if (bias != nullptr) {
      const Index ch = channel_stride == 1 ? idx % channels : (idx / channel_stride) % channels;
      v += to_f(bias[ch]);
    }
    y[idx] = from_f<T>(activate(act, v));
  }
}

// The same with 16-byte accesses (8 bf16/fp16 or 4 fp32 elements a thread): on an H100, bias +
// gelu over a 25.7 MB bf16 output ran at 1.8 TB/s (read + write) this way, 0.95 TB/s with
// 2-byte accesses. The caller guarantees that the index math holds for a whole vector:
// channels-last with K % V == 0 (a vector holds channels ch0..ch0+V-1 of one pixel) or
// channels-first with a spatial size % V == 0 (a vector holds one channel).
template <class T, class Index>
__global__ void conv_bias_act_vec_kernel(T* y, const T* bias, Index vectors, Index channel_stride,
                                         Index channels, int act) {
  constexpr int kV = 16 / sizeof(T);
  uint4* y4 = reinterpret_cast<uint4*>(y);
  for (Index v = blockIdx.x * Index{blockDim.x} + threadIdx.x; v < vectors;
       v += Index{gridDim.x} * blockDim.x) {
    uint4 raw = y4[v];
    T* e = reinterpret_cast<T*>(&raw);
    const Index idx = v * kV;
    if (channel_stride == 1) {
      const Index ch0 = idx % channels;
#pragma unroll
      for (int j = 0; j < kV; ++j) {
        const float b = bias != nullptr ? to_f(bias[ch0 + j]) : 0.0f;
        e[j] = from_f<T>(activate(act, to_f(e[j]) + b));
      }
    } else {
      const float b = bias != nullptr ? to_f(bias[(idx / channel_stride) % channels]) : 0.0f;
#pragma unroll
      for (int j = 0; j < kV; ++j) e[j] = from_f<T>(activate(act, to_f(e[j]) + b));
    }
    y4[v] = raw;
  }
}

__global__ void empty_kernel() {}

// Reads every 16 bytes of `buf` once; `sink` is written only if the XOR of everything read is
// a value no fill produces, so the loads cannot be dropped.
__global__ void read_sweep_kernel(const uint4* __restrict__ buf, int64_t vectors, uint4* sink) {
  uint4 acc = make_uint4(0, 0, 0, 0);
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < vectors;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const uint4 v = __ldcg(buf + i);
    acc.x ^= v.x;
    acc.y ^= v.y;
    acc.z ^= v.z;
    acc.w ^= v.w;
  }
  if (acc.x == 0x9e3779b9u && acc.y == 0x7f4a7c15u && acc.z == 0xf39cc060u &&
      acc.w == 0x5ced1a3bu) {
    *sink = acc;
  }
}

}  // namespace

int fill_uniform(void* ptr, int type, int64_t count, uint64_t seed, float lo, float hi,
                 void* stream) {
  if (count <= 0) return cudaSuccess;
  return with_type(type, [&](auto t) {
    using T = decltype(t);
    fill_kernel<T><<<grid_for(count), 256, 0, static_cast<cudaStream_t>(stream)>>>(
        static_cast<T*>(ptr), count, seed, lo, hi);
    return static_cast<int>(cudaGetLastError());
  });
}

int gemm_reference(const RefGemm& g, float* out, void* stream) {
  const int64_t tiles_m = (g.m + kRefTile - 1) / kRefTile;
  if (g.batch > 65535 || tiles_m > 65535) return -1;
  const dim3 grid(static_cast<unsigned>((g.n + kRefTile - 1) / kRefTile),
                  static_cast<unsigned>(tiles_m), static_cast<unsigned>(g.batch));
  const dim3 block(kRefTile, kRefTile);
  return with_input_types(g.a_type, g.b_type, [&](auto ta, auto tb) {
    return with_out_type(g.c_type, [&](auto tc) {
      return with_out_type(g.bias_type, [&](auto tbias) {
        gemm_ref_kernel<decltype(ta), decltype(tb), decltype(tc), decltype(tbias)>
            <<<grid, block, 0, static_cast<cudaStream_t>(stream)>>>(g, out);
        return static_cast<int>(cudaGetLastError());
      });
    });
  });
}

int compare_output(const RefGemm& g, const void* d, const float* ref, ErrOut* out, void* stream) {
  const cudaStream_t s = static_cast<cudaStream_t>(stream);
  ErrOut* acc = nullptr;
  int err = cudaMalloc(&acc, sizeof(ErrOut));
  if (err != cudaSuccess) return err;
  err = cudaMemsetAsync(acc, 0, sizeof(ErrOut), s);
  if (err == cudaSuccess) {
    err = with_out_type(g.d_type, [&](auto td) {
      using TD = decltype(td);
      compare_kernel<TD>
          <<<grid_for(g.m * g.n * g.batch), 256, 0, s>>>(g, static_cast<const TD*>(d), ref, acc);
      return static_cast<int>(cudaGetLastError());
    });
  }
  if (err == cudaSuccess)
    err = cudaMemcpyAsync(out, acc, sizeof(ErrOut), cudaMemcpyDeviceToHost, s);
  if (err == cudaSuccess) err = cudaStreamSynchronize(s);
  cudaFree(acc);
  return err;
}

int bias_activation(const RefGemm& g, void* d, const void* bias, void* stream) {
  return with_out_type(g.d_type, [&](auto td) {
    return with_out_type(g.bias_type, [&](auto tbias) {
      using TD = decltype(td);
      using TBias = decltype(tbias);
      bias_act_kernel<TD, TBias>
          <<<grid_for(g.m * g.n * g.batch), 256, 0, static_cast<cudaStream_t>(stream)>>>(
              g, static_cast<TD*>(d), static_cast<const TBias*>(bias));
      return static_cast<int>(cudaGetLastError());
    });
  });
}

int conv_bias_activation(const RefConvEpilogue& e, void* y, const void* bias, void* stream) {
  if (e.count <= 0) return cudaSuccess;
  if (e.channel_stride <= 0 || e.channels <= 0) return -1;
  return with_out_type(e.type, [&](auto t) {
    using T = decltype(t);
    const cudaStream_t s = static_cast<cudaStream_t>(stream);
    constexpr int64_t kV = 16 / sizeof(T);
    const bool aligned =
        reinterpret_cast<uintptr_t>(y) % 16 == 0 && e.count % kV == 0 &&
        (e.channel_stride == 1 ? e.channels % kV == 0 : e.channel_stride % kV == 0);
    if (aligned) {
      const int64_t vectors = e.count / kV;
      if (e.count < (int64_t{1} << 31)) {  // element indices fit too
        conv_bias_act_vec_kernel<T, uint32_t><<<grid_for(vectors), 256, 0, s>>>(
            static_cast<T*>(y), static_cast<const T*>(bias), static_cast<uint32_t>(vectors),
            static_cast<uint32_t>(e.channel_stride), static_cast<uint32_t>(e.channels),
            e.activation);
      } else {
        conv_bias_act_vec_kernel<T, int64_t>
            <<<grid_for(vectors), 256, 0, s>>>(static_cast<T*>(y), static_cast<const T*>(bias),
                                               vectors, e.channel_stride, e.channels, e.activation);
      }
    } else if (e.count < (int64_t{1} << 31)) {
      conv_bias_act_kernel<T, uint32_t><<<grid_for(e.count), 256, 0, s>>>(
          static_cast<T*>(y), static_cast<const T*>(bias), static_cast<uint32_t>(e.count),
          static_cast<uint32_t>(e.channel_stride), static_cast<uint32_t>(e.channels), e.activation);
    } else {
      conv_bias_act_kernel<T, int64_t>
          <<<grid_for(e.count), 256, 0, s>>>(static_cast<T*>(y), static_cast<const T*>(bias),
                                             e.count, e.channel_stride, e.channels, e.activation);
    }
    return static_cast<int>(cudaGetLastError());
  });
}

int read_sweep(const void* buf, int64_t bytes, void* sink, void* stream) {
  read_sweep_kernel<<<132 * 8, 256, 0, static_cast<cudaStream_t>(stream)>>>(
      static_cast<const uint4*>(buf), bytes / 16, static_cast<uint4*>(sink));
  return static_cast<int>(cudaGetLastError());
}

// Spins until `ns` nanoseconds of the GPU's global timer have passed.
__global__ void hold_kernel(unsigned long long ns) {
  unsigned long long start = 0;
  unsigned long long now = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    __nanosleep(1000);
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < ns);
}

int launch_hold(double us, void* stream) {
  hold_kernel<<<1, 1, 0, static_cast<cudaStream_t>(stream)>>>(
      static_cast<unsigned long long>(us * 1000.0));
  return static_cast<int>(cudaGetLastError());
}

int launch_empty(void* stream) {
  empty_kernel<<<1, 1, 0, static_cast<cudaStream_t>(stream)>>>();
  return static_cast<int>(cudaGetLastError());
}

}  // namespace boo::reference::gpu::detail
