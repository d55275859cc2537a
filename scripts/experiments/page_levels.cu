// Experiment: small host copies hold one level per gpuprobe run (pinned d2h 64 KiB: 20.8 or
// 21.7-22.2 GB/s, rounds within 0.5%), and in one run different host buffers can sit on different
// levels. Is the level the host *pages'* (where the buffer physically landed)? Renewing a buffer
// by free + alloc of the same size may get the same pages back, which would explain why renewal
// "did not move" it. One process allocates a 64 MiB host buffer (pinned by cudaHostAlloc, or
// malloc + cudaHostRegister) and times event-timed batches of 32 copies of 4 KiB and 64 KiB at
// SLOTS offsets spread over it (each a different set of pages), in ROUNDS rounds, both
// directions. Prediction if the level is the pages': an offset keeps its level from round to
// round while offsets differ; if it is the process's: all offsets alike. The guest-physical page
// frame of each offset is printed (from /proc/self/pagemap; 0 without root) to see whether the
// level follows the physical address.
// Output (CSV): proc,kind,slot,offset_kib,pfn,round,dir,bytes,gbps
// Build: nvcc -O3 -arch=sm_90 -o page_levels scripts/experiments/page_levels.cu
// Run:   for p in 1 2 3; do ./page_levels $p 32 3; done
#include <cuda_runtime.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "check.cuh"
#include "copy_timing.cuh"

namespace {

constexpr size_t kBuffer = size_t(64) << 20;
constexpr int kCopies = 32;
constexpr int kBatches = 30;

uint64_t page_frame(const void* p) {
  const int fd = open("/proc/self/pagemap", O_RDONLY);
  if (fd < 0) return 0;
  uint64_t entry = 0;
  const off_t at = off_t(reinterpret_cast<uintptr_t>(p) / 4096 * 8);
  const bool ok = pread(fd, &entry, 8, at) == 8;
  close(fd);
  return ok ? (entry & ((uint64_t(1) << 55) - 1)) : 0;
}

void measure(int proc, const char* kind, char* host, int slots, int rounds) {
  void* dev = nullptr;
  CHECK(cudaMalloc(&dev, size_t(64) << 10));
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  const size_t step = kBuffer / size_t(slots);
  for (int r = 0; r < rounds; ++r)
    for (int i = 0; i < slots; ++i) {
      char* at = host + size_t(i) * step;
      for (size_t bytes : {size_t(4096), size_t(65536)})
        for (bool d2h : {true, false})
          std::printf("%d,%s,%d,%zu,%llu,%d,%s,%zu,%.3f\n", proc, kind, i, size_t(i) * step / 1024,
                      static_cast<unsigned long long>(page_frame(at)), r, d2h ? "d2h" : "h2d",
                      bytes, median_gbps(s, at, dev, bytes, d2h, kCopies, kBatches, a, b));
    }
  CHECK(cudaEventDestroy(a));
  CHECK(cudaEventDestroy(b));
  CHECK(cudaStreamDestroy(s));
  CHECK(cudaFree(dev));
}

}  // namespace

int main(int argc, char** argv) {
  const int proc = argc > 1 ? std::atoi(argv[1]) : 1;
  const int slots = argc > 2 ? std::atoi(argv[2]) : 32;
  const int rounds = argc > 3 ? std::atoi(argv[3]) : 3;
  std::printf("proc,kind,slot,offset_kib,pfn,round,dir,bytes,gbps\n");
  char* pinned = nullptr;
  CHECK(cudaHostAlloc(reinterpret_cast<void**>(&pinned), kBuffer, cudaHostAllocDefault));
  std::memset(pinned, 1, kBuffer);
  measure(proc, "pinned", pinned, slots, rounds);
  CHECK(cudaFreeHost(pinned));
  char* registered = static_cast<char*>(std::aligned_alloc(4096, kBuffer));
  if (registered == nullptr) return 1;
  std::memset(registered, 1, kBuffer);
  CHECK(cudaHostRegister(registered, kBuffer, cudaHostRegisterDefault));
  measure(proc, "registered", registered, slots, rounds);
  CHECK(cudaHostUnregister(registered));
  std::free(registered);
  return 0;
}
