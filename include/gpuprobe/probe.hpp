// The probe interface: what every probe folder under probes/ provides to the CLI and the runner.
#pragma once

#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gpuprobe/core/axes.hpp"
#include "gpuprobe/core/glossary.hpp"
#include "gpuprobe/core/result.hpp"
#include "gpuprobe/core/samples.hpp"

namespace gpuprobe {

namespace runtime {
class ProbeContext;
}

// Where a probe runs: on one GPU at a time (the runner runs it once per selected device), or once
// per host over every selected GPU together (peer, host-link contention).
enum class ProbeScope { kDevice, kHost };

// A probe declares its axes, sizes its sweep and hands the runtime re-runnable operations; its
// analysis (rows -> derived values, summary, findings) is host-only code in the same folder.
// It produces data, never text, and holds no settings: every call gets the parsed axis values.
// Nothing here may touch CUDA except run(): --help, list and --plan must work without a GPU.
class Probe {
 public:
  virtual ~Probe() = default;

  virtual std::string name() const = 0;                   // the subcommand: "transfer"
  virtual std::string description() const = 0;            // one line for `gpuprobe list`
  virtual std::vector<Axis> axes() const = 0;             // the flags, defaults and checks
  virtual std::string help_footer() const { return {}; }  // more `--help` text, optional
  // The flags that set how much device memory the sweep takes ("--sizes"), named to the user
  // when an allocation fails. Empty: the message says to make the sweep smaller.
  virtual std::string memory_flags() const { return {}; }
  // Checks across axes that a single axis cannot express; throws UsageError naming the flag.
  virtual void validate(const AxisValues& /*values*/) const {}
  // The probe's phrasings and column terms (from its analysis).
  virtual void add_words(Glossary& glossary) const = 0;
  // The hardware counters (full CUPTI metric names) its counter pass collects by default; the
  // runner adds the SM clock and the other companions, and the user's --metrics. Empty: no
  // counter pass unless --metrics names some.
  virtual std::vector<std::string> counter_metrics() const { return {}; }
  // kHost: the runner runs it once with the whole device selection (ProbeContext::devices()),
  // not once per device.
  virtual ProbeScope scope() const { return ProbeScope::kDevice; }

  // The sweep points (params and model, no metrics) this probe would run; no GPU used. The
  // number of rows is what the progress line counts. A probe on SweepProbe (sweep_probe.hpp) gets
  // plan, plan_across, run and measure_keys from its points, so they name the same rows.
  virtual ProbeResult plan(const AxisValues& values) const = 0;
  // The plan of a host-scoped probe across a device selection known without a GPU
  // (`--device 0,1`; harness first). By default plan(values): a device-scoped probe's sweep does
  // not depend on which GPU runs it.
  virtual ProbeResult plan_across(const AxisValues& values,
                                  const std::vector<int>& /*devices*/) const {
    return plan(values);
  }
  // Runs the sweep on the context's device. Throws on failure; the runner records it.
  virtual ProbeResult run(runtime::ProbeContext& context, const AxisValues& values) = 0;
  // Measures again the points of the sweep of `values` that run() named by `keys` when it
  // measured them with ProbeContext::measure_all_in_processes: called in the round process
  // (`gpuprobe __round`), whose context measures one round. Returns one sample set per key, in
  // order.
  virtual std::vector<SampleSet> measure_keys(runtime::ProbeContext& /*context*/,
                                              const AxisValues& /*values*/,
                                              const std::vector<std::string>& /*keys*/) {
    throw std::logic_error(name() + " measures no rounds in processes");
  }

 protected:
  // A result of this probe with its method line and nothing else yet: what plan() and run()
  // start from.
  ProbeResult new_result(std::string method) const {
    ProbeResult r;
    r.probe = name();
    r.method = std::move(method);
    return r;
  }
};

// counter_metrics() from the one list of names the analysis reads the counters by:
//   return metric_names(transfer::kCounterMetrics);
inline std::vector<std::string> metric_names(std::span<const std::string_view> names) {
  return {names.begin(), names.end()};
}

// Every registered probe, in the order `list` and `all` use (probes/registry.cpp).
std::vector<std::unique_ptr<Probe>> make_probes();

// Core's words and every probe's: what the runner and the renderers phrase findings with.
Glossary make_glossary(const std::vector<std::unique_ptr<Probe>>& probes);

}  // namespace gpuprobe
