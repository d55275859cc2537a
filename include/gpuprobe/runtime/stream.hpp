// RAII CUDA streams and events.
#pragma once

#include <cuda_runtime.h>

namespace gpuprobe::runtime {

// A non-blocking stream (never synchronises with the legacy default stream).
class Stream {
 public:
  Stream();
  ~Stream();
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  cudaStream_t get() const { return stream_; }
  void synchronize() const;

 private:
  cudaStream_t stream_ = nullptr;
};

// An event; with timing enabled unless asked otherwise (ordering-only events are cheaper).
class Event {
 public:
  explicit Event(bool timing = true);
  ~Event();
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  cudaEvent_t get() const { return event_; }
  void record(cudaStream_t stream) const;
  void synchronize() const;
  // Seconds from `start` to this event (both recorded and complete).
  double seconds_since(const Event& start) const;

 private:
  cudaEvent_t event_ = nullptr;
};

}  // namespace gpuprobe::runtime
