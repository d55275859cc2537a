// L2 flush buffer and persisting-L2 reset.
#include "gpuprobe/runtime/l2.hpp"

#include "gpuprobe/runtime/cuda_check.hpp"

namespace gpuprobe::runtime {

L2Flusher::L2Flusher(std::size_t l2_bytes) : buffer_(2 * (l2_bytes > 0 ? l2_bytes : (4u << 20))) {}

void L2Flusher::flush(cudaStream_t stream) {
  ++value_;
  GP_CUDA(cudaMemsetAsync(buffer_.get(), value_, buffer_.bytes(), stream));
}

void reset_persisting_l2(std::size_t persisting_l2_max_bytes) {
  if (persisting_l2_max_bytes == 0) return;
  GP_CUDA(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 0));
  GP_CUDA(cudaCtxResetPersistingL2Cache());
}

void reset_persisting_lines(std::size_t persisting_l2_max_bytes) {
  if (persisting_l2_max_bytes == 0) return;
  GP_CUDA(cudaCtxResetPersistingL2Cache());
}

}  // namespace gpuprobe::runtime
