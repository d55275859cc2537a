// The busy kernel: spins on %globaltimer for a given time (include/gpuprobe/runtime/busy.hpp).
#include "global_timer.cuh"
#include "gpuprobe/runtime/busy.hpp"
#include "gpuprobe/runtime/cuda_check.hpp"

namespace gpuprobe::runtime {
namespace {

__global__ void busy_wait(unsigned long long nanoseconds) {
  const unsigned long long start = global_ns();
  while (global_ns() - start < nanoseconds) {
  }
}

}  // namespace

void launch_busy_wait(cudaStream_t stream, std::uint64_t nanoseconds, int blocks) {
  busy_wait<<<blocks, 1, 0, stream>>>(nanoseconds);
  GP_CHECK_LAUNCH("busy_wait");
}

}  // namespace gpuprobe::runtime
