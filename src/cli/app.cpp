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
#include "gpuprobe/core/input_file.hpp"
#include "gpuprobe/core/rounds.hpp"
#include "gpuprobe/counters/names.hpp"
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
    "Exit codes:\n"
    "  0    success\n"
    "  1    a probe failed at run time (CUDA error, out of memory, wrong result); report's drawing "
    "failed\n"
    "  2    usage error: unknown command or option, a global option the command does not use, a "
    "bad value, contradicting options, an unwritable output, an unreadable or malformed input file "
    "(report: another command's output, nothing ok to draw)\n"
    "  3    no usable GPU, or the probe is unsupported on this GPU (and was asked for); report's "
    "matplotlib is missing\n"
    "  4    a check failed: an --expect or reference bound failed, check checked nothing or left a "
    "bounded probe unchecked, compare's --fail-on-regression or --fail-on-inconclusive, fleet "
    "--fail-on-outlier\n"
    "  130  stopped by SIGINT (143: SIGTERM)";

constexpr const char* kCheckFooter =
    "check runs what `all` runs and evaluates this GPU's reference expectations "
    "(expectations/<gpu name>.txt, made from committed runs of that GPU with margins from their "
    "measured spread; generic.txt with physical bounds for any other GPU) and every --expect and "
    "--expect-file. A metric fails only when its median and the whole 95% interval of the median "
    "lie beyond the bound; when the interval reaches the bound it is 'inconclusive', reported, "
    "not a failure. Each bound is listed with its state, the value measured and the bound, then "
    "a total per file (N bounds: P passed, F failed); each failure is also one line on stderr "
    "(what, measured, expected); exit 4. A "
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

// A global option as its help names it: "-d/--device", "--counters/--no-counters".
std::string option_names(const CLI::Option& option) {
  std::string out;
  for (const auto& s : option.get_snames())
    out += (out.empty() ? "-" : "/-") + s;
  for (const auto& l : option.get_lnames())
    out += (out.empty() ? "--" : "/--") + l;
  return out;
}

// The global options of `app` that `command` uses (or, with `refused_only`, refuses), by
// unused_options' rule: the one that refuses the others, so the help cannot drift from it.
std::string global_options_of(const CLI::App& app, const std::string& command, bool refused_only) {
  std::string out;
  for (const CLI::Option* o : app.get_options()) {
    if (o->get_lnames().empty()) continue;
    const std::string name = "--" + o->get_lnames().front();
    if (name == "--help" || name == "--version" || name == "--list-metrics") continue;
    if (refused_option(name, refused_groups(command)) != refused_only) continue;
    out += (out.empty() ? "" : ", ") + option_names(*o);
  }
  return out;
}

// A command's help ends with the global options it uses (exit codes: gpuprobe --help).
void add_global_options_footer(const CLI::App& app, CLI::App& command, const std::string& name) {
  std::string line =
      "Global options that apply (gpuprobe --help): " + global_options_of(app, name, false) + ".";
  if (name == "check")
    line += " With RUN.json files, not " + global_options_of(app, "check RUN.json", true) + ".";
  line += "\nExit codes: gpuprobe --help.";
  const std::string own = command.get_footer();
  command.footer(own.empty() ? line : own + "\n\n" + line);
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
  add_fleet_options(*t.fleet, t.fleet_args);
  t.check->add_option("files", t.check_files, "saved results (gpuprobe --json output; gzipped too)")
      ->type_name("[RUN.json...]");
  t.check->footer(kCheckFooter);
  add_compare_options(*t.compare, t.compare_args);
  for (auto* c : {t.list, t.info, t.all, t.compare, t.check, t.fleet, t.report})
    add_global_options_footer(app, *c, c->get_name());
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
    // The probe's own footer, then the global options it uses.
    cmd->footer(p->help_footer());
    add_global_options_footer(app, *cmd, p->name());
    out.push_back({cmd, p.get(), std::move(axes)});
  }
  return out;
}

// The tool commands' unused global options and contradicting ones, refused before anything runs.
void refuse_unused_options(const CLI::App& app, const GlobalOptions& o, const ToolCommands& t) {
  const auto given = [&app](const std::string& name) {
    const CLI::Option* option = app.get_option_no_throw(name);
    return option != nullptr && option->count() > 0;
  };
  for (const CLI::App* c : {t.list, t.info, t.compare, t.fleet, t.report})
    if (c->parsed()) refuse_unused(given, c->get_name(), refused_groups(c->get_name()));
  if (t.check->parsed() && !t.check_files.empty())
    refuse_unused(given, "check RUN.json", refused_groups("check RUN.json"));
  const CLI::Option* counters = app.get_option_no_throw("--counters");
  bool on = false, off = false;
  if (counters != nullptr)
    for (const std::string& r : counters->results())
      (r == "false" ? off : on) = true;
  const char* on_stdout = o.json_path == "-" ? "--json" : o.csv_path == "-" ? "--csv" : "";
  refuse_contradictions(given, on && off, on_stdout);
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
  refuse_unused_options(app, options, t);
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

// The nearest of `candidates` to `word` ("; did you mean 'transfer'?"), or "" when none is
// within a typo's reach (a quarter of the word's length, at least 2 edits).
std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates) {
  const auto near = counters::nearest_names(word, candidates, 1);
  if (near.empty() ||
      counters::edit_distance(word, near.front()) > std::max<std::size_t>(2, word.size() / 4))
    return "";
  return fmt::format("; did you mean '{}'?", near.front());
}

// The long option names of `app`, "--name".
std::vector<std::string> long_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::Option* o : app.get_options())
    for (const auto& l : o->get_lnames())
      names.push_back("--" + l);
  return names;
}

// "unknown option '--timeline' for `transfer`", with the nearest option of the command and the
// global ones, or the other commands that have it.
std::string unknown_option(const CLI::App& app, const CLI::App* command, const std::string& word) {
  const std::string name = word.substr(0, word.find('='));
  std::vector<std::string> names = long_names(app);
  if (command) {
    const auto own = long_names(*command);
    names.insert(names.end(), own.begin(), own.end());
  }
  std::string hint = did_you_mean(name, names);
  if (hint.empty() && command) {
    std::string owners;
    for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
      const auto theirs = long_names(*sub);
      if (sub != command && std::find(theirs.begin(), theirs.end(), name) != theirs.end())
        owners += (owners.empty() ? "" : ", ") + sub->get_name();
    }
    if (!owners.empty()) hint = fmt::format(" (an option of {})", owners);
  }
  return fmt::format("unknown option '{}'{}{} (see gpuprobe {}--help)", name,
                     command ? " for `" + command->get_name() + "`" : "", hint,
                     command ? command->get_name() + " " : "");
}

// The line for an argument no command takes: an unknown command or option, with the nearest name.
std::string unexpected_argument(const CLI::App& app, const std::string& what) {
  const CLI::App* command = app.get_subcommands().empty() ? nullptr : app.get_subcommands().front();
  std::vector<std::string> extras = command ? command->remaining() : std::vector<std::string>{};
  if (extras.empty()) extras = app.remaining();
  if (extras.empty()) return fmt::format("{} (see gpuprobe --help)", what);
  const std::string word = printable(extras.front().substr(0, 64));
  if (word.starts_with("-")) return unknown_option(app, command, word);
  if (command)
    return fmt::format("unexpected argument '{}' for `{}` (see gpuprobe {} --help)", word,
                       command->get_name(), command->get_name());
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
    names.push_back(sub->get_name());
  return fmt::format("unknown command '{}'{} (see gpuprobe --help)", word,
                     did_you_mean(word, names));
}

}  // namespace

int run(int argc, char** argv) {
  if (argc == 4 && std::string_view(argv[1]) == kRoundWorkerCommand)
    return run_round_worker(argv[2], argv[3]);
  CLI::App app{
      "gpuprobe: how your GPU really moves bytes — measured, with a model beside each number.",
      "gpuprobe"};
  app.formatter(std::make_shared<HelpFormatter>());  // before the subcommands: they inherit it
  app.set_version_flag("--version", version_text);   // a callback: CUDA is asked only then
  app.require_subcommand(0, 1);                      // none given: a usage error below
  GlobalOptions options;
  add_global_options(app, options);
  ToolCommands tool;
  add_tool_commands(app, tool);
  const auto probes = make_probes();
  const auto probe_cmds = add_probe_commands(app, probes);
  app.footer(kExitCodes);  // after the subcommands: they would inherit it
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
  } catch (const CLI::ExtrasError& e) {
    throw UsageError(unexpected_argument(app, e.what()));
  } catch (const CLI::ParseError& e) {
    std::string msg = e.what();
    throw UsageError(fmt::format("{} (see gpuprobe --help)", msg));
  }
  options.metrics = metric_names(options.metrics);  // before any device is looked up
  return dispatch(app, options, tool, probes, probe_cmds,
                  std::vector<std::string>(argv, argv + argc));
}

}  // namespace gpuprobe::cli
