// Kernels of the `zerocopy` probe (a k-pass read that sums host or device data, a k-pass
// write), their launchers, and the host-side checks of their results.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "gpuprobe/core/mismatches.hpp"

namespace gpuprobe::zerocopy {

inline constexpr int kThreads = 256;  // threads per block
inline constexpr int kUnroll = 4;     // independent elements each thread has in flight

// True for the element widths the kernels exist for: 4 (uint32), 8 (uint2), 16 (uint4) bytes.
bool width_supported(int element_bytes);

// Blocks that fill the current device with the read (write = false) or write kernel of this
// width: resident blocks per SM (occupancy API) times the SM count.
int full_grid_blocks(bool write, int element_bytes, int sm_count);

// Enqueues the read kernel: `reuse` passes over elements i = 0..n-1 at in + i x stride (in
// elements of element_bytes), loads issued as volatile `ld.global.cg` (never merged or dropped),
// every 32-bit word added into the thread's sum; thread t stores its sum in sums[t] (blocks x
// kThreads words). Thread t handles i = t, t + T, t + 2T, ... (T = blocks x kThreads).
void launch_read(int element_bytes, const void* in, std::uint64_t stride, std::uint64_t n,
                 std::uint32_t reuse, std::uint32_t* sums, int blocks, cudaStream_t stream);

// Enqueues the write kernel: `reuse` passes; pass p stores into element i (at out + i x stride)
// the pattern words of element i under seed + p (runtime/pattern.hpp), as volatile
// `st.global.cg` stores. The last pass's words remain.
void launch_write(int element_bytes, void* out, std::uint64_t stride, std::uint64_t n,
                  std::uint32_t reuse, std::uint32_t seed, int blocks, cudaStream_t stream);

// The sum of each element's 32-bit words (elements i = 0..n-1 at i x stride) over a buffer
// filled with runtime::fill_pattern_host(seed). Thread t of launch_read sums the elements
// t, t + T, ... once per pass, so its stored sum is reuse x their sum (mod 2^32).
std::vector<std::uint32_t> element_sums(int element_bytes, std::uint64_t stride, std::uint64_t n,
                                        std::uint32_t seed);

// The wrong 32-bit words of the n written elements in host memory `host` after launch_write with
// (seed, reuse): element i must hold the pattern words of element i under seed + reuse - 1.
Mismatches verify_writes(int element_bytes, const void* host, std::uint64_t stride, std::uint64_t n,
                         std::uint32_t seed, std::uint32_t reuse);

}  // namespace gpuprobe::zerocopy
