// peer's kernels: an SM copy that reads or writes another GPU's memory over the peer link, and a
// one-thread pointer chase through another GPU's memory.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace gpuprobe::peer {

// Copies `bytes` (a multiple of 16) from src to dst with 16-byte loads and stores, grid-stride,
// `blocks` blocks of 256 threads, on `stream` (a stream of the current device). One of src and
// dst may be a peer GPU's memory (peer access enabled from the current device).
void launch_sm_copy(void* dst, const void* src, std::size_t bytes, int blocks, cudaStream_t stream);

// Writes the chain of sweep.hpp into `base` (memory of the current device): chase_nodes(bytes)
// nodes, node i at base + i * kChaseSlot holding the address of node chase_next(i).
void launch_chase_build(void* base, std::size_t bytes, cudaStream_t stream);

// One thread follows the chain from `base` for `hops` dependent loads (volatile: each goes to the
// memory's owner, never an L1 line) and stores the last address it reached in *end (memory of
// the current device). `base` may be a peer GPU's memory.
void launch_chase(const void* base, std::uint64_t hops, std::uint64_t* end, cudaStream_t stream);

}  // namespace gpuprobe::peer
