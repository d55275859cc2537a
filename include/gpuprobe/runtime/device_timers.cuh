// Device-side timers for kernels that time themselves (.cu files only): the SM's cycle counter and
// the GPU's nanosecond global timer, read with the compiler kept from moving loads across them.
#pragma once

#include <cstdint>

namespace gpuprobe::runtime {

__device__ __forceinline__ std::uint64_t global_ns() {
  std::uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)::"memory");
  return t;
}

__device__ __forceinline__ std::uint64_t cycles64() {
  std::uint64_t t;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(t)::"memory");
  return t;
}

}  // namespace gpuprobe::runtime
