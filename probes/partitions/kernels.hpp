// Kernels of the `partitions` probe behind plain C++ calls: the stride sweep's stream read, the
// tiled transpose in row or diagonal block order, and the checks of both (device-side, against
// the input pattern through the shared address arithmetic of models/partitions_model.hpp).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "gpuprobe/runtime/pattern.hpp"

namespace gpuprobe::partitions {

// The stride sweep: `blocks` blocks of models::kStreamThreads threads; block b reads the
// kStreamsPerBlock streams of region block_region(b, blocks, mult), `steps` chunks each, at
// `stride`; thread t of the block writes each stream's fold to out[stream x kStreamThreads + t].
struct StreamLaunch {
  const std::uint32_t* in = nullptr;
  std::uint32_t* out = nullptr;  // streams x kStreamThreads words
  std::uint64_t stride = 0;
  std::uint64_t blocks = 0;
  std::uint64_t mult = 1;
  std::uint64_t steps = 0;
};
void launch_streams(const StreamLaunch& l, cudaStream_t stream);
// Blocks of the stream kernel resident per SM (cudaOccupancyMaxActiveBlocksPerMultiprocessor).
int stream_blocks_per_sm();
// Every fold against the one the pattern of `seed` gives (in is the pattern from word 0).
void check_streams(const StreamLaunch& l, std::uint32_t seed, runtime::MismatchTally tally,
                   cudaStream_t stream);

// The transpose of an n x n float matrix (n a multiple of models::kTile), out[c][r] = in[r][c].
void launch_transpose(const float* in, float* out, std::uint32_t n, bool diagonal,
                      cudaStream_t stream);
int transpose_blocks_per_sm();
// out[c][r] against pattern word r x n + c of `seed`.
void check_transpose(const float* out, std::uint32_t n, std::uint32_t seed,
                     runtime::MismatchTally tally, cudaStream_t stream);

}  // namespace gpuprobe::partitions
