// The probe interface: what every probe under probes/ provides to the CLI and the runtime.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "gpuprobe/core/result.hpp"

namespace CLI {
class App;
}

namespace gpuprobe {

namespace runtime {
class ProbeContext;
}

// A probe owns its sweep settings (bound to its CLI options), its kernels, its model and
// its verification. It produces data (ProbeResult), never text. Nothing here may touch
// CUDA except run(): --help, list and --plan must work without a GPU.
class Probe {
 public:
  virtual ~Probe() = default;

  virtual std::string name() const = 0;     // the subcommand: "transfer"
  virtual std::string summary() const = 0;  // one line for `gpuprobe list`

  // Binds the probe's own flags to its settings.
  virtual void add_options(CLI::App& command) = 0;
  // Replaces the settings by the quick defaults `gpuprobe all` uses.
  virtual void use_quick_defaults() = 0;
  // Checks settings after parsing; throws UsageError naming the flag.
  virtual void validate() const {}

  // The sweep points (params and model, no metrics) this probe would run; no GPU used.
  virtual ProbeResult plan() const = 0;
  // Runs the sweep on the context's device. Throws on failure; the runner records it.
  virtual ProbeResult run(runtime::ProbeContext& context) = 0;
};

// Every registered probe, in the order `list` and `all` use (probes/registry.cpp).
std::vector<std::unique_ptr<Probe>> make_probes();

}  // namespace gpuprobe
