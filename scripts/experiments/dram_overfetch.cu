// Experiment: why does a misaligned unit-stride read move ~1.2x its bytes from DRAM on an H100?
// Facts from `coalescing`: the DRAM fetch block is 64 B (strides flatten at 64 B per element);
// offsets that are 64-B aligned read exactly the useful bytes; every other offset reads
// 1.18-1.25x (4-byte elements), 1.02-1.03x (8 and 16 B), although the L2 is asked for no more
// sectors than the requests touch. Hypothesis: the 64-B block two neighbouring requests share
// is fetched from DRAM once per request that misses on it, not once, when the two requests
// reach the L2 close together (the second half misses while the block is still in flight), and
// once when they come far apart but within the L2's reach.
// Each variant reads N 4-byte words (+offset) once; launches are labelled in order on stdout
// (run it under ncu, one row per launch):
//   grid U O     the probe's grid-stride read, U loads in flight per thread, offset O elements
//   half P O W   only the 128-B chunks of parity P (a second launch reads the other parity);
//                W=big: the working set is 16x the L2, W=fit: 1/4 of the L2 (repeated reads)
//   pair D O     each warp reads chunks 2j and 2j+1; D=indep: both loads in flight together,
//                D=dep: the second load's address depends on the first load's value
//   copy O       the probe's copy kernel (reads and writes), then `sweep`: a read of 2x L2 that
//                writes back what the copy left dirty (run with --cache-control none)
// Predictions (hypothesis above): half big O≠0 -> 1.5x (both launches fetch every shared
// block), half fit -> 1.0x; pair dep < pair indep; grid U=1 vs U=4 differ if requests in
// flight matter. copy + sweep DRAM writes = the payload exactly.
// Build: nvcc -O3 -arch=sm_90 -o dram_overfetch scripts/experiments/dram_overfetch.cu
// Run:   ncu --cache-control all --metrics M ./dram_overfetch cold
//        ncu --replay-mode application --cache-control none --metrics M ./dram_overfetch warm
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstring>

#include "check.cuh"

namespace {

constexpr int kThreads = 256;

__global__ void grid_read1(const uint32_t* in, uint64_t n, uint64_t off, uint32_t* sink) {
  const uint64_t threads = uint64_t(gridDim.x) * blockDim.x;
  uint32_t acc = 0;
  for (uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += threads)
    acc += in[i + off];
  if (acc == 0x9e3779b9u) sink[0] = acc;
}

__global__ void grid_read4(const uint32_t* in, uint64_t n, uint64_t off, uint32_t* sink) {
  const uint64_t threads = uint64_t(gridDim.x) * blockDim.x;
  uint32_t acc = 0;
  uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  for (; i + 3 * threads < n; i += 4 * threads) {
    uint32_t v[4];
#pragma unroll
    for (int u = 0; u < 4; ++u) v[u] = in[i + u * threads + off];
#pragma unroll
    for (int u = 0; u < 4; ++u) acc += v[u];
  }
  if (acc == 0x9e3779b9u) sink[0] = acc;
}

// Chunks (32 words) of one parity: chunk 2j + parity, j over the grid's warps.
__global__ void half_read(const uint32_t* in, uint64_t chunks, uint64_t off, int parity,
                          uint32_t* sink) {
  const uint64_t warps = uint64_t(gridDim.x) * blockDim.x / 32;
  const uint64_t lane = threadIdx.x % 32;
  uint32_t acc = 0;
  for (uint64_t j = (uint64_t(blockIdx.x) * blockDim.x + threadIdx.x) / 32; 2 * j + parity < chunks;
       j += warps)
    acc += in[(2 * j + parity) * 32 + lane + off];
  if (acc == 0x9e3779b9u) sink[0] = acc;
}

// Each warp reads chunks 2j and 2j+1; dep: the second address waits for the first value
// (zero is 0 at run time, unknown to the compiler).
template <bool Dep>
__global__ void pair_read(const uint32_t* in, uint64_t chunks, uint64_t off, uint32_t zero,
                          uint32_t* sink) {
  const uint64_t warps = uint64_t(gridDim.x) * blockDim.x / 32;
  const uint64_t lane = threadIdx.x % 32;
  uint32_t acc = 0;
  for (uint64_t j = (uint64_t(blockIdx.x) * blockDim.x + threadIdx.x) / 32; 2 * j + 1 < chunks;
       j += warps) {
    const uint32_t a = in[2 * j * 32 + lane + off];
    const uint64_t k = (2 * j + 1) * 32 + lane + off + (Dep ? (a & zero) : 0);
    acc += a + in[k];
  }
  if (acc == 0x9e3779b9u) sink[0] = acc;
}

__global__ void copy4(uint32_t* out, const uint32_t* in, uint64_t n, uint64_t off) {
  const uint64_t threads = uint64_t(gridDim.x) * blockDim.x;
  uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  for (; i + 3 * threads < n; i += 4 * threads) {
    uint32_t v[4];
#pragma unroll
    for (int u = 0; u < 4; ++u) v[u] = in[i + u * threads + off];
#pragma unroll
    for (int u = 0; u < 4; ++u) out[i + u * threads] = v[u];
  }
  for (; i < n; i += threads) out[i] = in[i + off];
}

__global__ void sweep(const uint4* buf, uint64_t n, uint32_t* sink) {
  const uint64_t threads = uint64_t(gridDim.x) * blockDim.x;
  uint32_t acc = 0;
  for (uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += threads)
    acc += buf[i].x ^ buf[i].w;
  if (acc == 0x9e3779b9u) sink[0] = acc;
}

}  // namespace

int main(int argc, char** argv) {
  // cold: grid, half big, pair (under ncu --cache-control all);
  // warm: half fit, copy + sweep (under ncu --replay-mode application --cache-control none).
  const bool warm = argc > 1 && std::strcmp(argv[1], "warm") == 0;
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, 0));
  const uint64_t l2 = prop.l2CacheSize;
  const uint64_t n = 16 * l2 / 4;  // 4-byte words: 16x the L2
  const uint64_t n_fit = l2 / 16;  // 1/4 of the L2
  uint32_t *in, *out, *sink;
  uint4* flush;
  CHECK(cudaMalloc(&in, (n + 64) * 4));
  CHECK(cudaMalloc(&out, n * 4));
  CHECK(cudaMalloc(&sink, 4));
  CHECK(cudaMalloc(&flush, 2 * l2));
  CHECK(cudaMemset(in, 1, (n + 64) * 4));
  CHECK(cudaMemset(flush, 2, 2 * l2));
  const int blocks = prop.multiProcessorCount * (2048 / kThreads);
  std::printf("# L2 %llu B, N %llu words (%.0f MB), blocks %d x %d\n", (unsigned long long)l2,
              (unsigned long long)n, n * 4 / 1e6, blocks, kThreads);
  int id = 0;
  auto label = [&](const char* what) { std::printf("launch %d: %s\n", id++, what); };
  char name[64];
  for (uint64_t off : {0, 1, 8, 16}) {
    if (warm) {
      sweep<<<blocks, kThreads>>>(flush, 2 * l2 / 16, sink);
      label("sweep before");
      for (int p = 0; p < 2; ++p) {
        half_read<<<blocks, kThreads>>>(in, n_fit / 32, off, p, sink);
        std::snprintf(name, sizeof name, "half %d %llu fit", p, (unsigned long long)off), label(name);
      }
      continue;
    }
    {
      grid_read1<<<blocks, kThreads>>>(in, n, off, sink);
      std::snprintf(name, sizeof name, "grid 1 %llu", (unsigned long long)off), label(name);
      grid_read4<<<blocks, kThreads>>>(in, n, off, sink);
      std::snprintf(name, sizeof name, "grid 4 %llu", (unsigned long long)off), label(name);
      for (int p = 0; p < 2; ++p) {
        half_read<<<blocks, kThreads>>>(in, n / 32, off, p, sink);
        std::snprintf(name, sizeof name, "half %d %llu big", p, (unsigned long long)off), label(name);
      }
      pair_read<false><<<blocks, kThreads>>>(in, n / 32, off, 0, sink);
      std::snprintf(name, sizeof name, "pair indep %llu", (unsigned long long)off), label(name);
      pair_read<true><<<blocks, kThreads>>>(in, n / 32, off, 0, sink);
      std::snprintf(name, sizeof name, "pair dep %llu", (unsigned long long)off), label(name);
    }
  }
  for (uint64_t off : {0, 1, 8}) {
    if (!warm) break;
    sweep<<<blocks, kThreads>>>(flush, 2 * l2 / 16, sink);
    label("sweep before");
    copy4<<<blocks, kThreads>>>(out, in, n, off);
    std::snprintf(name, sizeof name, "copy %llu", (unsigned long long)off), label(name);
    sweep<<<blocks, kThreads>>>(flush, 2 * l2 / 16, sink);
    label("sweep after");
  }
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaGetLastError());
  return 0;
}
