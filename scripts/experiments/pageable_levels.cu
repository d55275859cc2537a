// Experiment: a pageable copy's speed differs by up to 30% between gpuprobe processes on the test
// VM while each process agrees with itself, and a registered (malloc + cudaHostRegister) one by
// up to 8% with its rounds within 0.5%. Is the level tied to the host buffer (its pages), to the
// CUDA context (the driver's staging buffers), or to time? One process runs EPOCHS epochs, 0.5 s
// apart, of h2d and d2h copies (16 KiB and 16 MiB, host clock, median of 60 / 12 copies) from a
// pageable or a registered host buffer (KIND), in one of three modes:
//   same     one host buffer and one context for every epoch
//   buffer   a fresh malloc'd (and touched) host buffer per epoch, same context
//   context  cudaDeviceReset before each epoch: a fresh context (new staging buffers), and a
//            fresh host buffer
// Output (CSV): mode,proc,epoch,dir,bytes,gbps  (mode carries the kind: registered/buffer, ...)
// Build: nvcc -O3 -arch=sm_90 -o pageable_levels scripts/experiments/pageable_levels.cu
// Run:   for p in 1 2; do for m in same buffer context; do ./pageable_levels $m $p 8 KIND; done;
// done
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "check.cuh"

namespace {

constexpr size_t kBig = size_t(16) << 20;

double median_gbps(char* host, void* dev, size_t bytes, bool h2d, int copies) {
  std::vector<double> g;
  for (int i = 0; i < copies + 2; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    if (h2d)
      CHECK(cudaMemcpy(dev, host, bytes, cudaMemcpyHostToDevice));
    else
      CHECK(cudaMemcpy(host, dev, bytes, cudaMemcpyDeviceToHost));
    const std::chrono::duration<double> s = std::chrono::steady_clock::now() - t0;
    if (i >= 2) g.push_back(double(bytes) / s.count() / 1e9);  // two warm-up copies
  }
  std::sort(g.begin(), g.end());
  return g[g.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "same";
  const int proc = argc > 2 ? std::atoi(argv[2]) : 1;
  const int epochs = argc > 3 ? std::atoi(argv[3]) : 8;
  const bool registered = argc > 4 && std::strcmp(argv[4], "registered") == 0;
  const bool fresh_buffer = std::strcmp(mode, "same") != 0;
  const bool fresh_context = std::strcmp(mode, "context") == 0;
  char* host = nullptr;
  void* dev = nullptr;
  for (int e = 0; e < epochs; ++e) {
    if (e == 0 || fresh_context || fresh_buffer) {
      if (host && registered) CHECK(cudaHostUnregister(host));
      std::free(host);
      host = nullptr;
    }
    if (e == 0 || fresh_context) {
      if (dev) CHECK(cudaFree(dev));
      if (fresh_context) CHECK(cudaDeviceReset());
      CHECK(cudaMalloc(&dev, kBig));
    }
    if (!host) {
      host = static_cast<char*>(std::malloc(kBig));
      std::memset(host, 1, kBig);
      if (registered) CHECK(cudaHostRegister(host, kBig, cudaHostRegisterDefault));
    }
    for (bool h2d : {true, false}) {
      for (size_t bytes : {size_t(16) << 10, kBig}) {
        const double g = median_gbps(host, dev, bytes, h2d, bytes == kBig ? 12 : 60);
        std::printf("%s%s,%d,%d,%s,%zu,%.3f\n", registered ? "registered/" : "", mode, proc, e,
                    h2d ? "h2d" : "d2h", bytes, g);
      }
    }
    std::fflush(stdout);
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  if (host && registered) CHECK(cudaHostUnregister(host));
  std::free(host);
  return 0;
}
