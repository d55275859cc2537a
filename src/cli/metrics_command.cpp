// `--list-metrics [FILTER]` and the checks of `--metrics` names: their syntax, then the GPU's chip.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <iostream>
#include <map>

#include "commands.hpp"
#include "gpuprobe/core/errors.hpp"
#include "gpuprobe/core/input_file.hpp"
#include "gpuprobe/counters/catalog.hpp"
#include "gpuprobe/counters/errors.hpp"
#include "gpuprobe/counters/session.hpp"
#include "gpuprobe/runtime/device.hpp"

namespace gpuprobe::cli {

int list_metrics(const GlobalOptions& options, const std::string& filter) {
  (void)runtime::parse_device_spec(options.device);  // a typo is exit 2 before CUDA starts
  runtime::initialize();
  const int device = runtime::select_devices(options.device).front();
  std::string chip;
  try {
    chip = counters::counters_chip(device);
  } catch (const counters::CountersUnavailable& e) {
    throw NoDeviceError(fmt::format("cannot list metrics for GPU {}: {}{}", device, e.reason(),
                                    e.hint().empty() ? "" : " (" + e.hint() + ")"));
  }
  const counters::MetricCatalog catalog(chip);
  const bool full_names = filter.find('.') != std::string::npos;
  const auto names = full_names ? catalog.metrics(filter) : catalog.base_metrics(filter);
  if (names.empty()) {
    std::cerr << fmt::format("gpuprobe: no {} metric contains '{}'\n", chip, filter);
    return 0;
  }
  if (full_names) {
    for (const auto& name : names)
      std::cout << name << '\n';
  } else {
    std::size_t width = 0;
    for (const auto& name : names)
      width = std::max(width, name.size());
    for (const auto& name : names) {
      // Kind, unit and description are the base metric's; the unit shown is its .sum rollup's
      // (or the first rollup's when it has no .sum).
      const auto rollups = catalog.submetrics(name);
      const auto sum = std::find(rollups.begin(), rollups.end(), ".sum");
      const std::string example = name + (sum != rollups.end() ? *sum
                                          : rollups.empty()    ? ""
                                                               : rollups.front());
      const auto p = catalog.properties(example);
      std::cout << fmt::format("{:<{}}  {:<10}  {:<10}  {}\n", name, width,
                               counters::metric_kind_name(p.kind), p.unit, p.description);
    }
  }
  std::cerr << fmt::format(
      "gpuprobe: {} {} metric(s) on {} (GPU {}){}\n", names.size(), full_names ? "full" : "base",
      chip, device,
      full_names ? ""
                 : "; counters need a rollup (.sum, .avg, .max, .min, then optionally "
                   ".per_second, ...): --list-metrics NAME. lists them");
  return 0;
}

std::vector<std::string> metric_names(const std::vector<std::string>& given) {
  std::vector<std::string> metrics;
  for (const auto& list : given) {
    for (std::size_t start = 0;;) {
      const std::size_t comma = std::min(list.find(',', start), list.size());
      metrics.push_back(list.substr(start, comma - start));
      if (comma == list.size()) break;
      start = comma + 1;
    }
  }
  for (const auto& name : metrics) {
    const auto bad = std::find_if(name.begin(), name.end(), [](char c) {
      return !std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.';
    });
    std::string problem;
    if (name.empty())
      problem = "an empty metric name (give names separated by commas)";
    else if (bad != name.end())
      problem = fmt::format("'{}' holds '{}': a metric name has letters, digits, '_' and '.' only",
                            printable(name), printable(std::string(1, *bad)));
    else if (name.size() > 256)
      problem = fmt::format("'{}...' is longer than 256 characters", name.substr(0, 32));
    else if (name.front() == '.' || name.back() == '.' || name.find("..") != std::string::npos)
      problem = fmt::format("'{}' has an empty part between dots", name);
    if (!problem.empty()) throw UsageError(fmt::format("--metrics: {}", problem));
  }
  return metrics;
}

void validate_metrics(const GlobalOptions& options, const std::vector<int>& devices) {
  if (options.metrics.empty() || !options.counters) return;
  std::map<std::string, bool> checked;  // chip -> done
  for (int device : devices) {
    std::string chip;
    try {
      chip = counters::counters_chip(device);
    } catch (const counters::CountersUnavailable&) {
      continue;  // the run reports counters refused on this device, with the reason
    }
    if (checked[chip]) continue;
    checked[chip] = true;
    const counters::MetricCatalog catalog(chip);
    try {
      catalog.validate(options.metrics);
    } catch (const UsageError& e) {
      throw UsageError(
          fmt::format("--metrics: {} (chip {}; gpuprobe --list-metrics FILTER shows "
                      "what it offers)",
                      e.what(), chip));
    }
  }
}

}  // namespace gpuprobe::cli
