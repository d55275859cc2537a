// `gpuprobe report`: result files to one self-contained HTML page (or one SVG/PNG per plot),
// drawn by the gpuprobe_report Python package with matplotlib; two runs lead with `compare`.
#include <fmt/format.h>
#include <unistd.h>
#include <CLI/CLI.hpp>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "commands.hpp"
#include "gpuprobe/core/compare.hpp"
#include "gpuprobe/core/errors.hpp"
#include "gpuprobe/core/input_file.hpp"
#include "gpuprobe/core/json_io.hpp"
#include "gpuprobe/core/render.hpp"
#include "gpuprobe/version.hpp"
#include "output.hpp"
#include "report_python.hpp"
#include "report_stage.hpp"

namespace gpuprobe::cli {
namespace {

constexpr const char* kReportFooter =
    "One HTML file with everything inline (SVG plots, CSS; no script, nothing fetched when it "
    "is opened): per probe its main curves with the models dashed and error bars from the "
    "rounds' spread, counters against the models where collected, every run overlaid and "
    "labelled by GPU and file; then each run's findings, environment and tables. With two "
    "files it leads with `gpuprobe compare`'s verdicts on headline figures (B/A, 95% interval, "
    "beyond noise or not). --format svg|png writes one file per plot into the folder -o names.\n"
    "Drawing needs Python 3 with matplotlib (optional: nothing else in gpuprobe does): "
    "`apt-get install python3-matplotlib` or `python3 -m pip install matplotlib`; "
    "GPUPROBE_PYTHON names the interpreter. Exit 3 when it is missing, 2 for a bad input file.\n"
    "Examples:\n"
    "  gpuprobe report run.json -o report.html\n"
    "  gpuprobe report h100.json h200.json -o h100-vs-h200.html\n"
    "  gpuprobe report run.json --format png -o plots/";

// compare's output for the two runs, in the stage; empty when nothing matched.
std::string write_comparison(const StagedRuns& in, const ReportStage& stage) {
  CompareSide a{{in.names[0]}, {in.runs[0]}};
  CompareSide b{{in.names[1]}, {in.runs[1]}};
  CompareOutcome outcome;
  try {
    outcome = compare_sides(a, b, CompareOptions{});
  } catch (const UsageError& e) {
    std::cerr << "gpuprobe: report: no comparison (" << e.what() << ")\n";
    return {};
  }
  outcome.report.tool.version = kToolVersion;
  outcome.report.tool.git = kToolGit;
  const std::string path = stage.path("compare.json");
  write_output(path, render_json(outcome.report));
  return path;
}

// The output: for HTML a file whose folder exists and takes files, never one of the inputs;
// for one file per plot a folder, made when missing. Else exit 2 before anything is drawn.
void validate_output(const ReportArgs& args) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (args.format != "html") {
    fs::create_directories(args.output, ec);
    if (ec || !fs::is_directory(args.output))
      throw UsageError(fmt::format("report: -o: cannot create the folder '{}'", args.output));
    return;
  }
  const fs::path parent = fs::absolute(args.output, ec).parent_path();
  if (ec || !fs::is_directory(parent))
    throw UsageError(fmt::format("report: -o: the folder of '{}' does not exist", args.output));
  validate_output_file("report: -o", args.output, args.files);
}

// The script's error: the one line it wrote into its error file, as gpuprobe's own error.
[[noreturn]] void script_failed(int rc, const std::string& error_file) {
  std::string line;
  try {
    line = read_input_file(error_file, 1u << 16, "an error line");
  } catch (const UsageError&) {
  }
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r'))
    line.pop_back();
  if (line.empty())
    line = fmt::format("report: the drawing script {} failed (exit {}); its message is above",
                       report_script_dir(), rc);
  if (rc == kScriptUsageStatus) throw UsageError(line);
  throw RunError(line);
}

// What the script drew, moved from the stage to where -o names: the page written atomically,
// or each plot file copied into the folder.
void deliver(const ReportArgs& args, const std::string& drawn) {
  namespace fs = std::filesystem;
  if (args.format == "html") {
    write_output(args.output, read_input_file(drawn, std::uint64_t{1} << 30, "a report page"));
    return;
  }
  // error_code overloads throughout: the library's own exception would reach the user raw
  std::error_code listed;
  for (fs::directory_iterator it(drawn, listed), end; !listed && it != end; it.increment(listed)) {
    const fs::directory_entry& entry = *it;
    std::error_code ec;
    fs::copy_file(entry.path(), fs::path(args.output) / entry.path().filename(),
                  fs::copy_options::overwrite_existing, ec);
    if (ec)
      throw UsageError(fmt::format("report: -o: cannot write '{}': {}",
                                   (fs::path(args.output) / entry.path().filename()).string(),
                                   ec.message()));
  }
  if (listed)
    throw RunError(
        fmt::format("report: cannot read the plots drawn into '{}': {}", drawn, listed.message()));
}

}  // namespace

void add_report_options(CLI::App& command, ReportArgs& args) {
  command.add_option("files", args.files, "result files (gpuprobe --json output; gzipped too)")
      ->required()
      ->check(CLI::ExistingFile)
      ->option_text("RUN.json [MORE.json...]");  // the type name would gain the check's ":FILE"
  command
      .add_option("-o,--output", args.output,
                  "the HTML file (or, with --format svg|png, "
                  "the folder for the plot files)")
      ->required()
      ->type_name("PATH");
  command.add_option("--format", args.format, "html (one page), or svg / png (one file per plot)")
      ->check(CLI::IsMember({"html", "svg", "png"}))
      ->option_text("html|svg|png")  // not CLI11's "TEXT:{html,svg,png}"
      ->default_str("html");
  command
      .add_option("--note", args.note,
                  "a sentence printed above the plots (e.g. what the "
                  "runs are and what is missing)")
      ->type_name("TEXT");
  command.add_option("--title", args.title, "the page's title")->type_name("TEXT");
  command.footer(kReportFooter);
}

int report_runs(const ReportArgs& args) {
  if (args.format != "html" && !(args.title.empty() && args.note.empty()))
    throw UsageError(fmt::format(
        "report: {} belongs to the HTML page, and --format {} writes plot files, no page: "
        "give one of them",
        args.title.empty() ? "--note" : "--title", args.format));
  const ReportStage stage;
  const StagedRuns in = stage_runs(args.files, stage);  // bad input: exit 2 before drawing
  validate_output(args);
  const std::string python = find_report_python();
  const std::string drawn = stage.path(args.format == "html" ? "report.html" : "plots");
  if (args.format != "html") {
    std::error_code made;
    std::filesystem::create_directory(drawn, made);
    if (made)
      throw RunError(
          fmt::format("report: cannot make a folder for the plots in the private "
                      "temporary folder: {}",
                      made.message()));
  }
  const std::string error_file = stage.path("error.txt");
  std::vector<std::string> call = {"-B",           report_script_dir(), "--out",      drawn,
                                   "--format",     args.format,         "--out-name", args.output,
                                   "--error-file", error_file};
  if (args.files.size() == 2) {
    const std::string cmp = write_comparison(in, stage);
    if (!cmp.empty()) call.insert(call.end(), {"--compare", cmp});
  }
  if (!args.note.empty()) call.insert(call.end(), {"--note", args.note});
  if (!args.title.empty()) call.insert(call.end(), {"--title", args.title});
  for (std::size_t i = 0; i < in.staged.size(); ++i)
    call.insert(call.end(), {"--name", in.names[i]});
  call.insert(call.end(), in.staged.begin(), in.staged.end());
  const int rc = run_program(python, call);
  if (rc == kNoMatplotlibStatus) (void)find_report_python();  // throws with the install hint
  if (rc != 0) script_failed(rc, error_file);
  deliver(args, drawn);
  return 0;
}

}  // namespace gpuprobe::cli
