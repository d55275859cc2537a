// RAII peer access between GPUs (peer_access.hpp).
#include "gpuprobe/runtime/peer_access.hpp"

#include <cuda_runtime.h>

#include "gpuprobe/core/pair_matrix.hpp"
#include "gpuprobe/runtime/cuda_check.hpp"
#include "gpuprobe/runtime/device.hpp"

namespace gpuprobe::runtime {

PeerAccess::PeerAccess(const std::vector<int>& devices) {
  for (const auto& [a, b] : ordered_pairs(devices)) {
    int can = 0;
    GP_CUDA(cudaDeviceCanAccessPeer(&can, a, b));
    if (!can) continue;
    can_.insert({a, b});
    const DeviceGuard guard(a);
    const cudaError_t status = cudaDeviceEnablePeerAccess(b, 0);
    if (status == cudaErrorPeerAccessAlreadyEnabled) {
      (void)cudaGetLastError();
      found_on_.insert({a, b});
    } else {
      GP_CUDA(status);
    }
    on_.insert({a, b});
  }
}

PeerAccess::~PeerAccess() {
  // Best effort, and never a throw out of a destructor (std::terminate, maybe while a probe's
  // error unwinds): DeviceGuard checks cudaSetDevice, which returns a sticky fault of the GPU.
  for (const GpuPair& pair : can_) {
    const bool want = found_on_.count(pair) > 0;
    if ((on_.count(pair) > 0) == want) continue;
    try {
      const DeviceGuard guard(pair.first);
      (void)(want ? cudaDeviceEnablePeerAccess(pair.second, 0)
                  : cudaDeviceDisablePeerAccess(pair.second));
    } catch (...) {  // the GPU is gone or faulted: its peer access no longer matters
    }
  }
}

void PeerAccess::require(const std::set<GpuPair>& off) {
  for (const GpuPair& pair : can_)
    set(pair, off.count(pair) == 0);
}

void PeerAccess::set(const GpuPair& pair, bool on) {
  if ((on_.count(pair) > 0) == on) return;
  const DeviceGuard guard(pair.first);
  GP_CUDA(on ? cudaDeviceEnablePeerAccess(pair.second, 0)
             : cudaDeviceDisablePeerAccess(pair.second));
  if (on) {
    on_.insert(pair);
  } else {
    on_.erase(pair);
  }
}

}  // namespace gpuprobe::runtime
