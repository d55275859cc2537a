// Sampling the SM clock the GPU is really running at, from inside a kernel.
#pragma once

#include <cuda_runtime.h>

namespace gpuprobe::runtime {

// Runs a one-thread kernel that counts SM cycles (clock64) against the global nanosecond
// timer for about `window_seconds`, and returns the SM clock in MHz of the SM it ran on.
double sample_sm_clock_mhz(cudaStream_t stream, double window_seconds = 0.002);

}  // namespace gpuprobe::runtime
