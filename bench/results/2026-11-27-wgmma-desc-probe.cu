// Probe: B (16 x 64, k = pixel rows) in the 128-byte swizzled layout (a row of 128 bytes per k,
// chunk c of row r at c ^ (r & 7), rows from a 1024-byte aligned base), MN-major, the start moved
// by `shift` rows; base offset 0 or (start >> 7) & 7.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include "../../kernels/mma_sync.cuh"
#include "../../kernels/wgmma.cuh"
using namespace boo_kernels;
using T = __nv_bfloat16;
constexpr int KB = 40;
__device__ uint64_t desc128(uint32_t addr, int base_mode) {
  uint64_t d = static_cast<uint64_t>((addr & 0x3FFFF) >> 4) | (uint64_t{1} << 16) |
               (static_cast<uint64_t>(1024 >> 4) << 32) | (uint64_t{1} << 62);
  if (base_mode == 1) d |= static_cast<uint64_t>((addr >> 7) & 7) << 49;
  return d;
}
__global__ void probe(const T* A, const T* B, float* D, int shift, int base_mode) {
  __shared__ alignas(128) T as[8][16][8];
  __shared__ alignas(1024) unsigned char bs[KB * 128];
  for (int i = threadIdx.x; i < 64 * 16; i += 128) {
    int m = i / 16, k = i % 16;
    as[m / 8][k][m % 8] = A[m * 16 + k];
  }
  for (int i = threadIdx.x; i < KB * 64; i += 128) {
    int k = i / 64, n = i % 64;
    reinterpret_cast<T*>(bs + k * 128 + (((n / 8) ^ (k & 7)) * 16))[n % 8] = B[k * 64 + n];
  }
  fence_proxy_async_shared();
  __syncthreads();
  const int lane = threadIdx.x % 32, w = threadIdx.x / 32;
  uint32_t a[4];
  ldmatrix_x4_trans(a, shared_address(&as[2 * w + (lane / 8) % 2][8 * (lane / 16) + lane % 8][0]));
  float d[32];
  for (int i = 0; i < 32; ++i) d[i] = 0.f;
  const uint64_t desc = desc128(shared_address(bs + shift * 128), base_mode);
  wgmma_fence();
  wgmma_m64n64k16_rs<T>(d, a, desc, 0);
  wgmma_commit();
  wgmma_wait<0>();
  wgmma_hold(d);
  const int g = lane / 4, t = lane % 4;
  for (int i = 0; i < 8; ++i) {
    D[(16 * w + g) * 64 + 8 * i + 2 * t] = d[4 * i];
    D[(16 * w + g) * 64 + 8 * i + 2 * t + 1] = d[4 * i + 1];
    D[(16 * w + g + 8) * 64 + 8 * i + 2 * t] = d[4 * i + 2];
    D[(16 * w + g + 8) * 64 + 8 * i + 2 * t + 1] = d[4 * i + 3];
  }
}
int main() {
  T *A, *B;
  float* D;
  cudaMallocManaged(&A, 64 * 16 * 2);
  cudaMallocManaged(&B, KB * 64 * 2);
  cudaMallocManaged(&D, 64 * 64 * 4);
  static float fa[64 * 16], fb[KB * 64];
  srand(1);
  for (int i = 0; i < 64 * 16; ++i) {
    fa[i] = rand() % 7 - 3;
    A[i] = __float2bfloat16(fa[i]);
  }
  for (int i = 0; i < KB * 64; ++i) {
    fb[i] = rand() % 7 - 3;
    B[i] = __float2bfloat16(fb[i]);
  }
  for (int mode : {0, 1})
    for (int shift : {0, 1, 3, 8, 13, 24}) {
      probe<<<1, 128>>>(A, B, D, shift, mode);
      cudaError_t e = cudaDeviceSynchronize();
      if (e != cudaSuccess) {
        printf("mode %d shift %d: %s\n", mode, shift, cudaGetErrorString(e));
        return 1;
      }
      int bad = 0;
      double err = 0;
      for (int m = 0; m < 64; ++m)
        for (int n = 0; n < 64; ++n) {
          double r = 0;
          for (int k = 0; k < 16; ++k) r += fa[m * 16 + k] * fb[(k + shift) * 64 + n];
          double x = fabs(r - D[m * 64 + n]);
          if (x > err) err = x;
          if (x > 0) ++bad;
        }
      printf("SW128 base_offset %s shift %2d: max error %g, %d of 4096 wrong\n",
             mode ? "(start>>7)&7" : "0", shift, err, bad);
    }
  return 0;
}
