// Host-side metric knowledge for one chip (no GPU needed): list, validate, group into
// configurations, pass counts.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace gpuprobe::counters {

enum class MetricKind { kCounter, kRatio, kThroughput };
const char* metric_kind_name(MetricKind kind) noexcept;  // "counter", "ratio", "throughput"

// What CUPTI says about one metric name (base or full).
struct MetricProperties {
  std::string name;
  std::string description;
  std::string hw_unit;  // "dram", "lts", "pcie", ...
  std::string unit;     // dimension unit: "byte", "l2_sector", "percent", "" for plain ratios
  MetricKind kind = MetricKind::kCounter;
};

// One set of metrics CUPTI can collect together: one config image, `passes` replays.
struct CounterConfig {
  std::vector<std::string> metrics;  // in the order they were asked for
  bool device_scope = false;         // device-wide counters (pcie__*, nvl*__): own config
  std::size_t passes = 0;            // cuptiProfilerHostGetNumOfPasses for the image
  std::vector<std::uint8_t> image;   // CUPTI config image
};

// Requested metrics split into configurations; every requested name is in exactly one.
struct MetricGrouping {
  std::string chip;
  std::vector<CounterConfig> configs;
  std::size_t total_passes() const;
  std::vector<std::string> metrics() const;  // all metrics, config by config
};

// Metric catalogue of one chip through the CUPTI Profiler Host API ("GH100" for H100/H200).
// Works without a GPU. Throws CountersUnavailable when CUPTI cannot start (nvperf missing,
// unknown chip) and UsageError for unknown metric names.
class MetricCatalog {
 public:
  // counter_availability: the device's counter-availability image, or empty offline.
  explicit MetricCatalog(std::string chip, std::vector<std::uint8_t> counter_availability = {});
  ~MetricCatalog();
  MetricCatalog(MetricCatalog&&) noexcept;
  MetricCatalog& operator=(MetricCatalog&&) noexcept;
  MetricCatalog(const MetricCatalog&) = delete;
  MetricCatalog& operator=(const MetricCatalog&) = delete;

  // Chips this CUPTI knows (for messages and tests).
  static std::vector<std::string> supported_chips();

  const std::string& chip() const;
  const std::vector<std::uint8_t>& counter_availability() const;

  // Base metric names (counters, ratios, throughputs) containing `filter`; sorted.
  std::vector<std::string> base_metrics(std::string_view filter = {}) const;
  // Full names (base + each rollup/submetric CUPTI offers for it) containing `filter`; sorted.
  // Backs `--list-metrics [FILTER]`. Without a filter this is the whole list (~160k names).
  std::vector<std::string> metrics(std::string_view filter = {}) const;
  // The rollups/submetrics CUPTI offers for a base metric (".sum", ".avg.per_second", ...).
  std::vector<std::string> submetrics(const std::string& base) const;

  // True when `name` is a full metric name CUPTI accepts in a configuration.
  bool is_valid(const std::string& name) const;
  // Properties of a valid name; throws UsageError (with suggestions) otherwise.
  MetricProperties properties(const std::string& name) const;
  // Throws UsageError for the first unknown or duplicated name, naming it and suggesting the
  // nearest valid names ("did you mean ...?").
  void validate(const std::vector<std::string>& names) const;
  // Nearest valid names for a wrong one (up to `count`).
  std::vector<std::string> suggestions(const std::string& name, std::size_t count = 3) const;

  // True for metrics CUPTI only collects device-wide (they cannot share a configuration
  // with per-context metrics such as sm__cycles_elapsed).
  bool is_device_scope(const std::string& name) const;

  // Validates, then splits into configurations: per-context metrics together where CUPTI
  // accepts them together, device-scope metrics in configurations of their own; builds each
  // config image and its pass count.
  MetricGrouping group(const std::vector<std::string>& names) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gpuprobe::counters
