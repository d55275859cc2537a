// The `partitions` kernels: the stream read of the stride sweep (kStreamsPerBlock loads in
// flight per thread, one chunk of each stream per step), the SDK's tiled transpose in row and
// diagonal block order, and their device-side checks.
#include "gpuprobe/models/partitions_model.hpp"
#include "gpuprobe/runtime/cuda_check.hpp"
#include "kernels.hpp"

namespace gpuprobe::partitions {
namespace {

using models::kStreamsPerBlock;
using models::kStreamThreads;
using models::kTile;
using models::kTileRows;

__global__ void __launch_bounds__(kStreamThreads)
    stream_kernel(const std::uint32_t* __restrict__ in, std::uint32_t* __restrict__ out,
                  std::uint64_t stride, std::uint64_t blocks, std::uint64_t mult,
                  std::uint64_t steps) {
  const std::uint64_t region = models::block_region(blockIdx.x, blocks, mult);
  const std::uint64_t streams = blocks * kStreamsPerBlock;
  const std::uint32_t t = threadIdx.x;
  std::uint32_t acc[kStreamsPerBlock] = {};
  models::StreamPos p;
  for (std::uint64_t i = 0; i < steps; ++i, models::next_pos(p, stride)) {
    std::uint32_t v[kStreamsPerBlock];
#pragma unroll
    for (int u = 0; u < kStreamsPerBlock; ++u)
      v[u] = in[models::stream_word(region * kStreamsPerBlock + u, p, t, stride, streams)];
#pragma unroll
    for (int u = 0; u < kStreamsPerBlock; ++u)
      acc[u] = models::stream_fold(acc[u], v[u]);
  }
#pragma unroll
  for (int u = 0; u < kStreamsPerBlock; ++u)
    out[(region * kStreamsPerBlock + u) * kStreamThreads + t] = acc[u];
}

// One thread per (stream, t): the fold the pattern gives, against out.
__global__ void check_stream_kernel(const std::uint32_t* out, std::uint64_t stride,
                                    std::uint64_t streams, std::uint64_t steps, std::uint32_t seed,
                                    runtime::MismatchTally tally) {
  runtime::ThreadMismatches local;
  const std::uint64_t n = streams * kStreamThreads;
  for (std::uint64_t j = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; j < n;
       j += std::uint64_t{gridDim.x} * blockDim.x) {
    const std::uint64_t k = j / kStreamThreads;
    const auto t = static_cast<std::uint32_t>(j % kStreamThreads);
    std::uint32_t acc = 0;
    models::StreamPos p;
    for (std::uint64_t i = 0; i < steps; ++i, models::next_pos(p, stride))
      acc = models::stream_fold(
          acc, runtime::pattern_word(models::stream_word(k, p, t, stride, streams), seed));
    local.note(out[j] != acc, j);
  }
  tally.add(local);
}

__global__ void __launch_bounds__(kTile* kTileRows)
    transpose_kernel(const float* __restrict__ in, float* __restrict__ out, std::uint32_t n,
                     bool diagonal) {
  __shared__ float tile[kTile][kTile + 1];
  const models::TileXY b = models::transpose_tile(blockIdx.x, blockIdx.y, gridDim.x, diagonal);
  const std::uint64_t col = std::uint64_t{b.x} * kTile + threadIdx.x;
  const std::uint64_t row = std::uint64_t{b.y} * kTile + threadIdx.y;
#pragma unroll
  for (int i = 0; i < kTile; i += kTileRows)
    tile[threadIdx.y + i][threadIdx.x] = in[(row + i) * n + col];
  __syncthreads();
  const std::uint64_t ocol = std::uint64_t{b.y} * kTile + threadIdx.x;
  const std::uint64_t orow = std::uint64_t{b.x} * kTile + threadIdx.y;
#pragma unroll
  for (int i = 0; i < kTile; i += kTileRows)
    out[(orow + i) * n + ocol] = tile[threadIdx.x][threadIdx.y + i];
}

__global__ void check_transpose_kernel(const float* out, std::uint32_t n, std::uint32_t seed,
                                       runtime::MismatchTally tally) {
  runtime::ThreadMismatches local;
  const std::uint64_t total = std::uint64_t{n} * n;
  for (std::uint64_t j = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; j < total;
       j += std::uint64_t{gridDim.x} * blockDim.x) {
    const std::uint64_t r = j / n, c = j % n;  // out[r][c] = in[c][r]
    local.note(__float_as_uint(out[j]) != runtime::pattern_word(c * n + r, seed), j);
  }
  tally.add(local);
}

constexpr unsigned kCheckBlocks = 1024, kCheckThreads = 256;

}  // namespace

void launch_streams(const StreamLaunch& l, cudaStream_t stream) {
  stream_kernel<<<static_cast<unsigned>(l.blocks), kStreamThreads, 0, stream>>>(
      l.in, l.out, l.stride, l.blocks, l.mult, l.steps);
  GP_CHECK_LAUNCH("partitions stream_kernel");
}

int stream_blocks_per_sm() {
  int blocks = 0;
  GP_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, stream_kernel, kStreamThreads, 0));
  return blocks;
}

void check_streams(const StreamLaunch& l, std::uint32_t seed, runtime::MismatchTally tally,
                   cudaStream_t stream) {
  check_stream_kernel<<<kCheckBlocks, kCheckThreads, 0, stream>>>(
      l.out, l.stride, l.blocks * kStreamsPerBlock, l.steps, seed, tally);
  GP_CHECK_LAUNCH("partitions check_stream_kernel");
}

void launch_transpose(const float* in, float* out, std::uint32_t n, bool diagonal,
                      cudaStream_t stream) {
  const dim3 grid(n / kTile, n / kTile), block(kTile, kTileRows);
  transpose_kernel<<<grid, block, 0, stream>>>(in, out, n, diagonal);
  GP_CHECK_LAUNCH("partitions transpose_kernel");
}

int transpose_blocks_per_sm() {
  int blocks = 0;
  GP_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, transpose_kernel,
                                                        kTile * kTileRows, 0));
  return blocks;
}

void check_transpose(const float* out, std::uint32_t n, std::uint32_t seed,
                     runtime::MismatchTally tally, cudaStream_t stream) {
  check_transpose_kernel<<<kCheckBlocks, kCheckThreads, 0, stream>>>(out, n, seed, tally);
  GP_CHECK_LAUNCH("partitions check_transpose_kernel");
}

}  // namespace gpuprobe::partitions
