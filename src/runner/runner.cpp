// Runs a probe on a device: settling, persisting-L2 leak guard and reset, clocks, counter pass,
// conditions, failures.
#include "gpuprobe/runner/runner.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <set>
#include <thread>

#include "counter_pass.hpp"
#include "gpuprobe/core/errors.hpp"
#include "gpuprobe/core/interrupt.hpp"
#include "gpuprobe/core/round_process.hpp"
#include "gpuprobe/core/rounds.hpp"
#include "gpuprobe/runtime/buffers.hpp"
#include "gpuprobe/runtime/clock.hpp"
#include "gpuprobe/runtime/device.hpp"
#include "gpuprobe/runtime/l2.hpp"

namespace gpuprobe::runner {
namespace {

// Sets the persisting-L2 limit back to 0 and evicts persisting lines, ignoring errors: on the
// way out of a probe that stopped early.
void drop_persisting_limit(const DeviceInfo& device) noexcept {
  if (device.persisting_l2_max_bytes == 0) return;
  (void)cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 0);
  (void)cudaCtxResetPersistingL2Cache();
  (void)cudaGetLastError();
}

// An allocation failure with the way out: the probe's flags that shrink its sweep.
std::string out_of_memory_reason(const Probe& probe, const std::string& what) {
  const std::string flags = probe.memory_flags();
  if (flags.empty()) return fmt::format("{}; make the sweep smaller", what);
  return fmt::format("{}; make the sweep smaller with {} (gpuprobe {} --help)", what, flags,
                     probe.name());
}

ProbeResult failed(const Probe& probe, int device, const std::string& reason) {
  ProbeResult r;
  r.probe = probe.name();
  r.device = device;
  r.status = Status::kFailed;
  r.reason = reason;
  return r;
}

// The driver scrubs freed device memory in the background, and that takes DRAM bandwidth
// from whatever runs next: on an H100, copy bandwidth was 11% lower for about 25 ms after 8 GiB
// were freed, and normal after a 200 ms pause (scripts/experiments/after_free.cu). Nothing the
// runtime reports shows when it ends (free memory is back at once), so before a probe starts,
// wait in proportion to what earlier probes freed, at a rate well below the one measured.
constexpr std::uint64_t kSettleMinBytes = 256ull << 20;  // less than this: a dip under 1 ms
constexpr double kSettleBytesPerSecond = 100e9;          // measured ~340 GB/s on an H100
constexpr double kSettleMaxSeconds = 1.0;

struct Settle {
  std::uint64_t freed = 0;  // bytes freed since the previous probe started
  double waited = 0;        // seconds
};

Settle settle_after_frees(int device) {
  Settle s{runtime::take_device_bytes_freed(device), 0};
  if (s.freed < kSettleMinBytes) return s;
  s.waited = std::min(kSettleMaxSeconds, static_cast<double>(s.freed) / kSettleBytesPerSecond);
  std::this_thread::sleep_for(std::chrono::duration<double>(s.waited));
  return s;
}

// The leak guard: persisting-L2 state found at a probe's boundaries. Before it, a limit is
// reported (the driver's default on the first probe of a device in this process, else left by
// someone else: an earlier probe, the embedding program), then reset so the probe starts clean;
// after it, a limit or a window on the harness's stream the probe left behind is reported, then
// reset. Persisting lines themselves cannot be read back; the reset evicts them.
struct PersistingGuard {
  bool first = false;            // the first probe on this device in this process
  std::size_t before = 0;        // limit found before the probe
  std::size_t after = 0;         // limit found after it
  std::size_t after_window = 0;  // window bytes left on the main stream
};

bool first_probe_on(int device) {
  static std::set<int> seen;
  return seen.insert(device).second;
}

void add_guard_findings(ProbeResult& result, const PersistingGuard& g, const DeviceInfo& device) {
  if (device.persisting_l2_max_bytes == 0) return;
  result.conditions.push_back({"persisting_l2_limit_before", "B", static_cast<double>(g.before)});
  result.conditions.push_back({"persisting_l2_limit_after", "B", static_cast<double>(g.after)});
  const Quantity limit{"limit", "B", static_cast<double>(g.before)};
  if (g.before > 0 && g.first)
    result.findings.push_back(note("persisting_l2_default", {}, {limit}));
  if (g.before > 0 && !g.first)
    result.findings.push_back(warning("persisting_l2_left_before", {}, {limit}));
  if (g.after > 0 || g.after_window > 0)
    result.findings.push_back(
        warning("persisting_l2_left_after", {},
                {{"limit", "B", static_cast<double>(g.after)},
                 {"window_bytes", "B", static_cast<double>(g.after_window)}}));
}

// After a failure the context may hold a sticky error: start the next probe on a fresh one.
void recover_device(int index) {
  (void)cudaGetLastError();
  (void)cudaDeviceReset();
  (void)cudaSetDevice(index);
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

}  // namespace

ProbeResult plan_probe(const Probe& probe, const AxisValues& values, const Glossary& glossary) {
  ProbeResult r = probe.plan(values);
  r.probe = probe.name();
  r.status = Status::kPlanned;
  r.params = axis_params(probe.axes(), values);
  order_findings(r.findings);
  phrase_findings(r, glossary);
  return r;
}

ProbeResult run_probe(Probe& probe, const AxisValues& values, const DeviceInfo& device,
                      const runtime::MeasureOptions& options, const CounterOptions& counters,
                      const runtime::ProgressFn& progress, const Glossary& glossary) {
  runtime::use_device(device.index);
  try {
    const std::size_t planned = probe.plan(values).rows.size();
    const Settle settle = settle_after_frees(device.index);
    PersistingGuard guard;
    guard.first = first_probe_on(device.index);
    guard.before = runtime::persisting_l2_limit(device.persisting_l2_max_bytes);
    runtime::reset_persisting_l2(device.persisting_l2_max_bytes);
    CounterPassDriver counter_pass(probe.counter_metrics(), device.index, counters);
    runtime::RoundProcess round_process;
    if (!options.round_executable.empty())
      round_process = [exe = options.round_executable](const RoundRequest& request) {
        return run_round_process(exe, request);
      };
    runtime::ProbeContext context(device, options, progress, probe.name(), planned,
                                  counter_pass.pass(), std::move(round_process));
    const double clock_before = runtime::sample_sm_clock_mhz(context.stream());
    ProbeResult result = probe.run(context, values);
    const double clock_after = runtime::sample_sm_clock_mhz(context.stream());
    counter_pass.close();
    guard.after = runtime::persisting_l2_limit(device.persisting_l2_max_bytes);
    guard.after_window = runtime::stream_window(context.stream()).num_bytes;
    runtime::reset_persisting_l2(device.persisting_l2_max_bytes);
    result.probe = probe.name();
    result.device = device.index;
    result.params = axis_params(probe.axes(), values);
    const double max_mhz = static_cast<double>(device.sm_clock_khz) / 1e3;
    result.conditions.insert(result.conditions.begin(), {{"sm_clock_before", "MHz", clock_before},
                                                         {"sm_clock_after", "MHz", clock_after},
                                                         {"sm_clock_max", "MHz", max_mhz}});
    if (settle.waited > 0) {
      result.conditions.push_back({"freed_before_start", "B", static_cast<double>(settle.freed)});
      result.conditions.push_back({"settle_wait", "s", settle.waited});
    }
    add_rule_conditions(result, options);
    if (context.round_processes() > 0) {
      result.conditions.push_back(
          {"round_processes", "", static_cast<double>(context.round_processes())});
    }
    add_guard_findings(result, guard, device);
    for (auto& q : counter_pass.conditions())
      result.conditions.push_back(std::move(q));
    for (auto& f : counter_pass.findings())
      result.findings.push_back(std::move(f));
    result.counter_status = counter_pass.status();
    if (max_mhz > 0 && std::min(clock_before, clock_after) < 0.8 * max_mhz) {
      result.findings.push_back(warning("sm_clock_low", {},
                                        {{"sm_clock_before", "MHz", clock_before},
                                         {"sm_clock_after", "MHz", clock_after},
                                         {"sm_clock_max", "MHz", max_mhz}}));
    }
    order_findings(result.findings);
    phrase_findings(result, glossary);
    return result;
  } catch (const runtime::VerificationError& e) {
    recover_device(device.index);
    return failed(probe, device.index, fmt::format("wrong result: {}", e.what()));
  } catch (const UnsupportedError& e) {
    // The probe may have touched the limit before it found out: leave none behind.
    drop_persisting_limit(device);
    ProbeResult r = failed(probe, device.index, e.what());
    r.status = Status::kSkipped;
    return r;
  } catch (const InterruptedError&) {
    // Stopped by SIGINT/SIGTERM: leave no persisting-L2 limit behind (the buffers were freed
    // on the way here), then stop the whole run.
    drop_persisting_limit(device);
    throw;
  } catch (const NoDeviceError&) {
    throw;
  } catch (const OutOfMemoryError& e) {
    recover_device(device.index);
    return failed(probe, device.index, out_of_memory_reason(probe, e.what()));
  } catch (const Error& e) {
    recover_device(device.index);
    return failed(probe, device.index, e.what());
  } catch (const std::exception& e) {
    recover_device(device.index);
    return failed(probe, device.index, fmt::format("unexpected error: {}", e.what()));
  }
}

std::vector<ProbeResult> run_on_devices(const std::vector<ProbeRun>& probes,
                                        const std::vector<DeviceInfo>& devices,
                                        const runtime::MeasureOptions& options,
                                        const CounterOptions& counters,
                                        const runtime::ProgressFn& progress,
                                        const Glossary& glossary,
                                        const std::function<void()>& after_each) {
  std::vector<ProbeResult> out;
  for (const auto& device : devices) {
    for (const auto& p : probes) {
      throw_if_interrupted();
      out.push_back(run_probe(*p.probe, p.values, device, options, counters, progress, glossary));
      if (after_each) after_each();
    }
  }
  return out;
}

}  // namespace gpuprobe::runner
