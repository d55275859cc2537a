// Kernels of the `coalescing` probe (offset and stride copies, their verification) behind C++
// calls.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "gpuprobe/core/mismatches.hpp"

namespace gpuprobe::coalescing {

// out[i] = in[i + param] (kOffset) or out[i] = in[i * param] (kStride), i in [0, n).
enum class CopyKind { kOffset, kStride };

inline constexpr int kCopyThreads = 256;  // threads per block of the copy kernels
inline constexpr int kCopyUnroll = 4;     // elements each thread has in flight per iteration

// True for the element widths the kernels exist for: 4 (uint32), 8 (uint2), 16 (uint4) bytes.
bool copy_width_supported(int element_bytes);

// Blocks that fill the current device with the copy kernel of this kind and width:
// resident blocks per SM (occupancy API) times the SM count.
int copy_grid_blocks(CopyKind kind, int element_bytes, int sm_count);

// Enqueues one copy of n elements of element_bytes bytes on the stream. `out` and `in` are
// device pointers aligned to at least 256 B; `in` must hold copy_input_elements(...) elements.
void launch_copy(CopyKind kind, int element_bytes, void* out, const void* in, std::uint64_t n,
                 std::uint64_t param, int blocks, cudaStream_t stream);

// Checks every 32-bit word of out[0, n): it must equal the pattern word (runtime/pattern.hpp,
// `seed`) of the source element's word, with input element e made of words
// e*element_bytes/4 ... Runs on the stream, synchronises it and returns the mismatching words.
Mismatches verify_copy(CopyKind kind, int element_bytes, const void* out, std::uint64_t n,
                       std::uint64_t param, std::uint32_t seed, cudaStream_t stream);

}  // namespace gpuprobe::coalescing
