// The GPU's global nanosecond timer, read in device code (the gate's timeout, the busy kernel).
#pragma once

namespace gpuprobe::runtime {

__device__ inline unsigned long long global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

}  // namespace gpuprobe::runtime
