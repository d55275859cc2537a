// Decisions inside one run's findings that respect the noise (compare's statistics, one run).
#include "gpuprobe/core/decide.hpp"

#include <algorithm>
#include <optional>

namespace gpuprobe {
namespace {

// compare_metric's band rule width for metrics without samples (as compare's default).
constexpr double kNoiseK = 3.0;

bool undecided(Change c) {
  return c == Change::kSame || c == Change::kInconclusive;
}

}  // namespace

Change order_of(const Metric& b, const Metric& a, double same_within) {
  return compare_metric(a, b, kNoiseK, std::nullopt, same_within).change;
}

std::vector<std::size_t> alike_to_extreme(std::span<const Metric* const> metrics, Extreme which) {
  if (metrics.empty()) return {};
  std::size_t ext = 0;
  for (std::size_t i = 1; i < metrics.size(); ++i) {
    const double m = metrics[i]->stats.median;
    const double e = metrics[ext]->stats.median;
    if (which == Extreme::kHighest ? m > e : m < e) ext = i;
  }
  // Every metric against the extreme, the bootstraps in one batch (spread over threads).
  std::vector<RatioTask> tasks;
  std::vector<std::size_t> task_of(metrics.size(), metrics.size());
  for (std::size_t i = 0; i < metrics.size(); ++i) {
    if (i == ext || metrics[i]->samples.empty() || metrics[ext]->samples.empty()) continue;
    task_of[i] = tasks.size();
    tasks.push_back({&metrics[ext]->samples, &metrics[i]->samples});
  }
  const auto intervals = bootstrap_ratios(tasks);
  std::vector<std::size_t> alike;
  for (std::size_t i = 0; i < metrics.size(); ++i) {
    if (i == ext) {
      alike.push_back(i);
      continue;
    }
    const std::optional<RatioInterval> interval =
        task_of[i] < tasks.size() ? intervals[task_of[i]] : std::nullopt;
    const ValueComparison c = compare_metric(*metrics[ext], *metrics[i], interval, kNoiseK,
                                             std::nullopt, kDefaultSameWithin);
    if (undecided(c.change)) alike.push_back(i);
  }
  return alike;
}

ExtremeSets extremes_of(const std::vector<Metric>& metrics) {
  ExtremeSets e;
  if (metrics.empty()) return e;
  std::vector<const Metric*> ptrs;
  for (const auto& m : metrics)
    ptrs.push_back(&m);
  e.high = alike_to_extreme(ptrs, Extreme::kHighest);
  e.low = alike_to_extreme(ptrs, Extreme::kLowest);
  e.high_value = e.low_value = metrics.front().stats.median;
  for (const auto& m : metrics) {
    e.high_value = std::max(e.high_value, m.stats.median);
    e.low_value = std::min(e.low_value, m.stats.median);
  }
  return e;
}

Metric scaled_metric(const Metric& metric, double factor, std::string unit) {
  Metric m = metric;
  m.unit = std::move(unit);
  m.stats.median *= factor;
  m.stats.min *= factor;
  m.stats.max *= factor;
  m.stats.mean *= factor;
  m.stats.stdev *= factor;
  for (auto& round : m.samples)
    for (double& v : round)
      v *= factor;
  return m;
}

const char* band_decision_name(BandDecision decision) noexcept {
  switch (decision) {
    case BandDecision::kInside:
      return "inside";
    case BandDecision::kOutside:
      return "outside";
    case BandDecision::kStraddles:
      return "straddles";
  }
  return "straddles";
}

BandDecision band_decision(const Metric& b, const Metric& a, double band) {
  const double lo_edge = 1 - band;
  const double hi_edge = 1 + band;
  std::optional<RatioInterval> interval;
  if (!a.samples.empty() && !b.samples.empty()) interval = bootstrap_ratio(a.samples, b.samples);
  if (!interval) {
    const double ratio = a.stats.median > 0 ? b.stats.median / a.stats.median : 0;
    return ratio >= lo_edge && ratio <= hi_edge ? BandDecision::kInside : BandDecision::kOutside;
  }
  if (interval->low >= lo_edge && interval->high <= hi_edge) return BandDecision::kInside;
  if (interval->high < lo_edge || interval->low > hi_edge) return BandDecision::kOutside;
  return BandDecision::kStraddles;
}

}  // namespace gpuprobe
