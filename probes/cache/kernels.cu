// The `cache` probe's ring kernels and checks (kernels.hpp).
#include "gpuprobe/runtime/cuda_check.hpp"
#include "gpuprobe/runtime/pattern.hpp"
#include "kernels.hpp"

namespace gpuprobe::cache {
namespace {

constexpr int kRead = 0, kWrite = 1, kCopy = 2;

__device__ __forceinline__ std::uint32_t next(std::uint32_t j, std::uint32_t step,
                                              std::uint32_t n) {
  const std::uint32_t k = j + step;
  return k >= n ? k - n : k;
}

__device__ __forceinline__ std::uint32_t sum4(uint4 v) {
  return v.x + v.y + v.z + v.w;
}

__device__ __forceinline__ uint4 word4(std::uint32_t j, std::uint32_t seed) {
  return make_uint4(written_word(j, 0, seed), written_word(j, 1, seed), written_word(j, 2, seed),
                    written_word(j, 3, seed));
}

// kUnroll accesses per step at ring positions j0..j3, each kUnroll apart in the ring's order.
template <int kOp>
__device__ __forceinline__ void ring_loop(const uint4* __restrict__ src, uint4* __restrict__ dst,
                                          std::uint32_t n, std::uint32_t start, std::uint32_t step,
                                          std::uint32_t iters, std::uint32_t seed,
                                          std::uint32_t& acc) {
  std::uint32_t j = start;
  for (std::uint32_t i = 0; i < iters; i += kUnroll) {
    const std::uint32_t j0 = j, j1 = next(j0, step, n), j2 = next(j1, step, n),
                        j3 = next(j2, step, n);
    j = next(j3, step, n);
    if constexpr (kOp == kRead) {
      const uint4 a = src[j0], b = src[j1], c = src[j2], d = src[j3];
      acc += sum4(a) + sum4(b) + sum4(c) + sum4(d);
    } else if constexpr (kOp == kWrite) {
      dst[j0] = word4(j0, seed);
      dst[j1] = word4(j1, seed);
      dst[j2] = word4(j2, seed);
      dst[j3] = word4(j3, seed);
    } else {
      const uint4 a = src[j0], b = src[j1], c = src[j2], d = src[j3];
      dst[j0] = a;
      dst[j1] = b;
      dst[j2] = c;
      dst[j3] = d;
    }
  }
}

// The read sum of a warp into sink[global warp] (one word per 32 threads: no traffic to speak of).
__device__ __forceinline__ void put_sum(std::uint32_t acc, std::uint32_t* sink) {
  for (int d = 16; d > 0; d /= 2)
    acc += __shfl_xor_sync(0xffffffffu, acc, d);
  if (threadIdx.x % 32 == 0) sink[(blockIdx.x * blockDim.x + threadIdx.x) / 32] = acc;
}

// sm (kPerSm): every block walks the same ring from its start (its reads are the SM's working
// set) and writes a ring of its own at dst + block x elements. device: block b streams the
// contiguous chunk of kThreads x iters elements that starts at b x chunk (modulo the ring), so the
// grid's blocks, scheduled as SMs free up, walk the ring in order.
template <int kOp, bool kPerSm>
__global__ void __launch_bounds__(kThreads) global_ring(RingLaunch l) {
  const std::uint32_t e = l.elements;
  const std::uint64_t first =
      kPerSm ? threadIdx.x
             : static_cast<std::uint64_t>(blockIdx.x) * blockDim.x * l.iters + threadIdx.x;
  auto* dst = static_cast<uint4*>(l.dst);
  if (kPerSm && kOp != kRead) dst += static_cast<std::uint64_t>(blockIdx.x) * e;
  std::uint32_t acc = 0;
  ring_loop<kOp>(static_cast<const uint4*>(l.src), dst, e, static_cast<std::uint32_t>(first % e),
                 blockDim.x % e, l.iters, l.seed, acc);
  if constexpr (kOp == kRead) put_sum(acc, l.sink);
}

template <int kOp>
__global__ void __launch_bounds__(kThreads) shared_ring(RingLaunch l) {
  extern __shared__ uint4 ring[];
  const std::uint32_t e = l.elements;
  uint4* dst = kOp == kCopy ? ring + e : ring;
  const auto* in = static_cast<const uint4*>(l.src);
  if constexpr (kOp != kWrite)
    for (std::uint32_t j = threadIdx.x; j < e; j += blockDim.x)
      ring[j] = in[j];
  __syncthreads();
  std::uint32_t acc = 0;
  ring_loop<kOp>(ring, dst, e, threadIdx.x % e, blockDim.x % e, l.iters, l.seed, acc);
  if constexpr (kOp == kRead) {
    put_sum(acc, l.sink);
  } else {
    __syncthreads();
    auto* out = static_cast<uint4*>(l.dst);
    if (blockIdx.x == 0)
      for (std::uint32_t j = threadIdx.x; j < e; j += blockDim.x)
        out[j] = dst[j];
  }
}

template <int kOp>
const void* kernel_of(Space space) {
  if (space == Space::kSharedSpace) return reinterpret_cast<const void*>(&shared_ring<kOp>);
  if (space == Space::kSmSpace) return reinterpret_cast<const void*>(&global_ring<kOp, true>);
  return reinterpret_cast<const void*>(&global_ring<kOp, false>);
}

const void* kernel_of(Space space, Op op) {
  if (op == Op::kReadOp) return kernel_of<kRead>(space);
  if (op == Op::kWriteOp) return kernel_of<kWrite>(space);
  return kernel_of<kCopy>(space);
}

__global__ void verify_written_kernel(const uint4* dst, std::uint64_t n, std::uint32_t period,
                                      std::uint32_t seed, runtime::MismatchTally tally) {
  runtime::ThreadMismatches t;
  for (std::uint64_t j = blockIdx.x * blockDim.x + threadIdx.x; j < n;
       j += gridDim.x * blockDim.x) {
    const uint4 v = dst[j], w = word4(static_cast<std::uint32_t>(j % period), seed);
    t.note(v.x != w.x || v.y != w.y || v.z != w.z || v.w != w.w, j);
  }
  tally.add(t);
}

__global__ void verify_sums_kernel(const std::uint32_t* sink, std::uint32_t n,
                                   std::uint32_t expected, runtime::MismatchTally tally) {
  runtime::ThreadMismatches t;
  for (std::uint32_t j = blockIdx.x * blockDim.x + threadIdx.x; j < n; j += gridDim.x * blockDim.x)
    t.note(sink[j] != expected, j);
  tally.add(t);
}

}  // namespace

int resident_blocks(Space space, Op op, std::uint32_t shared_bytes) {
  const void* k = kernel_of(space, op);
  const bool shared = space == Space::kSharedSpace;
  GP_CUDA(
      cudaFuncSetAttribute(k, cudaFuncAttributePreferredSharedMemoryCarveout,
                           shared ? cudaSharedmemCarveoutMaxShared : cudaSharedmemCarveoutMaxL1));
  if (shared)
    GP_CUDA(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 static_cast<int>(shared_bytes)));
  int blocks = 0;
  GP_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, k, kThreads,
                                                        shared ? shared_bytes : 0));
  return blocks;
}

void launch_ring(const RingLaunch& l, cudaStream_t stream) {
  const std::uint32_t shared = l.space == Space::kSharedSpace
                                   ? l.elements * kElementBytes * (l.op == Op::kCopyOp ? 2 : 1)
                                   : 0;
  void* args[] = {const_cast<RingLaunch*>(&l)};
  GP_CUDA(cudaLaunchKernel(kernel_of(l.space, l.op), dim3(l.blocks), dim3(kThreads), args, shared,
                           stream));
}

Mismatches verify_written(const void* dst, std::uint64_t elements, std::uint32_t period,
                          std::uint32_t seed, cudaStream_t stream) {
  runtime::MismatchCounter counter;
  verify_written_kernel<<<256, 256, 0, stream>>>(static_cast<const uint4*>(dst), elements, period,
                                                 seed, counter.tally());
  GP_CHECK_LAUNCH("verify_written_kernel");
  return counter.read(stream);
}

Mismatches verify_sums(const std::uint32_t* sink, std::uint32_t threads, std::uint32_t expected,
                       cudaStream_t stream) {
  runtime::MismatchCounter counter;
  verify_sums_kernel<<<256, 256, 0, stream>>>(sink, threads, expected, counter.tally());
  GP_CHECK_LAUNCH("verify_sums_kernel");
  return counter.read(stream);
}

}  // namespace gpuprobe::cache
