// MetricCatalog: metric lists, validation with suggestions, device-scope split, config images.
#include "gpuprobe/counters/catalog.hpp"

#include <algorithm>
#include <array>
#include <optional>
#include <utility>

#include "gpuprobe/core/errors.hpp"
#include "gpuprobe/counters/errors.hpp"
#include "gpuprobe/counters/names.hpp"
#include "host_object.hpp"
#include "nvperf_loader.hpp"

namespace gpuprobe::counters {

namespace {

// A per-context metric every chip has: a metric that CUPTI refuses beside it is device-scope.
constexpr const char* kContextReference = "sm__cycles_elapsed.avg";

constexpr std::array<CUpti_MetricType, 3> kTypes = {
    CUPTI_METRIC_TYPE_COUNTER, CUPTI_METRIC_TYPE_RATIO, CUPTI_METRIC_TYPE_THROUGHPUT};

MetricKind kind_of(CUpti_MetricType type) {
  switch (type) {
    case CUPTI_METRIC_TYPE_RATIO:
      return MetricKind::kRatio;
    case CUPTI_METRIC_TYPE_THROUGHPUT:
      return MetricKind::kThroughput;
    default:
      return MetricKind::kCounter;
  }
}

std::string join(const std::vector<std::string>& items, const char* separator) {
  std::string out;
  for (const auto& item : items) {
    if (!out.empty()) out += separator;
    out += item;
  }
  return out;
}

}  // namespace

const char* metric_kind_name(MetricKind kind) noexcept {
  switch (kind) {
    case MetricKind::kCounter:
      return "counter";
    case MetricKind::kRatio:
      return "ratio";
    case MetricKind::kThroughput:
      return "throughput";
  }
  return "unknown";
}

std::size_t MetricGrouping::total_passes() const {
  std::size_t total = 0;
  for (const auto& config : configs)
    total += config.passes;
  return total;
}

std::vector<std::string> MetricGrouping::metrics() const {
  std::vector<std::string> out;
  for (const auto& config : configs)
    out.insert(out.end(), config.metrics.begin(), config.metrics.end());
  return out;
}

struct MetricCatalog::Impl {
  std::string chip;
  std::vector<std::uint8_t> availability;
  detail::HostObject host;
  // Base names by type, filled on first use.
  mutable std::optional<std::vector<std::pair<std::string, CUpti_MetricType>>> bases;

  Impl(std::string chip_name, std::vector<std::uint8_t> image)
      : chip(std::move(chip_name)), availability(std::move(image)), host(chip, availability) {}

  const std::vector<std::pair<std::string, CUpti_MetricType>>& all_bases() const {
    if (!bases) {
      std::vector<std::pair<std::string, CUpti_MetricType>> out;
      for (const CUpti_MetricType type : kTypes) {
        auto p = GP_CUPTI_PARAMS(CUpti_Profiler_Host_GetBaseMetrics_Params);
        p.pHostObject = host.get();
        p.metricType = type;
        GP_CUPTI(cuptiProfilerHostGetBaseMetrics, p);
        for (std::size_t i = 0; i < p.numMetrics; ++i)
          out.emplace_back(p.ppMetricNames[i], type);
      }
      std::sort(out.begin(), out.end());
      bases = std::move(out);
    }
    return *bases;
  }

  std::vector<std::string> base_names() const {
    std::vector<std::string> out;
    for (const auto& entry : all_bases())
      out.push_back(entry.first);
    return out;
  }

  // CUPTI's properties of `name`, or nothing when it does not know the name.
  std::optional<MetricProperties> lookup(const std::string& name) const {
    auto p = GP_CUPTI_PARAMS(CUpti_Profiler_Host_GetMetricProperties_Params);
    p.pHostObject = host.get();
    p.pMetricName = name.c_str();
    if (cuptiProfilerHostGetMetricProperties(&p) != CUPTI_SUCCESS) return std::nullopt;
    MetricProperties out;
    out.name = name;
    out.description = p.pDescription ? p.pDescription : "";
    out.hw_unit = p.pHwUnit ? p.pHwUnit : "";
    out.unit = p.pDimUnit ? p.pDimUnit : "";
    out.kind = kind_of(p.metricType);
    return out;
  }

  std::vector<std::string> submetrics(const std::string& base, CUpti_MetricType type) const {
    auto p = GP_CUPTI_PARAMS(CUpti_Profiler_Host_GetSubMetrics_Params);
    p.pHostObject = host.get();
    p.metricType = type;
    p.pMetricName = base.c_str();
    GP_CUPTI(cuptiProfilerHostGetSubMetrics, p);
    std::vector<std::string> out;
    for (std::size_t i = 0; i < p.numOfSubmetrics; ++i)
      out.emplace_back(p.ppSubMetrics[i]);
    return out;
  }

  // True when CUPTI accepts exactly these metrics in one configuration.
  bool accepts_together(const std::vector<std::string>& names) const {
    detail::HostObject trial(chip, availability);
    return trial.try_add(names) == CUPTI_SUCCESS;
  }
};

MetricCatalog::MetricCatalog(std::string chip, std::vector<std::uint8_t> counter_availability)
    : impl_(std::make_unique<Impl>(std::move(chip), std::move(counter_availability))) {}
MetricCatalog::~MetricCatalog() = default;
MetricCatalog::MetricCatalog(MetricCatalog&&) noexcept = default;
MetricCatalog& MetricCatalog::operator=(MetricCatalog&&) noexcept = default;

std::vector<std::string> MetricCatalog::supported_chips() {
  detail::load_nvperf_host();
  auto p = GP_CUPTI_PARAMS(CUpti_Profiler_Host_GetSupportedChips_Params);
  GP_CUPTI(cuptiProfilerHostGetSupportedChips, p);
  std::vector<std::string> out;
  for (std::size_t i = 0; i < p.numChips; ++i)
    out.emplace_back(p.ppChipNames[i]);
  return out;
}

const std::string& MetricCatalog::chip() const {
  return impl_->chip;
}
const std::vector<std::uint8_t>& MetricCatalog::counter_availability() const {
  return impl_->availability;
}

std::vector<std::string> MetricCatalog::base_metrics(std::string_view filter) const {
  std::vector<std::string> out;
  for (const auto& [name, type] : impl_->all_bases())
    if (name.find(filter) != std::string::npos) out.push_back(name);
  return out;
}

std::vector<std::string> MetricCatalog::metrics(std::string_view filter) const {
  std::vector<std::string> out;
  for (const auto& [base, type] : impl_->all_bases()) {
    for (const auto& suffix : impl_->submetrics(base, type)) {
      std::string full = base + suffix;
      if (full.find(filter) != std::string::npos) out.push_back(std::move(full));
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> MetricCatalog::submetrics(const std::string& base) const {
  const auto found = impl_->lookup(base);
  if (!found) return {};
  CUpti_MetricType type = CUPTI_METRIC_TYPE_COUNTER;
  if (found->kind == MetricKind::kRatio) type = CUPTI_METRIC_TYPE_RATIO;
  if (found->kind == MetricKind::kThroughput) type = CUPTI_METRIC_TYPE_THROUGHPUT;
  return impl_->submetrics(split_metric_name(base).base, type);
}

bool MetricCatalog::is_valid(const std::string& name) const {
  // CUPTI describes bare base names too, but only takes full names (with a rollup) in a config.
  return !split_metric_name(name).suffix.empty() && impl_->lookup(name).has_value();
}

std::vector<std::string> MetricCatalog::suggestions(const std::string& name,
                                                    std::size_t count) const {
  const MetricNameParts parts = split_metric_name(name);
  std::vector<std::string> out;
  if (impl_->lookup(parts.base)) {
    // The base exists: the rollup/submetric is missing or wrong.
    const std::vector<std::string> suffixes = submetrics(parts.base);
    if (parts.suffix.empty()) {
      for (const char* preferred :
           {".sum", ".pct", ".avg.pct_of_peak_sustained_elapsed", ".avg", ".max"})
        if (out.size() < count &&
            std::find(suffixes.begin(), suffixes.end(), preferred) != suffixes.end())
          out.push_back(parts.base + preferred);
      return out;
    }
    std::vector<std::string> full;
    for (const auto& suffix : suffixes)
      full.push_back(parts.base + suffix);
    return nearest_names(name, full, count);
  }
  for (const auto& base : nearest_names(parts.base, impl_->base_names(), count)) {
    if (!parts.suffix.empty() && is_valid(base + parts.suffix)) {
      out.push_back(base + parts.suffix);
      continue;
    }
    const std::vector<std::string> suffixes = submetrics(base);
    std::string pick = suffixes.empty() ? std::string{} : suffixes.front();
    for (const char* preferred : {".sum", ".pct", ".avg.pct_of_peak_sustained_elapsed"})
      if (std::find(suffixes.begin(), suffixes.end(), preferred) != suffixes.end()) {
        pick = preferred;
        break;
      }
    out.push_back(base + pick);
  }
  return out;
}

MetricProperties MetricCatalog::properties(const std::string& name) const {
  validate({name});
  return *impl_->lookup(name);
}

void MetricCatalog::validate(const std::vector<std::string>& names) const {
  for (std::size_t i = 0; i < names.size(); ++i) {
    const std::string& name = names[i];
    if (std::find(names.begin(), names.begin() + static_cast<std::ptrdiff_t>(i), name) !=
        names.begin() + static_cast<std::ptrdiff_t>(i))
      throw UsageError("metric '" + name + "' is listed twice");
    if (is_valid(name)) continue;
    std::string message;
    if (name.empty()) {
      message = "empty metric name";
    } else if (split_metric_name(name).suffix.empty() && impl_->lookup(name)) {
      message = "metric '" + name + "' needs a rollup such as .sum, .avg or .pct";
    } else {
      message = "unknown metric '" + name + "' for " + impl_->chip;
    }
    const std::vector<std::string> near =
        name.empty() ? std::vector<std::string>{} : suggestions(name);
    if (!near.empty()) message += "; did you mean " + join(near, ", ") + "?";
    message += " (list the valid names with --list-metrics)";
    throw UsageError(message);
  }
}

bool MetricCatalog::is_device_scope(const std::string& name) const {
  const auto found = impl_->lookup(name);
  if (!found) return false;
  if (is_device_scope_unit(found->hw_unit)) return true;
  // CUPTI 13.0 has no scope flag: a metric it accepts alone but refuses beside a per-context
  // metric is device-level.
  return !impl_->accepts_together({kContextReference, name}) && impl_->accepts_together({name});
}

MetricGrouping MetricCatalog::group(const std::vector<std::string>& names) const {
  if (names.empty()) throw UsageError("no metrics asked for");
  validate(names);
  MetricGrouping grouping;
  grouping.chip = impl_->chip;
  for (const auto& name : names) {
    const bool device = is_device_scope(name);
    bool placed = false;
    for (auto& config : grouping.configs) {
      if (config.device_scope != device) continue;
      std::vector<std::string> trial = config.metrics;
      trial.push_back(name);
      if (impl_->accepts_together(trial)) {
        config.metrics = std::move(trial);
        placed = true;
        break;
      }
    }
    if (!placed) {
      if (!impl_->accepts_together({name}))
        throw CountersUnavailable("CUPTI_ERROR_NOT_SUPPORTED",
                                  "metric '" + name + "' cannot be collected on this " +
                                      impl_->chip + " (CUPTI refuses it in a configuration)",
                                  "leave it out of the metric list");
      CounterConfig config;
      config.metrics = {name};
      config.device_scope = device;
      grouping.configs.push_back(std::move(config));
    }
  }
  for (auto& config : grouping.configs) {
    detail::HostObject host(impl_->chip, impl_->availability);
    host.add(config.metrics);
    config.image = host.config_image();
    config.passes = detail::passes_of(config.image);
  }
  return grouping;
}

}  // namespace gpuprobe::counters
