// peer's kernels: the SM copy whose loads or stores cross the peer link, and the latency chain.
#include <algorithm>

#include "gpuprobe/runtime/cuda_check.hpp"
#include "kernels.hpp"
#include "sweep.hpp"

namespace gpuprobe::peer {
namespace {

// Grid-stride copy, kSmCopyLoads 16-byte loads issued per thread before their stores: each SM
// keeps 1024 threads x 8 x 16 B = 128 KiB of reads in flight, what a read across the link needs
// to cover its ~0.8 us round trip (with one load per thread, 16 KiB per SM, sm-read reached 0.987x
// nvbandwidth's read_sm on H200s; docs/probes/peer.md).
constexpr int kSmCopyLoads = 8;

__global__ void sm_copy(uint4* __restrict__ dst, const uint4* __restrict__ src, std::size_t n) {
  const std::size_t threads = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  for (; i + (kSmCopyLoads - 1) * threads < n; i += kSmCopyLoads * threads) {
    uint4 v[kSmCopyLoads];
#pragma unroll
    for (int k = 0; k < kSmCopyLoads; ++k)
      v[k] = src[i + k * threads];
#pragma unroll
    for (int k = 0; k < kSmCopyLoads; ++k)
      dst[i + k * threads] = v[k];
  }
  for (; i < n; i += threads)
    dst[i] = src[i];
}

__global__ void chase_build(char* base, std::uint64_t nodes) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       i < nodes; i += stride) {
    auto* node = reinterpret_cast<std::uint64_t*>(base + i * kChaseSlot);
    *node = reinterpret_cast<std::uint64_t>(base + chase_next(i, nodes) * kChaseSlot);
  }
}

// Each load's address is the last load's value: one access in flight, its whole round trip timed.
__global__ void chase(const std::uint64_t* base, std::uint64_t hops, std::uint64_t* end) {
  auto p = reinterpret_cast<std::uint64_t>(base);
  for (std::uint64_t i = 0; i < hops; ++i)
    p = *reinterpret_cast<const volatile std::uint64_t*>(p);
  *end = p;
}

}  // namespace

void launch_sm_copy(void* dst, const void* src, std::size_t bytes, int blocks,
                    cudaStream_t stream) {
  sm_copy<<<blocks, 256, 0, stream>>>(static_cast<uint4*>(dst), static_cast<const uint4*>(src),
                                      bytes / sizeof(uint4));
  GP_CHECK_LAUNCH("peer sm_copy");
}

void launch_chase_build(void* base, std::size_t bytes, cudaStream_t stream) {
  const std::uint64_t nodes = chase_nodes(bytes);
  const auto blocks = static_cast<unsigned>(std::min<std::uint64_t>((nodes + 255) / 256, 4096));
  chase_build<<<blocks, 256, 0, stream>>>(static_cast<char*>(base), nodes);
  GP_CHECK_LAUNCH("peer chase_build");
}

void launch_chase(const void* base, std::uint64_t hops, std::uint64_t* end, cudaStream_t stream) {
  chase<<<1, 1, 0, stream>>>(static_cast<const std::uint64_t*>(base), hops, end);
  GP_CHECK_LAUNCH("peer chase");
}

}  // namespace gpuprobe::peer
