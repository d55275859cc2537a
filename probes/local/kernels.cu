// The `local` kernels: the compute kernel (kComputeValues values, every one updated each step)
// and the memory kernel (kMemoryValues values live across a warp-coalesced dependent chase), one
// instance per register cap, and their attributes, occupancy and launches.
#include "kernels.hpp"

#include <iterator>
#include <string>
#include <utility>

#include "gpuprobe/core/errors.hpp"
#include "gpuprobe/models/local_model.hpp"
#include "gpuprobe/runtime/cuda_check.hpp"

namespace gpuprobe::local {
namespace {

using models::kComputeValues;
using models::kLineWords;
using models::kLocalThreads;
using models::kMemoryValues;
using models::kValueLanes;

constexpr int cap_or_all(int cap) {
  return cap == 0 ? 255 : cap;
}

// Every value is read and rewritten each step, so whatever does not fit the registers is stored
// and loaded again every step: spills in the hot loop.
template <int Cap>
__global__ void __launch_bounds__(kLocalThreads) __maxnreg__(cap_or_all(Cap))
    compute_kernel(std::uint32_t* out, std::uint32_t seed, std::uint32_t steps) {
  const std::uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  std::uint32_t a[kComputeValues];
#pragma unroll
  for (int k = 0; k < kComputeValues; ++k)
    a[k] = models::local_start(seed, t % kValueLanes, k, kComputeValues);
  for (std::uint32_t s = 0; s < steps; ++s) {
#pragma unroll
    for (int k = 0; k < kComputeValues; ++k)
      a[k] = models::compute_update(a[k], a[(k + 1) % kComputeValues]);
  }
  std::uint32_t r = 0;
#pragma unroll
  for (int k = 0; k < kComputeValues; ++k)
    r ^= a[k] + static_cast<std::uint32_t>(k);
  out[t] = r;
}

// The values are loaded before the chase and used after it: a spilled value is stored once and
// loaded once, while the chase's loads in flight grow with the resident warps.
template <int Cap>
__global__ void __launch_bounds__(kLocalThreads) __maxnreg__(cap_or_all(Cap))
    memory_kernel(const std::uint32_t* table, const std::uint32_t* values, std::uint32_t* out,
                  std::uint32_t lines, std::uint32_t steps) {
  const std::uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  const std::uint32_t lane = threadIdx.x % kLineWords;
  std::uint32_t a[kMemoryValues];
#pragma unroll
  for (int k = 0; k < kMemoryValues; ++k)
    a[k] = values[k * kValueLanes + t % kValueLanes];
  std::uint32_t j = models::chase_start(t / 32, lines);
  for (std::uint32_t s = 0; s < steps; ++s)
    j = table[static_cast<unsigned long long>(j) * kLineWords + lane];
  std::uint32_t r = j;
#pragma unroll
  for (int k = 0; k < kMemoryValues; ++k)
    r = r * 31u + a[k];
  out[t] = r;
}

// The kernel of (kind, cap) among the instances of every cap in kCaps; nullptr for another cap.
template <std::size_t... I>
const void* pick(KernelKind kind, int cap, std::index_sequence<I...>) {
  const void* fn = nullptr;
  const auto one = [&](int c, const void* compute, const void* memory) {
    if (c == cap) fn = kind == KernelKind::kCompute ? compute : memory;
  };
  (one(kCaps[I], reinterpret_cast<const void*>(&compute_kernel<kCaps[I]>),
       reinterpret_cast<const void*>(&memory_kernel<kCaps[I]>)),
   ...);
  return fn;
}

const void* function_of(KernelKind kind, int cap) {
  const void* fn = pick(kind, cap, std::make_index_sequence<std::size(kCaps)>{});
  if (fn == nullptr)
    throw RunError("local: no kernel compiled for a cap of " + std::to_string(cap) + " registers");
  return fn;
}

void set_carveout(const void* fn, int carveout) {
  GP_CUDA(cudaFuncSetAttribute(fn, cudaFuncAttributePreferredSharedMemoryCarveout, carveout));
}

}  // namespace

bool cap_compiled(int cap) {
  for (const int c : kCaps)
    if (c == cap) return true;
  return false;
}

Compiled compiled(KernelKind kind, int cap, int carveout) {
  const void* fn = function_of(kind, cap);
  set_carveout(fn, carveout);
  cudaFuncAttributes attr{};
  GP_CUDA(cudaFuncGetAttributes(&attr, fn));
  Compiled c;
  c.registers = attr.numRegs;
  c.local_bytes = attr.localSizeBytes;
  GP_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&c.blocks_per_sm, fn, kLocalThreads, 0));
  int device = 0, threads = 0;
  GP_CUDA(cudaGetDevice(&device));
  GP_CUDA(cudaDeviceGetAttribute(&threads, cudaDevAttrMaxThreadsPerMultiProcessor, device));
  c.max_warps_per_sm = threads / 32;
  return c;
}

void launch(const Launch& l, cudaStream_t stream) {
  const void* fn = function_of(l.kind, l.cap);
  set_carveout(fn, l.carveout);
  Launch a = l;  // the arguments, addressable
  void* compute_args[] = {&a.out, &a.seed, &a.steps};
  void* memory_args[] = {&a.table, &a.values, &a.out, &a.lines, &a.steps};
  GP_CUDA(cudaLaunchKernel(fn, dim3(static_cast<unsigned>(l.blocks)), dim3(kLocalThreads),
                           l.kind == KernelKind::kCompute ? compute_args : memory_args, 0, stream));
}

}  // namespace gpuprobe::local
