// `gpuprobe fleet DIR|FILES...`: many nodes' result files side by side — per row the fleet's
// median and spread and the GPUs beyond it; never uses CUDA.
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <exception>
#include <filesystem>
#include <iostream>
#include <thread>

#include "commands.hpp"
#include "compare_args.hpp"
#include "gpuprobe/core/errors.hpp"
#include "gpuprobe/core/fleet.hpp"
#include "gpuprobe/core/input_file.hpp"
#include "gpuprobe/core/json_io.hpp"
#include "gpuprobe/version.hpp"
#include "output.hpp"
#include "validators.hpp"

namespace gpuprobe::cli {
namespace {

constexpr const char* kFleetFooter =
    "Each file is one node's (or GPU's) run of the same probes (gpuprobe --json output); a "
    "folder stands for the .json files in it (and .json.gz: gzipped files are read as they are; "
    "run.json.gz beside run.json counts once). Members are grouped by GPU model and judged only "
    "against their own model; GPUs are counted by UUID, so runs of one GPU are one GPU with "
    "several runs. Rows are matched by probe and params; a node's several GPUs are several "
    "members. Per model, row and metric (default: bandwidth where a row has it, else every "
    "metric): the fleet median of the members' medians, the spread (1.4826 x the median absolute "
    "deviation, relative), min, max. A value is beyond the fleet when it lies more than K robust "
    "sigmas from the median and more than --min-deviation of it (rows with fewer than 3 GPUs of "
    "the model are not judged); a GPU with more than 10% of its values in a probe beyond is an "
    "outlier, named by host, GPU, UUID and file (--fail-on-outlier: exit 4 for one in any "
    "model).\n"
    "Examples:\n"
    "  gpuprobe fleet results/                      # every node's all.json in one folder\n"
    "  gpuprobe fleet node*.json --fail-on-outlier --md fleet.md";

// The files named: each argument a file, or a folder standing for the .json and .json.gz files
// in it.
std::vector<std::string> expand_inputs(const std::vector<std::string>& inputs) {
  std::vector<std::string> files;
  for (const auto& in : inputs) {
    std::error_code ec;
    if (!std::filesystem::is_directory(in, ec)) {
      files.push_back(in);
      continue;
    }
    std::vector<std::string> found;
    // increment(ec), not the range-for's ++, which throws the library's own error on a folder
    // that stops being readable
    for (std::filesystem::directory_iterator it(in, ec), end; !ec && it != end; it.increment(ec)) {
      const std::string name = it->path().string();
      std::error_code kind;
      if ((name.ends_with(".json") || name.ends_with(".json.gz")) && it->is_regular_file(kind))
        found.push_back(name);
    }
    if (ec) throw UsageError(fmt::format("fleet: cannot read the folder '{}'", in));
    if (found.empty())
      throw UsageError(fmt::format("fleet: no .json or .json.gz files in '{}'", in));
    std::sort(found.begin(), found.end());
    // run.json.gz beside run.json (gunzip -k) is the same run: counted once, as run.json.
    const std::vector<std::string> all = found;
    std::erase_if(found, [&](const std::string& f) {
      return f.ends_with(".gz") &&
             std::binary_search(all.begin(), all.end(), f.substr(0, f.size() - 3));
    });
    files.insert(files.end(), found.begin(), found.end());
  }
  return files;
}

// Reads the files (each distinct file once, on several threads).
std::vector<FleetMember> read_members(const std::vector<std::string>& files) {
  std::vector<RunReport> runs = read_report_files(files);
  std::vector<FleetMember> members(files.size());
  for (std::size_t i = 0; i < files.size(); ++i)
    members[i] = {printable(files[i]), std::move(runs[i])};  // a name to show
  return members;
}

}  // namespace

void add_fleet_options(CLI::App& command, FleetArgs& args) {
  command.add_option("inputs", args.inputs, "result files, or folders of them (one per node)")
      ->required()
      ->type_name("DIR|FILES...");
  command
      .add_option("--outlier-k", args.k, "an outlier lies beyond K robust sigmas (1.4826 x MAD)")
      ->default_str("4")
      ->type_name("K")
      ->check(finite_number())
      ->check(range(0.5, 1000.0));
  command
      .add_option("--min-deviation", args.min_deviation,
                  "... and beyond PCT percent of the fleet median (3 or 3%)")
      ->default_str("3")
      ->type_name("PCT");
  command.add_option("--metric", args.value_names, "metric(s) compared (default: bandwidth)")
      ->delimiter(',')
      ->type_name("NAME[,NAME...]")
      ->expected(1)
      ->take_all();
  command.add_flag("--fail-on-outlier", args.fail_on_outlier, "exit 4 when some GPU is an outlier");
  command.footer(kFleetFooter);
}

int fleet_runs(const GlobalOptions& options, const std::vector<std::string>& command,
               const FleetArgs& args, const Glossary& glossary) {
  FleetOptions fleet;
  fleet.k = args.k;
  fleet.min_deviation = parse_percent("--min-deviation", args.min_deviation) / 100.0;
  fleet.value_names = args.value_names;
  const auto files = expand_inputs(args.inputs);
  validate_outputs(options, files);
  RunReport report = fleet_report(read_members(files), fleet);
  report.tool.version = kToolVersion;
  report.tool.git = kToolGit;
  report.command = command;
  report.started_at = utc_timestamp();
  write_outputs(options, report, glossary);
  const std::size_t outliers = fleet_outlier_count(report);
  if (!args.fail_on_outlier || outliers == 0) return 0;
  std::cerr << fmt::format(
      "gpuprobe: fleet: {} GPU(s) beyond the fleet in some probe, among {} file(s)\n", outliers,
      files.size());
  return static_cast<int>(ExitCode::kCheckFailed);
}

}  // namespace gpuprobe::cli
