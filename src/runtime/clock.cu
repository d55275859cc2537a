// In-kernel SM clock measurement: cycles counted over a globaltimer window.
#include "gpuprobe/runtime/buffers.hpp"
#include "gpuprobe/runtime/clock.hpp"
#include "gpuprobe/runtime/cuda_check.hpp"

namespace gpuprobe::runtime {
namespace {

__global__ void count_cycles(unsigned long long window_ns, unsigned long long* out) {
  unsigned long long t0, t1;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  const long long c0 = clock64();
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t1));
  } while (t1 - t0 < window_ns);
  const long long c1 = clock64();
  out[0] = static_cast<unsigned long long>(c1 - c0);
  out[1] = t1 - t0;
}

}  // namespace

double sample_sm_clock_mhz(cudaStream_t stream, double window_seconds) {
  HostBuffer result(HostMemory::kMapped, 2 * sizeof(unsigned long long));
  auto* dev = static_cast<unsigned long long*>(result.device_pointer());
  count_cycles<<<1, 1, 0, stream>>>(static_cast<unsigned long long>(window_seconds * 1e9), dev);
  GP_CHECK_LAUNCH("count_cycles<<<1,1>>>");
  GP_CUDA(cudaStreamSynchronize(stream));
  const auto* host = result.as<unsigned long long>();
  if (host[1] == 0) return 0;
  return static_cast<double>(host[0]) / static_cast<double>(host[1]) * 1e3;
}

}  // namespace gpuprobe::runtime
