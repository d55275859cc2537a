// Launch gating: a spin kernel holds a stream until the host has enqueued a whole batch.
#pragma once

#include <cuda_runtime.h>

namespace gpuprobe::runtime {

// While armed, the stream runs a one-thread kernel that spins until the host releases it
// (or until the timeout passes, so a gate can never hang). Work enqueued behind it starts
// only after release, so host enqueue cost stays out of the timed window. Never put an
// implicitly synchronous call (pageable copy, cudaFree) behind an armed gate.
class LaunchGate {
 public:
  explicit LaunchGate(double timeout_seconds = 1.0);
  ~LaunchGate();
  LaunchGate(const LaunchGate&) = delete;
  LaunchGate& operator=(const LaunchGate&) = delete;

  // Holds `stream` (a stream of the current device) behind a spin kernel. Arm several streams,
  // of one GPU or several, before one release() to hold them all: the flag is host memory mapped
  // into every device (portable), so one write releases every gate.
  void arm(cudaStream_t stream);
  void release();
  // True if the last armed gate gave up waiting before release (enqueue took too long:
  // that batch's timing includes enqueue time). Valid after the stream has synchronised.
  bool timed_out() const;

 private:
  volatile int* flag_ = nullptr;     // mapped pinned: host writes 1 to release
  volatile int* expired_ = nullptr;  // mapped pinned: kernel writes 1 on timeout
  int* flag_dev_ = nullptr;
  int* expired_dev_ = nullptr;
  unsigned long long timeout_ns_;
};

}  // namespace gpuprobe::runtime
