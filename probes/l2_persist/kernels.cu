// The `l2-persist` kernels: hot read-modify-write, streaming read, the Best Practices Guide's
// mixed kernel, their launchers (window on the stream or on the launch) and the data checks.
#include <algorithm>

#include "gpuprobe/runtime/buffers.hpp"
#include "gpuprobe/runtime/cuda_check.hpp"
#include "gpuprobe/runtime/pattern.hpp"
#include "kernels.hpp"

namespace gpuprobe::l2_persist {
namespace {

constexpr int kUnroll = 4;  // independent 16-byte loads in flight per thread

// v | mark(j): idempotent (the result does not depend on how often a word was updated), and it
// needs the old value (a constant for some bits would let the compiler store a half-word without
// reading it, which is what an earlier version compiled to).
__device__ __forceinline__ std::uint32_t updated(std::uint32_t v, std::uint64_t j) {
  return v | ((static_cast<std::uint32_t>(j) * 0x9E3779B1u) | 0x80000000u);
}

// Grid-stride over 16-byte elements; plain loads and stores (each word is touched once per
// launch, so L1 never serves a re-read: every load reaches L2).
__global__ void __launch_bounds__(kThreads) hot_update_kernel(uint4* hot, std::uint64_t n4) {
  const std::uint64_t threads = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t e = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < n4;
       e += threads) {
    uint4 v = hot[e];
    const std::uint64_t j = 4 * e;
    v.x = updated(v.x, j);
    v.y = updated(v.y, j + 1);
    v.z = updated(v.z, j + 2);
    v.w = updated(v.w, j + 3);
    hot[e] = v;
  }
}

__global__ void __launch_bounds__(kThreads)
    stream_read_kernel(const uint4* src, std::uint64_t n4, std::uint32_t* sink) {
  const std::uint64_t threads = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  const std::uint64_t t = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  std::uint32_t acc = 0;
  std::uint64_t e = t;
  for (; e + (kUnroll - 1) * threads < n4; e += kUnroll * threads) {
    uint4 v[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u)
      v[u] = src[e + u * threads];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u)
      acc ^= v[u].x ^ v[u].y ^ v[u].z ^ v[u].w;
  }
  for (; e < n4; e += threads) {
    const uint4 v = src[e];
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  sink[t] = acc;
}

__global__ void __launch_bounds__(kThreads)
    bpg_kernel(std::uint32_t* hot, std::uint64_t hot_words, std::uint32_t* streaming,
               std::uint64_t streaming_words) {
  const std::uint64_t t = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= streaming_words) return;
  const std::uint64_t h = t % hot_words;
  hot[h] = updated(hot[h], h);
  streaming[t] = updated(streaming[t], t);
}

__global__ void verify_updated_kernel(const std::uint32_t* buf, std::uint64_t words,
                                      std::uint32_t seed, runtime::MismatchTally tally) {
  runtime::ThreadMismatches local;
  const std::uint64_t threads = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t j = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       j < words; j += threads)
    local.note(buf[j] != updated(runtime::pattern_word(j, seed), j), j);
  tally.add(local);
}

// Thread t of the verification recomputes the fold of stream-read thread t from the pattern alone.
__global__ void verify_sink_kernel(const std::uint32_t* sink, std::uint64_t n4,
                                   std::uint64_t read_threads, std::uint32_t seed,
                                   runtime::MismatchTally tally) {
  const std::uint64_t t = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= read_threads) return;
  std::uint32_t acc = 0;
  for (std::uint64_t e = t; e < n4; e += read_threads)
    for (std::uint64_t w = 0; w < 4; ++w)
      acc ^= runtime::pattern_word(4 * e + w, seed);
  runtime::ThreadMismatches local;
  local.note(sink[t] != acc, t);
  tally.add(local);
}

// Launches `kernel` on the stream; with a window, through cudaLaunchKernelEx carrying it.
template <typename... Params, typename... Args>
void launch(void (*kernel)(Params...), unsigned blocks, cudaStream_t stream,
            const LaunchWindow* window, const char* what, Args... args) {
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(blocks);
  config.blockDim = dim3(kThreads);
  config.stream = stream;
  cudaLaunchAttribute attribute{};
  if (window) {
    attribute.id = cudaLaunchAttributeAccessPolicyWindow;
    attribute.val.accessPolicyWindow.base_ptr = window->base;
    attribute.val.accessPolicyWindow.num_bytes = window->bytes;
    attribute.val.accessPolicyWindow.hitRatio = window->hit_ratio;
    attribute.val.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
    attribute.val.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
    config.attrs = &attribute;
    config.numAttrs = 1;
  }
  GP_CUDA(cudaLaunchKernelEx(&config, kernel, args...));
  GP_CHECK_LAUNCH(what);
}

}  // namespace

int grid_blocks(int sm_count) {
  int per_sm = 0;
  GP_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, stream_read_kernel, kThreads, 0));
  return std::max(1, per_sm) * std::max(1, sm_count);
}

void launch_hot_update(std::uint32_t* hot, std::uint64_t words, int blocks, cudaStream_t stream,
                       const LaunchWindow* window) {
  launch(hot_update_kernel, static_cast<unsigned>(blocks), stream, window, "l2-persist hot update",
         reinterpret_cast<uint4*>(hot), words / 4);
}

void launch_stream_read(const std::uint32_t* src, std::uint64_t words, std::uint32_t* sink,
                        int blocks, cudaStream_t stream) {
  launch(stream_read_kernel, static_cast<unsigned>(blocks), stream, nullptr,
         "l2-persist streaming read", reinterpret_cast<const uint4*>(src), words / 4, sink);
}

void launch_bpg_update(std::uint32_t* hot, std::uint64_t hot_words, std::uint32_t* streaming,
                       std::uint64_t streaming_words, cudaStream_t stream,
                       const LaunchWindow* window) {
  const auto blocks = static_cast<unsigned>((streaming_words + kThreads - 1) / kThreads);
  launch(bpg_kernel, blocks, stream, window, "l2-persist bpg kernel", hot, hot_words, streaming,
         streaming_words);
}

Mismatches verify_updated(const std::uint32_t* buf, std::uint64_t words, std::uint32_t seed,
                          cudaStream_t stream) {
  const runtime::MismatchCounter counter;
  const auto blocks =
      static_cast<unsigned>(std::min<std::uint64_t>(4096, (words + kThreads - 1) / kThreads));
  verify_updated_kernel<<<std::max(1u, blocks), kThreads, 0, stream>>>(buf, words, seed,
                                                                       counter.tally());
  GP_CHECK_LAUNCH("l2-persist update check");
  return counter.read(stream);
}

Mismatches verify_sink(const std::uint32_t* sink, std::uint64_t words, int blocks,
                       std::uint32_t seed, cudaStream_t stream) {
  const runtime::MismatchCounter counter;
  const std::uint64_t read_threads = static_cast<std::uint64_t>(blocks) * kThreads;
  verify_sink_kernel<<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(
      sink, words / 4, read_threads, seed, counter.tally());
  GP_CHECK_LAUNCH("l2-persist sink check");
  return counter.read(stream);
}

}  // namespace gpuprobe::l2_persist
