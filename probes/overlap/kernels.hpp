// The compute stage of the `overlap` probe: a kernel of tunable arithmetic per element, and the
// closed form the host verifies its output with.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>

namespace gpuprobe::overlap {

// One step of the transform: a 32-bit linear congruential step (Numerical Recipes' constants).
inline constexpr std::uint32_t kStepMul = 1664525u;
inline constexpr std::uint32_t kStepAdd = 1013904223u;

// `iterations` steps x -> kStepMul * x + kStepAdd (mod 2^32) compose to x -> mul * x + add.
struct Affine {
  std::uint32_t mul = 1;
  std::uint32_t add = 0;
  std::uint32_t operator()(std::uint32_t x) const { return mul * x + add; }
};
Affine composed_steps(std::uint32_t iterations);

// Enqueues out[i] = `iterations` steps applied to in[i] for i in [0, words) on the stream: each
// element read once, stepped in registers, written once. Checks the launch.
void launch_transform(const std::uint32_t* in, std::uint32_t* out, std::uint64_t words,
                      std::uint32_t iterations, cudaStream_t stream);

// The buffers of the pipeline: host_in -(H2D)-> dev_in -(kernel)-> dev_out -(D2H)-> host_out.
struct Buffers {
  const std::uint32_t* host_in = nullptr;
  std::uint32_t* host_out = nullptr;
  std::uint32_t* dev_in = nullptr;
  std::uint32_t* dev_out = nullptr;
  std::uint64_t words = 0;
  std::uint32_t iterations = 0;  // of the transform
};

enum class Stage { kH2D, kKernel, kD2H };
inline constexpr Stage kStages[] = {Stage::kH2D, Stage::kKernel, Stage::kD2H};

// How the chunks' stages are issued: each chunk's H2D, kernel, D2H before the next chunk's
// (depth-first), or every chunk's H2D, then every kernel, then every D2H (batched).
enum class Order { kDepthFirst, kBatched };

// Chunk `index` of `chunks` equal parts of the buffer's words (the last ones one word longer
// when they do not divide).
struct Chunk {
  std::uint64_t first = 0;
  std::uint64_t words = 0;
};
Chunk chunk_of(std::uint64_t words, std::size_t chunks, std::size_t index);

// Enqueues one stage of one chunk on the stream (cudaMemcpyAsync or the transform).
void enqueue_stage(const Buffers& b, Stage stage, Chunk chunk, cudaStream_t stream);

// Called before (end = false) and after (end = true) each stage is enqueued: the timeline's
// events.
using StageMark = std::function<void(std::size_t chunk, Stage stage, bool end, cudaStream_t)>;

// Enqueues the pipeline over `chunks` chunks, chunk i on streams[i % streams.size()], in `order`;
// `mark` (optional) around every stage.
void enqueue_pipeline(const Buffers& b, std::span<const cudaStream_t> streams, std::size_t chunks,
                      Order order, const StageMark& mark = {});

// Enqueues one stage over the whole buffer as `chunks` chunks back to back on one stream.
void enqueue_chunked_stage(const Buffers& b, Stage stage, std::size_t chunks, cudaStream_t stream);

}  // namespace gpuprobe::overlap
