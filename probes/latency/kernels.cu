// The `latency` kernels: chain builder, parallel warm read, the timed pointer chase (clock64 and
// %globaltimer around it) and the per-access trace, with their launchers; the short timed chase
// other probes share.
#include <vector>

#include "gpuprobe/models/latency_model.hpp"
#include "gpuprobe/runtime/buffers.hpp"
#include "gpuprobe/runtime/cuda_check.hpp"
#include "gpuprobe/runtime/device_timers.cuh"
#include "gpuprobe/runtime/l2.hpp"
#include "kernels.hpp"

namespace gpuprobe::latency {
namespace {

constexpr int kBuildThreads = 256;

__global__ void build_chain_kernel(char* base, const std::uint32_t* order, std::uint64_t n,
                                   std::uint64_t stride) {
  const std::uint64_t threads = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t k = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < n;
       k += threads) {
    const std::uint64_t here = models::element_offset(order[k], stride);
    const std::uint64_t next = models::element_offset(order[k + 1 == n ? 0 : k + 1], stride);
    *reinterpret_cast<std::uint64_t*>(base + here) = reinterpret_cast<std::uint64_t>(base + next);
  }
}

__global__ void warm_kernel(const char* base, std::uint64_t n, std::uint64_t stride,
                            std::uint32_t* sink) {
  const std::uint64_t threads = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  std::uint64_t acc = 0;
  for (std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += threads)
    acc ^=
        *reinterpret_cast<const volatile std::uint64_t*>(base + models::element_offset(i, stride));
  if (acc == 1) *sink = 1;  // never: an address is never 1; keeps the loads
}

// A dependent load the compiler can neither drop nor move across the clock reads: cached in L1
// (ld.global.ca), or in L2 only (ld.global.cg) for the page series.
template <bool kBypassL1 = false>
__device__ __forceinline__ std::uint64_t load_next(std::uint64_t p) {
  std::uint64_t next;
  if constexpr (kBypassL1)
    asm volatile("ld.global.cg.u64 %0, [%1];" : "=l"(next) : "l"(p) : "memory");
  else
    asm volatile("ld.global.ca.u64 %0, [%1];" : "=l"(next) : "l"(p) : "memory");
  return next;
}

using runtime::cycles64;
using runtime::global_ns;

__device__ __forceinline__ std::uint32_t cycles32() {
  std::uint32_t t;
  asm volatile("mov.u32 %0, %%clock;" : "=r"(t)::"memory");
  return t;
}

template <bool kBypassL1>
__global__ void chase_kernel(std::uint64_t start, std::uint32_t warm, std::uint32_t steps,
                             SlotRing ring) {
  std::uint64_t p = start;
  for (std::uint32_t i = 0; i < warm; ++i)
    p = load_next<kBypassL1>(p);
  const std::uint64_t g0 = global_ns();
  const std::uint64_t c0 = cycles64();
  for (std::uint32_t i = 0; i < steps; ++i)
    p = load_next<kBypassL1>(p);
  const std::uint64_t c1 = cycles64();
  const std::uint64_t g1 = global_ns();
  const std::uint32_t slot = atomicAdd(ring.count, 1u);
  if (slot < ring.capacity) ring.slots[slot] = ChaseSlot{c1 - c0, g1 - g0, p};
}

__global__ void trace_kernel(std::uint64_t start, std::uint32_t warm, std::uint32_t* out,
                             std::uint64_t* end) {
  __shared__ std::uint32_t took[kTraceSteps];
  __shared__ std::uint32_t seen[kTraceSteps];
  std::uint64_t p = start;
  for (std::uint32_t i = 0; i < warm; ++i)
    p = load_next(p);
  for (std::uint32_t i = 0; i < kTraceSteps; ++i) {
    const std::uint32_t t0 = cycles32();
    p = load_next(p);
    seen[i] = static_cast<std::uint32_t>(p);  // waits for the load before the second clock
    const std::uint32_t t1 = cycles32();
    took[i] = t1 - t0;
  }
  for (std::uint32_t i = 0; i < kTraceSteps; ++i)
    out[i] = took[i] + (seen[i] == 1u ? 1u : 0u);  // seen is never 1: keeps the stores
  *end = p;
}

}  // namespace

void launch_build_chain(char* base, const std::uint32_t* order, std::uint64_t n,
                        std::uint64_t stride, cudaStream_t stream) {
  const std::uint64_t want = (n + kBuildThreads - 1) / kBuildThreads;
  const int blocks = static_cast<int>(want < 65536 ? want : 65536);
  build_chain_kernel<<<blocks, kBuildThreads, 0, stream>>>(base, order, n, stride);
  GP_CHECK_LAUNCH("latency chain build");
}

void launch_warm(const char* base, std::uint64_t n, std::uint64_t stride, std::uint32_t* sink,
                 int blocks, cudaStream_t stream) {
  warm_kernel<<<blocks, kBuildThreads, 0, stream>>>(base, n, stride, sink);
  GP_CHECK_LAUNCH("latency warm read");
}

void launch_chase(const void* start, std::uint32_t warm, std::uint32_t steps, SlotRing ring,
                  int carveout, bool bypass_l1, cudaStream_t stream) {
  const auto kernel = bypass_l1 ? chase_kernel<true> : chase_kernel<false>;
  GP_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, carveout));
  kernel<<<1, 1, 0, stream>>>(reinterpret_cast<std::uint64_t>(start), warm, steps, ring);
  GP_CHECK_LAUNCH("latency chase");
}

void launch_trace(const void* start, std::uint32_t warm, std::uint32_t* out, std::uint64_t* end,
                  int carveout, cudaStream_t stream) {
  GP_CUDA(
      cudaFuncSetAttribute(trace_kernel, cudaFuncAttributePreferredSharedMemoryCarveout, carveout));
  trace_kernel<<<1, 1, 0, stream>>>(reinterpret_cast<std::uint64_t>(start), warm, out, end);
  GP_CHECK_LAUNCH("latency trace");
}

std::uint32_t chase_step(std::uint64_t n) {
  return static_cast<std::uint32_t>((n * 0x9E3779B9ull >> 32) | 1u);
}

ChaseTiming time_chase(void* chain, std::uint64_t bytes, std::uint64_t stride, std::uint32_t warm,
                       std::uint32_t steps, bool bypass_l1, std::uint64_t flush_l2_bytes,
                       cudaStream_t stream) {
  const std::uint64_t n = bytes / stride;
  const std::uint32_t p = chase_step(n);
  std::vector<std::uint32_t> order(n);
  for (std::uint64_t k = 0; k < n; ++k)
    order[k] = static_cast<std::uint32_t>(k * p % n);
  runtime::DeviceBuffer order_d(n * 4), ring(sizeof(ChaseSlot) + 8);
  runtime::copy_to_device(order_d.get(), order.data(), n * 4);
  runtime::set_device(ring.get(), 0, ring.bytes());
  char* base = static_cast<char*>(chain);
  launch_build_chain(base, order_d.as<std::uint32_t>(), n, stride, stream);
  std::vector<runtime::L2Flusher> flusher;  // kept until the stream's work is done
  if (flush_l2_bytes > 0) flusher.emplace_back(flush_l2_bytes).flush(stream);
  auto* count = reinterpret_cast<std::uint32_t*>(ring.as<char>() + sizeof(ChaseSlot));
  const SlotRing slots{ring.as<ChaseSlot>(), count, 1};
  launch_chase(base + models::element_offset(order[0], stride), warm, steps, slots, 0, bypass_l1,
               stream);
  GP_CUDA(cudaStreamSynchronize(stream));
  ChaseSlot slot{};
  std::uint32_t launches = 0;
  GP_CUDA(cudaMemcpy(&slot, ring.get(), sizeof slot, cudaMemcpyDeviceToHost));
  GP_CUDA(cudaMemcpy(&launches, count, sizeof launches, cudaMemcpyDeviceToHost));
  const std::uint64_t end = reinterpret_cast<std::uint64_t>(
      base + models::element_offset(order[(std::uint64_t{warm} + steps) % n], stride));
  ChaseTiming t;
  t.ended_right = launches == 1 && slot.end == end && slot.ns > 0;
  t.seconds_per_load = static_cast<double>(slot.ns) * 1e-9 / steps;
  t.cycles_per_load = static_cast<double>(slot.cycles) / steps;
  return t;
}

}  // namespace gpuprobe::latency
