// Counter-data image -> per-range values; every metric asked for comes back, value or reason.
#include "gpuprobe/counters/evaluate.hpp"

#include <cmath>

#include "gpuprobe/counters/catalog.hpp"
#include "gpuprobe/counters/default_sets.hpp"
#include "gpuprobe/counters/errors.hpp"
#include "host_object.hpp"

namespace gpuprobe::counters {

namespace {

// Smallest plausible image; CUPTI reads a header before it can check anything itself.
constexpr std::size_t kMinImageBytes = 64;

std::size_t range_count(std::span<const std::uint8_t> image) {
  if (image.size() < kMinImageBytes)
    throw CountersUnavailable(
        "GPUPROBE_BAD_COUNTER_DATA",
        "counter-data image of " + std::to_string(image.size()) + " bytes is too small to be valid",
        "capture it again");
  auto p = GP_CUPTI_PARAMS(CUpti_RangeProfiler_GetCounterDataInfo_Params);
  p.pCounterDataImage = image.data();
  p.counterDataImageSize = image.size();
  const CUptiResult status = cuptiRangeProfilerGetCounterDataInfo(&p);
  if (status != CUPTI_SUCCESS)
    throw CountersUnavailable(detail::result_name(status),
                              "counter-data image is not valid (CUPTI cannot read its ranges)",
                              "capture it again");
  return p.numTotalRanges;
}

// Evaluates `names` for one range into `values`; returns the CUPTI result.
CUptiResult evaluate_range(detail::HostObject& host, std::span<const std::uint8_t> image,
                           std::size_t range, const std::vector<std::string>& names,
                           std::vector<double>& values) {
  std::vector<const char*> c_names = detail::c_names(names);
  values.assign(names.size(), std::nan(""));
  auto p = GP_CUPTI_PARAMS(CUpti_Profiler_Host_EvaluateToGpuValues_Params);
  p.pHostObject = host.get();
  p.pCounterDataImage = image.data();
  p.counterDataImageSize = image.size();
  p.rangeIndex = range;
  p.ppMetricNames = c_names.data();
  p.numMetrics = c_names.size();
  p.pMetricValues = values.data();
  return cuptiProfilerHostEvaluateToGpuValues(&p);
}

}  // namespace

std::vector<std::string> counter_data_ranges(std::span<const std::uint8_t> counter_data) {
  const std::size_t count = range_count(counter_data);
  std::vector<std::string> names;
  for (std::size_t i = 0; i < count; ++i) {
    auto p = GP_CUPTI_PARAMS(CUpti_RangeProfiler_CounterData_GetRangeInfo_Params);
    p.pCounterDataImage = counter_data.data();
    p.counterDataImageSize = counter_data.size();
    p.rangeIndex = i;
    p.rangeDelimiter = "/";
    const CUptiResult status = cuptiRangeProfilerCounterDataGetRangeInfo(&p);
    if (status != CUPTI_SUCCESS || p.rangeName == nullptr)
      names.push_back("#" + std::to_string(i));  // unnamed: keep its place
    else
      names.emplace_back(p.rangeName);
  }
  return names;
}

std::vector<RangeCounters> evaluate_counter_data(const MetricCatalog& catalog,
                                                 const std::vector<std::string>& metrics,
                                                 std::span<const std::uint8_t> counter_data) {
  std::vector<std::string> units;
  for (const auto& name : metrics)
    units.push_back(catalog.properties(name).unit);  // validates
  const std::vector<std::string> ranges = counter_data_ranges(counter_data);

  detail::HostObject host(catalog.chip(), catalog.counter_availability());
  host.add(metrics);
  std::vector<RangeCounters> out;
  for (std::size_t r = 0; r < ranges.size(); ++r) {
    RangeCounters range;
    range.range = ranges[r];
    std::vector<double> values;
    const CUptiResult all = evaluate_range(host, counter_data, r, metrics, values);
    for (std::size_t m = 0; m < metrics.size(); ++m) {
      CounterValue value{metrics[m], units[m], std::nullopt, {}};
      double number = values[m];
      CUptiResult status = all;
      if (all != CUPTI_SUCCESS) {  // one bad metric must not take the others with it
        std::vector<double> single;
        status = evaluate_range(host, counter_data, r, {metrics[m]}, single);
        number = single[0];
      }
      if (status != CUPTI_SUCCESS)
        value.reason = "evaluation failed: " + detail::result_name(status);
      else if (!std::isfinite(number))
        value.reason = std::isnan(number) ? "not collected in this range (CUPTI gave NaN)"
                                          : "CUPTI gave an infinite value";
      else
        value.value = number;
      range.values.push_back(std::move(value));
    }
    const CounterValue* clock = range.find(std::string(defaults::kSmClock));
    if (clock != nullptr) range.sm_clock_hz = clock->value;
    out.push_back(std::move(range));
  }
  return out;
}

}  // namespace gpuprobe::counters
