// Decisions inside one run's findings that respect the noise: which of two measured values is
// higher beyond their spread, which values are alike within noise to an extreme, and whether a
// ratio lies inside a band, outside it, or straddles it.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "gpuprobe/core/compare_classify.hpp"
#include "gpuprobe/core/result.hpp"

namespace gpuprobe {

// b against a as `compare` decides it (compare_metric: the bootstrap interval of b/a from the
// rounds' samples when both have them, else the noise band at 3x the larger relative noise), with
// compare's default "same" margin: "same", "faster"/"slower" (units with a better side),
// "higher"/"lower", "inconclusive" (the interval reaches both inside and beyond the margin) or
// "n/a".
// `same_within` widens compare's 2% "same" margin for claims whose quantity moves more than that
// between runs (a claim about which of two PCIe transfers is faster, say).
Change order_of(const Metric& b, const Metric& a, double same_within = kDefaultSameWithin);

// Which extreme alike_to_extreme looks for.
enum class Extreme { kHighest, kLowest };

// The metrics alike to the extreme within noise: the one with the highest (lowest) median and
// every other whose order against it is not decided (same or inconclusive), as indices in the
// metrics' order. A set, not an argmax: points that the noise cannot tell apart all belong to it,
// so the first of them (in the caller's order, which is the sweep's) names the extreme stably
// from run to run. Empty for no metrics.
std::vector<std::size_t> alike_to_extreme(std::span<const Metric* const> metrics, Extreme which);

// The highest and the lowest of some metrics, each as its alike_to_extreme set (indices in the
// metrics' order), and the highest and lowest median. All empty and 0 for no metrics.
struct ExtremeSets {
  std::vector<std::size_t> high, low;
  double high_value = 0, low_value = 0;
};
ExtremeSets extremes_of(const std::vector<Metric>& metrics);

// `metric` with its median, extremes and samples multiplied by `factor` (> 0): the same
// measurement in another unit (a bandwidth scaled to the DRAM traffic it implies).
Metric scaled_metric(const Metric& metric, double factor, std::string unit);

// Where the ratio b/a lies against the band [1 - band, 1 + band].
enum class BandDecision { kInside, kOutside, kStraddles };
const char* band_decision_name(BandDecision decision) noexcept;  // "inside", "outside", "straddles"

// The ratio b/a against the band: from its bootstrap interval when both metrics have samples
// (inside: the whole interval within the band; outside: wholly beyond it; else straddles), from
// the medians alone otherwise (inside or outside).
BandDecision band_decision(const Metric& b, const Metric& a, double band);

}  // namespace gpuprobe
