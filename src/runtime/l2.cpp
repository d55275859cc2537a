// L2 flush (a read sweep of twice the L2) and persisting-L2 reset.
#include "gpuprobe/runtime/l2.hpp"

#include "gpuprobe/core/errors.hpp"
#include "gpuprobe/runtime/cuda_check.hpp"

namespace gpuprobe::runtime {

L2Flusher::L2Flusher(std::size_t l2_bytes)
    : buffer_(2 * (l2_bytes > 0 ? l2_bytes : (4u << 20))), sink_(sizeof(std::uint32_t)) {
  // Defined contents once (the sweep reads them); the lines this leaves dirty are written back
  // by the first flush.
  GP_CUDA(cudaMemset(buffer_.get(), 0x5a, buffer_.bytes()));
}

void L2Flusher::flush(cudaStream_t stream) {
  launch_l2_sweep(buffer_.get(), buffer_.bytes(), static_cast<std::uint32_t*>(sink_.get()), stream);
}

void reset_persisting_l2(std::size_t persisting_l2_max_bytes) {
  if (persisting_l2_max_bytes == 0) return;
  GP_CUDA(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 0));
  GP_CUDA(cudaCtxResetPersistingL2Cache());
}

std::size_t persisting_l2_limit(std::size_t persisting_l2_max_bytes) {
  if (persisting_l2_max_bytes == 0) return 0;
  std::size_t limit = 0;
  GP_CUDA(cudaDeviceGetLimit(&limit, cudaLimitPersistingL2CacheSize));
  return limit;
}

namespace {

void set_window(cudaStream_t stream, const cudaAccessPolicyWindow& window) {
  cudaStreamAttrValue value{};
  value.accessPolicyWindow = window;
  GP_CUDA(cudaStreamSetAttribute(stream, cudaStreamAttributeAccessPolicyWindow, &value));
}

}  // namespace

PersistingScope::PersistingScope(const std::optional<PersistingL2>& setting,
                                 const std::vector<cudaStream_t>& streams,
                                 std::size_t persisting_l2_max_bytes) {
  if (!setting) return;
  if (persisting_l2_max_bytes == 0)
    throw UnsupportedError("this GPU has no persisting L2 (needs compute capability 8.0 or newer)");
  streams_ = streams;  // from here on restore() undoes what was set, also after a throw below
  try {
    GP_CUDA(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, setting->set_aside_bytes));
    cudaAccessPolicyWindow window{};
    window.base_ptr = setting->window_base;
    window.num_bytes = setting->window_bytes;
    window.hitRatio = setting->hit_ratio;
    window.hitProp = setting->hit;
    window.missProp = setting->miss;
    for (cudaStream_t s : streams_)
      set_window(s, window);
  } catch (...) {
    restore();
    throw;
  }
}

PersistingScope::~PersistingScope() {
  restore();
}

void PersistingScope::restore() noexcept {
  if (streams_.empty()) return;
  // Best effort: a destructor must not throw; a failure here surfaces at the next checked call.
  cudaStreamAttrValue none{};
  none.accessPolicyWindow.num_bytes = 0;
  for (cudaStream_t s : streams_) {
    (void)cudaStreamSynchronize(s);
    (void)cudaStreamSetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &none);
  }
  (void)cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 0);
  (void)cudaCtxResetPersistingL2Cache();
  streams_.clear();
}

cudaAccessPolicyWindow stream_window(cudaStream_t stream) {
  cudaStreamAttrValue value{};
  GP_CUDA(cudaStreamGetAttribute(stream, cudaStreamAttributeAccessPolicyWindow, &value));
  return value.accessPolicyWindow;
}

void reset_persisting_lines(std::size_t persisting_l2_max_bytes) {
  if (persisting_l2_max_bytes == 0) return;
  GP_CUDA(cudaCtxResetPersistingL2Cache());
}

}  // namespace gpuprobe::runtime
