// Kernels of the `constant` probe (the lookup table's fill, its copy into __constant__ memory, the
// throughput lookups and their check, the chase chain, the warm read and the timed one-thread
// chase) behind plain C++ calls, per path: __constant__, __ldg, a texture object, ld.global.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "gpuprobe/core/mismatches.hpp"
#include "gpuprobe/models/constant_model.hpp"

namespace gpuprobe::constant {

using models::LookupPath;

inline constexpr int kLookupThreads = 256;

// What one chase launch recorded: SM cycles and global-timer ns around its timed steps, and the
// byte offset it ended on.
struct ChaseSlot {
  std::uint64_t cycles;
  std::uint64_t ns;
  std::uint64_t end;
};

// One throughput launch: blocks x kLookupThreads threads, each `iters` lookups of `width`-byte
// elements (4, 8, 16) from a table of `elements`, `distinct` addresses per warp; each thread's
// folded sum goes to out[thread]. `table` is the device buffer (readonly, global; the source of the
// constant copy), `tex` a texture object over it with `width`-byte texels.
struct LookupLaunch {
  LookupPath path = LookupPath::kGlobal;
  int width = 4;
  int distinct = 1;
  std::uint32_t elements = 0;
  std::uint32_t iters = 0;
  int blocks = 0;
  const void* table = nullptr;
  cudaTextureObject_t tex = 0;
  std::uint32_t* out = nullptr;
};

// A texture object over `bytes` of the table with `width`-byte unsigned texels (4, 8, 16), read
// as elements (RAII).
class Texture {
 public:
  Texture(const void* table, std::uint64_t bytes, int width);
  ~Texture();
  Texture(const Texture&) = delete;
  Texture& operator=(const Texture&) = delete;
  cudaTextureObject_t get() const { return object_; }

 private:
  cudaTextureObject_t object_ = 0;
};

// The table's words: word w holds models::table_word(w).
void launch_fill(void* table, std::uint64_t bytes, cudaStream_t stream);
// Copies `bytes` (<= models::kConstantTableMax) of a device buffer into the __constant__ table.
void copy_to_constant(const void* src, std::uint64_t bytes, cudaStream_t stream);

void launch_lookup(const LookupLaunch& l, cudaStream_t stream);
// Recomputes every thread's sum from models::table_word and counts the threads whose out differs.
Mismatches check_lookup(const LookupLaunch& l, cudaStream_t stream);

// The chase chain: the element order[k] (at models::kChaseStride x order[k]) holds the byte offset
// of order[k + 1 mod n] (4 bytes), or with `pointers` its address (8 bytes: the global and
// read-only paths chase addresses, as `latency` does, with no address arithmetic between loads).
void launch_build_chain(void* table, const std::uint32_t* order, std::uint32_t n, bool pointers,
                        cudaStream_t stream);
// Whether `path` chases addresses (else offsets: LDC with a register offset, tex1Dfetch).
GP_CONSTANT_HD inline constexpr bool chases_pointers(LookupPath path) {
  return path == LookupPath::kGlobal || path == LookupPath::kReadOnly;
}
// Reads `bytes` of the table once with the whole device (brings it into L2); untimed.
void launch_warm(const void* table, std::uint64_t bytes, std::uint32_t* sink, cudaStream_t stream);

// One thread: takes its slot k = atomicAdd(count, 1), starts at element order[k x (warm + steps)
// mod n] (each launch goes on where the last one stopped, so a table larger than a cache is not
// chased over the same few elements again), makes `warm` dependent lookups, then `steps` timed
// ones (clock64 and %globaltimer around them) through `path`, and records them at slots[k] while
// k < capacity, with the offset it ended on. The constant path chases the __constant__ copy.
struct ChaseLaunch {
  LookupPath path = LookupPath::kGlobal;
  const void* table = nullptr;
  cudaTextureObject_t tex = 0;  // 4-byte texels over the table
  const std::uint32_t* order = nullptr;
  std::uint32_t n = 0;
  std::uint32_t warm = 0;
  std::uint32_t steps = 0;
  ChaseSlot* slots = nullptr;
  std::uint32_t* count = nullptr;
  std::uint32_t capacity = 0;
  int sms = 1;  // one one-thread block per SM is launched; the one on kChaseSm chases
};
// The SM every chase runs on. A chase from one SM to lines in the L2 takes that SM's distance to
// the L2's slices: on an H100 the texture path over 1-4 MiB takes 323 cycles a step from SM 99,
// 337 from SM 0 and 368-371 from SM 66, and a single block left to the scheduler landed on
// different SMs from one run to the next (two levels, 331 or 374 cycles; the experiment
// scripts/experiments/texture_chase_levels.cu, docs/probes/constant.md). On one fixed SM the
// level held within 1-2 cycles across processes there; what still moved it was which lines that
// SM had read before (the own lap in probe.cpp's chase_op).
inline constexpr unsigned int kChaseSm = 0;
void launch_chase(const ChaseLaunch& c, cudaStream_t stream);

// Where one chase point's launches record: `capacity` slots and their count, zeroed (RAII).
class SlotRing {
 public:
  explicit SlotRing(std::uint32_t capacity);
  ~SlotRing();
  SlotRing(const SlotRing&) = delete;
  SlotRing& operator=(const SlotRing&) = delete;
  void into(ChaseLaunch& c) const;      // sets c.slots, c.count, c.capacity
  std::vector<ChaseSlot> read() const;  // the slots recorded so far (synchronous)

 private:
  void* memory_ = nullptr;
  std::uint32_t capacity_ = 0;
};

}  // namespace gpuprobe::constant
