// Kernels of the bank-conflicts probe: tiled transposes, their verification, shared stride loops.
#include "kernels.hpp"

#include <vector>

#include "gpuprobe/core/errors.hpp"
#include "gpuprobe/models/bank_conflict_model.hpp"
#include "gpuprobe/runtime/buffers.hpp"
#include "gpuprobe/runtime/cuda_check.hpp"
#include "gpuprobe/runtime/pattern.hpp"
#include "gpuprobe/runtime/vector_words.cuh"

namespace gpuprobe::bank {
namespace {

using models::kBlockRows;
using models::kTileDim;
using models::TileLayout;

// ---- Transpose ladder ---------------------------------------------------------------------

// Each thread loads its kElementsPerThread elements into registers before it stores any, so
// every kernel of the ladder has the same loads in flight per thread (4, like the tiled
// kernels, which load all 4 before the barrier); SASS (sm_90): 4 LDG, then 4 STG.
constexpr int kElementsPerThread = kTileDim / kBlockRows;

__global__ void __launch_bounds__(kTileDim* kBlockRows)
    copy_kernel(const float* __restrict__ in, float* __restrict__ out, int n) {
  const std::size_t x = blockIdx.x * kTileDim + threadIdx.x;
  const std::size_t y = blockIdx.y * kTileDim + threadIdx.y;
  const std::size_t width = static_cast<std::size_t>(n);
  float v[kElementsPerThread];
#pragma unroll
  for (int k = 0; k < kElementsPerThread; ++k)
    v[k] = in[(y + k * kBlockRows) * width + x];
#pragma unroll
  for (int k = 0; k < kElementsPerThread; ++k)
    out[(y + k * kBlockRows) * width + x] = v[k];
}

__global__ void __launch_bounds__(kTileDim* kBlockRows)
    naive_transpose_kernel(const float* __restrict__ in, float* __restrict__ out, int n) {
  const std::size_t x = blockIdx.x * kTileDim + threadIdx.x;
  const std::size_t y = blockIdx.y * kTileDim + threadIdx.y;
  const std::size_t width = static_cast<std::size_t>(n);
  float v[kElementsPerThread];
#pragma unroll
  for (int k = 0; k < kElementsPerThread; ++k)
    v[k] = in[(y + k * kBlockRows) * width + x];
#pragma unroll
  for (int k = 0; k < kElementsPerThread; ++k)
    out[x * width + (y + k * kBlockRows)] = v[k];
}

// The tile is indexed only through models::tile_word, the expression the model evaluates.
template <TileLayout kLayout>
__global__ void __launch_bounds__(kTileDim* kBlockRows)
    tile_transpose_kernel(const float* __restrict__ in, float* __restrict__ out, int n) {
  __shared__ float tile[models::tile_words(kLayout)];
  const int tx = static_cast<int>(threadIdx.x);
  const int ty = static_cast<int>(threadIdx.y);
  const std::size_t width = static_cast<std::size_t>(n);
  std::size_t x = blockIdx.x * kTileDim + threadIdx.x;
  std::size_t y = blockIdx.y * kTileDim + threadIdx.y;
#pragma unroll
  for (int j = 0; j < kTileDim; j += kBlockRows)
    tile[models::tile_word(kLayout, ty + j, tx)] = in[(y + j) * width + x];  // row write
  __syncthreads();
  x = blockIdx.y * kTileDim + threadIdx.x;
  y = blockIdx.x * kTileDim + threadIdx.y;
#pragma unroll
  for (int j = 0; j < kTileDim; j += kBlockRows)
    out[(y + j) * width + x] = tile[models::tile_word(kLayout, tx, ty + j)];  // column read
}

__global__ void verify_transpose_kernel(const std::uint32_t* out, int n, std::uint32_t seed,
                                        runtime::MismatchTally tally) {
  const std::size_t width = static_cast<std::size_t>(n);
  runtime::ThreadMismatches local;
  for (std::size_t r = blockIdx.y; r < width; r += gridDim.y) {
    for (std::size_t c = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; c < width;
         c += static_cast<std::size_t>(gridDim.x) * blockDim.x)
      local.note(out[r * width + c] != runtime::pattern_word(c * width + r, seed), r * width + c);
  }
  tally.add(local);
}

// ---- Stride loops -------------------------------------------------------------------------

template <int kWidth>
using Element = runtime::VectorOf<kWidth>;  // .type: the access's vector
using runtime::word_sum;

// The element whose first word has value `first` and the following words first+1, ...
template <typename E>
__device__ __forceinline__ E element_value(std::uint32_t first);
template <>
__device__ __forceinline__ std::uint32_t element_value<std::uint32_t>(std::uint32_t first) {
  return first;
}
template <>
__device__ __forceinline__ uint2 element_value<uint2>(std::uint32_t first) {
  return make_uint2(first, first + 1);
}
template <>
__device__ __forceinline__ uint4 element_value<uint4>(std::uint32_t first) {
  return make_uint4(first, first + 1, first + 2, first + 3);
}

// Elements beyond the capacity, so that e_l + 1 + (kStrideUnroll - 1) never leaves the array.
constexpr std::uint32_t kStridePad = kStrideUnroll;
// Enough registers for 6 resident blocks of 256 threads (the shared array allows 6 per SM on
// a 228 KiB SM); the loop needs few. sm_75 holds at most 1024 threads (4 such blocks) per SM.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
constexpr int kStrideMinBlocks = 4;
#else
constexpr int kStrideMinBlocks = 6;
#endif

template <int kWidth>
__global__ void __launch_bounds__(kStrideThreads, kStrideMinBlocks)
    shared_load_kernel(std::uint32_t stride, std::uint32_t outer, std::uint32_t seed,
                       std::uint32_t* out) {
  using E = typename Element<kWidth>::type;
  constexpr std::uint32_t kCapacity = models::stride_capacity(kWidth);
  constexpr std::uint32_t kWords = (kCapacity + kStridePad) * (kWidth / 4);
  __shared__ E region[kCapacity + kStridePad];
  auto* words = reinterpret_cast<std::uint32_t*>(region);
  for (std::uint32_t w = threadIdx.x; w < kWords; w += blockDim.x)
    words[w] = seed + w;
  __syncthreads();
  const std::uint32_t lane = threadIdx.x % 32;
  const E* p = region + models::stride_element_index(lane, stride, kCapacity);
  std::uint32_t sum = 0;
#pragma unroll 1
  for (std::uint32_t j = 0; j < outer; ++j) {
    const E* q = p + (j & 1u);  // the addresses change every step: nothing to hoist
#pragma unroll
    for (int i = 0; i < kStrideUnroll; ++i)
      sum += word_sum(q[i]);
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

template <int kWidth>
__global__ void __launch_bounds__(kStrideThreads, kStrideMinBlocks)
    shared_store_kernel(std::uint32_t stride, std::uint32_t outer, std::uint32_t seed,
                        std::uint32_t* out) {
  using E = typename Element<kWidth>::type;
  constexpr std::uint32_t kCapacity = models::stride_capacity(kWidth);
  constexpr std::uint32_t kPerElement = kWidth / 4;
  constexpr std::uint32_t kWords = (kCapacity + kStridePad) * kPerElement;
  __shared__ E region[kCapacity + kStridePad];
  auto* words = reinterpret_cast<std::uint32_t*>(region);
  for (std::uint32_t w = threadIdx.x; w < kWords; w += blockDim.x)
    words[w] = 0;  // never a value the loop stores (seed > 0, few words)
  __syncthreads();
  const std::uint32_t lane = threadIdx.x % 32;
  const std::uint32_t first = models::stride_element_index(lane, stride, kCapacity);
  E* p = region + first;
#pragma unroll 1
  for (std::uint32_t j = 0; j < outer; ++j) {
    const std::uint32_t shift = j & 1u;
    E* q = p + shift;
    // Element e always gets the same value (its words are seed + word index), whichever
    // lane or warp writes it last, so the result is deterministic; it still depends on j.
    const std::uint32_t value = seed + (first + shift) * kPerElement;
#pragma unroll
    for (int i = 0; i < kStrideUnroll; ++i)
      q[i] = element_value<E>(value + static_cast<std::uint32_t>(i) * kPerElement);
  }
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = word_sum(p[0]) + word_sum(p[kStrideUnroll]);
}

template <int kWidth>
void launch_stride_width(SharedOp op, std::uint32_t stride, std::uint32_t outer, std::uint32_t seed,
                         int blocks, std::uint32_t* out, cudaStream_t stream) {
  if (op == SharedOp::kLoad) {
    shared_load_kernel<kWidth><<<blocks, kStrideThreads, 0, stream>>>(stride, outer, seed, out);
    GP_CHECK_LAUNCH("shared_load_kernel");
  } else {
    shared_store_kernel<kWidth><<<blocks, kStrideThreads, 0, stream>>>(stride, outer, seed, out);
    GP_CHECK_LAUNCH("shared_store_kernel");
  }
}

// Asks for the largest shared-memory carveout, so the occupancy the API reports is the one the
// launch gets (one full wave of blocks), then returns the resident blocks per SM.
template <typename Kernel>
int blocks_per_sm_of(Kernel kernel) {
  GP_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                               cudaSharedmemCarveoutMaxShared));
  int blocks = 0;
  GP_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, kStrideThreads, 0));
  return blocks > 0 ? blocks : 1;
}

template <int kWidth>
int blocks_per_sm_width(SharedOp op) {
  return op == SharedOp::kLoad ? blocks_per_sm_of(shared_load_kernel<kWidth>)
                               : blocks_per_sm_of(shared_store_kernel<kWidth>);
}

void validate_width(int width_bytes) {
  if (width_bytes != 4 && width_bytes != 8 && width_bytes != 16)
    throw RunError("bank-conflicts: element width must be 4, 8 or 16 bytes");
}

}  // namespace

void launch_transpose(TransposeKernel kernel, const float* in, float* out, int n,
                      cudaStream_t stream) {
  const dim3 grid(static_cast<unsigned>(n / kTileDim), static_cast<unsigned>(n / kTileDim));
  const dim3 block(kTileDim, kBlockRows);
  switch (kernel) {
    case TransposeKernel::kCopy:
      copy_kernel<<<grid, block, 0, stream>>>(in, out, n);
      GP_CHECK_LAUNCH("copy_kernel");
      break;
    case TransposeKernel::kNaive:
      naive_transpose_kernel<<<grid, block, 0, stream>>>(in, out, n);
      GP_CHECK_LAUNCH("naive_transpose_kernel");
      break;
    case TransposeKernel::kTiled:
      tile_transpose_kernel<TileLayout::kPlain><<<grid, block, 0, stream>>>(in, out, n);
      GP_CHECK_LAUNCH("tile_transpose_kernel<plain>");
      break;
    case TransposeKernel::kPadded:
      tile_transpose_kernel<TileLayout::kPadded><<<grid, block, 0, stream>>>(in, out, n);
      GP_CHECK_LAUNCH("tile_transpose_kernel<padded>");
      break;
    case TransposeKernel::kSwizzled:
      tile_transpose_kernel<TileLayout::kSwizzled><<<grid, block, 0, stream>>>(in, out, n);
      GP_CHECK_LAUNCH("tile_transpose_kernel<swizzled>");
      break;
  }
}

Mismatches verify_transpose(const float* out, int n, std::uint32_t seed, cudaStream_t stream) {
  const runtime::MismatchCounter counter;
  constexpr unsigned kThreads = 256;
  const unsigned columns = (static_cast<unsigned>(n) + kThreads - 1) / kThreads;
  const unsigned rows = static_cast<unsigned>(n) < 1024u ? static_cast<unsigned>(n) : 1024u;
  verify_transpose_kernel<<<dim3(columns, rows), kThreads, 0, stream>>>(
      reinterpret_cast<const std::uint32_t*>(out), n, seed, counter.tally());
  GP_CHECK_LAUNCH("verify_transpose_kernel");
  return counter.read(stream);
}

int stride_blocks_per_sm(SharedOp op, int width_bytes) {
  validate_width(width_bytes);
  if (width_bytes == 4) return blocks_per_sm_width<4>(op);
  if (width_bytes == 8) return blocks_per_sm_width<8>(op);
  return blocks_per_sm_width<16>(op);
}

void launch_shared_stride(SharedOp op, int width_bytes, std::uint32_t stride, std::uint32_t outer,
                          std::uint32_t seed, int blocks, std::uint32_t* out, cudaStream_t stream) {
  validate_width(width_bytes);
  if (width_bytes == 4)
    launch_stride_width<4>(op, stride, outer, seed, blocks, out, stream);
  else if (width_bytes == 8)
    launch_stride_width<8>(op, stride, outer, seed, blocks, out, stream);
  else
    launch_stride_width<16>(op, stride, outer, seed, blocks, out, stream);
}

std::uint32_t expected_stride_output(SharedOp op, int width_bytes, std::uint32_t stride,
                                     std::uint32_t outer, std::uint32_t seed, std::uint32_t lane) {
  validate_width(width_bytes);
  const std::uint32_t per_element = static_cast<std::uint32_t>(width_bytes) / 4;
  const std::uint32_t first =
      models::stride_element_index(lane, stride, models::stride_capacity(width_bytes));
  // Sum of the words of element e, whose words hold seed + (word index).
  auto element_sum = [&](std::uint32_t e) {
    std::uint32_t s = 0;
    for (std::uint32_t k = 0; k < per_element; ++k)
      s += seed + e * per_element + k;
    return s;
  };
  if (op == SharedOp::kStore) return element_sum(first) + element_sum(first + kStrideUnroll);
  std::uint32_t step_sum[2] = {0, 0};
  for (std::uint32_t shift = 0; shift < 2; ++shift)
    for (std::uint32_t i = 0; i < static_cast<std::uint32_t>(kStrideUnroll); ++i)
      step_sum[shift] += element_sum(first + shift + i);
  const std::uint32_t even_steps = (outer + 1) / 2;
  const std::uint32_t odd_steps = outer / 2;
  return even_steps * step_sum[0] + odd_steps * step_sum[1];
}

Mismatches verify_stride_output(SharedOp op, int width_bytes, std::uint32_t stride,
                                std::uint32_t outer, std::uint32_t seed, const std::uint32_t* out,
                                std::size_t words, cudaStream_t stream) {
  std::vector<std::uint32_t> expected(models::kWarpSize);
  for (std::uint32_t lane = 0; lane < expected.size(); ++lane)
    expected[lane] = expected_stride_output(op, width_bytes, stride, outer, seed, lane);
  std::vector<std::uint32_t> got(words);
  GP_CUDA(cudaMemcpyAsync(got.data(), out, words * sizeof(std::uint32_t), cudaMemcpyDeviceToHost,
                          stream));
  GP_CUDA(cudaStreamSynchronize(stream));
  return find_mismatches(
      words, [&](std::uint64_t t) { return got[t] != expected[t % models::kWarpSize]; });
}

}  // namespace gpuprobe::bank
