// The measurement harness: probes describe re-runnable operations, the runtime times them.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
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
  // Rounds per batch of operations (ProbeContext::measure_all): each round takes the rule's
  // share of every operation's samples, the operations in a shuffled order, so a slow stretch
  // of the machine touches a share of each point instead of all of a few (docs/method.md).
  std::size_t rounds = 1;
  std::uint64_t seed = 0;  // seeds the shuffles; the runner records it in each result
  // In a round process (`gpuprobe __round`, docs/method.md): the one round it measures, and the
  // parent's batch index, so the round visits the points in the parent's order for it.
  std::optional<std::uint32_t> only_round;
  std::uint64_t first_batch = 0;
  // The gpuprobe binary that measures a round in a child process (`__round`); empty: every round
  // stays in this process (the GPU tests, which are not gpuprobe).
  std::string round_executable;
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

  // One operation measured over several rounds: what carries from one round to the next.
  struct RoundState {
    std::size_t reps = 0;  // repetitions per sample, calibrated in the first round
    SampleSet samples;
    bool gate_timeouts = false;
  };
  // One round of an operation: prepare (operations may share buffers), calibration and
  // warm-up batches in its first round (one warm-up batch later), then samples under `rule`
  // (this round's share, StoppingRule::share), recorded as round `round`; in its `last` round,
  // verify right after the samples, before other operations reuse the buffers. Throws
  // VerificationError on wrong data.
  void measure_round(const Operation& op, RoundState& state, std::uint32_t round,
                     const StoppingRule& rule, bool last);
  // After an operation's last round: its samples with their flags: noisy (the median over all
  // samples not known to within the rule's max_noise), gate-timeout.
  SampleSet finish(const Operation& op, RoundState&& state);

  // The steps of one pass of `op` (prepare and reset_pass, cache state, one repetition of every
  // lane and a
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
  void calibrate(const Operation& op, RoundState& state);
  BatchTimes run_device_batch(const Operation& op, std::size_t reps, bool gated);
  BatchTimes run_host_batch(const Operation& op, std::size_t reps);
  // A lane's stream, events and fork pool on a GPU other than the harness's.
  struct RemoteLane {
    int device = 0;
    std::unique_ptr<Stream> stream;
    std::unique_ptr<Event> start, end;
    LaunchScope::Pool pool;
  };
  cudaStream_t stream(std::size_t lane);
  bool is_remote(const Lane& lane) const { return lane.device >= 0 && lane.device != home_; }
  RemoteLane& remote(std::size_t lane, int device);  // created on first use
  // Lane i's stream: the harness's stream of that lane, or its stream on its own GPU.
  cudaStream_t lane_stream(const Operation& op, std::size_t i);
  // The harness device's lane streams (created as needed): where persisting windows apply.
  std::vector<cudaStream_t> lane_streams(const Operation& op);
  // Enqueues one repetition of lane i on its stream, joining whatever it forked.
  void launch_lane(const Operation& op, std::size_t i);
  // Gated batches with lanes on other GPUs: gates and start events on the remote lanes (the
  // harness's gate armed already), and after the batch their end events and times.
  void start_remote_lanes(const Operation& op, LaunchGate* gate);
  void end_remote_lanes(const Operation& op);
  void remote_lane_times(const Operation& op, BatchTimes& t);
  // Puts the caches in the operation's state, on the main stream.
  void apply_cache(const Operation& op);

  MeasureOptions options_;
  std::vector<std::unique_ptr<Stream>> streams_;
  std::vector<std::unique_ptr<Event>> lane_end_;
  // Batches with lanes on other GPUs: the start of each harness-device lane after the first,
  // recorded behind a gate of its own on its stream.
  std::vector<std::unique_ptr<Event>> lane_start_;
  Event start_;
  Event stop_;
  LaunchGate gate_;
  std::vector<LaunchScope::Pool> pools_;  // per lane: the further streams a launch may fork
  std::size_t l2_bytes_;
  std::size_t persisting_l2_max_bytes_;
  int home_ = 0;                                              // the harness's device
  std::map<std::pair<std::size_t, int>, RemoteLane> remote_;  // by (lane, device)
  // The gate of batches with remote lanes, made once their GPUs have contexts, so its flag is
  // mapped into every one of them.
  std::unique_ptr<LaunchGate> wide_gate_;
  std::unique_ptr<L2Flusher> flusher_;  // created on first use
};

}  // namespace gpuprobe::runtime
