// The commands behind the subcommands: list, info, running probes (one, or all), compare.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gpuprobe/probe.hpp"
#include "gpuprobe/runner/runner.hpp"
#include "options.hpp"

namespace CLI {
class App;
}

namespace gpuprobe::cli {

int list_probes(const std::vector<std::unique_ptr<Probe>>& probes);
// `gpuprobe --list-metrics [FILTER]`: the metrics the first selected GPU's chip offers.
int list_metrics(const GlobalOptions& options, const std::string& filter);
// The names of --metrics as given (each occurrence a comma-separated list), checked for what can
// be checked without a device: none empty, only letters, digits, '_' and '.', no empty part
// between dots. Throws a UsageError naming the bad name.
std::vector<std::string> metric_names(const std::vector<std::string>& given);

// Checks --metrics against the chip of every selected device before any probe runs: an
// unknown name is a UsageError naming it with the nearest valid names. Devices whose counters
// cannot be reached are left to the run (it reports them refused).
void validate_metrics(const GlobalOptions& options, const std::vector<int>& devices);
int show_info(const GlobalOptions& options, const std::vector<std::string>& command);
// A probe to run, with its axis values parsed from the command line (or its quick defaults).
using SelectedProbe = runner::ProbeRun;
// Runs (or with --plan, plans) the probes on the selected devices and writes the outputs.
// explicit_probe: the user named the probe, so "unsupported here" exits 3 rather than 0.
int run_probes(const GlobalOptions& options, const std::vector<std::string>& command,
               const std::vector<SelectedProbe>& probes, bool quick, bool explicit_probe,
               const Glossary& glossary);

// `gpuprobe check RUN.json...`: the expectations (--expect, --expect-file and each GPU's
// reference file) on saved results, no GPU used; 4 when one fails.
int check_files(const GlobalOptions& options, const std::vector<std::string>& files,
                const Glossary& glossary);

// `gpuprobe fleet DIR|FILES...`: the fleet's median, spread and outliers per row (no GPU used);
// 4 with --fail-on-outlier when some GPU lies beyond the fleet.
struct FleetArgs {
  std::vector<std::string> inputs;
  double k = 4;
  std::string min_deviation = "3";       // percent
  std::vector<std::string> value_names;  // --metric
  bool fail_on_outlier = false;
};
void add_fleet_options(CLI::App& command, FleetArgs& args);
int fleet_runs(const GlobalOptions& options, const std::vector<std::string>& command,
               const FleetArgs& args, const Glossary& glossary);

// `gpuprobe compare A.json B.json` (or `A1.json A2.json vs B1.json`): its arguments as given,
// checked by compare_runs.
struct CompareArgs {
  std::vector<std::string> files;                 // both sides, 'vs' between them when several
  std::vector<std::string> value_names;           // --metric
  std::optional<std::string> fail_on_regression;  // percent; absent: no check
  std::optional<std::string> devices;             // absent: device i with device i
  double noise_k = 3;
  std::string same_within = "2";  // percent
  bool fail_on_inconclusive = false;
};
void add_compare_options(CLI::App& command, CompareArgs& args);
// Compares two sides of result files (no GPU used); 4 when --fail-on-regression finds a regression
// or --fail-on-inconclusive an inconclusive comparison.
int compare_runs(const GlobalOptions& options, const std::vector<std::string>& command,
                 const CompareArgs& args, const Glossary& glossary);

// `gpuprobe report RUN.json... -o report.html`: plots of every probe in one self-contained page
// (or one SVG/PNG per plot), drawn by Python with matplotlib (optional; exit 3 when missing).
struct ReportArgs {
  std::vector<std::string> files;
  std::string output;
  std::string format = "html";  // html, svg, png
  std::string note;
  std::string title;
};
void add_report_options(CLI::App& command, ReportArgs& args);
int report_runs(const ReportArgs& args);

}  // namespace gpuprobe::cli
