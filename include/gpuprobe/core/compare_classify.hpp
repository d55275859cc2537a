// Classifying one compared value: B/A, the noise band, which way is better, and what changed.
#pragma once

#include <optional>
#include <string>

#include "gpuprobe/core/result.hpp"

namespace gpuprobe {

// The relative noise band never goes below this (0.5%): two values closer than that are "same"
// even when both runs were perfectly quiet (and summary and finding values, which carry no
// noise, always use it).
inline constexpr double kCompareNoiseFloor = 0.005;

// Which way is better for a value, from its unit: "s" (time) lower is better; units with "/s"
// (bandwidth, rates) higher is better; anything else has no better side.
enum class Better { kLower, kHigher, kNone };
Better better_for_unit(const std::string& unit);

// What changed from A to B. kUndefined: the ratio cannot be formed (A's value is zero, negative,
// null or not finite, or the two units differ).
enum class Change { kSame, kFaster, kSlower, kHigher, kLower, kUndefined };
const char* change_name(Change change) noexcept;  // "same", "faster", ..., "n/a"

// One value (a metric's median, a summary value, a finding value), A against B.
struct ValueComparison {
  double a = 0;                 // A's value (a metric's median)
  double b = 0;                 // B's value
  std::optional<double> ratio;  // b / a
  double band = 0;              // relative noise band used: max(floor, K x rel_noise)
  Change change = Change::kUndefined;
  bool regression = false;  // slower, and |ratio - 1| beyond the threshold
};

// Classifies b against a in `unit`. rel_noise: the larger relative noise of the two (0 for
// values without samples). threshold_pct: a slower result whose |ratio - 1| exceeds it (in
// percent) is a regression; nullopt: none is.
ValueComparison compare_values(double a, double b, const std::string& unit, double rel_noise,
                               double noise_k, std::optional<double> threshold_pct);

// Two metrics' medians, with the band from their relative noise (the unit is A's).
ValueComparison compare_metric(const Metric& a, const Metric& b, double noise_k,
                               std::optional<double> threshold_pct);

// Two noiseless quantities (summary or finding values): the band is the floor. A null value or
// two different units give Change::kUndefined.
ValueComparison compare_quantity(const Quantity& a, const Quantity& b,
                                 std::optional<double> threshold_pct);

}  // namespace gpuprobe
