// A busy kernel of a known duration: compute-side work for probes that overlap copies with
// kernels (overlap's compute stage, zero-copy's reuse) and for tests of concurrency.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace gpuprobe::runtime {

// Enqueues `blocks` one-thread blocks on `stream` that each spin on the GPU's global timer for
// `nanoseconds` and then return: the kernel lasts that long (plus launch latency) whatever the
// clocks, and occupies only `blocks` SMs' worth of issue slots, so kernels on other streams can
// run beside it. Checks the launch.
void launch_busy_wait(cudaStream_t stream, std::uint64_t nanoseconds, int blocks = 1);

}  // namespace gpuprobe::runtime
