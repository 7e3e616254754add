// How many blocks does the device hold at once in clusters of 1, 2, 4, 8 and 16 along x, for a
// kernel of 384 threads and about 150 KB of dynamic shared memory (one block an SM: conv.
// split_wgrad's warpgroup kernel on a 3x3 layer) and of 128 threads and 50 KB (three an SM)?
// A GPC holds whole clusters only, so a GPC whose SM count the cluster size does not divide
// leaves SMs idle. Prints cudaOccupancyMaxActiveClusters x cluster size against the SM count.
#include <cuda_runtime.h>

#include <cstdio>

__global__ void probe_kernel(float* out) {
  extern __shared__ float smem[];
  smem[threadIdx.x] = static_cast<float>(threadIdx.x);
  __syncthreads();
  if (out != nullptr) out[blockIdx.x] = smem[0];
}

int main() {
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, 0);
  std::printf("%s: %d SMs\n", prop.name, sms);
  cudaFuncSetAttribute(probe_kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
  const struct {
    unsigned threads;
    size_t shared;
  } shapes[] = {{384, 150 * 1024}, {128, 50 * 1024}};
  for (const auto& shape : shapes) {
    cudaFuncSetAttribute(probe_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                         static_cast<int>(shape.shared));
    for (unsigned cluster : {1u, 2u, 4u, 8u, 16u}) {
      cudaLaunchConfig_t config = {};
      cudaLaunchAttribute attribute[1];
      config.gridDim = dim3(cluster);
      config.blockDim = dim3(shape.threads);
      config.dynamicSmemBytes = shape.shared;
      attribute[0].id = cudaLaunchAttributeClusterDimension;
      attribute[0].val.clusterDim.x = cluster;
      attribute[0].val.clusterDim.y = 1;
      attribute[0].val.clusterDim.z = 1;
      config.attrs = attribute;
      config.numAttrs = 1;
      int clusters = 0;
      const cudaError_t e = cudaOccupancyMaxActiveClusters(&clusters, probe_kernel, &config);
      std::printf("%u threads, %zu KB: clusters of %2u: %3d clusters, %3d blocks (%s)\n",
                  shape.threads, shape.shared / 1024, cluster, clusters, clusters * cluster,
                  cudaGetErrorString(e));
      (void)cudaGetLastError();
    }
  }
  return 0;
}
