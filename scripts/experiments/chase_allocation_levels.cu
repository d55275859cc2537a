// Experiment: constant's chase over tables of 1-4 MiB (L2-resident) draws one of two levels per
// process (about 331 or 374 cycles per step on the H100 and the H200), and pinning the chasing
// thread to SM 0 did not remove it (texture_chase_levels.cu: on one SM, within one process, the
// level holds to 1-2 cycles). Prediction: the level follows the table's physical placement, not
// the process: an L2 line's home is one of the two L2 partitions by physical address, at a grain
// coarse enough that a table of a few MiB can sit mostly near or mostly far from the chasing SM.
// Then, in ONE process, tables of the same size in different allocations read different levels,
// each steady over epochs; and the spread shrinks as the table grows (more grains, averaged).
// Each table: its own cudaMalloc (all kept alive, so each is other memory), a random cycle at a
// 64-byte stride (the probe's), warmed by a read from every SM, then one thread pinned to SM T
// (SM-count one-thread blocks; only the block on T chases) takes 2048 untimed and 2048 timed
// dependent ld.global.cg loads (L2, as the chase past the L1 is served).
// Output (CSV): proc,bytes,alloc,epoch,sm,cycles_per_step
// Build: nvcc -O3 -arch=sm_90 -o chase_allocation_levels
// scripts/experiments/chase_allocation_levels.cu Run:   ./chase_allocation_levels 1
// [allocations=12] [epochs=3]
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <random>
#include <vector>

#include "check.cuh"

namespace {

constexpr std::uint64_t kStride = 64;
constexpr std::uint32_t kSteps = 2048;
constexpr std::uint32_t kWarm = 2048;

__device__ unsigned int sm_id() {
  unsigned int id;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
  return id;
}

// Only the block on SM `target` chases from the element at byte offset `from`.
__global__ void chase(const char* base, std::uint64_t from, int target,
                      unsigned long long* cycles) {
  if (sm_id() != static_cast<unsigned int>(target)) return;
  std::uint64_t p = reinterpret_cast<std::uint64_t>(base + from);
  for (std::uint32_t i = 0; i < kWarm; ++i)
    asm volatile("ld.global.cg.u64 %0, [%0];" : "+l"(p)::"memory");
  const long long c0 = clock64();
  for (std::uint32_t i = 0; i < kSteps; ++i)
    asm volatile("ld.global.cg.u64 %0, [%0];" : "+l"(p)::"memory");
  const long long c1 = clock64();
  *cycles = static_cast<unsigned long long>(c1 - c0) + (p == 1 ? 1 : 0);  // keeps p live
}

__global__ void warm_all(const std::uint64_t* table, std::uint64_t words, std::uint64_t* sink) {
  std::uint64_t acc = 0;
  for (std::uint64_t w = blockIdx.x * blockDim.x + threadIdx.x; w < words;
       w += static_cast<std::uint64_t>(gridDim.x) * blockDim.x)
    acc += table[w];
  if (acc == 1) *sink = acc;
}

// A table of `bytes` in its own allocation: element order[k] holds the address of order[k + 1].
char* make_table(std::uint64_t bytes, std::uint64_t seed) {
  const std::uint64_t n = bytes / kStride;
  std::vector<std::uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  std::shuffle(order.begin(), order.end(), std::mt19937_64(seed));
  char* dev = nullptr;
  CHECK(cudaMalloc(&dev, bytes));
  std::vector<std::uint64_t> host(bytes / 8, 0);
  for (std::uint64_t k = 0; k < n; ++k)
    host[order[k] * (kStride / 8)] =
        reinterpret_cast<std::uint64_t>(dev) + order[(k + 1) % n] * kStride;
  CHECK(cudaMemcpy(dev, host.data(), bytes, cudaMemcpyHostToDevice));
  CHECK(cudaDeviceSynchronize());  // the pageable copy's DMA landed before any kernel reads it
  return dev;
}

}  // namespace

int main(int argc, char** argv) {
  const int proc = argc > 1 ? std::atoi(argv[1]) : 1;
  const int allocations = argc > 2 ? std::atoi(argv[2]) : 12;
  const int epochs = argc > 3 ? std::atoi(argv[3]) : 3;
  int sms = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  unsigned long long* cycles = nullptr;
  std::uint64_t* sink = nullptr;
  CHECK(cudaMalloc(&cycles, sizeof(unsigned long long)));
  CHECK(cudaMalloc(&sink, 8));
  std::printf("proc,bytes,alloc,epoch,sm,cycles_per_step\n");
  for (const std::uint64_t mib : {1, 2, 4, 16}) {
    const std::uint64_t bytes = mib << 20;
    std::vector<char*> tables;
    for (int a = 0; a < allocations; ++a)
      tables.push_back(make_table(bytes, 0xC0457A47ull ^ a));
    for (int e = 0; e < epochs; ++e) {
      for (int a = 0; a < allocations; ++a) {
        for (const int sm : {0, sms / 2}) {
          warm_all<<<sms * 4, 256>>>(reinterpret_cast<const std::uint64_t*>(tables[a]), bytes / 8,
                                     sink);
          CHECK(cudaMemset(cycles, 0, sizeof(unsigned long long)));  // 0: no block ran on `sm`
          chase<<<sms, 1>>>(tables[a], 0, sm, cycles);
          CHECK(cudaGetLastError());
          unsigned long long c = 0;
          CHECK(cudaMemcpy(&c, cycles, sizeof c, cudaMemcpyDeviceToHost));
          std::printf("%d,%llu,%d,%d,%d,%.1f\n", proc, static_cast<unsigned long long>(bytes), a, e,
                      sm, static_cast<double>(c) / kSteps);
        }
      }
    }
    for (char* t : tables)
      CHECK(cudaFree(t));
  }
  return 0;
}
