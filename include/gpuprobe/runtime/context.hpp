// What a probe may use while it runs on one device: device facts, the harness, progress.
#pragma once

#include <cuda_runtime.h>

#include <functional>
#include <string>

#include "gpuprobe/core/result.hpp"
#include "gpuprobe/probe.hpp"
#include "gpuprobe/runtime/measure.hpp"

namespace gpuprobe::runtime {

// Called with a short label of the sweep point being measured ("pinned h2d 64 MiB").
using ProgressFn = std::function<void(const std::string& probe, std::size_t done, std::size_t total,
                                      const std::string& label)>;

class ProbeContext {
 public:
  ProbeContext(const DeviceInfo& device, const MeasureOptions& options, ProgressFn progress,
               std::string probe_name);

  const DeviceInfo& device() const { return device_; }
  // The harness's main stream (non-blocking); use it for set-up work around measurements.
  cudaStream_t stream() const { return measurer_.main_stream(); }
  // Times an operation under the run's stopping rule (see Measurer::measure).
  SampleSet measure(const Operation& op) { return measurer_.measure(op); }
  const MeasureOptions& options() const { return measurer_.options(); }
  void progress(std::size_t done, std::size_t total, const std::string& label) const;

 private:
  const DeviceInfo& device_;
  Measurer measurer_;
  ProgressFn progress_;
  std::string probe_name_;
};

// Runs one probe on one device: resets persisting L2, samples the SM clock before and after,
// and turns any failure into a result with status "failed" and the reason (never throws
// for probe failures; throws NoDeviceError if the device cannot be used at all).
ProbeResult run_probe(Probe& probe, const DeviceInfo& device, const MeasureOptions& options,
                      const ProgressFn& progress);

}  // namespace gpuprobe::runtime
