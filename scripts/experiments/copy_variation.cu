// Experiment: where does pinned-copy bandwidth vary — with the host buffer, with time, or with
// the process? One process measures pinned cudaMemcpyAsync (h2d and d2h, 16 MiB and 256 MiB)
// in ROUNDS rounds. Each round visits, in a shuffled order, six "slots":
//   p0..p3  four pinned host buffers allocated once at start (same device buffer D0)
//   fresh   a pinned host buffer allocated anew for this round and freed after it (D0)
//   p0/D1   host buffer p0 against a second device buffer D1
// and takes SAMPLES event-timed samples of each (size, direction) in each slot.
// If a slow stretch is tied to a buffer, a slot stays slow in every round while the others are
// fine; if it is tied to time, all slots of a round move together; if it is tied to the process,
// rounds agree within a process and processes differ. Run it in several processes.
// Output (stdout, CSV): proc,round,slot,dir,bytes,sample,t_s,gbps
// Build: nvcc -O3 -arch=sm_90 -o copy_variation scripts/experiments/copy_variation.cu
// Run:   for p in 1 2 3 4; do ./copy_variation $p 20 5; done > variation.csv
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "check.cuh"

namespace {

constexpr size_t kBig = size_t(256) << 20;
constexpr size_t kSizes[] = {size_t(16) << 20, kBig};

struct Slot {
  std::string name;
  void* host;
  void* dev;
};

double now_s(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// One sample: enough copies for ~5 ms, timed with events around them.
double sample_gbps(const Slot& s, bool h2d, size_t bytes, cudaStream_t st, cudaEvent_t a,
                   cudaEvent_t b) {
  const int reps = bytes >= kBig ? 1 : 16;
  CHECK(cudaEventRecord(a, st));
  for (int r = 0; r < reps; ++r) {
    if (h2d)
      CHECK(cudaMemcpyAsync(s.dev, s.host, bytes, cudaMemcpyHostToDevice, st));
    else
      CHECK(cudaMemcpyAsync(s.host, s.dev, bytes, cudaMemcpyDeviceToHost, st));
  }
  CHECK(cudaEventRecord(b, st));
  CHECK(cudaEventSynchronize(b));
  float ms = 0;
  CHECK(cudaEventElapsedTime(&ms, a, b));
  return double(bytes) * reps / (ms * 1e-3) / 1e9;
}

void* pinned(size_t bytes) {
  void* p = nullptr;
  CHECK(cudaHostAlloc(&p, bytes, cudaHostAllocDefault));
  std::fill_n(static_cast<char*>(p), bytes, char(1));  // touch every page
  return p;
}

}  // namespace

int main(int argc, char** argv) {
  const int proc = argc > 1 ? std::atoi(argv[1]) : 1;
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 20;
  const int samples = argc > 3 ? std::atoi(argv[3]) : 5;
  const auto t0 = std::chrono::steady_clock::now();
  CHECK(cudaSetDevice(0));
  void *d0 = nullptr, *d1 = nullptr;
  CHECK(cudaMalloc(&d0, kBig));
  CHECK(cudaMalloc(&d1, kBig));
  CHECK(cudaMemset(d0, 2, kBig));
  CHECK(cudaMemset(d1, 2, kBig));
  std::vector<Slot> fixed;
  for (int i = 0; i < 4; ++i)
    fixed.push_back({"p" + std::to_string(i), pinned(kBig), d0});
  fixed.push_back({"p0/D1", fixed[0].host, d1});
  cudaStream_t st;
  CHECK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  std::mt19937 rng(1234u + proc);
  if (proc == 1) std::printf("proc,round,slot,dir,bytes,sample,t_s,gbps\n");
  for (int r = 0; r < rounds; ++r) {
    std::vector<Slot> slots = fixed;
    slots.push_back({"fresh", pinned(kBig), d0});
    std::shuffle(slots.begin(), slots.end(), rng);
    for (const Slot& s : slots) {
      for (bool h2d : {true, false}) {
        for (size_t bytes : kSizes) {
          sample_gbps(s, h2d, bytes, st, a, b);  // warm-up
          for (int k = 0; k < samples; ++k) {
            const double g = sample_gbps(s, h2d, bytes, st, a, b);
            std::printf("%d,%d,%s,%s,%zu,%d,%.4f,%.3f\n", proc, r, s.name.c_str(),
                        h2d ? "h2d" : "d2h", bytes, k, now_s(t0), g);
          }
        }
      }
      if (s.name == "fresh") CHECK(cudaFreeHost(s.host));
    }
  }
  return 0;
}
