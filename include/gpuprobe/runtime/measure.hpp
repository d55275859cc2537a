// The measurement harness: probes describe re-runnable operations, the runtime times them.
#pragma once

#include <cuda_runtime.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "gpuprobe/core/passes.hpp"
#include "gpuprobe/core/samples.hpp"
#include "gpuprobe/core/stats.hpp"
#include "gpuprobe/runtime/gate.hpp"
#include "gpuprobe/runtime/l2.hpp"
#include "gpuprobe/runtime/operation.hpp"
#include "gpuprobe/runtime/stream.hpp"

namespace gpuprobe::runtime {

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
  Measurer(const MeasureOptions& options, std::size_t l2_bytes,
           std::size_t persisting_l2_max_bytes);
  ~Measurer();
  Measurer(const Measurer&) = delete;
  Measurer& operator=(const Measurer&) = delete;

  // Runs prepare, warm-up, the sample loop under the stopping rule, then verify.
  // Throws VerificationError on wrong data and RunError on CUDA failures.
  SampleSet measure(const Operation& op);

  // Re-runs the operation `passes` times, ungated and untimed: reset_pass, cache state, one
  // repetition of every lane, wait, verify. Returns what verify said after each pass ("" when
  // right). `wrap` lets a driver (the counter collector) enclose each pass. The operation must
  // have been prepared (measure() did, or call prepare() first).
  std::vector<std::string> run_passes(const Operation& op, std::size_t passes,
                                      const PassWrapper& wrap = {});
  // The steps of one pass of `op` (reset_pass, cache state, one repetition of every lane and a
  // wait, verify), for a driver that must put its own calls between them (the counter pass
  // encloses only `run` in its range). They refer to `op` and this Measurer: use them while both
  // live.
  PassSteps pass_steps(const Operation& op);
  // Runs the operation's prepare step and waits for it.
  void prepare(const Operation& op);

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
  // Enqueues one repetition of lane i on its stream, joining whatever it forked.
  void launch_lane(const Operation& op, std::size_t i);
  // Puts the caches in the operation's state, on the main stream.
  void apply_cache(const Operation& op);

  MeasureOptions options_;
  std::vector<std::unique_ptr<Stream>> streams_;
  std::vector<std::unique_ptr<Event>> lane_end_;
  Event start_;
  Event stop_;
  LaunchGate gate_;
  std::vector<LaunchScope::Pool> pools_;  // per lane: the further streams a launch may fork
  std::size_t l2_bytes_;
  std::size_t persisting_l2_max_bytes_;
  std::unique_ptr<L2Flusher> flusher_;  // created on first use
};

}  // namespace gpuprobe::runtime
