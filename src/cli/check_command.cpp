// `gpuprobe check RUN.json...`: expectations (--expect, --expect-file, each GPU's reference
// file) evaluated on saved results; never uses CUDA. (Without files, `check` runs every probe.)
// A file that is no run, or that leaves nothing or a bounded probe unchecked, fails (exit 4).
#include <fmt/format.h>

#include <algorithm>
#include <iostream>

#include "commands.hpp"
#include "core/render_layout.hpp"
#include "expectations.hpp"
#include "gpuprobe/core/errors.hpp"
#include "gpuprobe/core/input_file.hpp"
#include "gpuprobe/core/json_io.hpp"
#include "output.hpp"

namespace gpuprobe::cli {
namespace {

// Why a parsed JSON file is no gpuprobe result file at all (arbitrary JSON), or "".
std::string not_a_result_file(const nlohmann::ordered_json& j) {
  if (!j.is_object()) return "its top level is not an object";
  if (!j.contains("schema_version")) return "it has no schema_version";
  if (!j.contains("results") || !j.at("results").is_array()) return "it has no results array";
  return "";
}

// One stderr line saying why `path` failed its check; the exit code it gives.
int check_failure(const std::string& path, const std::string& what) {
  std::cerr << fmt::format("gpuprobe: {}: {}\n", printable(path), printable(what));
  return static_cast<int>(ExitCode::kCheckFailed);
}

// The expectations for one saved run: those named, then its GPUs' reference files' (those its
// results can answer). `unchecked`: a line per GPU and probe whose reference bounds it cannot.
std::vector<Expectation> expectations_for(const GlobalOptions& options, const RunReport& report,
                                          const std::vector<Expectation>& named,
                                          std::vector<std::string>& unchecked) {
  std::vector<Expectation> out = named;
  auto coverage =
      reference_coverage(reference_expectations_for(report.devices, options.quiet), report);
  unchecked = std::move(coverage.unchecked);
  const auto reference = applicable_to_plan(coverage.checkable, report);
  out.insert(out.end(), reference.begin(), reference.end());
  return out;
}

// Each bound's outcome (measured value and bound) under the file's name, wrapped to 120 columns,
// then a total: "PATH: 19 bounds: 18 passed, 1 failed".
void print_outcomes(const std::string& path, const std::vector<ExpectationResult>& results,
                    bool unchecked) {
  using render_detail::kTextWidth;
  std::string out;
  for (const auto& line : render_detail::wrap_text("", printable(path) + ":", kTextWidth, 4))
    out += line + "\n";
  for (const auto& e : results)
    for (const auto& line : render_detail::wrap_text("  ", expectation_summary(e), kTextWidth, 6))
      out += line + "\n";
  std::string total = expectation_total(results);
  if (unchecked) total += "; reference bounds not checked (below)";
  for (const auto& line :
       render_detail::wrap_items("", {printable(path) + ":", total}, " ", kTextWidth, 4))
    out += line + "\n";
  std::cout << out << std::flush;
}

// Checks one file; its exit code (0 or 4).
int check_file(const GlobalOptions& options, const std::string& path,
               const nlohmann::ordered_json& json, const std::vector<Expectation>& named,
               bool write_files, const Glossary& glossary) {
  if (const std::string why = not_a_result_file(json); !why.empty())
    return check_failure(path, "nothing checked: not a gpuprobe run's results (" + why + ")");
  RunReport report = report_from_json(json, path);
  if (const auto why = not_checkable(report))
    return check_failure(path, "nothing checked: " + *why);
  std::vector<std::string> unchecked;
  const auto expectations = expectations_for(options, report, named, unchecked);
  validate_against_plan(named, report);  // a named bound this file cannot answer is a usage error
  report.expectations = evaluate_expectations(expectations, report);
  if (!options.quiet) print_outcomes(path, report.expectations, !unchecked.empty());
  int code = 0;
  for (const auto& e : report.expectations) {
    if (!expectation_failed(e)) continue;
    for (const auto& line : expectation_failure_lines(e))
      std::cerr << fmt::format("gpuprobe: {}: {}\n", path, line);
    code = static_cast<int>(ExitCode::kCheckFailed);
  }
  for (const auto& line : unchecked)
    code = check_failure(path, line);
  if (report.expectations.empty() && unchecked.empty())
    code = check_failure(path, "nothing checked: no bound applies to its results");
  if (write_files) {
    GlobalOptions quiet = options;
    quiet.quiet = true;  // the table is not repeated; the files get the whole report
    write_outputs(quiet, report, glossary);
  }
  return code;
}

}  // namespace

int check_files(const GlobalOptions& options, const std::vector<std::string>& files,
                const Glossary& glossary) {
  if (files.size() > 1 &&
      !(options.json_path.empty() && options.csv_path.empty() && options.md_path.empty()))
    throw UsageError("check: --json, --csv and --md take one result file");
  validate_outputs(options, files);
  const std::vector<Expectation> named = named_expectations(options);
  // Every file read first, each distinct one once (a named pipe given twice too).
  const std::vector<nlohmann::ordered_json> json = read_json_files(files);
  int code = 0;
  for (std::size_t i = 0; i < files.size(); ++i)
    code =
        std::max(code, check_file(options, files[i], json[i], named, files.size() == 1, glossary));
  return code;
}

}  // namespace gpuprobe::cli
