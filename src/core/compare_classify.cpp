// Classifies one compared value: ratio B/A, noise band, same/faster/slower/higher/lower.
#include "gpuprobe/core/compare_classify.hpp"

#include <algorithm>
#include <cmath>

namespace gpuprobe {

Better better_for_unit(const std::string& unit) {
  if (unit == "s") return Better::kLower;
  if (unit.find("/s") != std::string::npos) return Better::kHigher;
  return Better::kNone;
}

const char* change_name(Change change) noexcept {
  switch (change) {
    case Change::kSame:
      return "same";
    case Change::kFaster:
      return "faster";
    case Change::kSlower:
      return "slower";
    case Change::kHigher:
      return "higher";
    case Change::kLower:
      return "lower";
    case Change::kUndefined:
      return "n/a";
  }
  return "n/a";
}

ValueComparison compare_values(double a, double b, const std::string& unit, double rel_noise,
                               double noise_k, std::optional<double> threshold_pct) {
  ValueComparison c;
  c.a = a;
  c.b = b;
  c.band = std::max(kCompareNoiseFloor, noise_k * std::fabs(rel_noise));
  if (!std::isfinite(c.a) || !std::isfinite(c.b) || c.a < 0 || c.b < 0) return c;
  if (c.a == 0) {
    if (c.b == 0) c.change = Change::kSame;  // 0 -> 0: nothing changed, no ratio
    return c;
  }
  const double ratio = c.b / c.a;
  c.ratio = ratio;
  const double delta = ratio - 1.0;
  if (std::fabs(delta) <= c.band) {
    c.change = Change::kSame;
    return c;
  }
  switch (better_for_unit(unit)) {
    case Better::kLower:
      c.change = delta > 0 ? Change::kSlower : Change::kFaster;
      break;
    case Better::kHigher:
      c.change = delta < 0 ? Change::kSlower : Change::kFaster;
      break;
    case Better::kNone:
      c.change = delta > 0 ? Change::kHigher : Change::kLower;
      break;
  }
  c.regression =
      threshold_pct && c.change == Change::kSlower && std::fabs(delta) * 100.0 > *threshold_pct;
  return c;
}

ValueComparison compare_metric(const Metric& a, const Metric& b, double noise_k,
                               std::optional<double> threshold_pct) {
  const double noise = std::max(std::fabs(a.stats.rel_noise), std::fabs(b.stats.rel_noise));
  return compare_values(a.stats.median, b.stats.median, a.unit, noise, noise_k, threshold_pct);
}

ValueComparison compare_quantity(const Quantity& a, const Quantity& b,
                                 std::optional<double> threshold_pct) {
  if (!a.value || !b.value || a.unit != b.unit) {
    ValueComparison c;
    c.a = a.value.value_or(0);
    c.b = b.value.value_or(0);
    c.band = kCompareNoiseFloor;
    return c;
  }
  return compare_values(*a.value, *b.value, a.unit, 0.0, 0.0, threshold_pct);
}

}  // namespace gpuprobe
