// The inputs of `gpuprobe report`, read once by gpuprobe and handed to the drawing script as it
// read them, in a private temporary folder removed at the end.
#pragma once

#include <string>
#include <vector>

#include "gpuprobe/core/result.hpp"

namespace gpuprobe::cli {

// A private folder (mkdtemp) removed with everything in it when the stage ends.
class ReportStage {
 public:
  ReportStage();
  ~ReportStage();
  ReportStage(const ReportStage&) = delete;
  ReportStage& operator=(const ReportStage&) = delete;
  // A path inside the folder.
  std::string path(const std::string& name) const;

 private:
  std::string dir_;
};

// The result files as the report draws them: each read once (a named pipe too), its strings'
// control characters escaped (parse_json_text), rewritten into the stage as plain JSON
// (input-1.json, ...). Throws UsageError (exit 2) for a file that is not a run's results (another
// command's output, a plan, no GPU named), or when no file holds a probe result that is ok:
// nothing to draw.
struct StagedRuns {
  std::vector<RunReport> runs;      // as read, in the order given
  std::vector<std::string> staged;  // the copies the script reads
  std::vector<std::string> names;   // the names shown (the paths given, escaped)
};
StagedRuns stage_runs(const std::vector<std::string>& files, const ReportStage& stage);

}  // namespace gpuprobe::cli
