// Support for GPU tests: skip visibly without a GPU, run a probe with CLI arguments, read rows.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "gpuprobe/core/result.hpp"
#include "gpuprobe/probe.hpp"
#include "gpuprobe/runtime/measure.hpp"

namespace gpuprobe::testing {

// True when a CUDA device is usable (initialises CUDA with eager module loading).
bool gpu_available();

// The axis values `args` (as after the probe's subcommand) give, parsed and checked as the CLI
// does. Throws UsageError on a bad value.
AxisValues parse_args(Probe& probe, const std::vector<std::string>& args);

// Parses `args` (as after the probe's subcommand, e.g. {"--pinned", "--sizes", "64MiB"}) through
// the probe's axes as the CLI does, then runs it on GPU 0 through the runner with a fixed sample
// count (findings phrased). Throws UsageError on a bad value.
// `counters`: whether the runner's counter pass runs (as --counters / --no-counters).
ProbeResult run_probe(Probe& probe, const std::vector<std::string>& args, std::size_t samples = 5,
                      bool counters = true);

// The same with the harness's options as given (rounds, seed, stopping rule, round processes).
ProbeResult run_probe(Probe& probe, const std::vector<std::string>& args,
                      const runtime::MeasureOptions& options, bool counters);

// The same across several GPUs (the harness on the first), as the runner runs a host-scoped
// probe: its context's devices() are `devices`.
ProbeResult run_probe_across(Probe& probe, const std::vector<std::string>& args,
                             const std::vector<int>& devices, std::size_t samples = 5,
                             bool counters = true);
// The same with the caller's measurement options (rounds, a round executable, ...).
ProbeResult run_probe_across(Probe& probe, const std::vector<std::string>& args,
                             const std::vector<int>& devices,
                             const runtime::MeasureOptions& options, bool counters);

// A row's metric median and relative noise (stdev / mean); the test fails (and 0 comes back)
// when the row has no such metric.
double median_of(const Row& row, const std::string& metric);
double noise_of(const Row& row, const std::string& metric);
// A row's model or derived value by name; the test fails (and -1 comes back) when it is absent or
// null.
double model_of(const Row& row, const std::string& name);
double derived_of(const Row& row, const std::string& name);

// Whether a run with counters on collected them: true when it did; false, said on stdout, when
// the GPU refused them (a profiler attached, no permission), so the caller's counter checks are
// seen not to run; a test failure for a run with no counter status or any other state.
bool counters_collected(const ProbeResult& result);

// Finds the row whose params match all of `match` (key -> text as scalar_text prints it).
const Row* find_row(const ProbeResult& result,
                    const std::vector<std::pair<std::string, std::string>>& match);

}  // namespace gpuprobe::testing

// Skips the test (reported as SKIPPED, never as passed) when no GPU is present.
#define GP_REQUIRE_GPU()                                                         \
  do {                                                                           \
    if (!::gpuprobe::testing::gpu_available()) GTEST_SKIP() << "no CUDA device"; \
  } while (0)
