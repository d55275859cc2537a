// Kernels of the `latency` probe (the chain builder, the parallel warm read, the timed one-thread
// pointer chase and its per-access trace) behind plain C++ calls, and one short timed chase for
// probes that need a level's latency beside their own measurement (local, occupancy).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace gpuprobe::latency {

inline constexpr std::uint32_t kTraceSteps = 4096;  // accesses one trace launch times one by one

// What one chase launch recorded: SM cycles and global-timer ns around its timed steps, and the
// element it ended on (the check that the chase ran the whole chain).
struct ChaseSlot {
  std::uint64_t cycles;
  std::uint64_t ns;
  std::uint64_t end;
};

// Where chase launches record: slot[atomicAdd(count, 1)] while the index is below `capacity`.
struct SlotRing {
  ChaseSlot* slots = nullptr;
  std::uint32_t* count = nullptr;
  std::uint32_t capacity = 0;
};

// Writes the cyclic chain: the element order[k] holds the address of element order[k + 1 mod n]
// (elements at models::element_offset(i, stride) from base).
void launch_build_chain(char* base, const std::uint32_t* order, std::uint64_t n,
                        std::uint64_t stride, cudaStream_t stream);

// Reads every element once with the whole device (brings the chain into L2); untimed.
void launch_warm(const char* base, std::uint64_t n, std::uint64_t stride, std::uint32_t* sink,
                 int blocks, cudaStream_t stream);

// One thread: `warm` dependent loads from `start`, then `steps` timed ones (clock64 and
// %globaltimer around them), recorded in `ring`. The kernel's shared-memory carve-out is set to
// `carveout` % first. `bypass_l1`: ld.global.cg (L2 only) instead of ld.global.ca.
void launch_chase(const void* start, std::uint32_t warm, std::uint32_t steps, SlotRing ring,
                  int carveout, bool bypass_l1, cudaStream_t stream);

// One thread: `warm` loads, then kTraceSteps loads each timed alone (clock before and after, the
// loaded address stored to shared memory in between so the second clock waits for the load);
// the cycles go to out[0, kTraceSteps), the end element to *end.
void launch_trace(const void* start, std::uint32_t warm, std::uint32_t* out, std::uint64_t* end,
                  int carveout, cudaStream_t stream);

// The order of a short chase over `n` elements: element k x chase_step(n) mod n, the step odd
// near n/phi, so the next element is a cycle through all n, far from the last.
std::uint32_t chase_step(std::uint64_t n);

// One timed chase over `bytes` of `chain` (device memory, at least `bytes`) at `stride` in the
// order of chase_step: the chain built, the L2 flushed when `flush_l2_bytes` (the L2's size) is not
// 0, then one launch of `warm` untimed and `steps` timed dependent loads (ld.global.cg when
// `bypass_l1`). `ended_right`: the one launch recorded and ended on the element `warm + steps`
// on (callers refuse the timing otherwise).
struct ChaseTiming {
  double seconds_per_load = 0;
  double cycles_per_load = 0;
  bool ended_right = false;
};
ChaseTiming time_chase(void* chain, std::uint64_t bytes, std::uint64_t stride, std::uint32_t warm,
                       std::uint32_t steps, bool bypass_l1, std::uint64_t flush_l2_bytes,
                       cudaStream_t stream);

}  // namespace gpuprobe::latency
