// The runner: runs probes on devices. Per probe: settle after earlier frees, reset persisting
// L2, sample the SM clock around the run, echo the axes and the stopping rule, phrase the
// findings, and turn failures into results.
#pragma once

#include <string>
#include <vector>

#include "gpuprobe/core/axes.hpp"
#include "gpuprobe/core/glossary.hpp"
#include "gpuprobe/core/result.hpp"
#include "gpuprobe/probe.hpp"
#include "gpuprobe/runtime/context.hpp"

namespace gpuprobe::runner {

// The counter pass as the user asked for it.
struct CounterOptions {
  bool enabled = true;                     // --counters (default) / --no-counters
  std::vector<std::string> extra_metrics;  // --metrics, validated before any GPU work
};

// Runs one probe on one device with the parsed axis values: each operation is timed, then
// re-run in the counter pass (the probe's counter_metrics() and the extra metrics) unless
// counters are off or refused (the result then says why; timing stands). Never throws for probe
// failures (the result says failed/skipped with the reason); throws NoDeviceError if the device
// cannot be used at all.
ProbeResult run_probe(Probe& probe, const AxisValues& values, const DeviceInfo& device,
                      const runtime::MeasureOptions& options, const CounterOptions& counters,
                      const runtime::ProgressFn& progress, const Glossary& glossary);

// The plan of one probe: its sweep points without a GPU, params echoed, findings phrased.
ProbeResult plan_probe(const Probe& probe, const AxisValues& values, const Glossary& glossary);

}  // namespace gpuprobe::runner
