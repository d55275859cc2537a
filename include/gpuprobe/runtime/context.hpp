// What a probe may use while it runs on one device: device facts, the harness, progress.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "gpuprobe/core/result.hpp"
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

class ProbeContext {
 public:
  ProbeContext(const DeviceInfo& device, const MeasureOptions& options, ProgressFn progress,
               std::string probe_name, std::size_t planned_points, CounterPass counter_pass = {});

  const DeviceInfo& device() const { return device_; }
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
  // measure_all of one operation.
  SampleSet measure(const Operation& op);
  const MeasureOptions& options() const { return measurer_.options(); }

 private:
  std::vector<SampleSet> time_in_rounds(const std::vector<Operation>& ops);

  const DeviceInfo& device_;
  Measurer measurer_;
  ProgressFn progress_;
  CounterPass counter_pass_;
  std::string probe_name_;
  std::size_t planned_ = 0;
  std::size_t done_ = 0;       // rounds of points measured so far
  std::uint64_t batches_ = 0;  // measure_all calls so far: each batch shuffles differently
};

}  // namespace gpuprobe::runtime
