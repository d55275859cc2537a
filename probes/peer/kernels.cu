// peer's kernels: the SM copy whose loads or stores cross the peer link.
#include "gpuprobe/runtime/cuda_check.hpp"
#include "kernels.hpp"

namespace gpuprobe::peer {
namespace {

__global__ void sm_copy(uint4* __restrict__ dst, const uint4* __restrict__ src, std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride)
    dst[i] = src[i];
}

}  // namespace

void launch_sm_copy(void* dst, const void* src, std::size_t bytes, int blocks,
                    cudaStream_t stream) {
  sm_copy<<<blocks, 256, 0, stream>>>(static_cast<uint4*>(dst), static_cast<const uint4*>(src),
                                      bytes / sizeof(uint4));
  GP_CHECK_LAUNCH("peer sm_copy");
}

}  // namespace gpuprobe::peer
