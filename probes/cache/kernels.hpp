// Kernels of the `cache` probe: one ring kernel family (read, write, copy) over shared memory, a
// per-SM working set in global memory or one working set across the GPU; their launchers and the
// checks of what they leave behind.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "gpuprobe/core/mismatches.hpp"

namespace gpuprobe::cache {

inline constexpr int kThreads = 1024;  // threads per block
inline constexpr int kUnroll = 4;      // independent 16-byte accesses each thread has in flight
inline constexpr std::uint32_t kElementBytes = 16;

enum class Op { kReadOp, kWriteOp, kCopyOp };
// shared: each block's ring in its shared memory; sm: every block walks the same global ring
// (each SM's working set is the whole ring); device: the grid's blocks stream one global ring.
enum class Space { kSharedSpace, kSmSpace, kDeviceSpace };

// One launch of the ring kernel. Each thread makes `iters` accesses (a multiple of kUnroll) to
// 16-byte elements of a ring of `elements`, kThreads apart, wrapping at the end. shared: block
// thread t starts at t, in its shared-memory ring (copy: src half then dst half), loaded from
// `src` first (read, copy); block 0 writes its dst ring to `dst` at the end (write, copy). sm:
// every block's thread t starts at t in the same global ring (so the ring is each SM's working
// set); writes go to the block's own ring at dst + block x elements. device: block b's thread t
// starts at b x kThreads x iters + t: consecutive blocks stream consecutive chunks of one ring.
// read: each warp's sum of the 32-bit words it loaded goes to sink[global warp]; write: word c
// of element j gets written_word(j, c, seed); copy: dst[j] = src[j].
struct RingLaunch {
  Space space = Space::kDeviceSpace;
  Op op = Op::kReadOp;
  const void* src = nullptr;
  void* dst = nullptr;
  std::uint32_t elements = 0;  // of the ring (copy: of each of src and dst)
  std::uint32_t iters = 0;
  std::uint32_t seed = 0;
  std::uint32_t* sink = nullptr;
  int blocks = 0;
};

// Resident blocks per SM of the kernel for (space, op) with `shared_bytes` of dynamic shared
// memory (0 outside shared); sets its carve-out (shared: the most shared memory; else the most
// L1) and, for shared, its dynamic shared-memory limit. 0 when it cannot run.
int resident_blocks(Space space, Op op, std::uint32_t shared_bytes);

void launch_ring(const RingLaunch& l, cudaStream_t stream);

// The word a write leaves in word c of element j (seed has bit 31 set: never 0, the poison).
#ifdef __CUDACC__
__host__ __device__
#endif
    inline std::uint32_t
    written_word(std::uint32_t j, std::uint32_t c, std::uint32_t seed) {
  return ((j << 2) | c) ^ seed;
}

// Elements [0, elements) of dst against written_word(j mod period); sink[0, warps) against
// `expected`.
Mismatches verify_written(const void* dst, std::uint64_t elements, std::uint32_t period,
                          std::uint32_t seed, cudaStream_t stream);
Mismatches verify_sums(const std::uint32_t* sink, std::uint32_t warps, std::uint32_t expected,
                       cudaStream_t stream);

}  // namespace gpuprobe::cache
