// Runs a probe on a device (or, host-scoped, once across the selection): boundaries on each GPU
// (boundary.cpp), counter pass, conditions, failures; and plans without a GPU.
#include "gpuprobe/runner/runner.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <vector>

#include "boundary.hpp"
#include "counter_pass.hpp"
#include "gpuprobe/core/analysis_guard.hpp"
#include "gpuprobe/core/errors.hpp"
#include "gpuprobe/core/interrupt.hpp"
#include "gpuprobe/core/round_process.hpp"
#include "gpuprobe/core/rounds.hpp"
#include "gpuprobe/runtime/device.hpp"

namespace gpuprobe::runner {
namespace {

// Sets the persisting-L2 limit back to 0 and evicts persisting lines, ignoring errors: on the
// way out of a probe that stopped early.
void drop_persisting_limit(const std::vector<DeviceInfo>& devices) noexcept {
  for (const auto& device : devices) {
    if (device.persisting_l2_max_bytes == 0) continue;
    (void)cudaSetDevice(device.index);
    (void)cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 0);
    (void)cudaCtxResetPersistingL2Cache();
    (void)cudaGetLastError();
  }
  (void)cudaSetDevice(devices.front().index);
}

// An allocation failure with the way out: the probe's flags that shrink its sweep.
std::string out_of_memory_reason(const Probe& probe, const std::string& what) {
  const std::string flags = probe.memory_flags();
  if (flags.empty()) return fmt::format("{}; make the sweep smaller", what);
  return fmt::format("{}; make the sweep smaller with {} (gpuprobe {} --help)", what, flags,
                     probe.name());
}

std::vector<int> indices_of(const std::vector<DeviceInfo>& devices) {
  std::vector<int> out;
  for (const auto& d : devices)
    out.push_back(d.index);
  return out;
}

// Which GPUs a result is about: the harness's device, and for a host-scoped probe every GPU it
// spanned.
void set_devices(ProbeResult& r, const Probe& probe, const std::vector<DeviceInfo>& devices) {
  r.device = devices.front().index;
  if (probe.scope() == ProbeScope::kHost) r.devices = indices_of(devices);
}

ProbeResult failed(const Probe& probe, const std::vector<DeviceInfo>& devices,
                   const std::string& reason) {
  ProbeResult r;
  r.probe = probe.name();
  set_devices(r, probe, devices);
  r.status = Status::kFailed;
  r.reason = reason;
  return r;
}

// After a failure a context may hold a sticky error: start the next probe on fresh ones.
void recover_devices(const std::vector<DeviceInfo>& devices) {
  for (auto it = devices.rbegin(); it != devices.rend(); ++it) {  // the harness's last: current
    (void)cudaSetDevice(it->index);
    (void)cudaGetLastError();
    (void)cudaDeviceReset();
    (void)cudaSetDevice(it->index);
  }
}

// The stopping rule and rounds in force, so a reader can tell how every sample set was gathered
// (and repeat the rounds' order with --seed).
void add_rule_conditions(ProbeResult& result, const runtime::MeasureOptions& options) {
  const StoppingRule& rule = options.rule;
  result.conditions.push_back(
      {"rounds", "", static_cast<double>(effective_rounds(options.rounds, rule))});
  result.conditions.push_back({"round_seed", "", static_cast<double>(options.seed)});
  if (rule.fixed_samples) {
    result.conditions.push_back(
        {"rule_fixed_samples", "", static_cast<double>(*rule.fixed_samples)});
  } else {
    result.conditions.push_back({"rule_min_samples", "", static_cast<double>(rule.min_samples)});
    result.conditions.push_back({"rule_min_time", "s", rule.min_time});
    result.conditions.push_back({"rule_max_time", "s", rule.max_time});
  }
  // The bound the `noisy` flag is judged against, in both modes.
  result.conditions.push_back({"rule_max_noise", "%", rule.max_noise * 100});
}

// A probe's plan with its status, params echoed and findings phrased.
ProbeResult finish_plan(const Probe& probe, const AxisValues& values, ProbeResult r,
                        const Glossary& glossary) {
  r.probe = probe.name();
  r.status = Status::kPlanned;
  r.params = axis_params(probe.axes(), values);
  order_findings(r.findings);
  phrase_findings(r, glossary);
  return r;
}

// The selection without repeats, in order (--device 0,1,0 spans GPUs 0 and 1).
std::vector<int> distinct(const std::vector<int>& devices) {
  std::vector<int> out;
  for (int d : devices)
    if (std::find(out.begin(), out.end(), d) == out.end()) out.push_back(d);
  return out;
}

std::vector<DeviceInfo> distinct_devices(const std::vector<DeviceInfo>& devices) {
  std::vector<DeviceInfo> out;
  for (const auto& d : devices)
    if (std::none_of(out.begin(), out.end(),
                     [&](const DeviceInfo& o) { return o.index == d.index; }))
      out.push_back(d);
  return out;
}

}  // namespace

ProbeResult plan_probe(const Probe& probe, const AxisValues& values, const Glossary& glossary) {
  return finish_plan(probe, values, probe.plan(values), glossary);
}

ProbeResult plan_probe_across(const Probe& probe, const AxisValues& values,
                              const std::vector<int>& devices, const Glossary& glossary) {
  ProbeResult r =
      finish_plan(probe, values, probe.plan_across(values, distinct(devices)), glossary);
  if (probe.scope() == ProbeScope::kHost) r.devices = distinct(devices);
  return r;
}

ProbeResult run_probe(Probe& probe, const AxisValues& values,
                      const std::vector<DeviceInfo>& devices,
                      const runtime::MeasureOptions& options, const CounterOptions& counters,
                      const runtime::ProgressFn& progress, const Glossary& glossary) {
  const DeviceInfo& device = devices.front();  // the harness's
  runtime::use_device(device.index);
  try {
    std::vector<int> indices = indices_of(devices);
    const std::size_t planned = probe.plan_across(values, indices).rows.size();
    double waited = 0;
    std::vector<Boundary> boundaries = open_boundaries(devices, waited);
    CounterPassDriver counter_pass(probe.counter_metrics(), device.index, counters);
    runtime::RoundProcess round_process;
    if (!options.round_executable.empty())
      round_process = [exe = options.round_executable](const RoundRequest& request) {
        return run_round_process(exe, request);
      };
    runtime::ProbeContext context(device, options, progress, probe.name(), planned,
                                  counter_pass.pass(), std::move(round_process));
    context.set_devices(std::move(indices));
    sample_clocks(boundaries, context.stream(), /*after=*/false);
    ProbeResult result = probe.run(context, values);
    sample_clocks(boundaries, context.stream(), /*after=*/true);
    counter_pass.close();
    close_boundaries(boundaries, context.stream());
    result.probe = probe.name();
    set_devices(result, probe, devices);
    result.params = axis_params(probe.axes(), values);
    add_boundary_results(result, boundaries, waited);
    add_rule_conditions(result, options);
    if (context.round_processes() > 0) {
      result.conditions.push_back(
          {"round_processes", "", static_cast<double>(context.round_processes())});
    }
    for (auto& q : counter_pass.conditions())
      result.conditions.push_back(std::move(q));
    for (auto& f : counter_pass.findings())
      result.findings.push_back(std::move(f));
    result.counter_status = counter_pass.status();
    order_findings(result.findings);
    phrase_keeping_rows(result, glossary);  // an error there keeps the measured rows
    return result;
  } catch (const runtime::VerificationError& e) {
    recover_devices(devices);
    return failed(probe, devices, fmt::format("wrong result: {}", e.what()));
  } catch (const UnsupportedError& e) {
    // The probe may have touched the limit before it found out: leave none behind.
    drop_persisting_limit(devices);
    ProbeResult r = failed(probe, devices, e.what());
    r.status = Status::kSkipped;
    return r;
  } catch (const InterruptedError&) {
    // Stopped by SIGINT/SIGTERM: leave no persisting-L2 limit behind (the buffers were freed
    // on the way here), then stop the whole run.
    drop_persisting_limit(devices);
    throw;
  } catch (const NoDeviceError&) {
    throw;
  } catch (const OutOfMemoryError& e) {
    recover_devices(devices);
    return failed(probe, devices, out_of_memory_reason(probe, e.what()));
  } catch (const Error& e) {
    recover_devices(devices);
    return failed(probe, devices, e.what());
  } catch (const std::exception& e) {
    recover_devices(devices);
    return failed(probe, devices, fmt::format("unexpected error: {}", e.what()));
  }
}

ProbeResult run_probe(Probe& probe, const AxisValues& values, const DeviceInfo& device,
                      const runtime::MeasureOptions& options, const CounterOptions& counters,
                      const runtime::ProgressFn& progress, const Glossary& glossary) {
  return run_probe(probe, values, std::vector<DeviceInfo>{device}, options, counters, progress,
                   glossary);
}

std::vector<ProbeResult> run_on_devices(const std::vector<ProbeRun>& probes,
                                        const std::vector<DeviceInfo>& devices,
                                        const runtime::MeasureOptions& options,
                                        const CounterOptions& counters,
                                        const runtime::ProgressFn& progress,
                                        const Glossary& glossary,
                                        const std::function<void()>& after_each) {
  std::vector<ProbeResult> out;
  const std::vector<DeviceInfo> spanned = distinct_devices(devices);
  for (std::size_t i = 0; i < devices.size(); ++i) {
    for (const auto& p : probes) {
      const bool host = p.probe->scope() == ProbeScope::kHost;
      if (host && i > 0) continue;  // once per host, in its turn on the first device
      throw_if_interrupted();
      out.push_back(run_probe(*p.probe, p.values, host ? spanned : std::vector{devices[i]}, options,
                              counters, progress, glossary));
      if (after_each) after_each();
    }
  }
  return out;
}

std::vector<ProbeResult> plan_on_devices(const std::vector<ProbeRun>& probes,
                                         const std::optional<std::vector<int>>& devices,
                                         const Glossary& glossary) {
  std::vector<ProbeResult> out;
  const bool per_device = devices && devices->size() > 1;
  const std::size_t passes = per_device ? devices->size() : 1;
  for (std::size_t i = 0; i < passes; ++i) {
    for (const auto& p : probes) {
      const bool host = p.probe->scope() == ProbeScope::kHost;
      if (host && i > 0) continue;
      ProbeResult r = host && devices ? plan_probe_across(*p.probe, p.values, *devices, glossary)
                                      : plan_probe(*p.probe, p.values, glossary);
      if (per_device) r.device = (*devices)[host ? 0 : i];
      out.push_back(std::move(r));
    }
  }
  return out;
}

}  // namespace gpuprobe::runner
