// Kernels of the `occupancy` probe: a persistent streaming kernel (read, write, copy), compiled
// once per (accesses in flight per thread, bytes per access), its residency set on purpose by
// dynamic shared memory, and the checks of what it read and wrote, behind plain C++ calls.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "gpuprobe/core/mismatches.hpp"

namespace gpuprobe::occupancy {

enum class Op { kReadOp, kWriteOp, kCopyOp };

inline constexpr int kIlps[] = {1, 2, 4, 8};  // independent accesses per thread, compiled
inline constexpr int kWidths[] = {4, 8, 16};  // bytes per access, compiled
bool ilp_compiled(int ilp);
bool width_compiled(int width);

// What the compiled function of (op, ilp, width) is and how `blocks_per_sm` blocks of
// `block_threads` are made exactly resident: the dynamic shared memory per block that lets that
// many blocks fit on an SM and no more (found with cudaOccupancyMaxActiveBlocksPerMultiprocessor
// at the largest shared-memory carve-out), the blocks it then lets fit (the theoretical
// residency; below blocks_per_sm when registers or threads limit first: the point cannot run).
struct Residency {
  int registers = 0;               // numRegs per thread
  std::uint32_t shared_bytes = 0;  // dynamic shared memory per block
  int blocks_per_sm = 0;           // theoretical, with that shared memory
  int max_warps_per_sm = 0;        // the device's most resident warps per SM
};
Residency residency(Op op, int ilp, int width, int block_threads, int blocks_per_sm);

// One launch: blocks x block_threads threads each making `steps` steps of `ilp` accesses of
// `width` bytes at models::stream_vector. read: each thread's sum of the 32-bit words it read
// goes to sink[thread]; write: word w gets models::occupancy_written(w, seed); copy: dst = src.
struct Launch {
  Op op = Op::kReadOp;
  int ilp = 1;
  int width = 4;
  int block_threads = 32;
  int blocks = 0;
  std::uint32_t shared_bytes = 0;
  std::uint64_t steps = 0;
  std::uint32_t seed = 0;
  const void* src = nullptr;
  void* dst = nullptr;
  std::uint32_t* sink = nullptr;
};
void launch(const Launch& l, cudaStream_t stream);

// The read's sums against the sums of runtime::pattern_word(word, src_seed) over each thread's
// words (the source filled with fill_pattern_device(src_seed)); the write's words against
// occupancy_written over the streamed words. Both synchronise `stream`.
Mismatches verify_sums(const Launch& l, std::uint32_t src_seed, cudaStream_t stream);
Mismatches verify_written(const Launch& l, std::uint64_t words, cudaStream_t stream);

}  // namespace gpuprobe::occupancy
