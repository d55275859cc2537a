// list, info and probe runs: environment capture, device loop, outputs and the exit code.
#include "commands.hpp"

#include <fmt/format.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <iostream>
#include <memory>

#include "expectations.hpp"
#include "gpuprobe/core/errors.hpp"
#include "gpuprobe/core/expect.hpp"
#include "gpuprobe/core/rounds.hpp"
#include "gpuprobe/runner/runner.hpp"
#include "gpuprobe/runtime/context.hpp"
#include "gpuprobe/runtime/device.hpp"
#include "gpuprobe/runtime/link_facts.hpp"
#include "gpuprobe/version.hpp"
#include "output.hpp"
#include "round_worker.hpp"
#include "run_progress.hpp"

namespace gpuprobe::cli {
namespace {

RunReport new_report(const std::vector<std::string>& command) {
  RunReport report;
  report.tool.version = kToolVersion;
  report.tool.git = kToolGit;
  report.command = command;
  report.started_at = utc_timestamp();
  return report;
}

// Progress on stderr, only on a TTY and not with --quiet: the run's probe k of n, the point, the
// time spent and left (RunProgress), as wide as the terminal; erased when each probe ends.
runtime::ProgressFn progress_printer(const GlobalOptions& o,
                                     const std::shared_ptr<RunProgress>& run) {
  if (o.quiet || !::isatty(STDERR_FILENO)) return {};
  return [run](const std::string& probe, std::size_t done, std::size_t total,
               const std::string& label) {
    winsize size{};
    const std::size_t width =
        ::ioctl(STDERR_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 1 ? size.ws_col - 1 : 79;
    std::cerr << "\r\033[K"
              << run->line(probe, done, total, label, RunProgress::Clock::now(), width)
              << std::flush;
  };
}

void clear_progress(const GlobalOptions& o) {
  if (!o.quiet && ::isatty(STDERR_FILENO)) std::cerr << "\r\033[K" << std::flush;
}

// The probe runs of a run: a device-scoped probe once per GPU, a host-scoped one once.
std::size_t probe_runs(const std::vector<SelectedProbe>& probes, std::size_t devices) {
  std::size_t runs = 0;
  for (const auto& p : probes)
    runs += p.probe->scope() == ProbeScope::kHost ? 1 : devices;
  return runs;
}

// The exit code of a finished run, its messages on stderr: 1 when a probe failed, 3 when an
// explicitly asked probe is unsupported, 4 when an expectation failed, else 0.
// `unchecked`: one line per thing a check could not check (exit 4 after the expectations).
int run_exit_code(const RunReport& report, bool explicit_probe,
                  const std::vector<std::string>& unchecked) {
  int code = 0;
  for (const auto& r : report.results) {
    if (r.status == Status::kFailed) {
      std::cerr << fmt::format("gpuprobe: {} failed on GPU {}: {}\n", r.probe,
                               r.device.value_or(-1), r.reason);
      code = static_cast<int>(ExitCode::kRunFailure);
    }
  }
  if (code != 0) return code;
  for (const auto& r : report.results) {
    if (r.status == Status::kSkipped && explicit_probe) {
      std::cerr << fmt::format("gpuprobe: {} is not supported on GPU {}: {}\n", r.probe,
                               r.device.value_or(-1), r.reason);
      return static_cast<int>(ExitCode::kNoDevice);
    }
  }
  for (const auto& e : report.expectations) {
    if (!expectation_failed(e)) continue;
    for (const auto& line : expectation_failure_lines(e))
      std::cerr << "gpuprobe: " << line << "\n";
    code = static_cast<int>(ExitCode::kCheckFailed);
  }
  for (const auto& line : unchecked) {
    std::cerr << "gpuprobe: " << line << "\n";
    code = static_cast<int>(ExitCode::kCheckFailed);
  }
  return code;
}

// What a run asked to meet its GPUs' reference bounds could not check: a line per GPU and probe
// whose bounds its results cannot answer, or one line when it checked nothing at all.
std::vector<std::string> unchecked_lines(const RunReport& report,
                                         const std::vector<std::string>& unchecked) {
  if (!unchecked.empty() || !report.expectations.empty()) return unchecked;
  return {"nothing checked: no bound applies to this run's results"};
}

}  // namespace

int list_probes(const std::vector<std::unique_ptr<Probe>>& probes) {
  std::size_t width = 0;
  for (const auto& p : probes)
    width = std::max(width, p->name().size());
  for (const auto& p : probes)
    std::cout << fmt::format("{:<{}}  {}\n", p->name(), width, p->description());
  return 0;
}

int show_info(const GlobalOptions& options, const std::vector<std::string>& command) {
  validate_outputs(options);
  (void)runtime::parse_device_spec(options.device);  // a typo is exit 2 before CUDA starts
  runtime::initialize();
  RunReport report = new_report(command);
  report.host = runtime::query_host();
  for (int index : runtime::select_devices(options.device)) {
    report.devices.push_back(runtime::query_device(index));
    runtime::add_link_facts(report.devices.back());
  }
  write_outputs(options, report, core_glossary());
  return 0;
}

int run_probes(const GlobalOptions& options, const std::vector<std::string>& command,
               const std::vector<SelectedProbe>& probes, bool quick, bool explicit_probe,
               const Glossary& glossary) {
  runtime::MeasureOptions measure;
  measure.rule = stopping_rule(options, quick);
  measure.rounds = options.rounds.value_or(kDefaultRounds);
  measure.seed = options.seed.value_or(fresh_seed());
  measure.round_executable = own_executable();
  for (const auto& p : probes)
    p.probe->validate(p.values);
  if (!options.metrics.empty() && !options.counters)
    throw UsageError("--metrics needs the counter pass: drop --no-counters");
  std::vector<Expectation> expectations = named_expectations(options);
  if (!expectations.empty() || wants_reference_expectations(options))
    validate_against_plan(expectations, plan_of(probes, glossary));
  validate_outputs(options);
  // A typo is exit 2 before CUDA starts; a list is what --plan plans for.
  const auto spec = runtime::parse_device_spec(options.device);
  RunReport report = new_report(command);

  if (options.plan) {
    std::optional<std::vector<int>> named;
    if (spec) {
      named.emplace();
      for (const std::uint64_t i : *spec) {
        if (i > 4096) throw UsageError(fmt::format("--device: there is no GPU {}", i));
        named->push_back(static_cast<int>(i));
      }
    }
    report.results = runner::plan_on_devices(probes, named, glossary);
    write_outputs(options, report, glossary);
    return 0;
  }

  runtime::initialize();
  report.host = runtime::query_host();
  const auto devices = runtime::select_devices(options.device);
  for (int index : devices) {
    report.devices.push_back(runtime::query_device(index));
    runtime::add_link_facts(report.devices.back());
  }
  validate_metrics(options, devices);
  const bool reference_wanted = wants_reference_expectations(options);
  std::vector<Expectation> reference;
  if (reference_wanted)
    reference = applicable_to_plan(reference_expectations_for(report.devices, options.quiet),
                                   plan_of(probes, glossary));
  const runner::CounterOptions counters{options.counters, options.metrics};
  const auto run_progress = std::make_shared<RunProgress>(probe_runs(probes, report.devices.size()),
                                                          RunProgress::Clock::now());
  const auto progress = progress_printer(options, run_progress);
  report.results = runner::run_on_devices(probes, report.devices, measure, counters, progress,
                                          glossary, [&options, &run_progress] {
                                            clear_progress(options);
                                            run_progress->run_done();
                                          });
  // Bounds whose probe failed or was skipped are not evaluated: said once per probe instead.
  auto coverage = reference_coverage(reference, report);
  expectations.insert(expectations.end(), coverage.checkable.begin(), coverage.checkable.end());
  report.expectations = evaluate_expectations(expectations, report);
  write_outputs(options, report, glossary);
  return run_exit_code(
      report, explicit_probe,
      reference_wanted ? unchecked_lines(report, coverage.unchecked) : std::vector<std::string>{});
}

}  // namespace gpuprobe::cli
