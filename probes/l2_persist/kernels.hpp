// Kernels of the `l2-persist` probe (hot update, streaming read, the Best Practices Guide's
// mixed kernel, their checks) behind C++ calls, with an optional window on the launch.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "gpuprobe/core/mismatches.hpp"

namespace gpuprobe::l2_persist {

inline constexpr int kThreads = 256;  // threads per block of every kernel here

// An access-policy window carried by one launch (cudaLaunchAttributeAccessPolicyWindow): hits
// persisting, misses streaming.
struct LaunchWindow {
  void* base = nullptr;
  std::size_t bytes = 0;
  float hit_ratio = 1.0f;
};

// Blocks that fill the device with the grid-stride kernels (hot update, streaming read):
// resident blocks per SM (occupancy API) times the SM count.
int grid_blocks(int sm_count);

// Every 32-bit word j of hot[0, words) becomes hot[j] | mark(j), mark(j) = (j x 0x9E3779B1) |
// 0x80000000: one read and one write of each word, the same result however often it runs.
// words: a multiple of 4.
void launch_hot_update(std::uint32_t* hot, std::uint64_t words, int blocks, cudaStream_t stream,
                       const LaunchWindow* window);

// Reads src[0, words) once (a multiple of 4), XOR-folds what each thread read and writes it to
// sink[thread] (blocks x kThreads words).
void launch_stream_read(const std::uint32_t* src, std::uint64_t words, std::uint32_t* sink,
                        int blocks, cudaStream_t stream);

// The Best Practices Guide's kernel: thread t (one per streaming word) updates
// streaming[t] and hot[t % hot_words] as launch_hot_update does.
void launch_bpg_update(std::uint32_t* hot, std::uint64_t hot_words, std::uint32_t* streaming,
                       std::uint64_t streaming_words, cudaStream_t stream,
                       const LaunchWindow* window);

// Words of buf[0, words) that differ from the update of the pattern (runtime/pattern.hpp,
// `seed`): pattern_word(j) | mark(j). Synchronises the stream.
Mismatches verify_updated(const std::uint32_t* buf, std::uint64_t words, std::uint32_t seed,
                          cudaStream_t stream);

// Sink words that differ from the XOR fold launch_stream_read makes of a buffer holding the
// pattern `seed`. Synchronises the stream.
Mismatches verify_sink(const std::uint32_t* sink, std::uint64_t words, int blocks,
                       std::uint32_t seed, cudaStream_t stream);

}  // namespace gpuprobe::l2_persist
