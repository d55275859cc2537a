// Curves measured against a working-set size, cut into levels (host-only): bandwidth plateaus and
// the knees between them (cache), latency levels (latency), two clusters of one-dimensional values
// (latency's per-access trace). Each method is binary segmentation of the log of the curve.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <utility>
#include <vector>

namespace gpuprobe {

// ---- Bandwidth plateaus ----

// One size of a bandwidth curve: its median bandwidth and the 95% interval of that median (GB/s).
struct CurvePoint {
  double bytes = 0;
  double gbps = 0;
  double low = 0;
  double high = 0;
};

// A plateau of a curve (points sorted by size): the core sizes [first, last] (indices), the
// median of their medians and the envelope of their intervals.
struct Plateau {
  std::size_t first = 0;
  std::size_t last = 0;
  double gbps = 0;
  double low = 0;
  double high = 0;
  std::size_t sizes = 0;  // core sizes
};

// How plateaus are found: two neighbouring segments are different plateaus when their medians
// differ by more than `step`; a size belongs to its segment's plateau (its core) when within
// `flat` of the segment's median; a plateau needs `min_core` such sizes; at most `max_segments`.
struct PlateauRule {
  double step = 0.15;
  double flat = 0.10;
  std::size_t min_core = 3;
  std::size_t max_segments = 5;
};

// The segments of a curve sorted by size (half-open index ranges), by binary segmentation of
// log bandwidth: the split that leaves the least squared deviation from the two sides' means,
// kept when the sides' medians differ by more than rule.step, recursively, at most
// rule.max_segments.
std::vector<std::pair<std::size_t, std::size_t>> curve_segments(
    const std::vector<CurvePoint>& points, const PlateauRule& rule);
// The plateaus among the segments (those with rule.min_core core sizes), by size.
std::vector<Plateau> curve_plateaus(const std::vector<CurvePoint>& points, const PlateauRule& rule);
// Where the curve crosses the geometric mean of two neighbouring plateaus' bandwidths, between
// a's last and b's first core size, interpolated linearly in log size against log bandwidth.
std::optional<double> curve_knee(const std::vector<CurvePoint>& points, const Plateau& a,
                                 const Plateau& b);

// ---- Latency levels ----

// How levels are found: adjacent levels differ by `min_step` or more, a level has `min_points`
// points at least, a point within `band` of its level's median is on its plateau, at most
// `max_levels` levels. With `lone_points_are_transitions`, a level between two others also needs
// `min_points` points on its plateau (latency's cache series: a working set alone between two
// levels is a transition; a page series' TLB level may be one working set).
struct LevelRule {
  double min_step = 0.15;
  std::size_t min_points = 2;
  double band = 0.10;
  std::size_t max_levels = 8;
  bool lone_points_are_transitions = false;
};

// A level: the points [first, last] of a segment; its plateau (the points within rule.band of
// the segment's median) gives the level's median, lowest and highest value.
struct CurveLevel {
  std::size_t first = 0;  // the segment
  std::size_t last = 0;
  std::size_t plateau_first = 0;  // its first and last points on the plateau
  std::size_t plateau_last = 0;
  double median = 0;
  double low = 0;
  double high = 0;
};

// Binary segmentation of log(value) over the points in size order: split the segment where the
// two parts' squared deviations from their means are smallest, keep the split when both parts
// have rule.min_points and their medians (each a measured point: the lower middle one) differ by
// rule.min_step or more, recurse (rule.max_levels at most); adjacent segments whose plateaus
// differ by less than a step are then joined into one level. With
// rule.lone_points_are_transitions, a level between two others with fewer than rule.min_points
// points on its plateau is then dropped, each plateau grows over the neighbouring points within
// the band of its median that no other level holds, and each segment runs from just past the
// previous plateau (the segments still cover the curve).
std::vector<CurveLevel> curve_levels(std::span<const double> values, const LevelRule& rule);

// ---- Two clusters ----

// Two clusters of values (1-D k-means, k = 2, exact: the split of the sorted values that leaves
// the least squared deviation): the threshold, each cluster's median and the upper cluster's
// share; eta = between-cluster variance / total variance (1: fully separated). All 0 for fewer
// than two values.
struct TwoClusters {
  double threshold = 0;
  double fast_median = 0;  // the lower cluster's
  double slow_median = 0;  // the upper cluster's
  double slow_share = 0;
  double eta = 0;
};
TwoClusters split_two_clusters(std::vector<double> values);

}  // namespace gpuprobe
