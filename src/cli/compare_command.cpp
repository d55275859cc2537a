// `gpuprobe compare`: reads two result files, compares them, writes the outputs; never uses CUDA.
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <iostream>
#include <string>
#include <vector>

#include "commands.hpp"
#include "compare_args.hpp"
#include "gpuprobe/core/compare.hpp"
#include "gpuprobe/core/errors.hpp"
#include "gpuprobe/core/json_io.hpp"
#include "gpuprobe/version.hpp"
#include "output.hpp"
#include "validators.hpp"

namespace gpuprobe::cli {
namespace {

constexpr const char* kCompareFooter =
    "Rows are matched by probe, device pair and row params (their order does not matter), "
    "summary rows by their params, findings by id and params (findings of schema-1 files are "
    "prose and are not compared). For each metric: A and B medians, ratio = B/A, and a change: "
    "'same' when |ratio - 1| <= max(0.5%, K x the larger rel_noise of the two); summary and "
    "finding values (no noise) are compared the same way with the 0.5% floor. Otherwise for "
    "time (unit s) a higher value is 'slower', for rates (units with /s, e.g. GB/s) a higher "
    "value is 'faster', and other units say 'higher'/'lower'. With --fail-on-regression PCT, a "
    "'slower' change more than PCT percent away from 1 (|ratio - 1|) is a regression: flagged, "
    "and the exit code is 4. Items found in one file only are counted and listed in the "
    "findings. The global "
    "--json/--csv/--md/--quiet options write the comparison like a probe's results; the header "
    "shows A's host and GPUs.\n"
    "Examples:\n"
    "  gpuprobe compare before.json after.json\n"
    "  gpuprobe compare base.json new.json --fail-on-regression 5 --metric bandwidth\n"
    "  gpuprobe compare run.json run.json --devices 0:1     # two GPUs of one run\n"
    "Compare exits 4 when --fail-on-regression finds a regression beyond PCT, and 2 for an "
    "unreadable or malformed file, a bad flag, or two files without a row in common.";

}  // namespace

void add_compare_options(CLI::App& command, CompareArgs& args) {
  command
      .add_option("files", args.files,
                  "A.json B.json: the baseline and the file compared with it (gpuprobe --json "
                  "output); or several runs per side, pooled: A1.json A2.json vs B1.json B2.json")
      ->required()
      ->type_name("A.json [...] [vs] B.json [...]");
  command
      .add_option("--metric", args.metrics,
                  "metric(s) or summary/finding value(s) to compare, e.g. bandwidth or time "
                  "(default: every one in both)")
      ->delimiter(',')
      ->type_name("NAME[,NAME...]");
  command
      .add_option("--fail-on-regression", args.fail_on_regression,
                  "exit 4 if some row is slower than A by more than PCT percent (5 or 5%)")
      ->type_name("PCT");
  command
      .add_option("--same-within", args.same_within,
                  "'same' when the 95% interval of B/A lies within +-PCT percent (2 or 2%)")
      ->default_str("2")
      ->type_name("PCT");
  command.add_flag("--fail-on-inconclusive", args.fail_on_inconclusive,
                   "exit 4 if some row metric is inconclusive (its interval straddles the margin)");
  command
      .add_option("--noise-k", args.noise_k,
                  "files without samples (schema 1/2): noise band = K x the larger relative "
                  "noise of A and B (floor 0.5%)")
      ->default_str("3")
      ->check(finite_number())
      ->check(CLI::Range(0.0, 1000.0));
  command
      .add_option("--devices", args.devices,
                  "pair GPU A of file A with GPU B of file B, e.g. 0:1 or 0:1,2:3 (default: "
                  "same index)")
      ->type_name("A:B");
  command.footer(kCompareFooter);
}

int compare_runs(const GlobalOptions& options, const std::vector<std::string>& command,
                 const CompareArgs& args, const Glossary& glossary) {
  CompareOptions compare;
  compare.metrics = args.metrics;
  compare.noise_k = args.noise_k;
  compare.same_within = parse_percent("--same-within", args.same_within) / 100.0;
  compare.fail_on_inconclusive = args.fail_on_inconclusive;
  if (args.fail_on_regression)
    compare.fail_on_regression = parse_percent("--fail-on-regression", *args.fail_on_regression);
  if (args.devices) compare.devices = parse_device_pairs(*args.devices);
  const SideFiles files = split_sides(args.files);
  check_outputs(options);

  auto read_side = [](const std::vector<std::string>& paths) {
    CompareSide side;
    side.files = paths;
    for (const auto& path : paths)
      side.runs.push_back(read_report_file(path));
    return side;
  };
  const CompareSide a = read_side(files.a);
  const CompareSide b = read_side(files.b);
  CompareOutcome outcome = compare_sides(a, b, compare);
  outcome.report.tool.version = kToolVersion;
  outcome.report.tool.git = kToolGit;
  outcome.report.command = command;
  outcome.report.started_at = utc_timestamp();
  write_outputs(options, outcome.report, glossary);

  // One stderr line for every check that failed.
  std::vector<std::string> failed;
  if (compare.fail_on_regression && !outcome.regressions.empty())
    failed.push_back(regression_summary(outcome));
  if (compare.fail_on_inconclusive && !outcome.inconclusives.empty())
    failed.push_back(inconclusive_summary(outcome));
  if (failed.empty()) return 0;
  std::cerr << "gpuprobe: " << fmt::format("{}", fmt::join(failed, "; also ")) << "\n";
  return static_cast<int>(ExitCode::kCheckFailed);
}

}  // namespace gpuprobe::cli
