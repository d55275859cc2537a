// The zerocopy probe's read and write kernels, their launchers, and the host checks.
#include "kernels.hpp"

#include <string>

#include "gpuprobe/core/errors.hpp"
#include "gpuprobe/runtime/cuda_check.hpp"
#include "gpuprobe/runtime/pattern.hpp"

namespace gpuprobe::zerocopy {
namespace {

// Volatile loads and stores that bypass L1 (.cg): the compiler can neither merge a pass's
// re-read with the previous pass's nor drop an overwritten store.
__device__ __forceinline__ std::uint32_t load_sum(const std::uint32_t* p) {
  std::uint32_t a;
  asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(a) : "l"(p));
  return a;
}
__device__ __forceinline__ std::uint32_t load_sum(const uint2* p) {
  std::uint32_t a, b;
  asm volatile("ld.global.cg.v2.u32 {%0, %1}, [%2];" : "=r"(a), "=r"(b) : "l"(p));
  return a + b;
}
__device__ __forceinline__ std::uint32_t load_sum(const uint4* p) {
  std::uint32_t a, b, c, d;
  asm volatile("ld.global.cg.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(a), "=r"(b), "=r"(c), "=r"(d)
               : "l"(p));
  return a + b + c + d;
}

__device__ __forceinline__ void store(std::uint32_t* p, std::uint64_t i, std::uint32_t seed) {
  asm volatile("st.global.cg.u32 [%0], %1;" ::"l"(p), "r"(runtime::pattern_word(i, seed))
               : "memory");
}
__device__ __forceinline__ void store(uint2* p, std::uint64_t i, std::uint32_t seed) {
  asm volatile("st.global.cg.v2.u32 [%0], {%1, %2};" ::"l"(p),
               "r"(runtime::pattern_word(2 * i, seed)), "r"(runtime::pattern_word(2 * i + 1, seed))
               : "memory");
}
__device__ __forceinline__ void store(uint4* p, std::uint64_t i, std::uint32_t seed) {
  asm volatile("st.global.cg.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(p),
               "r"(runtime::pattern_word(4 * i, seed)), "r"(runtime::pattern_word(4 * i + 1, seed)),
               "r"(runtime::pattern_word(4 * i + 2, seed)),
               "r"(runtime::pattern_word(4 * i + 3, seed))
               : "memory");
}

template <typename T>
__global__ void __launch_bounds__(kThreads)
    read_kernel(const T* in, std::uint64_t stride, std::uint64_t n, std::uint32_t reuse,
                std::uint32_t* sums) {
  const std::uint64_t threads = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  const std::uint64_t t = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  std::uint32_t acc = 0;
  for (std::uint32_t pass = 0; pass < reuse; ++pass) {
    std::uint64_t i = t;
    for (; i + (kUnroll - 1) * threads < n; i += kUnroll * threads) {
      std::uint32_t v[kUnroll];
#pragma unroll
      for (int u = 0; u < kUnroll; ++u)
        v[u] = load_sum(in + (i + u * threads) * stride);
#pragma unroll
      for (int u = 0; u < kUnroll; ++u)
        acc += v[u];
    }
    for (; i < n; i += threads)
      acc += load_sum(in + i * stride);
  }
  sums[t] = acc;
}

template <typename T>
__global__ void __launch_bounds__(kThreads)
    write_kernel(T* out, std::uint64_t stride, std::uint64_t n, std::uint32_t reuse,
                 std::uint32_t seed) {
  const std::uint64_t threads = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  const std::uint64_t t = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  for (std::uint32_t pass = 0; pass < reuse; ++pass) {
    std::uint64_t i = t;
    for (; i + (kUnroll - 1) * threads < n; i += kUnroll * threads) {
#pragma unroll
      for (int u = 0; u < kUnroll; ++u)
        store(out + (i + u * threads) * stride, i + u * threads, seed + pass);
    }
    for (; i < n; i += threads)
      store(out + i * stride, i, seed + pass);
  }
}

[[noreturn]] void unsupported_width(int element_bytes) {
  throw RunError("zerocopy: no kernel for " + std::to_string(element_bytes) +
                 "-byte elements (4, 8 or 16)");
}

const void* kernel_of(bool write, int element_bytes) {
  switch (element_bytes) {
    case 4:
      return write ? reinterpret_cast<const void*>(write_kernel<std::uint32_t>)
                   : reinterpret_cast<const void*>(read_kernel<std::uint32_t>);
    case 8:
      return write ? reinterpret_cast<const void*>(write_kernel<uint2>)
                   : reinterpret_cast<const void*>(read_kernel<uint2>);
    case 16:
      return write ? reinterpret_cast<const void*>(write_kernel<uint4>)
                   : reinterpret_cast<const void*>(read_kernel<uint4>);
    default:
      unsupported_width(element_bytes);
  }
}

}  // namespace

bool width_supported(int element_bytes) {
  return element_bytes == 4 || element_bytes == 8 || element_bytes == 16;
}

int full_grid_blocks(bool write, int element_bytes, int sm_count) {
  int per_sm = 0;
  GP_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel_of(write, element_bytes),
                                                        kThreads, 0));
  if (per_sm < 1) per_sm = 1;
  return per_sm * (sm_count > 0 ? sm_count : 1);
}

void launch_read(int element_bytes, const void* in, std::uint64_t stride, std::uint64_t n,
                 std::uint32_t reuse, std::uint32_t* sums, int blocks, cudaStream_t stream) {
  switch (element_bytes) {
    case 4:
      read_kernel<<<blocks, kThreads, 0, stream>>>(static_cast<const std::uint32_t*>(in), stride, n,
                                                   reuse, sums);
      break;
    case 8:
      read_kernel<<<blocks, kThreads, 0, stream>>>(static_cast<const uint2*>(in), stride, n, reuse,
                                                   sums);
      break;
    case 16:
      read_kernel<<<blocks, kThreads, 0, stream>>>(static_cast<const uint4*>(in), stride, n, reuse,
                                                   sums);
      break;
    default:
      unsupported_width(element_bytes);
  }
  GP_CHECK_LAUNCH("zerocopy read kernel");
}

void launch_write(int element_bytes, void* out, std::uint64_t stride, std::uint64_t n,
                  std::uint32_t reuse, std::uint32_t seed, int blocks, cudaStream_t stream) {
  switch (element_bytes) {
    case 4:
      write_kernel<<<blocks, kThreads, 0, stream>>>(static_cast<std::uint32_t*>(out), stride, n,
                                                    reuse, seed);
      break;
    case 8:
      write_kernel<<<blocks, kThreads, 0, stream>>>(static_cast<uint2*>(out), stride, n, reuse,
                                                    seed);
      break;
    case 16:
      write_kernel<<<blocks, kThreads, 0, stream>>>(static_cast<uint4*>(out), stride, n, reuse,
                                                    seed);
      break;
    default:
      unsupported_width(element_bytes);
  }
  GP_CHECK_LAUNCH("zerocopy write kernel");
}

std::vector<std::uint32_t> element_sums(int element_bytes, std::uint64_t stride, std::uint64_t n,
                                        std::uint32_t seed) {
  const auto words = static_cast<std::uint64_t>(element_bytes / 4);
  std::vector<std::uint32_t> sums(n, 0);
  for (std::uint64_t i = 0; i < n; ++i) {
    const std::uint64_t first = i * stride * words;
    for (std::uint64_t r = 0; r < words; ++r)
      sums[i] += runtime::pattern_word(first + r, seed);
  }
  return sums;
}

Mismatches verify_writes(int element_bytes, const void* host, std::uint64_t stride, std::uint64_t n,
                         std::uint32_t seed, std::uint32_t reuse) {
  const auto words = static_cast<std::uint64_t>(element_bytes / 4);
  const auto* w = static_cast<const std::uint32_t*>(host);
  const std::uint32_t last = seed + reuse - 1;
  // Word k of the written ones is word k % words of element k / words.
  return find_mismatches(n * words, [&](std::uint64_t k) {
    const std::uint64_t i = k / words, r = k % words;
    return w[i * stride * words + r] != runtime::pattern_word(k, last);
  });
}

}  // namespace gpuprobe::zerocopy
