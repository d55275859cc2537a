// median_gbps: the timing loop shared by the small-copy experiments (page_levels, buffer_levels):
// `batches` event-timed batches of `copies` cudaMemcpyAsync of `bytes` in one direction, not
// gated (the first three dropped as warm-up); returns the median GB/s.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <vector>

#include "check.cuh"

inline double median_gbps(cudaStream_t s, char* host, void* dev, size_t bytes, bool d2h, int copies,
                          int batches, cudaEvent_t a, cudaEvent_t b) {
  std::vector<double> g;
  for (int i = 0; i < batches; ++i) {
    CHECK(cudaEventRecord(a, s));
    for (int k = 0; k < copies; ++k)
      CHECK(d2h ? cudaMemcpyAsync(host, dev, bytes, cudaMemcpyDeviceToHost, s)
                : cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, s));
    CHECK(cudaEventRecord(b, s));
    CHECK(cudaEventSynchronize(b));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, a, b));
    if (i >= 3) g.push_back(double(bytes) * copies / (ms * 1e-3) / 1e9);
  }
  std::sort(g.begin(), g.end());
  return g[g.size() / 2];
}
