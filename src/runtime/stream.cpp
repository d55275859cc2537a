// RAII CUDA streams and timing events.
#include "gpuprobe/runtime/stream.hpp"

#include "gpuprobe/runtime/cuda_check.hpp"

namespace gpuprobe::runtime {

Stream::Stream() {
  GP_CUDA(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
}
Stream::~Stream() {
  (void)cudaStreamDestroy(stream_);
}
void Stream::synchronize() const {
  GP_CUDA(cudaStreamSynchronize(stream_));
}

Event::Event(bool timing) {
  GP_CUDA(cudaEventCreateWithFlags(&event_, timing ? cudaEventDefault : cudaEventDisableTiming));
}
Event::~Event() {
  (void)cudaEventDestroy(event_);
}
void Event::record(cudaStream_t stream) const {
  GP_CUDA(cudaEventRecord(event_, stream));
}
void Event::synchronize() const {
  GP_CUDA(cudaEventSynchronize(event_));
}

double Event::seconds_since(const Event& start) const {
  float ms = 0;
  GP_CUDA(cudaEventElapsedTime(&ms, start.event_, event_));
  return static_cast<double>(ms) * 1e-3;
}

}  // namespace gpuprobe::runtime
