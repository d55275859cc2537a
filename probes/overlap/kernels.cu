// The transform kernel of the `overlap` probe: a chain of integer multiply-adds per element.
#include "gpuprobe/runtime/cuda_check.hpp"
#include "kernels.hpp"

namespace gpuprobe::overlap {
namespace {

constexpr int kThreads = 256;

__global__ void transform(const std::uint32_t* __restrict__ in, std::uint32_t* __restrict__ out,
                          std::uint64_t words, std::uint32_t iterations) {
  const std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= words) return;
  std::uint32_t x = in[i];
  for (std::uint32_t k = 0; k < iterations; ++k)
    x = x * kStepMul + kStepAdd;
  out[i] = x;
}

}  // namespace

Affine composed_steps(std::uint32_t iterations) {
  Affine a;
  for (std::uint32_t k = 0; k < iterations; ++k) {
    a.mul *= kStepMul;
    a.add = a.add * kStepMul + kStepAdd;
  }
  return a;
}

void launch_transform(const std::uint32_t* in, std::uint32_t* out, std::uint64_t words,
                      std::uint32_t iterations, cudaStream_t stream) {
  if (words == 0) return;
  const auto blocks = static_cast<unsigned>((words + kThreads - 1) / kThreads);
  transform<<<blocks, kThreads, 0, stream>>>(in, out, words, iterations);
  GP_CHECK_LAUNCH("overlap transform");
}

Chunk chunk_of(std::uint64_t words, std::size_t chunks, std::size_t index) {
  const std::uint64_t first = words * index / chunks;
  const std::uint64_t end = words * (index + 1) / chunks;
  return {first, end - first};
}

void enqueue_stage(const Buffers& b, Stage stage, Chunk chunk, cudaStream_t stream) {
  const std::size_t bytes = chunk.words * sizeof(std::uint32_t);
  switch (stage) {
    case Stage::kH2D:
      GP_CUDA(cudaMemcpyAsync(b.dev_in + chunk.first, b.host_in + chunk.first, bytes,
                              cudaMemcpyHostToDevice, stream));
      break;
    case Stage::kKernel:
      launch_transform(b.dev_in + chunk.first, b.dev_out + chunk.first, chunk.words, b.iterations,
                       stream);
      break;
    case Stage::kD2H:
      GP_CUDA(cudaMemcpyAsync(b.host_out + chunk.first, b.dev_out + chunk.first, bytes,
                              cudaMemcpyDeviceToHost, stream));
      break;
  }
}

void enqueue_pipeline(const Buffers& b, std::span<const cudaStream_t> streams, std::size_t chunks,
                      Order order, const StageMark& mark) {
  const auto one = [&](std::size_t i, Stage stage) {
    cudaStream_t s = streams[i % streams.size()];
    if (mark) mark(i, stage, false, s);
    enqueue_stage(b, stage, chunk_of(b.words, chunks, i), s);
    if (mark) mark(i, stage, true, s);
  };
  if (order == Order::kDepthFirst) {
    for (std::size_t i = 0; i < chunks; ++i)
      for (const Stage stage : kStages)
        one(i, stage);
  } else {
    for (const Stage stage : kStages)
      for (std::size_t i = 0; i < chunks; ++i)
        one(i, stage);
  }
}

void enqueue_chunked_stage(const Buffers& b, Stage stage, std::size_t chunks, cudaStream_t stream) {
  for (std::size_t i = 0; i < chunks; ++i)
    enqueue_stage(b, stage, chunk_of(b.words, chunks, i), stream);
}

}  // namespace gpuprobe::overlap
