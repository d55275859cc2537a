// The busy kernel: spins on %globaltimer for a given time (include/gpuprobe/runtime/busy.hpp).
#include "gpuprobe/runtime/busy.hpp"
#include "gpuprobe/runtime/cuda_check.hpp"

namespace gpuprobe::runtime {
namespace {

__device__ unsigned long long now_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void busy_wait(unsigned long long nanoseconds) {
  const unsigned long long start = now_ns();
  while (now_ns() - start < nanoseconds) {
  }
}

}  // namespace

void launch_busy_wait(cudaStream_t stream, std::uint64_t nanoseconds, int blocks) {
  busy_wait<<<blocks, 1, 0, stream>>>(nanoseconds);
  GP_CHECK_LAUNCH("busy_wait");
}

}  // namespace gpuprobe::runtime
