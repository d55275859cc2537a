// Verification patterns: fill a buffer with a seeded word sequence, count words that differ.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#ifdef __CUDACC__
#define GP_HOST_DEVICE __host__ __device__
#else
#define GP_HOST_DEVICE
#endif

namespace gpuprobe::runtime {

// The 32-bit word expected at index i for a seed: a mixing hash, so a shifted, repeated or
// partially written buffer never matches by chance.
GP_HOST_DEVICE inline std::uint32_t pattern_word(std::uint64_t i, std::uint32_t seed) {
  std::uint64_t x = i * 0x9E3779B97F4A7C15ull + seed;
  x ^= x >> 31;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 29;
  return static_cast<std::uint32_t>(x) | 1u;  // never 0: zero-filled memory never matches
}

// Byte counts must be multiples of 4. Device variants run on `stream`; the counting one
// synchronises and returns the number of mismatching words.
void fill_pattern_device(void* dst, std::size_t bytes, std::uint32_t seed, cudaStream_t stream);
std::uint64_t count_mismatches_device(const void* src, std::size_t bytes, std::uint32_t seed,
                                      cudaStream_t stream);
void fill_pattern_host(void* dst, std::size_t bytes, std::uint32_t seed);
std::uint64_t count_mismatches_host(const void* src, std::size_t bytes, std::uint32_t seed);

}  // namespace gpuprobe::runtime
