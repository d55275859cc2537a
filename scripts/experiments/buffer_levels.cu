// Experiment: is the level of a small host copy the host buffer's at a time, or the whole
// machine's at a time? page_levels showed every page of one buffer on one level, switching
// together after seconds; gpuprobe runs showed pinned and write-combined d2h 64 KiB rows of one
// run (measured interleaved) on different levels. One process allocates BUFFERS distinct 1 MiB
// host buffers of each kind (pinned, write-combined, registered), all held at once, and in ROUNDS
// rounds visits every buffer once in a shuffled order, timing event-timed batches of 32 copies of
// d2h 4 KiB, d2h 64 KiB and h2d 4 KiB. Prediction if the level is the machine's: within a round
// all buffers alike (up to a switch between neighbouring visits); if it is the buffer's: buffers
// of one round apart, each keeping its level for a while.
// Output (CSV): proc,t_s,round,kind,buffer,dir,bytes,gbps
// Build: nvcc -O3 -arch=sm_90 -o buffer_levels scripts/experiments/buffer_levels.cu
// Run:   for p in 1 2 3; do ./buffer_levels $p 8 6; done
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "check.cuh"
#include "copy_timing.cuh"

namespace {

constexpr size_t kBuffer = size_t(1) << 20;
constexpr int kCopies = 32;
constexpr int kBatches = 20;

struct Host {
  const char* kind;
  int index;
  char* ptr;
};

std::vector<Host> allocate(int buffers) {
  std::vector<Host> hosts;
  for (int i = 0; i < buffers; ++i) {
    void* p = nullptr;
    CHECK(cudaHostAlloc(&p, kBuffer, cudaHostAllocDefault));
    hosts.push_back({"pinned", i, static_cast<char*>(p)});
    CHECK(cudaHostAlloc(&p, kBuffer, cudaHostAllocWriteCombined));
    hosts.push_back({"wc", i, static_cast<char*>(p)});
    p = std::aligned_alloc(4096, kBuffer);
    if (p == nullptr) std::exit(1);
    CHECK(cudaHostRegister(p, kBuffer, cudaHostRegisterDefault));
    hosts.push_back({"registered", i, static_cast<char*>(p)});
  }
  return hosts;
}

}  // namespace

int main(int argc, char** argv) {
  const int proc = argc > 1 ? std::atoi(argv[1]) : 1;
  const int buffers = argc > 2 ? std::atoi(argv[2]) : 8;
  const int rounds = argc > 3 ? std::atoi(argv[3]) : 6;
  std::vector<Host> hosts = allocate(buffers);
  void* dev = nullptr;
  CHECK(cudaMalloc(&dev, kBuffer));
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  std::mt19937 rng{static_cast<unsigned>(proc)};
  const auto t0 = std::chrono::steady_clock::now();
  std::printf("proc,t_s,round,kind,buffer,dir,bytes,gbps\n");
  for (int r = 0; r < rounds; ++r) {
    std::shuffle(hosts.begin(), hosts.end(), rng);
    for (const Host& h : hosts)
      for (auto [bytes, d2h] : {std::pair{size_t(4096), true}, std::pair{size_t(65536), true},
                                std::pair{size_t(4096), false}}) {
        const double g = median_gbps(s, h.ptr, dev, bytes, d2h, kCopies, kBatches, a, b);
        const double t =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        std::printf("%d,%.3f,%d,%s,%d,%s,%zu,%.3f\n", proc, t, r, h.kind, h.index,
                    d2h ? "d2h" : "h2d", bytes, g);
      }
  }
  return 0;  // the process's exit frees every buffer
}
