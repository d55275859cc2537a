// `gpuprobe check RUN.json...`: expectations (--expect, --expect-file, each GPU's reference
// file) evaluated on saved results; never uses CUDA. (Without files, `check` runs every probe.)
#include <fmt/format.h>

#include <iostream>

#include "commands.hpp"
#include "expectations.hpp"
#include "gpuprobe/core/errors.hpp"
#include "gpuprobe/core/json_io.hpp"
#include "output.hpp"

namespace gpuprobe::cli {
namespace {

// The expectations for one saved run: those named, then its GPUs' reference files' (those its
// results can answer).
std::vector<Expectation> expectations_for(const GlobalOptions& options, const RunReport& report,
                                          const std::vector<Expectation>& named) {
  std::vector<Expectation> out = named;
  const auto reference =
      applicable_to_plan(reference_expectations_for(report.devices, options.quiet), report);
  out.insert(out.end(), reference.begin(), reference.end());
  return out;
}

}  // namespace

int check_files(const GlobalOptions& options, const std::vector<std::string>& files,
                const Glossary& glossary) {
  if (files.size() > 1 &&
      !(options.json_path.empty() && options.csv_path.empty() && options.md_path.empty()))
    throw UsageError("check: --json, --csv and --md take one result file");
  check_outputs(options);
  const std::vector<Expectation> named = named_expectations(options);
  int code = 0;
  for (const auto& path : files) {
    RunReport report = report_from_json(read_json_file(path), path);
    const auto expectations = expectations_for(options, report, named);
    check_against_plan(named, report);  // a named bound this file cannot answer is a usage error
    report.expectations = evaluate_expectations(expectations, report);
    for (const auto& e : report.expectations) {
      if (!options.quiet) std::cout << fmt::format("{}: {}\n", path, expectation_summary(e));
      if (!expectation_failed(e)) continue;
      for (const auto& line : expectation_failure_lines(e))
        std::cerr << fmt::format("gpuprobe: {}: {}\n", path, line);
      code = static_cast<int>(ExitCode::kCheckFailed);
    }
    if (files.size() == 1) {
      GlobalOptions quiet = options;
      quiet.quiet = true;  // the table is not repeated; the files get the whole report
      write_outputs(quiet, report, glossary);
    }
  }
  return code;
}

}  // namespace gpuprobe::cli
