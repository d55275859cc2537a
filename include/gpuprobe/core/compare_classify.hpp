// Classifying one compared value: B/A, its bootstrap interval or the noise band, which way is
// better, and what changed.
#pragma once

#include <optional>
#include <span>
#include <string>

#include "gpuprobe/core/compare_stats.hpp"
#include "gpuprobe/core/result.hpp"

namespace gpuprobe {

// The relative noise band never goes below this (0.5%): two values closer than that are "same"
// even when both runs were perfectly quiet (and summary and finding values, which carry no
// noise, always use it).
inline constexpr double kCompareNoiseFloor = 0.005;

// --same-within: a change whose whole interval lies within +-2% is "same".
inline constexpr double kDefaultSameWithin = 0.02;

// Which way is better for a value, from its unit: "s" (time) lower is better; units with "/s"
// (bandwidth, rates) higher is better; anything else has no better side.
enum class Better { kLower, kHigher, kNone };
Better better_for_unit(const std::string& unit);

// What changed from A to B. kInconclusive: the ratio's interval reaches both inside and outside
// the decision margin. kUndefined: the ratio cannot be formed (A's value is zero, negative, null
// or not finite, or the two units differ). kPosition: the value says where something lies or
// when it happened (a stage's start or end on a timeline, where a worst case lies): shown with
// its ratio, never judged better or worse, never counted as a change.
enum class Change {
  kSame,
  kFaster,
  kSlower,
  kHigher,
  kLower,
  kInconclusive,
  kUndefined,
  kPosition
};
// "same", "faster", ..., "inconclusive", "n/a", "position"
const char* change_name(Change change) noexcept;

// Whether a summary or finding value is a position or a time stamp rather than an amount, by its
// name: "start", "end", or a name ending in "_start", "_end" or "_at" ("worst_at").
bool is_position_value(const std::string& name);

// How a value was classified: by the bootstrap interval of the ratio (metrics with samples on
// both sides) or by the noise band around the ratio (no samples: schema 1 and 2 files, summary
// and finding values).
enum class CompareMethod { kBootstrap, kBand };
const char* compare_method_name(CompareMethod method) noexcept;  // "bootstrap", "band"

// One value (a metric's median, a summary value, a finding value), A against B.
struct ValueComparison {
  double a = 0;                 // A's value (a metric's median)
  double b = 0;                 // B's value
  std::optional<double> ratio;  // b / a
  // The relative tolerance for "same": the noise band max(floor, K x rel_noise) (band), or the
  // decision margin m (bootstrap).
  double band = 0;
  CompareMethod method = CompareMethod::kBand;
  std::optional<double> ci_low;   // bootstrap: the 95% interval of the ratio
  std::optional<double> ci_high;  // (nullopt for the band)
  Change change = Change::kUndefined;
  bool regression = false;  // slower beyond the threshold (see the functions below)
  // Row metrics: the smallest change (relative, e.g. 0.031 for 3.1%) this comparison could have
  // called slower or faster: bootstrap, (1 + margin) x exp(h) - 1 with h the half-width of the
  // interval in log terms (log(high / low) / 2); band, the band. nullopt for summary and
  // finding values and where no ratio was formed.
  std::optional<double> detectable;
};

// The smallest change an interval [low, high] lets the bootstrap rule call slower or faster
// with this margin: an interval as wide, placed around a true change d, lies wholly beyond the
// margin once log(1 + d) > log(1 + margin) + log(high / low) / 2. nullopt without an interval.
std::optional<double> detectable_change(double low, double high, double margin);

// The decision margin m of the bootstrap rule: min(same_within, threshold_pct / 100).
double decision_margin(double same_within, std::optional<double> threshold_pct);

// The band rule: classifies b against a in `unit`. rel_noise: the larger relative noise of the
// two (0 for values without samples). Same when |ratio - 1| <= max(0.5%, noise_k x rel_noise).
// threshold_pct: a slower result whose |ratio - 1| exceeds it (in percent) is a regression;
// nullopt: none is.
ValueComparison compare_values(double a, double b, const std::string& unit, double rel_noise,
                               double noise_k, std::optional<double> threshold_pct);

// The bootstrap rule, from the ratio's interval [low, high] as the relative change
// [low - 1, high - 1]: same when it lies within [-margin, +margin]; slower (lower for units
// without a better side) when it lies wholly beyond the margin on the worse side; faster
// (higher) wholly beyond it on the better side; else inconclusive. A regression is a change
// whose whole interval lies beyond threshold_pct on the worse side.
ValueComparison classify_interval(const RatioInterval& interval, const std::string& unit,
                                  double margin, std::optional<double> threshold_pct);

// Two metrics (the unit is A's): the bootstrap rule when both have samples (their interval, as
// bootstrap_ratio gives it, may be passed in when computed already), else the band rule with
// the larger of their relative noises. Margin: decision_margin(same_within, threshold_pct).
ValueComparison compare_metric(const Metric& a, const Metric& b, double noise_k,
                               std::optional<double> threshold_pct,
                               double same_within = kDefaultSameWithin);
ValueComparison compare_metric(const Metric& a, const Metric& b,
                               const std::optional<RatioInterval>& interval, double noise_k,
                               std::optional<double> threshold_pct, double same_within);

// The family-wise error of the regression gate: the chance that a same-build comparison of all
// its row metrics calls one of them a regression is held to 5%.
inline constexpr double kFamilyAlpha = 0.05;

// The one-sided p-value that B is slower than A by more than threshold_pct, from a row metric's
// bootstrap interval: log(ratio) taken as normal with the standard error its interval's worse
// side gives (half-width in log terms / 1.96). nullopt without an interval, a ratio or a better
// side.
std::optional<double> regression_p_value(const ValueComparison& c, const std::string& unit,
                                         double threshold_pct);

// One row metric judged by its interval, in the family of all such metrics of a comparison.
struct FamilyMember {
  ValueComparison* comparison;
  const std::string* unit;
};

// Holm's step-down over the family: the regressions, by p-value (regression_p_value) from the
// smallest, hold while the k-th smallest (from 0) is at most kFamilyAlpha / (m - k), m being the
// family's size; the others are cleared (they stay `slower`). Returns how many were cleared. A
// gate over 2,000 row metrics, each judged at 95%, otherwise fails same-build runs whenever a few
// noisy ones land in their tails.
std::size_t hold_regressions_to_family(std::span<const FamilyMember> family, double threshold_pct);

// Two noiseless quantities (summary or finding values): the band rule with the floor. Never a
// regression: these values are derived from rows whose metrics are checked themselves. A null
// value or two different units give Change::kUndefined.
ValueComparison compare_quantity(const Quantity& a, const Quantity& b);

}  // namespace gpuprobe
