// Offset and stride copy kernels of the `coalescing` probe, their launchers and data verification.
#include "kernels.hpp"

#include <string>

#include "gpuprobe/core/errors.hpp"
#include "gpuprobe/runtime/buffers.hpp"
#include "gpuprobe/runtime/cuda_check.hpp"
#include "gpuprobe/runtime/pattern.hpp"

namespace gpuprobe::coalescing {
namespace {

constexpr int kVerifyThreads = 256;
constexpr std::uint64_t kVerifyMaxBlocks = 4096;

template <CopyKind K>
__device__ __forceinline__ std::uint64_t source_index(std::uint64_t i, std::uint64_t param) {
  if constexpr (K == CopyKind::kOffset) {
    return i + param;
  } else {
    return i * param;
  }
}

// Grid-stride copy. Thread t of the grid handles i = t, t + G, t + 2G, ... (G = all threads),
// so the 32 lanes of a warp always hold 32 consecutive i starting at a multiple of 32: the
// address pattern the model assumes. Each iteration issues kCopyUnroll independent loads
// before their stores, to keep enough bytes in flight for DRAM. Plain loads and stores
// (no __restrict__, no __ldg): the normal global path through L1, not the read-only path.
template <typename T, CopyKind K>
__global__ void __launch_bounds__(kCopyThreads)
    copy_kernel(void* out_raw, const void* in_raw, std::uint64_t n, std::uint64_t param) {
  T* out = static_cast<T*>(out_raw);
  const T* in = static_cast<const T*>(in_raw);
  const std::uint64_t threads = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  for (; i + (kCopyUnroll - 1) * threads < n; i += kCopyUnroll * threads) {
    T v[kCopyUnroll];
#pragma unroll
    for (int u = 0; u < kCopyUnroll; ++u)
      v[u] = in[source_index<K>(i + u * threads, param)];
#pragma unroll
    for (int u = 0; u < kCopyUnroll; ++u)
      out[i + u * threads] = v[u];
  }
  for (; i < n; i += threads)
    out[i] = in[source_index<K>(i, param)];
}

// Counts wrong 32-bit words of out[0, n): element i (Words words) must hold the pattern words
// of input element source_index(i).
template <int Words, CopyKind K>
__global__ void verify_kernel(const std::uint32_t* out, std::uint64_t n, std::uint64_t param,
                              std::uint32_t seed, runtime::MismatchTally tally) {
  runtime::ThreadMismatches local;
  const std::uint64_t threads = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += threads) {
    const std::uint64_t src = source_index<K>(i, param);
#pragma unroll
    for (int r = 0; r < Words; ++r)
      local.note(out[i * Words + r] != runtime::pattern_word(src * Words + r, seed), i * Words + r);
  }
  tally.add(local);
}

using CopyFn = void (*)(void*, const void*, std::uint64_t, std::uint64_t);
using VerifyFn = void (*)(const std::uint32_t*, std::uint64_t, std::uint64_t, std::uint32_t,
                          runtime::MismatchTally);

[[noreturn]] void unsupported_width(int element_bytes) {
  throw RunError("coalescing: no copy kernel for " + std::to_string(element_bytes) +
                 "-byte elements (4, 8 or 16)");
}

template <typename T>
CopyFn copy_for(CopyKind kind) {
  return kind == CopyKind::kOffset ? copy_kernel<T, CopyKind::kOffset>
                                   : copy_kernel<T, CopyKind::kStride>;
}

CopyFn pick_copy(CopyKind kind, int element_bytes) {
  switch (element_bytes) {
    case 4:
      return copy_for<std::uint32_t>(kind);
    case 8:
      return copy_for<uint2>(kind);
    case 16:
      return copy_for<uint4>(kind);
    default:
      unsupported_width(element_bytes);
  }
}

template <int Words>
VerifyFn verify_for(CopyKind kind) {
  return kind == CopyKind::kOffset ? verify_kernel<Words, CopyKind::kOffset>
                                   : verify_kernel<Words, CopyKind::kStride>;
}

VerifyFn pick_verify(CopyKind kind, int element_bytes) {
  switch (element_bytes) {
    case 4:
      return verify_for<1>(kind);
    case 8:
      return verify_for<2>(kind);
    case 16:
      return verify_for<4>(kind);
    default:
      unsupported_width(element_bytes);
  }
}

}  // namespace

bool copy_width_supported(int element_bytes) {
  return element_bytes == 4 || element_bytes == 8 || element_bytes == 16;
}

int copy_grid_blocks(CopyKind kind, int element_bytes, int sm_count) {
  int per_sm = 0;
  GP_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      &per_sm, reinterpret_cast<const void*>(pick_copy(kind, element_bytes)), kCopyThreads, 0));
  if (per_sm < 1) per_sm = 1;
  return per_sm * (sm_count > 0 ? sm_count : 1);
}

void launch_copy(CopyKind kind, int element_bytes, void* out, const void* in, std::uint64_t n,
                 std::uint64_t param, int blocks, cudaStream_t stream) {
  const CopyFn kernel = pick_copy(kind, element_bytes);
  kernel<<<blocks, kCopyThreads, 0, stream>>>(out, in, n, param);
  GP_CHECK_LAUNCH(kind == CopyKind::kOffset ? "offset copy kernel" : "stride copy kernel");
}

Mismatches verify_copy(CopyKind kind, int element_bytes, const void* out, std::uint64_t n,
                       std::uint64_t param, std::uint32_t seed, cudaStream_t stream) {
  const VerifyFn kernel = pick_verify(kind, element_bytes);
  const runtime::MismatchCounter counter;
  std::uint64_t blocks = (n + kVerifyThreads - 1) / kVerifyThreads;
  if (blocks > kVerifyMaxBlocks) blocks = kVerifyMaxBlocks;
  if (blocks == 0) blocks = 1;
  kernel<<<static_cast<unsigned>(blocks), kVerifyThreads, 0, stream>>>(
      static_cast<const std::uint32_t*>(out), n, param, seed, counter.tally());
  GP_CHECK_LAUNCH("coalescing check kernel");
  return counter.read(stream);
}

}  // namespace gpuprobe::coalescing
