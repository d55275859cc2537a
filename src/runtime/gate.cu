// The spin kernel behind LaunchGate and the host side that arms and releases it.
#include <atomic>

#include "global_timer.cuh"
#include "gpuprobe/runtime/cuda_check.hpp"
#include "gpuprobe/runtime/gate.hpp"

namespace gpuprobe::runtime {
namespace {

__global__ void spin_until_released(const volatile int* flag, volatile int* expired,
                                    unsigned long long timeout_ns) {
  const unsigned long long start = global_ns();
  while (*flag == 0) {
    if (global_ns() - start > timeout_ns) {
      *expired = 1;
      return;
    }
  }
}

}  // namespace

LaunchGate::LaunchGate(double timeout_seconds)
    : timeout_ns_(static_cast<unsigned long long>(timeout_seconds * 1e9)) {
  void* host = nullptr;
  GP_CUDA(cudaHostAlloc(&host, 2 * sizeof(int), cudaHostAllocMapped | cudaHostAllocPortable));
  flag_ = static_cast<volatile int*>(host);
  expired_ = flag_ + 1;
  flag_[0] = 0;
  expired_[0] = 0;
  void* dev = nullptr;
  const cudaError_t status = cudaHostGetDevicePointer(&dev, host, 0);
  if (status != cudaSuccess) {
    (void)cudaFreeHost(host);  // the constructor throws, so the destructor will not run
    GP_CUDA(status);
  }
  // With unified addressing (every 64-bit CUDA platform) this is the host address, valid on every
  // device: gates armed on other GPUs poll the same flag.
  flag_dev_ = static_cast<int*>(dev);
  expired_dev_ = flag_dev_ + 1;
}

LaunchGate::~LaunchGate() {
  (void)cudaFreeHost(const_cast<int*>(flag_));
}

void LaunchGate::arm(cudaStream_t stream) {
  *flag_ = 0;
  *expired_ = 0;
  std::atomic_thread_fence(std::memory_order_seq_cst);
  hold_also(stream);
}

void LaunchGate::hold_also(cudaStream_t stream) {
  spin_until_released<<<1, 1, 0, stream>>>(flag_dev_, expired_dev_, timeout_ns_);
  GP_CHECK_LAUNCH("spin_until_released<<<1,1>>>");
}

void LaunchGate::release() {
  std::atomic_thread_fence(std::memory_order_seq_cst);
  *flag_ = 1;
}

bool LaunchGate::timed_out() const {
  return *expired_ != 0;
}

}  // namespace gpuprobe::runtime
