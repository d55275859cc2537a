// Experiment: small pinned d2h copies hold one level per gpuprobe process (d2h 4 KiB: rounds of a
// run within 1%, runs 2.12-2.46 GB/s apart), not per host buffer. Is the level tied to the stream
// (the channel and copy engine a stream is given), so that other streams of the same process
// land elsewhere? One process creates STREAMS non-blocking streams and, in ROUNDS rounds, times
// 100 event-timed batches of 16 pinned 4 KiB copies on each (d2h and h2d); prints the median
// GB/s per stream and round. Streams alike and processes apart: the level is the process's;
// streams apart but each steady: it is the stream's.
// With CONTEXTS > 1 the whole measurement repeats in that many contexts of the same process
// (cudaDeviceReset between them): is the level the process's or the context's?
// Output (CSV): proc,context,round,stream,dir,gbps
// Build: nvcc -O3 -arch=sm_90 -o stream_levels scripts/experiments/stream_levels.cu
// Run:   for p in 1 2 3; do ./stream_levels $p 8 3 [CONTEXTS]; done
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "check.cuh"

namespace {

constexpr size_t kBytes = 4096;
constexpr int kCopies = 16;

double median_gbps(cudaStream_t s, void* host, void* dev, bool d2h, cudaEvent_t a, cudaEvent_t b) {
  std::vector<double> g;
  for (int i = 0; i < 100; ++i) {
    CHECK(cudaEventRecord(a, s));
    for (int k = 0; k < kCopies; ++k) {
      if (d2h)
        CHECK(cudaMemcpyAsync(host, dev, kBytes, cudaMemcpyDeviceToHost, s));
      else
        CHECK(cudaMemcpyAsync(dev, host, kBytes, cudaMemcpyHostToDevice, s));
    }
    CHECK(cudaEventRecord(b, s));
    CHECK(cudaEventSynchronize(b));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, a, b));
    if (i >= 5) g.push_back(double(kBytes) * kCopies / (ms * 1e-3) / 1e9);
  }
  std::sort(g.begin(), g.end());
  return g[g.size() / 2];
}

}  // namespace

void measure_context(int proc, int context, int streams, int rounds) {
  void *host = nullptr, *dev = nullptr;
  CHECK(cudaHostAlloc(&host, kBytes, cudaHostAllocDefault));
  CHECK(cudaMalloc(&dev, kBytes));
  std::vector<cudaStream_t> s(streams);
  for (auto& x : s)
    CHECK(cudaStreamCreateWithFlags(&x, cudaStreamNonBlocking));
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  for (int r = 0; r < rounds; ++r)
    for (int i = 0; i < streams; ++i)
      for (bool d2h : {true, false})
        std::printf("%d,%d,%d,%d,%s,%.3f\n", proc, context, r, i, d2h ? "d2h" : "h2d",
                    median_gbps(s[i], host, dev, d2h, a, b));
  CHECK(cudaDeviceReset());  // frees everything of this context
}

int main(int argc, char** argv) {
  const int proc = argc > 1 ? std::atoi(argv[1]) : 1;
  const int streams = argc > 2 ? std::atoi(argv[2]) : 8;
  const int rounds = argc > 3 ? std::atoi(argv[3]) : 3;
  const int contexts = argc > 4 ? std::atoi(argv[4]) : 1;
  for (int c = 0; c < contexts; ++c)
    measure_context(proc, c, streams, rounds);
  return 0;
}
