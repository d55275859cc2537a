// Verification patterns: fill a buffer with a seeded word sequence, find the words that differ;
// the tally check kernels count into.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "gpuprobe/core/host_device.hpp"
#include "gpuprobe/core/mismatches.hpp"

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

// Byte counts must be multiples of 4. Device variants run on `stream`; the verifying one
// synchronises and returns the mismatching words (count and first index).
void fill_pattern_device(void* dst, std::size_t bytes, std::uint32_t seed, cudaStream_t stream);
Mismatches verify_pattern_device(const void* src, std::size_t bytes, std::uint32_t seed,
                                 cudaStream_t stream);
void fill_pattern_host(void* dst, std::size_t bytes, std::uint32_t seed);
Mismatches verify_pattern_host(const void* src, std::size_t bytes, std::uint32_t seed);

// A buffer an operation should leave holding the pattern of `seed`: `poison` it in prepare
// (zeros: pattern words never are 0, so a word not written cannot pass), `verify_into` a report
// (or `verify`) in verify.
// `host`: the CPU reads and writes it (host memory); else kernels do (device memory, or mapped
// host memory through its device pointer).
struct PatternBuffer {
  std::string what;  // names the buffer in the report: "h2d", "d2h", "" for the only one
  void* data = nullptr;
  std::size_t bytes = 0;
  std::uint32_t seed = 0;
  bool host = false;

  void poison(cudaStream_t stream) const;  // host: after the stream's work is done
  Mismatches find(cudaStream_t stream) const;
  void verify_into(MismatchReport& report, cudaStream_t stream) const;
  std::string verify(cudaStream_t stream) const;  // the only buffer checked: mismatch_text's
};

// A PatternBuffer of one GPU among several (an operation across GPUs): poisoned and verified with
// its GPU current, on `stream`, a stream of that GPU.
struct GpuPatternBuffer {
  int device = 0;
  cudaStream_t stream = nullptr;
  PatternBuffer buffer;
};
// Each poisoned on its GPU, its stream synchronised after (an operation's prepare).
void poison_all(const std::vector<GpuPatternBuffer>& buffers);
// Each verified on its GPU into one report: the report's text, "" when every buffer holds its
// pattern (an operation's verify).
std::string verify_all(const std::vector<GpuPatternBuffer>& buffers);

// A verification kernel's per-thread count: `note(wrong, i)` for every index it checks, then
// MismatchTally::add once.
struct ThreadMismatches {
  unsigned long long count = 0;
  unsigned long long first = ~0ull;
  GP_HOST_DEVICE void note(bool wrong, unsigned long long index) {
    if (!wrong) return;
    ++count;
    if (index < first) first = index;
  }
};

// Where a verification kernel's threads add up their mismatches (made by MismatchCounter).
struct MismatchTally {
  unsigned long long* count = nullptr;
  unsigned long long* first = nullptr;
#ifdef __CUDACC__
  __device__ void add(const ThreadMismatches& t) const {
    if (t.count == 0) return;
    atomicAdd(count, t.count);
    atomicMin(first, t.first);
  }
#endif
};

// The host side of a tally: pass tally() to the verification kernel, then read(stream) synchronises
// the stream and returns what the kernel found. One counter per verification.
class MismatchCounter {
 public:
  MismatchCounter();
  ~MismatchCounter();
  MismatchCounter(const MismatchCounter&) = delete;
  MismatchCounter& operator=(const MismatchCounter&) = delete;
  MismatchTally tally() const;
  Mismatches read(cudaStream_t stream) const;

 private:
  struct Memory;
  std::unique_ptr<Memory> memory_;
};

}  // namespace gpuprobe::runtime
