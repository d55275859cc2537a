// GPU test helpers: device detection and running a probe as the CLI would.
#include "gpu_test_support.hpp"

#include <CLI/CLI.hpp>

#include <iostream>

#include "cli/axis_options.hpp"
#include "gpuprobe/core/errors.hpp"
#include "gpuprobe/runner/runner.hpp"
#include "gpuprobe/runtime/context.hpp"
#include "gpuprobe/runtime/device.hpp"

namespace gpuprobe::testing {

bool gpu_available() {
  try {
    runtime::initialize();
    return runtime::device_count() > 0;
  } catch (const Error&) {
    return false;
  }
}

ProbeResult run_probe(Probe& probe, const std::vector<std::string>& args, std::size_t samples,
                      bool counters) {
  runtime::MeasureOptions options;
  options.rule.fixed_samples = samples;
  return run_probe(probe, args, options, counters);
}

AxisValues parse_args(Probe& probe, const std::vector<std::string>& args) {
  CLI::App app{"test", probe.name()};
  const cli::AxisOptions axes(app, probe.axes());
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 takes them reversed
  app.parse(reversed);
  const AxisValues values = resolve_axes(axes.axes(), axes.input(), /*quick=*/false);
  probe.validate(values);
  return values;
}

namespace {

Glossary glossary_of(const Probe& probe) {
  Glossary glossary = core_glossary();
  probe.add_words(glossary);
  return glossary;
}

}  // namespace

ProbeResult run_probe(Probe& probe, const std::vector<std::string>& args,
                      const runtime::MeasureOptions& options, bool counters) {
  const AxisValues values = parse_args(probe, args);
  const DeviceInfo device = runtime::query_device(0);
  return runner::run_probe(probe, values, device, options, runner::CounterOptions{counters, {}}, {},
                           glossary_of(probe));
}

ProbeResult run_probe_across(Probe& probe, const std::vector<std::string>& args,
                             const std::vector<int>& devices, std::size_t samples, bool counters) {
  const AxisValues values = parse_args(probe, args);
  std::vector<DeviceInfo> infos;
  for (int d : devices)
    infos.push_back(runtime::query_device(d));
  runtime::MeasureOptions options;
  options.rule.fixed_samples = samples;
  return runner::run_probe(probe, values, infos, options, runner::CounterOptions{counters, {}}, {},
                           glossary_of(probe));
}

ProbeResult run_probe_across(Probe& probe, const std::vector<std::string>& args,
                             const std::vector<int>& devices,
                             const runtime::MeasureOptions& options, bool counters) {
  const AxisValues values = parse_args(probe, args);
  std::vector<DeviceInfo> infos;
  for (int d : devices)
    infos.push_back(runtime::query_device(d));
  return runner::run_probe(probe, values, infos, options, runner::CounterOptions{counters, {}}, {},
                           glossary_of(probe));
}

const Row* find_row(const ProbeResult& result,
                    const std::vector<std::pair<std::string, std::string>>& match) {
  for (const auto& row : result.rows) {
    bool ok = true;
    for (const auto& [key, text] : match) {
      const Param* p = find_param(row.params, key);
      if (!p || scalar_text(p->value) != text) ok = false;
    }
    if (ok) return &row;
  }
  return nullptr;
}

namespace {

double quantity_of(const std::vector<Quantity>& values, const std::string& name) {
  const Quantity* q = find_quantity(values, name);
  EXPECT_NE(q, nullptr) << name;
  EXPECT_TRUE(q && q->value.has_value()) << name << " is null";
  return q && q->value ? *q->value : -1;
}

}  // namespace

double median_of(const Row& row, const std::string& metric) {
  const Metric* m = find_metric(row, metric);
  EXPECT_NE(m, nullptr) << metric;
  return m ? m->stats.median : 0;
}

double noise_of(const Row& row, const std::string& metric) {
  const Metric* m = find_metric(row, metric);
  EXPECT_NE(m, nullptr) << metric;
  return m ? m->stats.rel_noise : 0;
}

double model_of(const Row& row, const std::string& name) {
  return quantity_of(row.model, name);
}

double derived_of(const Row& row, const std::string& name) {
  return quantity_of(row.derived, name);
}

bool counters_collected(const ProbeResult& result) {
  if (!result.counter_status) {
    ADD_FAILURE() << "the result has no counter status";
    return false;
  }
  if (result.counter_status->state == CounterState::kRefused) {
    std::cout << "[   NOTE   ] counters refused (" << result.counter_status->reason
              << "): the counter checks did not run\n";
    return false;
  }
  EXPECT_EQ(result.counter_status->state, CounterState::kCollected);
  return result.counter_status->state == CounterState::kCollected;
}

}  // namespace gpuprobe::testing
