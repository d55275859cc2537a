// Pattern fill and check, on the device (grid-stride kernels) and on the host.
#include "gpuprobe/runtime/buffers.hpp"
#include "gpuprobe/runtime/cuda_check.hpp"
#include "gpuprobe/runtime/pattern.hpp"

namespace gpuprobe::runtime {
namespace {

constexpr int kThreads = 256;
constexpr int kMaxBlocks = 4096;

int blocks_for(std::size_t words) {
  const std::size_t b = (words + kThreads - 1) / kThreads;
  return static_cast<int>(b < kMaxBlocks ? (b > 0 ? b : 1) : kMaxBlocks);
}

__global__ void fill_kernel(std::uint32_t* dst, std::size_t words, std::uint32_t seed) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < words;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    dst[i] = pattern_word(i, seed);
  }
}

__global__ void check_kernel(const std::uint32_t* src, std::size_t words, std::uint32_t seed,
                             unsigned long long* mismatches) {
  unsigned long long local = 0;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < words;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    local += src[i] != pattern_word(i, seed);
  }
  if (local) atomicAdd(mismatches, local);
}

}  // namespace

void fill_pattern_device(void* dst, std::size_t bytes, std::uint32_t seed, cudaStream_t stream) {
  const std::size_t words = bytes / 4;
  fill_kernel<<<blocks_for(words), kThreads, 0, stream>>>(static_cast<std::uint32_t*>(dst), words,
                                                          seed);
  GP_CHECK_LAUNCH("fill_kernel");
}

std::uint64_t count_mismatches_device(const void* src, std::size_t bytes, std::uint32_t seed,
                                      cudaStream_t stream) {
  const std::size_t words = bytes / 4;
  HostBuffer counter(HostMemory::kMapped, sizeof(unsigned long long));
  auto* dev = static_cast<unsigned long long*>(counter.device_pointer());
  check_kernel<<<blocks_for(words), kThreads, 0, stream>>>(static_cast<const std::uint32_t*>(src),
                                                           words, seed, dev);
  GP_CHECK_LAUNCH("check_kernel");
  GP_CUDA(cudaStreamSynchronize(stream));
  return *counter.as<volatile unsigned long long>();
}

void fill_pattern_host(void* dst, std::size_t bytes, std::uint32_t seed) {
  auto* words = static_cast<std::uint32_t*>(dst);
  for (std::size_t i = 0; i < bytes / 4; ++i)
    words[i] = pattern_word(i, seed);
}

std::uint64_t count_mismatches_host(const void* src, std::size_t bytes, std::uint32_t seed) {
  const auto* words = static_cast<const std::uint32_t*>(src);
  std::uint64_t bad = 0;
  for (std::size_t i = 0; i < bytes / 4; ++i)
    bad += words[i] != pattern_word(i, seed);
  return bad;
}

}  // namespace gpuprobe::runtime
