// Kernels with known counter values (copy, stride-32 loads, conflicting shared tile); no fmt here.
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

#include "kernels.hpp"

namespace gpuprobe::counters::testing {

namespace {

__global__ void copy_kernel(const float4* in, float4* out, std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride)
    out[i] = in[i];
}

__global__ void stride32_kernel(const float* in, float* out, std::size_t count) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < count) out[i] = in[i * 32];
}

__global__ void tile_transpose_kernel(const float* in, float* out, int n) {
  __shared__ float tile[32][32];
  const int x = static_cast<int>(blockIdx.x) * 32 + static_cast<int>(threadIdx.x);
  const int y = static_cast<int>(blockIdx.y) * 32 + static_cast<int>(threadIdx.y);
  tile[threadIdx.y][threadIdx.x] = in[static_cast<std::size_t>(y) * n + x];  // row write
  __syncthreads();
  const int tx = static_cast<int>(blockIdx.y) * 32 + static_cast<int>(threadIdx.x);
  const int ty = static_cast<int>(blockIdx.x) * 32 + static_cast<int>(threadIdx.y);
  out[static_cast<std::size_t>(ty) * n + tx] = tile[threadIdx.x][threadIdx.y];  // column read
}

void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess)
    throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(status));
}

}  // namespace

void launch_copy(const void* in, void* out, std::size_t bytes) {
  copy_kernel<<<132 * 16, 256>>>(static_cast<const float4*>(in), static_cast<float4*>(out),
                                 bytes / sizeof(float4));
  check(cudaGetLastError(), "copy kernel launch");
}

void launch_stride32_load(const float* in, float* out, std::size_t count) {
  const unsigned blocks = static_cast<unsigned>((count + 255) / 256);
  stride32_kernel<<<blocks, 256>>>(in, out, count);
  check(cudaGetLastError(), "stride-32 kernel launch");
}

void launch_tile_transpose(const float* in, float* out, int n) {
  const dim3 grid(static_cast<unsigned>(n / 32), static_cast<unsigned>(n / 32));
  tile_transpose_kernel<<<grid, dim3(32, 32)>>>(in, out, n);
  check(cudaGetLastError(), "tile transpose kernel launch");
}

void sync_or_throw(const char* what) {
  check(cudaDeviceSynchronize(), what);
}

}  // namespace gpuprobe::counters::testing
