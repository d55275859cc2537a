// peer's kernels: an SM copy that reads or writes another GPU's memory over the peer link.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

namespace gpuprobe::peer {

// Copies `bytes` (a multiple of 16) from src to dst with 16-byte loads and stores, grid-stride,
// `blocks` blocks of 256 threads, on `stream` (a stream of the current device). One of src and
// dst may be a peer GPU's memory (peer access enabled from the current device).
void launch_sm_copy(void* dst, const void* src, std::size_t bytes, int blocks, cudaStream_t stream);

}  // namespace gpuprobe::peer
