// The measurement harness: probes describe re-runnable operations, the runtime times them.
#pragma once

#include <cuda_runtime.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "gpuprobe/core/samples.hpp"
#include "gpuprobe/core/stats.hpp"
#include "gpuprobe/runtime/gate.hpp"
#include "gpuprobe/runtime/l2.hpp"
#include "gpuprobe/runtime/stream.hpp"

namespace gpuprobe::runtime {

// How a batch is timed.
enum class Timing {
  kDeviceEvents,  // gated batch, CUDA events around it (asynchronous work)
  kHostClock,     // steady_clock around the calls + stream sync (implicitly synchronous work)
};

// One stream of work inside an operation. Lane 0 runs on the harness's main stream, lane i
// on its own stream; lanes run concurrently and each is timed from the common start.
struct Lane {
  std::string name;  // "h2d", "d2h", or the operation's name for single-lane operations
  double bytes = 0;  // bytes one repetition moves, as the probe counts them
  std::function<void(cudaStream_t)> launch;  // enqueue one repetition on the stream
};

// A re-runnable operation. The harness may run it any number of times (warm-up, samples,
// later counter replay passes) and expects the same work each time.
struct Operation {
  std::string label;                          // for progress and error messages
  std::function<void(cudaStream_t)> prepare;  // optional, untimed, once before warm-up
  std::vector<Lane> lanes;
  std::function<std::string()> verify;  // optional; "" = correct, else what is wrong
  Timing timing = Timing::kDeviceEvents;
  bool flush_l2 = false;  // flush L2 before every sample
};

struct MeasureOptions {
  StoppingRule rule;
  std::size_t warmup_batches = 1;
  double target_batch_seconds = 1e-3;  // batch repetitions until a sample lasts this long
  std::size_t max_batch = 256;         // at most this many repetitions per sample
};

// Thrown when an operation's verify() reports wrong data: the probe's result is failed.
class VerificationError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Measurer {
 public:
  Measurer(const MeasureOptions& options, std::size_t l2_bytes);
  ~Measurer();
  Measurer(const Measurer&) = delete;
  Measurer& operator=(const Measurer&) = delete;

  // Runs prepare, warm-up, the sample loop under the stopping rule, then verify.
  // Throws VerificationError on wrong data and RunError on CUDA failures.
  SampleSet measure(const Operation& op);

  cudaStream_t main_stream() const { return streams_.front()->get(); }
  const MeasureOptions& options() const { return options_; }

 private:
  struct BatchTimes {
    double total;               // seconds for the whole batch
    std::vector<double> lanes;  // seconds for each lane's batch
    bool gate_timed_out = false;
  };
  BatchTimes run_batch(const Operation& op, std::size_t reps, bool gated);
  BatchTimes run_device_batch(const Operation& op, std::size_t reps, bool gated);
  BatchTimes run_host_batch(const Operation& op, std::size_t reps);
  cudaStream_t stream(std::size_t lane);

  MeasureOptions options_;
  std::vector<std::unique_ptr<Stream>> streams_;
  std::vector<std::unique_ptr<Event>> lane_end_;
  Event start_;
  Event stop_;
  LaunchGate gate_;
  std::size_t l2_bytes_;
  std::unique_ptr<L2Flusher> flusher_;  // created on first use
};

}  // namespace gpuprobe::runtime
