// Classifies one compared value: ratio B/A, by its bootstrap interval or the noise band, as
// same/faster/slower/higher/lower/inconclusive.
#include "gpuprobe/core/compare_classify.hpp"

#include <algorithm>
#include <cmath>
#include <string_view>
#include <utility>
#include <vector>

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
    case Change::kInconclusive:
      return "inconclusive";
    case Change::kUndefined:
      return "n/a";
    case Change::kPosition:
      return "position";
  }
  return "n/a";
}

bool is_position_value(const std::string& name) {
  auto ends_with = [&](std::string_view tail) {
    return name.size() > tail.size() &&
           name.compare(name.size() - tail.size(), tail.size(), tail) == 0;
  };
  return name == "start" || name == "end" || ends_with("_start") || ends_with("_end") ||
         ends_with("_at");
}

std::optional<double> detectable_change(double low, double high, double margin) {
  if (!(low > 0) || !(high >= low) || !std::isfinite(high)) return std::nullopt;
  return (1.0 + margin) * std::sqrt(high / low) - 1.0;
}

const char* compare_method_name(CompareMethod method) noexcept {
  return method == CompareMethod::kBootstrap ? "bootstrap" : "band";
}

double decision_margin(double same_within, std::optional<double> threshold_pct) {
  return threshold_pct ? std::min(same_within, *threshold_pct / 100.0) : same_within;
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

ValueComparison classify_interval(const RatioInterval& interval, const std::string& unit,
                                  double margin, std::optional<double> threshold_pct) {
  ValueComparison c;
  c.a = interval.a_median;
  c.b = interval.b_median;
  c.ratio = interval.ratio;
  c.band = margin;
  c.method = CompareMethod::kBootstrap;
  c.ci_low = interval.low;
  c.ci_high = interval.high;
  c.detectable = detectable_change(interval.low, interval.high, margin);
  // The relative change's interval [low - 1, high - 1] against +-margin, compared as ratios
  // (1 - margin <= low) so that an interval exactly at the margin counts as inside it.
  const double lo = interval.low;
  const double hi = interval.high;
  const bool up = lo > 1.0 + margin;    // wholly above +m
  const bool down = hi < 1.0 - margin;  // wholly below -m
  const Better better = better_for_unit(unit);
  if (lo >= 1.0 - margin && hi <= 1.0 + margin)
    c.change = Change::kSame;
  else if (!up && !down)
    c.change = Change::kInconclusive;
  else if (better == Better::kNone)
    c.change = up ? Change::kHigher : Change::kLower;
  else
    c.change = up == (better == Better::kHigher) ? Change::kFaster : Change::kSlower;
  if (threshold_pct && c.change == Change::kSlower) {
    const double t = *threshold_pct / 100.0;
    c.regression = better == Better::kHigher ? hi < 1.0 - t : lo > 1.0 + t;
  }
  return c;
}

ValueComparison compare_metric(const Metric& a, const Metric& b,
                               const std::optional<RatioInterval>& interval, double noise_k,
                               std::optional<double> threshold_pct, double same_within) {
  if (interval && !a.samples.empty() && !b.samples.empty())
    return classify_interval(*interval, a.unit, decision_margin(same_within, threshold_pct),
                             threshold_pct);
  const double noise = std::max(std::fabs(a.stats.rel_noise), std::fabs(b.stats.rel_noise));
  ValueComparison c =
      compare_values(a.stats.median, b.stats.median, a.unit, noise, noise_k, threshold_pct);
  if (c.ratio) c.detectable = c.band;  // the band: a change beyond it is called
  return c;
}

ValueComparison compare_metric(const Metric& a, const Metric& b, double noise_k,
                               std::optional<double> threshold_pct, double same_within) {
  std::optional<RatioInterval> interval;
  BootstrapOptions options;
  options.centred = true;  // as compare's
  if (!a.samples.empty() && !b.samples.empty())
    interval = bootstrap_ratio(a.samples, b.samples, options);
  return compare_metric(a, b, interval, noise_k, threshold_pct, same_within);
}

ValueComparison compare_quantity(const Quantity& a, const Quantity& b) {
  if (!a.value || !b.value || a.unit != b.unit) {
    ValueComparison c;
    c.a = a.value.value_or(0);
    c.b = b.value.value_or(0);
    c.band = kCompareNoiseFloor;
    return c;
  }
  return compare_values(*a.value, *b.value, a.unit, 0.0, 0.0, std::nullopt);
}

std::optional<double> regression_p_value(const ValueComparison& c, const std::string& unit,
                                         double threshold_pct) {
  constexpr double kZ975 = 1.959963984540054;
  const Better better = better_for_unit(unit);
  if (better == Better::kNone || !c.ratio || !c.ci_low || !c.ci_high) return std::nullopt;
  const double r = *c.ratio, lo = *c.ci_low, hi = *c.ci_high, t = threshold_pct / 100.0;
  if (!(r > 0) || !(lo > 0) || !(hi >= r) || !(r >= lo) || !(t < 1)) return std::nullopt;
  // Rates: slower is a lower ratio, and the interval's upper side says how far up it may be.
  const bool rate = better == Better::kHigher;
  const double half = rate ? std::log(hi / r) : std::log(r / lo);
  const double beyond = rate ? std::log(1.0 - t) - std::log(r) : std::log(r) - std::log(1.0 + t);
  if (!(half > 0)) return beyond > 0 ? 0.0 : 1.0;
  return 0.5 * std::erfc(beyond / (half / kZ975) / std::sqrt(2.0));
}

std::size_t hold_regressions_to_family(std::span<const FamilyMember> family, double threshold_pct) {
  std::vector<std::pair<double, ValueComparison*>> flagged;
  for (const FamilyMember& m : family) {
    if (!m.comparison->regression) continue;
    const auto p = regression_p_value(*m.comparison, *m.unit, threshold_pct);
    flagged.emplace_back(p.value_or(1.0), m.comparison);
  }
  std::stable_sort(flagged.begin(), flagged.end(),
                   [](const auto& x, const auto& y) { return x.first < y.first; });
  const auto size = static_cast<double>(family.size());
  std::size_t k = 0;
  while (k < flagged.size() && flagged[k].first <= kFamilyAlpha / (size - static_cast<double>(k)))
    ++k;
  for (std::size_t i = k; i < flagged.size(); ++i)
    flagged[i].second->regression = false;
  return flagged.size() - k;
}

}  // namespace gpuprobe
