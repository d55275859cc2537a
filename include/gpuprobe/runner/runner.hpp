// The runner: runs probes on devices (the probes x devices loop; a host-scoped probe once across
// the selection). Per probe and GPU: settle after earlier frees, reset persisting L2, sample the
// SM clock around the run; echo the axes, the stopping rule and the rounds, phrase the findings,
// and turn failures into results.
#pragma once

#include <functional>
#include <optional>
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
// The same across several GPUs (distinct), the harness on devices.front(): what a host-scoped
// probe (ProbeScope::kHost) runs with; its context's devices() are these GPUs, the result's
// `device` is the harness's and its `devices` all of them. Settling, the persisting-L2 guard and
// the SM clocks apply to every one (the others' conditions end in "_gpuN").
ProbeResult run_probe(Probe& probe, const AxisValues& values,
                      const std::vector<DeviceInfo>& devices,
                      const runtime::MeasureOptions& options, const CounterOptions& counters,
                      const runtime::ProgressFn& progress, const Glossary& glossary);

// A probe to run, with its axis values parsed from the command line (or its quick defaults).
struct ProbeRun {
  Probe* probe;
  AxisValues values;
};

// Runs every probe on every device (each device in turn, its probes in order) with run_probe;
// a host-scoped probe runs once, in its turn on the first device, across all of them.
// `after_each` is called after each result (the CLI clears its progress line there).
std::vector<ProbeResult> run_on_devices(const std::vector<ProbeRun>& probes,
                                        const std::vector<DeviceInfo>& devices,
                                        const runtime::MeasureOptions& options,
                                        const CounterOptions& counters,
                                        const runtime::ProgressFn& progress,
                                        const Glossary& glossary,
                                        const std::function<void()>& after_each = {});

// The plan of one probe: its sweep points without a GPU, params echoed, findings phrased.
ProbeResult plan_probe(const Probe& probe, const AxisValues& values, const Glossary& glossary);
// The plan of a host-scoped probe across a selection known without a GPU (Probe::plan_across),
// its `devices` set; a device-scoped probe's plan is plan_probe's.
ProbeResult plan_probe_across(const Probe& probe, const AxisValues& values,
                              const std::vector<int>& devices, const Glossary& glossary);

// The plans of the probes for a device selection (nullopt: 'all', not known without a GPU).
// With several GPUs named, device-scoped probes are planned once per GPU (`device` set) and
// host-scoped ones once across them (on the first); else one plan per probe without a device.
std::vector<ProbeResult> plan_on_devices(const std::vector<ProbeRun>& probes,
                                         const std::optional<std::vector<int>>& devices,
                                         const Glossary& glossary);

}  // namespace gpuprobe::runner
