// Command-line wiring: global options, one subcommand per probe, list/info/all/compare/report.
#include "app.hpp"

#include <fmt/format.h>
#include <unistd.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <iostream>

#include "axis_options.hpp"
#include "commands.hpp"
#include "gpuprobe/core/errors.hpp"
#include "gpuprobe/core/rounds.hpp"
#include "gpuprobe/probe.hpp"
#include "gpuprobe/version.hpp"
#include "help_format.hpp"
#include "options.hpp"
#include "round_worker.hpp"
#include "shell_docs.hpp"
#include "unused_options.hpp"
#include "validators.hpp"
#include "version_text.hpp"

namespace gpuprobe::cli {
namespace {

constexpr const char* kExitCodes =
    "Exit codes: 0 success; 1 a probe failed at run time (CUDA error, out of memory, wrong "
    "result); 2 usage error (bad option or value, unreadable input); 3 no usable GPU, or the "
    "probe is unsupported on this GPU, or report's matplotlib is missing; 4 a check failed (an "
    "--expect bound, or compare's "
    "--fail-on-regression found a regression beyond its threshold, or --fail-on-inconclusive an "
    "inconclusive comparison, or fleet --fail-on-outlier an outlier); 130/143 stopped by "
    "SIGINT/SIGTERM.";

constexpr const char* kCheckFooter =
    "check runs what `all` runs and evaluates this GPU's reference expectations "
    "(expectations/<gpu name>.txt, made from committed runs of that GPU with margins from their "
    "measured spread; generic.txt with physical bounds for any other GPU) and every --expect and "
    "--expect-file. A metric fails only when its median and the whole 95% interval of the median "
    "lie beyond the bound; when the interval reaches the bound it is 'inconclusive', reported, "
    "not a failure. Each failure is one line on stderr (what, measured, expected); exit 4. A "
    "check never passes on nothing: a file that is no run's results, has no ok probe result, or "
    "lacks (or failed) a probe its GPU's reference file bounds exits 4 with a line saying so.\n"
    "Examples:\n"
    "  gpuprobe check\n"
    "  gpuprobe check --expect 'transfer[memory=pinned,bytes>=64MiB].bandwidth >= 50GB/s'\n"
    "  gpuprobe check run.json            # saved results, no GPU (run.json.gz too)";

void add_global_options(CLI::App& app, GlobalOptions& o) {
  app.add_option("-d,--device", o.device, "GPU index, list (0,2) or 'all'")
      ->type_name("N|LIST|all")
      ->default_str("0");
  app.add_option("--json", o.json_path,
                 "write JSON results to FILE ('-' for stdout; FILE.gz: gzipped)")
      ->type_name("FILE")
      ->check(file_name());
  app.add_option("--csv", o.csv_path, "write CSV results to FILE ('-' for stdout)")
      ->type_name("FILE")
      ->check(file_name());
  app.add_option("--md", o.md_path, "write Markdown results to FILE ('-' for stdout)")
      ->type_name("FILE")
      ->check(file_name());
  app.add_option("--samples", o.samples,
                 "fixed number of samples per point (deterministic, for CI)")
      ->check(range(std::size_t{1}, std::size_t{100000}))
      ->type_name("N");
  app.add_option("--min-time", o.min_time, "least measured seconds per point (adaptive mode)")
      ->type_name("SECONDS")
      ->check(finite_number())
      ->check(range(0.0, 3600.0));
  app.add_option("--max-noise", o.max_noise,
                 "stop once the median is known to within this: half-width of its 95% interval, "
                 "relative (0.01 or 1%)")
      ->type_name("FRACTION|PCT");
  app.add_option("--max-time", o.max_time, "most seconds spent sampling one point")
      ->type_name("SECONDS")
      ->check(finite_number())
      ->check(range(0.001, 3600.0));
  app.add_option("--rounds", o.rounds,
                 "rounds per batch of points: each takes a share of every point's samples, in a "
                 "shuffled order (default 5)")
      ->type_name("N")
      ->check(range(std::size_t{1}, std::size_t{100}));
  app.add_option("--seed", o.seed, "seed of the rounds' shuffled order (default: random, recorded)")
      ->type_name("N")
      ->check(range(std::uint64_t{0}, kMaxSeed));
  app.add_flag("-q,--quiet", o.quiet, "no table on stdout (files are still written)");
  app.add_flag("--no-color", o.no_color, "no ANSI colour (also: NO_COLOR=1)");
  app.add_flag("--wide", o.wide,
               "tables with full column names, no legend, no wrapping (default: fit 120 columns)");
  app.add_flag("--plan", o.plan, "print the sweep points and model predictions; no GPU is used");
  app.add_flag("--counters,!--no-counters", o.counters,
               "hardware counters in a pass after timing (default: on when the GPU allows it)");
  app.add_option("--metrics", o.metrics,
                 "more CUPTI metrics for every probe's counter pass, e.g. "
                 "dram__bytes_read.sum,lts__t_sector_hit_rate.pct")
      ->type_name("LIST")
      ->expected(1)
      ->take_all();  // split by metric_names(), which refuses empty items (CLI11 drops them)
  app.add_option_function<std::string>(
         "--list-metrics", [&o](const std::string& filter) { o.list_metrics = filter; },
         "list the metrics the GPU's chip offers (base names; names containing FILTER; a FILTER "
         "with a '.' lists full names with their rollups)")
      ->expected(0, 1)
      ->type_name("[FILTER]");
  app.add_option("--expect", o.expect,
                 "a bound the run must meet, e.g. 'transfer[memory=pinned,bytes>=64MiB].bandwidth "
                 ">= 50GB/s' (repeatable; exit 4 when one fails; README \"Expectations\")")
      ->type_name("EXPR")
      ->expected(1)
      ->take_all();
  app.add_option("--expect-file", o.expect_files,
                 "expectations from FILE, one per line ('#' comments); repeatable")
      ->type_name("FILE")
      ->expected(1)
      ->take_all();
}

// The tool's own subcommands (not probes) and what their options parse into. Built in place:
// CLI11 keeps pointers to the members.
struct ToolCommands {
  CLI::App* list = nullptr;
  CLI::App* info = nullptr;
  CLI::App* all = nullptr;
  CLI::App* compare = nullptr;
  CLI::App* check = nullptr;
  CLI::App* fleet = nullptr;
  CLI::App* report = nullptr;
  CompareArgs compare_args;
  FleetArgs fleet_args;
  ReportArgs report_args;
  std::vector<std::string> check_files;
};

void add_tool_commands(CLI::App& app, ToolCommands& t) {
  t.list = app.add_subcommand("list", "list the probes (no GPU needed)");
  t.info = app.add_subcommand("info", "show the GPU(s) and what they support");
  t.all = app.add_subcommand("all", "run every probe with quick defaults");
  t.compare = app.add_subcommand(
      "compare", "compare two JSON result files, or several runs per side (no GPU needed)");
  t.check = app.add_subcommand(
      "check",
      "health check: every probe (quick) against this GPU's reference expectations; "
      "with result files, check those instead (no GPU needed)");
  t.fleet = app.add_subcommand(
      "fleet",
      "many nodes' result files: per row the fleet median, spread and the GPUs beyond "
      "it (no GPU needed)");
  t.report = app.add_subcommand(
      "report", "plots of result files in one self-contained HTML page (no GPU needed)");
  for (auto* c : {t.list, t.info, t.all, t.compare, t.check, t.fleet, t.report})
    c->fallthrough();
  add_report_options(*t.report, t.report_args);
  t.report->footer(t.report->get_footer() + "\n\n" + kExitCodes);
  add_fleet_options(*t.fleet, t.fleet_args);
  t.fleet->footer(t.fleet->get_footer() + "\n\n" + kExitCodes);
  t.check->add_option("files", t.check_files, "saved results (gpuprobe --json output; gzipped too)")
      ->type_name("[RUN.json...]");
  t.check->footer(std::string(kCheckFooter) + "\n\n" + kExitCodes);
  add_compare_options(*t.compare, t.compare_args);
  t.compare->footer(t.compare->get_footer() + "\n\n" + kExitCodes);
}

// One probe's subcommand and its axis options.
struct ProbeCommand {
  CLI::App* cmd;
  Probe* probe;
  std::unique_ptr<AxisOptions> axes;
};

std::vector<ProbeCommand> add_probe_commands(CLI::App& app,
                                             const std::vector<std::unique_ptr<Probe>>& probes) {
  std::vector<ProbeCommand> out;
  for (const auto& p : probes) {
    auto* cmd = app.add_subcommand(p->name(), p->description());
    cmd->fallthrough();
    auto axes = std::make_unique<AxisOptions>(*cmd, p->axes());
    // The probe's own footer, then the exit codes.
    const std::string own = p->help_footer();
    cmd->footer(own.empty() ? std::string(kExitCodes) : own + "\n\n" + kExitCodes);
    out.push_back({cmd, p.get(), std::move(axes)});
  }
  return out;
}

// The tool commands' unused global options, refused before anything runs.
void refuse_unused_options(const CLI::App& app, const ToolCommands& t) {
  const auto given = [&app](const std::string& name) {
    const CLI::Option* option = app.get_option_no_throw(name);
    return option != nullptr && option->count() > 0;
  };
  if (t.list->parsed()) refuse_unused(given, "list", kAllOptions);
  if (t.info->parsed()) refuse_unused(given, "info", kMeasureOptions | kExpectOptions);
  const unsigned reads_files = kMeasureOptions | kDeviceOption;
  if (t.compare->parsed()) refuse_unused(given, "compare", reads_files | kExpectOptions);
  if (t.fleet->parsed()) refuse_unused(given, "fleet", reads_files | kExpectOptions);
  if (t.report->parsed()) refuse_unused(given, "report", kAllOptions);
  if (t.check->parsed() && !t.check_files.empty())
    refuse_unused(given, "check RUN.json", reads_files);
}

// Runs what the parsed command line asks for.
int dispatch(const CLI::App& app, GlobalOptions& options, const ToolCommands& t,
             const std::vector<std::unique_ptr<Probe>>& probes,
             const std::vector<ProbeCommand>& probe_cmds, const std::vector<std::string>& command) {
  if (app.count("--list-metrics") > 0) {
    if (app.get_subcommands().size() > 0)
      throw UsageError("--list-metrics takes no command: gpuprobe --list-metrics [FILTER]");
    return list_metrics(options, options.list_metrics.value_or(""));
  }
  refuse_unused_options(app, t);
  if (t.list->parsed()) return list_probes(probes);
  if (t.info->parsed()) return show_info(options, command);
  const Glossary glossary = make_glossary(probes);
  if (t.compare->parsed()) return compare_runs(options, command, t.compare_args, glossary);
  if (t.fleet->parsed()) return fleet_runs(options, command, t.fleet_args, glossary);
  if (t.report->parsed()) return report_runs(t.report_args);
  if (t.check->parsed()) {
    if (std::find(options.expect_files.begin(), options.expect_files.end(), "auto") ==
        options.expect_files.end())
      options.expect_files.push_back("auto");
    if (!t.check_files.empty()) return check_files(options, t.check_files, glossary);
  }
  if (t.all->parsed() || t.check->parsed()) {
    // `all` (and `check`) take no probe flags: every probe runs with its quick defaults.
    std::vector<SelectedProbe> selected;
    for (const auto& pc : probe_cmds)
      selected.push_back({pc.probe, resolve_axes(pc.axes->axes(), {}, /*quick=*/true)});
    return run_probes(options, command, selected, /*quick=*/true, /*explicit_probe=*/false,
                      glossary);
  }
  for (const auto& pc : probe_cmds) {
    if (pc.cmd->parsed()) {
      SelectedProbe selected{pc.probe,
                             resolve_axes(pc.axes->axes(), pc.axes->input(), /*quick=*/false)};
      return run_probes(options, command, {selected}, /*quick=*/false, /*explicit_probe=*/true,
                        glossary);
    }
  }
  throw UsageError("no command given: try gpuprobe list, gpuprobe all or gpuprobe --help");
}

}  // namespace

int run(int argc, char** argv) {
  if (argc == 4 && std::string_view(argv[1]) == kRoundWorkerCommand)
    return run_round_worker(argv[2], argv[3]);
  CLI::App app{
      "gpuprobe: how your GPU really moves bytes — measured, with a model beside each number.",
      "gpuprobe"};
  app.formatter(std::make_shared<HelpFormatter>());  // before the subcommands: they inherit it
  app.footer(kExitCodes);
  app.set_version_flag("--version", version_text);  // a callback: CUDA is asked only then
  app.require_subcommand(0, 1);                     // none given: a usage error below
  GlobalOptions options;
  add_global_options(app, options);
  ToolCommands tool;
  add_tool_commands(app, tool);
  const auto probes = make_probes();
  const auto probe_cmds = add_probe_commands(app, probes);
  if (argc == 3 && std::string_view(argv[1]) == kCompletionsCommand) {
    std::cout << completion_script(app, argv[2]);
    return 0;
  }
  if (argc == 2 && std::string_view(argv[1]) == kManCommand) {
    std::cout << man_page(app, fmt::format("gpuprobe {}", kToolVersion));
    return 0;
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::string msg = e.what();
    throw UsageError(fmt::format("{} (see gpuprobe --help)", msg));
  }
  options.metrics = metric_names(options.metrics);  // before any device is looked up
  return dispatch(app, options, tool, probes, probe_cmds,
                  std::vector<std::string>(argv, argv + argc));
}

}  // namespace gpuprobe::cli
