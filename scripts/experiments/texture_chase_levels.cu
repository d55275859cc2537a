// Experiment: `constant`'s texture chase over a 1-4 MiB table draws one of two levels per point
// and run (about 331 or 374 cycles per step on the H100 and the H200, every round of a run
// agreeing), while the order is the same in every run. Prediction: the level belongs to where the
// one chasing thread runs (its SM, hence its side of the two L2 partitions) and which SMs touched
// the lines last, not to the process. Each epoch here warms the table from every SM (as the
// probe's reset_sample does), then chases it:
//   free      <<<1,1>>> as the probe launches it (the scheduler picks the SM), smid recorded;
//   sm=T      pinned: SM-count one-thread blocks, only the block on SM T chases (others exit);
//   own-warm  free, but first one full lap of the cycle by the chasing thread itself.
// Paths: texture (tex1Dfetch of byte offset / 4) and global (ld.global.ca of an address).
// If the level follows the SM (pinned rows steady per T, free rows matching the T they ran on),
// pinning the chase fixes the probe; if own-warm is steady, warming from the chasing SM does.
// Output (CSV): proc,epoch,path,bytes,variant,smid,cycles_per_step
// Build: nvcc -O3 -arch=sm_90 -I include -o texture_chase_levels scripts/experiments/texture_chase_levels.cu
// Run:   for p in 1 2 3 4; do ./texture_chase_levels $p 6; done
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

constexpr std::uint64_t kStride = 64;    // bytes between chased elements (the probe's)
constexpr std::uint32_t kSteps = 2048;   // timed steps per launch (the probe's default)
constexpr std::uint32_t kWarm = 2048;    // untimed steps before them (the probe's short warm)

struct Slot {
  unsigned long long cycles;
  unsigned int smid;
  unsigned int end;
};

__device__ unsigned int sm_id() {
  unsigned int id;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
  return id;
}

template <bool kTexture>
__device__ std::uint64_t step(cudaTextureObject_t tex, const char* base, std::uint64_t at) {
  if constexpr (kTexture) return tex1Dfetch<std::uint32_t>(tex, static_cast<int>(at >> 2));
  std::uint64_t v;
  asm volatile("ld.global.ca.u64 %0, [%1];" : "=l"(v) : "l"(base + at) : "memory");
  return v;
}

// target < 0: run wherever launched; else only the block on SM `target` chases.
template <bool kTexture>
__global__ void chase(cudaTextureObject_t tex, const char* base, const std::uint32_t* order,
                      std::uint32_t n, std::uint32_t from, std::uint32_t warm, int target,
                      Slot* slot) {
  if (target >= 0 && sm_id() != static_cast<unsigned int>(target)) return;
  std::uint64_t at = static_cast<std::uint64_t>(order[from % n]) * kStride;
  for (std::uint32_t i = 0; i < warm; ++i)
    at = step<kTexture>(tex, base, at);
  const long long c0 = clock64();
  for (std::uint32_t i = 0; i < kSteps; ++i)
    at = step<kTexture>(tex, base, at);
  const long long c1 = clock64();
  *slot = Slot{static_cast<unsigned long long>(c1 - c0), sm_id(), static_cast<unsigned int>(at)};
}

__global__ void warm_all(const std::uint32_t* table, std::uint64_t words, std::uint32_t* sink) {
  std::uint32_t acc = 0;
  for (std::uint64_t w = blockIdx.x * blockDim.x + threadIdx.x; w < words;
       w += static_cast<std::uint64_t>(gridDim.x) * blockDim.x)
    acc += table[w];
  if (acc == 0xFFFFFFFFu) *sink = acc;
}

// Builds the cycle: element order[k] holds the byte offset (texture) or address (global) of
// element order[k + 1].
void build(std::vector<char>& host, const std::vector<std::uint32_t>& order, std::uint64_t base,
           bool addresses) {
  const std::size_t n = order.size();
  for (std::size_t k = 0; k < n; ++k) {
    const std::uint64_t next = static_cast<std::uint64_t>(order[(k + 1) % n]) * kStride;
    char* at = host.data() + static_cast<std::uint64_t>(order[k]) * kStride;
    if (addresses) {
      const std::uint64_t v = base + next;
      std::copy_n(reinterpret_cast<const char*>(&v), 8, at);
    } else {
      const auto v = static_cast<std::uint32_t>(next);
      std::copy_n(reinterpret_cast<const char*>(&v), 4, at);
    }
  }
}

struct Table {
  std::uint64_t bytes;
  std::uint32_t n;
  char* dev = nullptr;
  std::uint32_t* order = nullptr;
  cudaTextureObject_t tex = 0;
};

Table make_table(std::uint64_t bytes, bool texture) {
  Table t{bytes, static_cast<std::uint32_t>(bytes / kStride)};
  std::vector<std::uint32_t> order(t.n);
  std::iota(order.begin(), order.end(), 0u);
  std::shuffle(order.begin(), order.end(), std::mt19937_64(0xC0457A47ull ^ t.n));
  CHECK(cudaMalloc(&t.dev, bytes));
  CHECK(cudaMalloc(&t.order, t.n * 4ull));
  CHECK(cudaMemcpy(t.order, order.data(), t.n * 4ull, cudaMemcpyHostToDevice));
  std::vector<char> host(bytes, 0);
  build(host, order, 0, !texture);  // offsets; the global chase adds the table's base
  CHECK(cudaMemcpy(t.dev, host.data(), bytes, cudaMemcpyHostToDevice));
  if (texture) {
    cudaResourceDesc res{};
    res.resType = cudaResourceTypeLinear;
    res.res.linear.devPtr = t.dev;
    res.res.linear.desc = cudaCreateChannelDesc<std::uint32_t>();
    res.res.linear.sizeInBytes = bytes;
    cudaTextureDesc td{};
    td.readMode = cudaReadModeElementType;
    CHECK(cudaCreateTextureObject(&t.tex, &res, &td, nullptr));
  }
  return t;
}

}  // namespace

int main(int argc, char** argv) {
  const int proc = argc > 1 ? std::atoi(argv[1]) : 1;
  const int epochs = argc > 2 ? std::atoi(argv[2]) : 6;
  int sms = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  Slot* slot = nullptr;
  std::uint32_t* sink = nullptr;
  CHECK(cudaMalloc(&slot, sizeof(Slot)));
  CHECK(cudaMalloc(&sink, 4));
  const std::vector<int> targets = {0, 1, sms / 4, sms / 2, sms / 2 + 1, 3 * sms / 4, sms - 1};
  for (const bool texture : {true, false}) {
    for (const std::uint64_t mib : {1ull, 2ull, 4ull}) {
      Table t = make_table(mib << 20, texture);
      for (int e = 0; e < epochs; ++e) {
        const std::uint32_t from = static_cast<std::uint32_t>(e) * (kWarm + kSteps);
        auto run = [&](const char* variant, int target, std::uint32_t warm) {
          warm_all<<<1024, 256>>>(reinterpret_cast<const std::uint32_t*>(t.dev), t.bytes / 4,
                                  sink);
          CHECK(cudaGetLastError());
          CHECK(cudaMemset(slot, 0xFF, sizeof(Slot)));
          CHECK(cudaDeviceSynchronize());
          const int blocks = target < 0 ? 1 : sms;
          if (texture)
            chase<true><<<blocks, 1>>>(t.tex, t.dev, t.order, t.n, from, warm, target, slot);
          else
            chase<false><<<blocks, 1>>>(t.tex, t.dev, t.order, t.n, from, warm, target, slot);
          CHECK(cudaGetLastError());
          Slot got{};
          CHECK(cudaMemcpy(&got, slot, sizeof got, cudaMemcpyDeviceToHost));
          if (got.smid == 0xFFFFFFFFu) {
            std::printf("%d,%d,%s,%llu,%s,none,nan\n", proc, e, texture ? "texture" : "global",
                        static_cast<unsigned long long>(t.bytes), variant);
            return;
          }
          std::printf("%d,%d,%s,%llu,%s,%u,%.1f\n", proc, e, texture ? "texture" : "global",
                      static_cast<unsigned long long>(t.bytes), variant, got.smid,
                      static_cast<double>(got.cycles) / kSteps);
        };
        run("free", -1, kWarm);
        for (const int target : targets) {
          char name[16];
          std::snprintf(name, sizeof name, "sm=%d", target);
          run(name, target, kWarm);
        }
        run("own-warm", -1, t.n);
      }
      if (t.tex) CHECK(cudaDestroyTextureObject(t.tex));
      CHECK(cudaFree(t.dev));
      CHECK(cudaFree(t.order));
    }
  }
  CHECK(cudaFree(slot));
  CHECK(cudaFree(sink));
  return 0;
}
