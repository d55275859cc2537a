// What a probe may use while it runs on one device: device facts, the harness, progress.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gpuprobe/core/result.hpp"
#include "gpuprobe/core/round_request.hpp"
#include "gpuprobe/runtime/measure.hpp"

namespace gpuprobe::runtime {

// Called before each measurement with the probe, how many points were measured so far, how many
// the plan has, and the label of the point ("pinned h2d 64 MiB").
using ProgressFn = std::function<void(const std::string& probe, std::size_t done, std::size_t total,
                                      const std::string& label)>;

// One timed operation as the counter pass sees it: its label and the steps of one pass.
struct CounterPoint {
  std::string label;
  PassSteps steps;
};
// The counter pass the runner drives after a batch of operations was timed, never during: it
// encloses each point's `steps.run` in a counter range of its own, once per replay pass (reset
// and cache state before, verify after), and returns per point one Quantity per metric (null
// where a metric could not be read), or nullopt where counters were not collected.
using CounterPass = std::function<std::vector<std::optional<std::vector<Quantity>>>(
    const std::vector<CounterPoint>& points)>;

// Measures one round of a batch in a child process of its own and returns its answer (the runner
// spawns `gpuprobe __round`); empty where rounds cannot leave the process (no gpuprobe binary, as
// in the GPU tests).
using RoundProcess = std::function<RoundAnswer(const RoundRequest&)>;

class ProbeContext {
 public:
  ProbeContext(const DeviceInfo& device, const MeasureOptions& options, ProgressFn progress,
               std::string probe_name, std::size_t planned_points, CounterPass counter_pass = {},
               RoundProcess round_process = {});

  const DeviceInfo& device() const { return device_; }
  // The devices a host-scoped probe (ProbeScope::kHost) spans: the run's whole device selection,
  // the harness's device() first. A device-scoped probe sees only its own device here.
  const std::vector<int>& devices() const { return devices_; }
  void set_devices(std::vector<int> devices) { devices_ = std::move(devices); }
  // The harness's main stream (non-blocking); use it for set-up work around measurements.
  cudaStream_t stream() const { return measurer_.main_stream(); }
  // Times the operations in rounds (MeasureOptions::rounds): each round visits every operation
  // once, in an order shuffled from the seed, and takes its share of the stopping rule
  // (Measurer::measure_round); the samples carry their round. Then it runs the counter pass
  // over all of them when there is one (SampleSet::counters): timing is
  // never interleaved with counter collection, and the profiler's set-up is paid once per batch,
  // not per point. Reports progress (one point per operation, counted against the plan) and
  // tears the operations down at the end. The operations must stay runnable until it returns
  // (their buffers alive); each is prepared again before its counter ranges, since later
  // operations may share its buffers. Timing and counter ranges run inside the NVTX ranges
  // gpuprobe / <probe> / <op.label>, so `ncu --nvtx --nvtx-include "gpuprobe/<probe>/<label>/"`
  // or nsys can be scoped to one point.
  std::vector<SampleSet> measure_all(const std::vector<Operation>& ops);
  // measure_all, but each round in a child process of its own (a fresh CUDA context, driver
  // state and host memory): for points whose speed holds one level per process, which rounds
  // within one process cannot see (docs/method.md, "Rounds in processes"). `keys[i]` names
  // ops[i] in the sweep of `values` so that the probe's measure_keys() makes it again in the
  // child (SweepProbe does both). The counter pass and
  // verification stay here as in measure_all. Falls back to measure_all with one round, in a
  // round process, or without a RoundProcess. Throws VerificationError when a child found
  // wrong data, RunError when one failed. `least_rounds`: where rounds run in processes at all,
  // at least that many (points whose processes draw one of two levels need more processes than
  // the run's rounds for a stable median: peer's small copies).
  std::vector<SampleSet> measure_all_in_processes(const std::vector<Operation>& ops,
                                                  const std::vector<std::string>& keys,
                                                  const AxisValues& values,
                                                  std::size_t least_rounds = 0);
  // In a round process: the samples of the earlier rounds, per operation of the next batch in
  // order, so that this round's stopping rule judges them too, as in one process.
  void carry_on_from(std::vector<SampleSet> earlier) { earlier_ = std::move(earlier); }
  // How many rounds ran in child processes so far (a result condition).
  std::size_t round_processes() const { return round_processes_; }
  // measure_all of one operation.
  SampleSet measure(const Operation& op);
  const MeasureOptions& options() const { return measurer_.options(); }

 private:
  std::vector<SampleSet> time_in_rounds(const std::vector<Operation>& ops);
  std::vector<SampleSet> time_in_processes(const std::vector<Operation>& ops,
                                           const std::vector<std::string>& keys,
                                           const AxisValues& values, std::size_t rounds);
  void add_counters(const std::vector<Operation>& ops, std::vector<SampleSet>& out);

  const DeviceInfo& device_;
  std::vector<int> devices_{device_.index};
  Measurer measurer_;
  ProgressFn progress_;
  CounterPass counter_pass_;
  RoundProcess round_process_;
  std::size_t round_processes_ = 0;
  std::vector<SampleSet> earlier_;
  std::string probe_name_;
  std::size_t planned_ = 0;
  std::size_t done_ = 0;       // rounds of points measured so far
  std::uint64_t batches_ = 0;  // measure_all calls so far: each batch shuffles differently
};

}  // namespace gpuprobe::runtime
