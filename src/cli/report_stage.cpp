// The report's inputs read once, checked, and handed to the drawing script in a private folder.
#include "report_stage.hpp"

#include <fmt/format.h>
#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <optional>

#include "gpuprobe/core/errors.hpp"
#include "gpuprobe/core/expect.hpp"
#include "gpuprobe/core/input_file.hpp"
#include "gpuprobe/core/json_io.hpp"

namespace gpuprobe::cli {
namespace {

namespace fs = std::filesystem;

// Why a file is not a run the report can draw (another command's output, a plan, no GPU), or
// nullopt: a run, even one whose probes all failed (the page shows them failed).
std::optional<std::string> not_a_run(const RunReport& report) {
  const auto why = not_checkable(report);
  if (!why || !report.sides.empty() || report.devices.empty()) return why;
  return std::nullopt;  // a run of no result or no ok result: shown as it is
}

bool has_ok_result(const RunReport& report) {
  return std::any_of(report.results.begin(), report.results.end(),
                     [](const ProbeResult& r) { return r.status == Status::kOk; });
}

}  // namespace

ReportStage::ReportStage() {
  std::string pattern = (fs::temp_directory_path() / "gpuprobe-report-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr)
    throw RunError(fmt::format("report: cannot create a temporary folder in '{}'",
                               fs::temp_directory_path().string()));
  dir_ = pattern;
}

ReportStage::~ReportStage() {
  std::error_code ec;
  fs::remove_all(dir_, ec);
}

std::string ReportStage::path(const std::string& name) const {
  return (fs::path(dir_) / name).string();
}

StagedRuns stage_runs(const std::vector<std::string>& files, const ReportStage& stage) {
  const std::vector<nlohmann::ordered_json> json = read_json_files(files);
  StagedRuns out;
  for (std::size_t i = 0; i < files.size(); ++i) {
    RunReport run = report_from_json(json[i], files[i]);
    if (const auto why = not_a_run(run))
      throw UsageError(fmt::format("report: '{}': {}", printable(files[i]), *why));
    out.staged.push_back(stage.path(fmt::format("input-{}.json", i + 1)));
    write_output(out.staged.back(), json[i].dump(1) + "\n");
    out.names.push_back(printable(files[i]));
    out.runs.push_back(std::move(run));
  }
  if (std::none_of(out.runs.begin(), out.runs.end(), has_ok_result)) {
    const auto why = not_checkable(out.runs.front());
    throw UsageError(fmt::format("report: nothing to draw in '{}': {}", out.names.front(),
                                 why ? *why : "no probe result is ok"));
  }
  return out;
}

}  // namespace gpuprobe::cli
