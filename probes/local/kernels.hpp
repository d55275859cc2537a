// Kernels of the `local` probe (a compute kernel whose live values are updated every step, a
// memory kernel that keeps its values across a dependent chase), each compiled once per register
// cap (__maxnreg__), behind plain C++ calls: the compiled function's registers, stack frame and
// occupancy, and the launches.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace gpuprobe::local {

enum class KernelKind { kCompute, kMemory };

// The register caps compiled (0: the compiler's own choice, under __launch_bounds__(256)).
inline constexpr int kCaps[] = {0, 128, 96, 80, 64, 56, 48, 40, 32, 24};
bool cap_compiled(int cap);

// What the compiled function of (kind, cap) is, with the shared-memory carve-out set to
// `carveout` % (cudaFuncGetAttributes, cudaOccupancyMaxActiveBlocksPerMultiprocessor).
struct Compiled {
  int registers = 0;              // numRegs
  std::uint64_t local_bytes = 0;  // localSizeBytes: the per-thread stack frame (spills)
  int blocks_per_sm = 0;          // resident blocks of kLocalThreads threads
  int max_warps_per_sm = 0;       // the device's most resident warps per SM
};
Compiled compiled(KernelKind kind, int cap, int carveout);

// One launch of either kernel: `blocks` blocks of kLocalThreads threads, out[thread] written.
// compute: `steps` updates of kComputeValues values from `seed`. memory: kMemoryValues values
// loaded from `values` (kMemoryValues x kValueLanes words, value k of lane l at k x 64 + l), then
// `steps` dependent loads (warp w starts at line models::chase_start(w, lines); each lane reads its
// word of the line, which holds the next line), then the fold.
struct Launch {
  KernelKind kind = KernelKind::kCompute;
  int cap = 0;
  int carveout = 0;
  int blocks = 0;
  std::uint32_t steps = 0;
  std::uint32_t seed = 0;
  std::uint32_t* out = nullptr;
  const std::uint32_t* table = nullptr;   // memory: lines x kLineWords words
  const std::uint32_t* values = nullptr;  // memory
  std::uint32_t lines = 0;                // memory
};
void launch(const Launch& l, cudaStream_t stream);

}  // namespace gpuprobe::local
