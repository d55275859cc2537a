// Experiment: does DRAM bandwidth dip right after a large cudaFree, and for how long?
// Times a 2 x 256 MiB copy kernel in 1 ms batches for 200 ms, after (a) nothing, (b) allocating,
// touching and freeing GIB gigabytes, (c) the same followed by a 200 ms pause. Prints the copy
// bandwidth per batch (GB/s) against the time since the free.
// Build: nvcc -O3 -arch=sm_90 -o after_free scripts/experiments/after_free.cu
// Run:   ./after_free [GIB]   (default 16)
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#include "check.cuh"

__global__ void copy(const float4* __restrict__ in, float4* __restrict__ out, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x)
    out[i] = in[i];
}

void run(const char* label, size_t big_bytes, int pause_ms, bool poll_free = false) {
  if (big_bytes) {
    void* big = nullptr;
    CHECK(cudaMalloc(&big, big_bytes));
    CHECK(cudaMemset(big, 1, big_bytes));
    CHECK(cudaDeviceSynchronize());
    size_t free_before = 0, total = 0;
    CHECK(cudaMemGetInfo(&free_before, &total));
    CHECK(cudaFree(big));
    if (poll_free) {  // does the free memory the driver reports lag behind a background scrub?
      const auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < 40; ++i) {
        size_t f = 0;
        CHECK(cudaMemGetInfo(&f, &total));
        std::printf("  free +%.3f GiB at %.1f ms\n", (double(f) - double(free_before)) / (1 << 30),
                    std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                        .count());
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
      return;
    }
  }
  const auto freed = std::chrono::steady_clock::now();
  if (pause_ms) std::this_thread::sleep_for(std::chrono::milliseconds(pause_ms));
  const size_t bytes = size_t(256) << 20;
  float4 *in = nullptr, *out = nullptr;
  CHECK(cudaMalloc(&in, bytes));
  CHECK(cudaMalloc(&out, bytes));
  CHECK(cudaMemset(in, 2, bytes));
  CHECK(cudaMemset(out, 0, bytes));
  CHECK(cudaDeviceSynchronize());
  const size_t n = bytes / sizeof(float4);
  int sms = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  std::printf("%s\n", label);
  const int reps = 4;  // ~0.7 ms per batch on an H100
  for (int batch = 0; batch < 60; ++batch) {
    const double since =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - freed).count();
    CHECK(cudaEventRecord(a));
    for (int r = 0; r < reps; ++r)
      copy<<<sms * 8, 256>>>(in, out, n);
    CHECK(cudaEventRecord(b));
    CHECK(cudaEventSynchronize(b));
    CHECK(cudaGetLastError());
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, a, b));
    const double gbps = 2.0 * bytes * reps / (ms * 1e-3) / 1e9;
    if (batch < 20 || batch % 5 == 0)
      std::printf("  t=%7.1f ms  batch %2d  %6.0f GB/s\n", since, batch, gbps);
  }
  CHECK(cudaFree(in));
  CHECK(cudaFree(out));
}

int main(int argc, char** argv) {
  const double gib = argc > 1 ? std::atof(argv[1]) : 16;
  const size_t big = size_t(gib * (1ull << 30));
  CHECK(cudaFree(nullptr));
  run("(a) no large free before", 0, 0);
  run("(b) right after freeing the large buffer", big, 0);
  run("(c) 200 ms after freeing the large buffer", big, 200);
  run("(d) right after freeing it again", big, 0);
  run("(e) no large free before, again", 0, 0);
  if (argc > 2) run("(f) free memory reported after the free", big, 0, true);
  return 0;
}
