// The `latency` probe's model and index functions: where the pointer chase's elements lie (shared
// with the kernels), the working-set ladder, and the L1 capacity a shared-memory carve-out leaves.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#ifdef __CUDACC__
#define GP_LATENCY_HD __host__ __device__
#else
#define GP_LATENCY_HD
#endif

namespace gpuprobe::models {

inline constexpr std::uint64_t kChaseLineBytes = 128;   // an L1/L2 line
inline constexpr std::uint64_t kPageSpreadFrom = 4096;  // strides above this get a line offset

// Byte offset of chase element i at `stride` (a multiple of 8): i x stride, plus, for strides
// over 4 KiB (page-sized chases), a line offset inside the stride chosen by a hash of i, so that
// the elements do not all fall into the same cache sets (every one at the same page offset would
// conflict in L1 and L2 and hide the TLB step behind a cache step).
GP_LATENCY_HD inline std::uint64_t element_offset(std::uint64_t i, std::uint64_t stride) {
  if (stride <= kPageSpreadFrom) return i * stride;
  const std::uint64_t lines = stride / kChaseLineBytes;
  const std::uint64_t h = (i * 0x9E3779B97F4A7C15ull) >> 33;
  return i * stride + (h % lines) * kChaseLineBytes;
}

// Working sets (bytes, each a whole number of strides, at least two elements) from `min` to
// `max`: `per_octave` sizes per doubling, geometric, rounded down to the stride, duplicates
// dropped; `max` itself always included (when it holds two elements).
std::vector<std::uint64_t> size_ladder(std::uint64_t min, std::uint64_t max,
                                       std::uint64_t per_octave, std::uint64_t stride);

// The unified L1/shared-memory storage of an SM and the shared-memory sizes the driver can
// configure from it (CUDA C++ Programming Guide, "Shared Memory" per compute capability).
struct L1Storage {
  std::uint64_t unified_bytes = 0;
  std::vector<std::uint64_t> shared_configs;  // bytes, ascending
};
// nullopt for an architecture whose split the guide does not list here (7.0, 8.0, 8.6, 8.7,
// 8.9, 9.0).
std::optional<L1Storage> l1_storage(int major, int minor);

// The shared memory the driver configures for a carve-out of `percent` % of the most shared
// memory per SM (`max_shared`): the smallest supported size at least percent x max_shared.
std::uint64_t shared_for_carveout(const L1Storage& s, std::uint64_t percent,
                                  std::uint64_t max_shared);
// The L1 capacity that leaves: unified - shared_for_carveout (the upper bound a chase can see).
std::uint64_t l1_capacity(const L1Storage& s, std::uint64_t percent, std::uint64_t max_shared);

}  // namespace gpuprobe::models
