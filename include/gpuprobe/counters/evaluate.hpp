// Offline evaluation of a counter-data image into per-range values (no GPU needed).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "gpuprobe/counters/values.hpp"

namespace gpuprobe::counters {

class MetricCatalog;

// Number of ranges in a decoded counter-data image, and their names ("/"-joined when nested).
// Throws CountersUnavailable when the image is not a valid counter-data image.
std::vector<std::string> counter_data_ranges(std::span<const std::uint8_t> counter_data);

// Evaluates `metrics` (the metrics of the one configuration the image was collected with)
// for every range in the image. Every metric appears in every range: a NaN or a failed
// evaluation becomes an empty value with a reason. Throws CountersUnavailable when the image
// itself is unreadable, UsageError when a metric name is unknown to the catalogue's chip.
std::vector<RangeCounters> evaluate_counter_data(const MetricCatalog& catalog,
                                                 const std::vector<std::string>& metrics,
                                                 std::span<const std::uint8_t> counter_data);

}  // namespace gpuprobe::counters
