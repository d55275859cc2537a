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

// The counter pass the runner drives after an operation was timed, never during: it encloses
// `steps.run` in a counter range named `range` once per replay pass (reset and cache state
// before, verify after) and returns the values, one Quantity per metric (null where a metric
// could not be read). nullopt: counters are not collected for this point.
using CounterPass = std::function<std::optional<std::vector<Quantity>>(const std::string& range,
                                                                       const PassSteps& steps)>;

class ProbeContext {
 public:
  ProbeContext(const DeviceInfo& device, const MeasureOptions& options, ProgressFn progress,
               std::string probe_name, std::size_t planned_points, CounterPass counter_pass = {});

  const DeviceInfo& device() const { return device_; }
  // The harness's main stream (non-blocking); use it for set-up work around measurements.
  cudaStream_t stream() const { return measurer_.main_stream(); }
  // Times an operation under the run's stopping rule (see Measurer::measure), then runs the
  // counter pass when there is one (SampleSet::counters), reports progress (one point per call,
  // counted against the plan) and tears the operation down afterwards. Both run inside the NVTX
  // ranges gpuprobe / <probe> / <op.label>, so `ncu --nvtx --nvtx-include
  // "gpuprobe/<probe>/<label>/"` or nsys can be scoped to one point.
  SampleSet measure(const Operation& op);
  // Re-runs an operation `passes` times with its per-pass reset (see Measurer::run_passes).
  std::vector<std::string> run_passes(const Operation& op, std::size_t passes,
                                      const PassWrapper& wrap = {});
  const MeasureOptions& options() const { return measurer_.options(); }

 private:
  const DeviceInfo& device_;
  Measurer measurer_;
  ProgressFn progress_;
  CounterPass counter_pass_;
  std::string probe_name_;
  std::size_t planned_ = 0;
  std::size_t done_ = 0;
};

}  // namespace gpuprobe::runtime
