// The `occupancy` kernels: the persistent streaming kernel per (op, accesses in flight per thread,
// bytes per access), the residency it is given (dynamic shared memory, found with the occupancy
// calculator), its launches and the checks of the read's sums and the write's words.
#include <string>

#include "gpuprobe/core/errors.hpp"
#include "gpuprobe/models/occupancy_model.hpp"
#include "gpuprobe/runtime/cuda_check.hpp"
#include "gpuprobe/runtime/pattern.hpp"
#include "gpuprobe/runtime/vector_words.cuh"
#include "kernels.hpp"

namespace gpuprobe::occupancy {
namespace {

template <int Width>
using Vec = runtime::VectorOf<Width>;  // .type: the access's vector
using runtime::word_sum;

// The vector a write leaves at vector index v: its words' occupancy_written.
template <int Width>
__device__ __forceinline__ typename Vec<Width>::type written(std::uint64_t v, std::uint32_t seed) {
  const std::uint64_t w = v * (Width / 4);
  if constexpr (Width == 4)
    return models::occupancy_written(w, seed);
  else if constexpr (Width == 8)
    return uint2{models::occupancy_written(w, seed), models::occupancy_written(w + 1, seed)};
  else
    return uint4{models::occupancy_written(w, seed), models::occupancy_written(w + 1, seed),
                 models::occupancy_written(w + 2, seed), models::occupancy_written(w + 3, seed)};
}

struct Args {
  const void* src;
  void* dst;
  std::uint32_t* sink;
  std::uint64_t steps;
  std::uint32_t seed;
};

// Each step: Ilp independent loads (read, copy) of Width bytes, then their use (the sum; the
// stores), so a warp has exactly Ilp loads in flight; the step loop is not unrolled (that would
// put more in flight than the template says). The grid is persistent: every block is resident.
template <Op O, int Ilp, int Width>
__global__ void stream_kernel(Args a) {
  using T = typename Vec<Width>::type;
  const T* __restrict__ src = static_cast<const T*>(a.src);
  T* __restrict__ dst = static_cast<T*>(a.dst);
  std::uint32_t acc = 0;
#pragma unroll 1
  for (std::uint64_t s = 0; s < a.steps; ++s) {
    const std::uint64_t v0 =
        models::stream_vector(s, 0, blockIdx.x, threadIdx.x, blockDim.x, gridDim.x, Ilp);
    if constexpr (O == Op::kWriteOp) {
#pragma unroll
      for (int j = 0; j < Ilp; ++j)
        dst[v0 + j * blockDim.x] = written<Width>(v0 + j * blockDim.x, a.seed);
    } else {
      T v[Ilp];
#pragma unroll
      for (int j = 0; j < Ilp; ++j)
        v[j] = src[v0 + j * blockDim.x];
#pragma unroll
      for (int j = 0; j < Ilp; ++j) {
        if constexpr (O == Op::kReadOp)
          acc += word_sum(v[j]);
        else
          dst[v0 + j * blockDim.x] = v[j];
      }
    }
  }
  if constexpr (O == Op::kReadOp) a.sink[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

template <Op O, int Ilp>
const void* by_width(int width) {
  switch (width) {
    case 4:
      return reinterpret_cast<const void*>(&stream_kernel<O, Ilp, 4>);
    case 8:
      return reinterpret_cast<const void*>(&stream_kernel<O, Ilp, 8>);
    case 16:
      return reinterpret_cast<const void*>(&stream_kernel<O, Ilp, 16>);
    default:
      return nullptr;
  }
}

template <Op O>
const void* by_ilp(int ilp, int width) {
  switch (ilp) {
    case 1:
      return by_width<O, 1>(width);
    case 2:
      return by_width<O, 2>(width);
    case 4:
      return by_width<O, 4>(width);
    case 8:
      return by_width<O, 8>(width);
    default:
      return nullptr;
  }
}

const void* function_of(Op op, int ilp, int width) {
  const void* fn = op == Op::kReadOp    ? by_ilp<Op::kReadOp>(ilp, width)
                   : op == Op::kWriteOp ? by_ilp<Op::kWriteOp>(ilp, width)
                                        : by_ilp<Op::kCopyOp>(ilp, width);
  if (fn == nullptr)
    throw RunError("occupancy: no kernel compiled for ilp " + std::to_string(ilp) + " and width " +
                   std::to_string(width));
  return fn;
}

int device_attribute(cudaDeviceAttr what) {
  int device = 0, value = 0;
  GP_CUDA(cudaGetDevice(&device));
  GP_CUDA(cudaDeviceGetAttribute(&value, what, device));
  return value;
}

int blocks_with(const void* fn, int block_threads, std::uint32_t shared) {
  int blocks = 0;
  GP_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, fn, block_threads, shared));
  return blocks;
}

// Every thread of the stream grid: the sum of the pattern words it read, against its sink word.
template <int Width>
__global__ void verify_sums_kernel(Args a, int ilp, std::uint32_t src_seed,
                                   runtime::MismatchTally tally) {
  const std::uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  std::uint32_t want = 0;
  for (std::uint64_t s = 0; s < a.steps; ++s)
    for (int j = 0; j < ilp; ++j) {
      const std::uint64_t v =
          models::stream_vector(s, j, blockIdx.x, threadIdx.x, blockDim.x, gridDim.x, ilp);
      for (int c = 0; c < Width / 4; ++c)
        want += runtime::pattern_word(v * (Width / 4) + c, src_seed);
    }
  runtime::ThreadMismatches m;
  m.note(a.sink[t] != want, t);
  tally.add(m);
}

__global__ void verify_written_kernel(const std::uint32_t* dst, std::uint64_t words,
                                      std::uint32_t seed, runtime::MismatchTally tally) {
  runtime::ThreadMismatches m;
  const std::uint64_t threads = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t w = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       w < words; w += threads)
    m.note(dst[w] != models::occupancy_written(w, seed), w);
  tally.add(m);
}

}  // namespace

bool ilp_compiled(int ilp) {
  for (const int i : kIlps)
    if (i == ilp) return true;
  return false;
}

bool width_compiled(int width) {
  for (const int w : kWidths)
    if (w == width) return true;
  return false;
}

Residency residency(Op op, int ilp, int width, int block_threads, int blocks_per_sm) {
  const void* fn = function_of(op, ilp, width);
  const int optin = device_attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin);
  GP_CUDA(cudaFuncSetAttribute(fn, cudaFuncAttributePreferredSharedMemoryCarveout,
                               cudaSharedmemCarveoutMaxShared));
  GP_CUDA(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, optin));
  cudaFuncAttributes attr{};
  GP_CUDA(cudaFuncGetAttributes(&attr, fn));
  Residency r;
  r.registers = attr.numRegs;
  r.max_warps_per_sm = device_attribute(cudaDevAttrMaxThreadsPerMultiProcessor) / 32;
  // The least shared memory (in 256-B steps) that lets at most blocks_per_sm blocks fit.
  std::uint32_t lo = 0, hi = static_cast<std::uint32_t>(optin) / 256;
  if (blocks_with(fn, block_threads, 0) > blocks_per_sm) {
    while (lo + 1 < hi) {
      const std::uint32_t mid = (lo + hi) / 2;
      (blocks_with(fn, block_threads, mid * 256) > blocks_per_sm ? lo : hi) = mid;
    }
    r.shared_bytes = hi * 256;
  }
  r.blocks_per_sm = blocks_with(fn, block_threads, r.shared_bytes);
  return r;
}

void launch(const Launch& l, cudaStream_t stream) {
  Args a{l.src, l.dst, l.sink, l.steps, l.seed};
  void* args[] = {&a};
  GP_CUDA(cudaLaunchKernel(function_of(l.op, l.ilp, l.width), dim3(static_cast<unsigned>(l.blocks)),
                           dim3(static_cast<unsigned>(l.block_threads)), args, l.shared_bytes,
                           stream));
}

Mismatches verify_sums(const Launch& l, std::uint32_t src_seed, cudaStream_t stream) {
  runtime::MismatchCounter counter;
  const Args a{l.src, l.dst, l.sink, l.steps, l.seed};
  const dim3 grid(static_cast<unsigned>(l.blocks)), block(static_cast<unsigned>(l.block_threads));
  if (l.width == 4)
    verify_sums_kernel<4><<<grid, block, 0, stream>>>(a, l.ilp, src_seed, counter.tally());
  else if (l.width == 8)
    verify_sums_kernel<8><<<grid, block, 0, stream>>>(a, l.ilp, src_seed, counter.tally());
  else
    verify_sums_kernel<16><<<grid, block, 0, stream>>>(a, l.ilp, src_seed, counter.tally());
  GP_CHECK_LAUNCH("occupancy verify_sums_kernel");
  return counter.read(stream);
}

Mismatches verify_written(const Launch& l, std::uint64_t words, cudaStream_t stream) {
  runtime::MismatchCounter counter;
  verify_written_kernel<<<1024, 256, 0, stream>>>(static_cast<const std::uint32_t*>(l.dst), words,
                                                  l.seed, counter.tally());
  GP_CHECK_LAUNCH("occupancy verify_written_kernel");
  return counter.read(stream);
}

}  // namespace gpuprobe::occupancy
