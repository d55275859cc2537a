// Command-line wiring: global options, one subcommand per probe, list/info/all/compare.
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
#include "validators.hpp"

namespace gpuprobe::cli {
namespace {

constexpr const char* kExitCodes =
    "Exit codes: 0 success; 1 a probe failed at run time (CUDA error, out of memory, wrong "
    "result); 2 usage error (bad option or value, unreadable input); 3 no usable GPU, or the "
    "probe is unsupported on this GPU; 4 a check failed (an --expect bound, or compare's "
    "--fail-on-regression found a regression beyond its threshold, or --fail-on-inconclusive an "
    "inconclusive comparison, or fleet --fail-on-outlier an outlier).";

constexpr const char* kCheckFooter =
    "check runs what `all` runs and evaluates this GPU's reference expectations "
    "(expectations/<gpu name>.txt, made from committed runs of that GPU with margins from their "
    "measured spread; generic.txt with physical bounds for any other GPU) and every --expect and "
    "--expect-file. A metric fails only when its median and the whole 95% interval of the median "
    "lie beyond the bound; when the interval reaches the bound it is 'inconclusive', reported, "
    "not a failure. Each failure is one line on stderr (what, measured, expected); exit 4.\n"
    "Examples:\n"
    "  gpuprobe check\n"
    "  gpuprobe check --expect 'transfer[memory=pinned,bytes>=64MiB].bandwidth >= 50GB/s'\n"
    "  gpuprobe check run.json            # saved results, no GPU";

void add_global_options(CLI::App& app, GlobalOptions& o) {
  app.add_option("-d,--device", o.device, "GPU index, list (0,2) or 'all'")
      ->type_name("N|LIST|all")
      ->default_str("0");
  app.add_option("--json", o.json_path, "write JSON results to FILE ('-' for stdout)")
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

}  // namespace

int run(int argc, char** argv) {
  CLI::App app{
      "gpuprobe: how your GPU really moves bytes — measured, with a model beside each number.",
      "gpuprobe"};
  app.formatter(std::make_shared<HelpFormatter>());  // before the subcommands: they inherit it
  app.footer(kExitCodes);
  app.set_version_flag("--version", fmt::format("gpuprobe {} ({})", kToolVersion, kToolGit));
  app.require_subcommand(0, 1);  // none given: a usage error below
  GlobalOptions options;
  add_global_options(app, options);

  auto* list_cmd = app.add_subcommand("list", "list the probes (no GPU needed)");
  auto* info_cmd = app.add_subcommand("info", "show the GPU(s) and what they support");
  auto* all_cmd = app.add_subcommand("all", "run every probe with quick defaults");
  auto* compare_cmd = app.add_subcommand(
      "compare", "compare two JSON result files, or several runs per side (no GPU needed)");
  auto* check_cmd = app.add_subcommand(
      "check",
      "health check: every probe (quick) against this GPU's reference expectations; "
      "with result files, check those instead (no GPU needed)");
  auto* fleet_cmd = app.add_subcommand(
      "fleet",
      "many nodes' result files: per row the fleet median, spread and the GPUs beyond "
      "it (no GPU needed)");
  for (auto* c : {list_cmd, info_cmd, all_cmd, compare_cmd, check_cmd, fleet_cmd})
    c->fallthrough();
  FleetArgs fleet_args;
  add_fleet_options(*fleet_cmd, fleet_args);
  fleet_cmd->footer(fleet_cmd->get_footer() + "\n\n" + kExitCodes);
  std::vector<std::string> check_files_given;
  check_cmd->add_option("files", check_files_given, "saved results (gpuprobe --json output)")
      ->type_name("[RUN.json...]");
  check_cmd->footer(std::string(kCheckFooter) + "\n\n" + kExitCodes);
  CompareArgs compare_args;
  add_compare_options(*compare_cmd, compare_args);
  compare_cmd->footer(compare_cmd->get_footer() + "\n\n" + kExitCodes);

  auto probes = make_probes();
  struct ProbeCommand {
    CLI::App* cmd;
    Probe* probe;
    std::unique_ptr<AxisOptions> axes;
  };
  std::vector<ProbeCommand> probe_cmds;
  for (auto& p : probes) {
    auto* cmd = app.add_subcommand(p->name(), p->description());
    cmd->fallthrough();
    auto axes = std::make_unique<AxisOptions>(*cmd, p->axes());
    // The probe's own footer, then the exit codes.
    const std::string own = p->help_footer();
    cmd->footer(own.empty() ? std::string(kExitCodes) : own + "\n\n" + kExitCodes);
    probe_cmds.push_back({cmd, p.get(), std::move(axes)});
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
  const std::vector<std::string> command(argv, argv + argc);
  if (app.count("--list-metrics") > 0) {
    if (app.get_subcommands().size() > 0)
      throw UsageError("--list-metrics takes no command: gpuprobe --list-metrics [FILTER]");
    return list_metrics(options, options.list_metrics.value_or(""));
  }
  if (list_cmd->parsed()) return list_probes(probes);
  if (info_cmd->parsed()) return show_info(options, command);
  const Glossary glossary = make_glossary(probes);
  if (compare_cmd->parsed()) return compare_runs(options, command, compare_args, glossary);
  if (fleet_cmd->parsed()) return fleet_runs(options, command, fleet_args, glossary);
  if (check_cmd->parsed()) {
    if (std::find(options.expect_files.begin(), options.expect_files.end(), "auto") ==
        options.expect_files.end())
      options.expect_files.push_back("auto");
    if (!check_files_given.empty()) return check_files(options, check_files_given, glossary);
  }
  if (all_cmd->parsed() || check_cmd->parsed()) {
    // `all` takes no probe flags: every probe runs with its quick defaults.
    std::vector<SelectedProbe> selected;
    for (auto& pc : probe_cmds)
      selected.push_back({pc.probe, resolve_axes(pc.axes->axes(), {}, /*quick=*/true)});
    return run_probes(options, command, selected, /*quick=*/true, /*explicit_probe=*/false,
                      glossary);
  }
  for (auto& pc : probe_cmds) {
    if (pc.cmd->parsed()) {
      SelectedProbe selected{pc.probe,
                             resolve_axes(pc.axes->axes(), pc.axes->input(), /*quick=*/false)};
      return run_probes(options, command, {selected}, /*quick=*/false, /*explicit_probe=*/true,
                        glossary);
    }
  }
  throw UsageError("no command given: try gpuprobe list, gpuprobe all or gpuprobe --help");
}

}  // namespace gpuprobe::cli
