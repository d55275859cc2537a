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
#include "gpuprobe/core/input_file.hpp"
#include "gpuprobe/core/json_io.hpp"
#include "gpuprobe/version.hpp"
#include "output.hpp"
#include "validators.hpp"

namespace gpuprobe::cli {
namespace {

constexpr const char* kCompareFooter =
    "The text output leads with the verdict: what was compared, one verdict line, the headline "
    "changes (row metrics of time or rates, largest credible change first) and the smallest change "
    "the comparison could detect, with the runs per side a 5% change would need; the tables "
    "follow. Summary values that are positions or time stamps (start, end, *_at) are shown, never "
    "judged.\n"
    "Rows are matched by probe, device pair and row params (in any order), summary rows by "
    "their params, findings by id and params (findings of schema-1 files are prose and are not "
    "compared). Each row metric: A's and B's medians of all samples, ratio = B/A, and the 95% "
    "interval of the ratio by a hierarchical bootstrap (2000 resamples: each side's rounds drawn "
    "with replacement, then the samples within each drawn round; a fixed seed, so the same files "
    "always give the same output). With the margin m = min(--same-within, PCT): 'same' when the "
    "whole interval lies within 1 +- m, 'slower' or 'faster' ('lower'/'higher' for units without "
    "a better side) when it lies wholly beyond m, else 'inconclusive' (more runs or rounds would "
    "tell). Time (unit s): higher is slower; rates (units with /s, e.g. GB/s): higher is faster. "
    "With --fail-on-regression PCT, a 'slower' row metric whose whole interval lies beyond PCT "
    "percent is a regression, flagged, with exit code 4, when it also holds among all the row "
    "metrics judged by their intervals: Holm's step-down on each one's p-value of being slower "
    "beyond PCT keeps the chance that a same-build comparison fails at 5% (a note counts those "
    "that did not hold). Metrics without samples (schema 1 "
    "and 2 files) use the noise band instead: 'same' when |ratio - 1| <= max(0.5%, K x the larger "
    "rel_noise); a note names each such file. Summary and finding values have no samples: they "
    "are compared with the 0.5% band and reported, but never counted as regressions (they are "
    "derived from rows, which are checked themselves). Several runs per side (A1.json A2.json vs "
    "B1.json) are pooled: results by probe and device, rows by params, each file's rounds kept as "
    "rounds and the statistics recomputed; summary rows, findings, host and devices are each "
    "side's first file's. Items found on one side only are counted and listed in the findings. "
    "The global --json/--csv/--md/--quiet options write the comparison like a probe's results; "
    "the header names both sides' files, hosts and GPUs.\n"
    "Examples:\n"
    "  gpuprobe compare before.json after.json\n"
    "  gpuprobe compare base.json new.json --fail-on-regression 5 --metric bandwidth\n"
    "  gpuprobe compare base1.json base2.json vs new1.json new2.json --fail-on-regression 5\n"
    "  gpuprobe compare run.json run.json --devices 0:1     # two GPUs of one run\n"
    "Compare exits 4 when --fail-on-regression finds a regression or --fail-on-inconclusive an "
    "inconclusive row metric (one line on stderr), and 2 for an unreadable or malformed file, a "
    "bad flag, a misplaced 'vs', or files without a row in common.";

}  // namespace

void add_compare_options(CLI::App& command, CompareArgs& args) {
  command
      .add_option("files", args.files,
                  "A.json B.json: the baseline and the file compared with it (gpuprobe --json "
                  "output; gzipped too); or several runs per side, pooled: A1.json A2.json vs "
                  "B1.json B2.json")
      ->required()
      ->type_name("A.json [vs] B.json");
  command
      .add_option("--metric", args.value_names,
                  "metric(s) or summary/finding value(s) to compare, e.g. bandwidth or time "
                  "(default: every one in both)")
      ->delimiter(',')
      ->type_name("NAME[,NAME...]")
      ->expected(1)
      ->take_all();
  command
      .add_option("--fail-on-regression", args.fail_on_regression,
                  "exit 4 if some row metric is slower than A beyond PCT percent (5 or 5%): its "
                  "whole 95% interval, held at a family-wise 5% over all row metrics (without "
                  "samples: its ratio)")
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
      ->type_name("K")
      ->check(finite_number())
      ->check(range(0.0, 1000.0));
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
  compare.value_names = args.value_names;
  compare.noise_k = args.noise_k;
  compare.same_within = parse_percent("--same-within", args.same_within) / 100.0;
  compare.fail_on_inconclusive = args.fail_on_inconclusive;
  if (args.fail_on_regression)
    compare.fail_on_regression = parse_percent("--fail-on-regression", *args.fail_on_regression);
  if (args.devices) compare.devices = parse_device_pairs(*args.devices);
  const SideFiles files = split_sides(args.files);
  validate_outputs(options, args.files);

  // Every file read once (a named pipe given on both sides too), on several threads.
  std::vector<std::string> all = files.a;
  all.insert(all.end(), files.b.begin(), files.b.end());
  std::vector<RunReport> runs = read_report_files(all);
  auto take_side = [&runs](const std::vector<std::string>& paths, std::size_t from) {
    CompareSide side;
    for (std::size_t i = 0; i < paths.size(); ++i) {
      side.files.push_back(printable(paths[i]));  // shown in the header: no terminal escapes
      side.runs.push_back(std::move(runs[from + i]));
    }
    return side;
  };
  const CompareSide a = take_side(files.a, 0);
  const CompareSide b = take_side(files.b, files.a.size());
  CompareOutcome outcome = compare_sides(a, b, compare);
  outcome.report.tool.version = kToolVersion;
  outcome.report.tool.git = kToolGit;
  outcome.report.command = command;
  outcome.report.started_at = utc_timestamp();
  // The first screen (what was compared, the verdict, the headline changes, what the comparison
  // could detect) leads the table; --wide keeps its lines unbroken as the table's.
  write_outputs(options, outcome.report, glossary,
                compare_lead(outcome, options.wide ? std::size_t{100000} : std::size_t{120}));

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
