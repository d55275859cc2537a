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
#include "gpuprobe/core/json_io.hpp"
#include "gpuprobe/core/render.hpp"
#include "gpuprobe/version.hpp"
#include "output.hpp"
#include "report_python.hpp"

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

// compare's output for the two runs, in a temporary file; empty when nothing matched.
std::string write_comparison(const std::vector<std::string>& files, std::string& temp_path) {
  CompareSide a{{files[0]}, {read_report_file(files[0])}};
  CompareSide b{{files[1]}, {read_report_file(files[1])}};
  CompareOutcome outcome;
  try {
    outcome = compare_sides(a, b, CompareOptions{});
  } catch (const UsageError& e) {
    std::cerr << "gpuprobe: report: no comparison (" << e.what() << ")\n";
    return {};
  }
  outcome.report.tool.version = kToolVersion;
  outcome.report.tool.git = kToolGit;
  const auto dir = std::filesystem::temp_directory_path();
  std::string pattern = (dir / "gpuprobe-report-XXXXXX").string();
  const int fd = mkstemp(pattern.data());
  if (fd < 0) throw RunError("report: cannot create a temporary file in " + dir.string());
  close(fd);
  temp_path = pattern;
  std::ofstream out(temp_path);
  out << render_json(outcome.report);
  if (!out) throw RunError("report: cannot write the comparison to " + temp_path);
  return temp_path;
}

// The output's folder must exist (HTML) or be creatable (one file per plot): else exit 2 before
// anything is drawn.
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
  for (const auto& file : args.files)
    (void)read_report_file(file);  // a bad file is a usage error before anything is drawn
  validate_output(args);
  const std::string python = find_report_python();
  std::vector<std::string> call = {"-B",        report_script_dir(), "--out",
                                   args.output, "--format",          args.format};
  std::string temp;
  if (args.files.size() == 2) {
    const std::string cmp = write_comparison(args.files, temp);
    if (!cmp.empty()) call.insert(call.end(), {"--compare", cmp});
  }
  if (!args.note.empty()) call.insert(call.end(), {"--note", args.note});
  if (!args.title.empty()) call.insert(call.end(), {"--title", args.title});
  call.insert(call.end(), args.files.begin(), args.files.end());
  const int rc = run_program(python, call);
  if (!temp.empty()) std::remove(temp.c_str());
  if (rc == kNoMatplotlibStatus) (void)find_report_python();  // throws with the install hint
  if (rc != 0)
    throw RunError(
        fmt::format("report: the drawing script {} failed (exit {}); its message is "
                    "above",
                    report_script_dir(), rc));
  return 0;
}

}  // namespace gpuprobe::cli
