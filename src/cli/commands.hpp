// The commands behind the subcommands: list, info, and running probes (one, or all).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "gpuprobe/probe.hpp"
#include "options.hpp"

namespace gpuprobe::cli {

int list_probes(const std::vector<std::unique_ptr<Probe>>& probes);
int show_info(const GlobalOptions& options, const std::vector<std::string>& command);
// Runs (or with --plan, plans) the probes on the selected devices and writes the outputs.
// explicit_probe: the user named the probe, so "unsupported here" exits 3 rather than 0.
int run_probes(const GlobalOptions& options, const std::vector<std::string>& command,
               const std::vector<Probe*>& probes, bool quick, bool explicit_probe);

}  // namespace gpuprobe::cli
