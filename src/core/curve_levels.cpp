// Curves cut into levels (host-only): bandwidth plateaus and knees, latency levels, two clusters
// (core/curve_levels.hpp).
#include "gpuprobe/core/curve_levels.hpp"

#include <algorithm>
#include <cmath>

#include "gpuprobe/core/stats.hpp"

namespace gpuprobe {
namespace {

// ---- Bandwidth plateaus ----

// The middle of the sorted values (the mean of the two middle ones for an even count).
double middle_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double segment_median(const std::vector<CurvePoint>& p, std::size_t lo, std::size_t hi) {
  std::vector<double> v;
  for (std::size_t i = lo; i < hi; ++i)
    v.push_back(p[i].gbps);
  return middle_of(v);
}

// Squared deviation of log bandwidth from its mean over [lo, hi).
double sse(const std::vector<CurvePoint>& p, std::size_t lo, std::size_t hi) {
  double mean = 0;
  for (std::size_t i = lo; i < hi; ++i)
    mean += std::log(p[i].gbps);
  mean /= static_cast<double>(hi - lo);
  double s = 0;
  for (std::size_t i = lo; i < hi; ++i)
    s += (std::log(p[i].gbps) - mean) * (std::log(p[i].gbps) - mean);
  return s;
}

void split(const std::vector<CurvePoint>& p, std::size_t lo, std::size_t hi, double step,
           std::vector<std::pair<std::size_t, std::size_t>>& out, std::size_t budget) {
  std::size_t best = 0;
  double best_sse = INFINITY;
  for (std::size_t k = lo + 1; budget > 1 && k < hi; ++k) {
    const double s = sse(p, lo, k) + sse(p, k, hi);
    if (s < best_sse) best_sse = s, best = k;
  }
  if (best == 0 || std::abs(std::log(segment_median(p, lo, best) / segment_median(p, best, hi))) <=
                       std::log(1 + step)) {
    out.emplace_back(lo, hi);
    return;
  }
  const std::size_t left = std::max<std::size_t>(1, budget / 2);
  split(p, lo, best, step, out, left);
  split(p, best, hi, step, out, budget - left);
}

// ---- Latency levels ----

double median_or_zero(std::vector<double> v) {
  return v.empty() ? 0.0 : statistics_of(v).median;
}

// Squared deviation of log values [a, b) from their mean, from prefix sums.
struct Prefix {
  std::vector<double> sum, sq;
  explicit Prefix(std::span<const double> logs) : sum(logs.size() + 1, 0), sq(logs.size() + 1, 0) {
    for (std::size_t i = 0; i < logs.size(); ++i) {
      sum[i + 1] = sum[i] + logs[i];
      sq[i + 1] = sq[i] + logs[i] * logs[i];
    }
  }
  double cost(std::size_t a, std::size_t b) const {
    const double n = static_cast<double>(b - a), s = sum[b] - sum[a];
    return (sq[b] - sq[a]) - s * s / n;
  }
};

// The middle one of a segment's sorted values (the lower of the two middle ones for an even
// count): a measured point, never an average of two that may fall between two groups.
double lower_middle(std::span<const double> values, std::size_t a, std::size_t b) {
  std::vector<double> v(values.begin() + static_cast<std::ptrdiff_t>(a),
                        values.begin() + static_cast<std::ptrdiff_t>(b));
  const auto mid = v.begin() + static_cast<std::ptrdiff_t>((v.size() - 1) / 2);
  std::nth_element(v.begin(), mid, v.end());
  return *mid;
}

// Splits [a, b) recursively; appends the cut points (the first index of each right part).
void segment(std::span<const double> values, const Prefix& pre, const LevelRule& rule,
             std::size_t a, std::size_t b, std::vector<std::size_t>& cuts) {
  if (b - a < 2 * rule.min_points || cuts.size() + 1 >= rule.max_levels) return;
  std::size_t best = 0;
  double best_cost = INFINITY;
  for (std::size_t k = a + rule.min_points; k + rule.min_points <= b; ++k) {
    const double c = pre.cost(a, k) + pre.cost(k, b);
    if (c < best_cost) best_cost = c, best = k;
  }
  if (best == 0) return;
  const double left = lower_middle(values, a, best), right = lower_middle(values, best, b);
  if (std::abs(right - left) < rule.min_step * std::min(left, right)) return;
  cuts.push_back(best);
  segment(values, pre, rule, a, best, cuts);
  segment(values, pre, rule, best, b, cuts);
}

// The points of the segment [a, b) within rule.band of its lower-middle point (a measured point:
// the band holds it at least), and that point.
std::pair<std::vector<std::size_t>, double> band_points(std::span<const double> values,
                                                        const LevelRule& rule, std::size_t a,
                                                        std::size_t b) {
  const double m = lower_middle(values, a, b);
  std::vector<std::size_t> on;
  for (std::size_t i = a; i < b; ++i)
    if (!(std::abs(values[i] - m) > rule.band * std::abs(m))) on.push_back(i);
  return {on, m};
}

// The plateau of a segment: its points within rule.band of the segment's median.
CurveLevel level_of(std::span<const double> values, const LevelRule& rule, std::size_t a,
                    std::size_t b) {
  CurveLevel l;
  l.first = a;
  l.last = b - 1;
  const auto [points, m] = band_points(values, rule, a, b);
  std::vector<double> on;
  for (const std::size_t i : points)
    on.push_back(values[i]);
  if (!points.empty()) {
    l.plateau_first = points.front();
    l.plateau_last = points.back();
  }
  if (on.empty()) on.push_back(m);  // m not a number: the segment's middle stands for it
  l.median = median_or_zero(on);
  l.low = *std::min_element(on.begin(), on.end());
  l.high = *std::max_element(on.begin(), on.end());
  return l;
}

bool on_level(double v, double median, const LevelRule& rule) {
  return std::abs(v - median) <= rule.band * std::abs(median);
}

// The points of a level's segment on its plateau, as level_of took them.
std::vector<std::size_t> plateau_points(std::span<const double> values, const LevelRule& rule,
                                        const CurveLevel& l) {
  return band_points(values, rule, l.first, l.last + 1).first;
}

// Grows a level's plateau over the neighbouring points in [floor, ceiling) within the band of its
// median; the median, lowest and highest then count them too.
void grow(std::span<const double> values, const LevelRule& rule, std::vector<std::size_t> on,
          std::size_t floor, std::size_t ceiling, CurveLevel& l) {
  const std::size_t before = on.size();
  while (l.plateau_first > floor && on_level(values[l.plateau_first - 1], l.median, rule))
    on.push_back(--l.plateau_first);
  while (l.plateau_last + 1 < ceiling && on_level(values[l.plateau_last + 1], l.median, rule))
    on.push_back(++l.plateau_last);
  if (on.size() == before) return;  // as level_of left it
  std::vector<double> v;
  for (const std::size_t i : on)
    v.push_back(values[i]);
  l.median = median_or_zero(v);
  l.low = *std::min_element(v.begin(), v.end());
  l.high = *std::max_element(v.begin(), v.end());
}

// With rule.lone_points_are_transitions: a level between two others with fewer than
// rule.min_points points on its plateau is a transition, not a level. Whether binary segmentation
// gives such a point a segment of its own moves with points far from it (an H200's quick runs made
// the 256 KiB point a level of its own or not by whether 64 MiB read 463 or 369 cycles). Each
// plateau then grows over the neighbouring points within its band that no other level holds, and
// each segment runs from just past the previous plateau to the end of its own (the last to the
// curve's end), so that neither depends on where a cut fell.
std::vector<CurveLevel> settled(std::span<const double> values, const LevelRule& rule,
                                const std::vector<CurveLevel>& levels) {
  if (!rule.lone_points_are_transitions) return levels;
  std::vector<CurveLevel> kept;
  std::vector<std::vector<std::size_t>> on;
  for (std::size_t k = 0; k < levels.size(); ++k) {
    std::vector<std::size_t> points = plateau_points(values, rule, levels[k]);
    const bool between = k > 0 && k + 1 < levels.size();
    if (between && points.size() < rule.min_points) continue;
    kept.push_back(levels[k]);
    on.push_back(std::move(points));
  }
  for (std::size_t k = 0; k < kept.size(); ++k) {
    const std::size_t floor = k > 0 ? kept[k - 1].plateau_last + 1 : 0;
    const std::size_t ceiling = k + 1 < kept.size() ? kept[k + 1].plateau_first : values.size();
    grow(values, rule, std::move(on[k]), floor, ceiling, kept[k]);
  }
  for (std::size_t k = 0; k < kept.size(); ++k) {
    kept[k].first = k > 0 ? kept[k - 1].plateau_last + 1 : 0;
    kept[k].last = k + 1 < kept.size() ? kept[k].plateau_last : values.size() - 1;
  }
  return kept;
}

}  // namespace

std::vector<std::pair<std::size_t, std::size_t>> curve_segments(
    const std::vector<CurvePoint>& points, const PlateauRule& rule) {
  std::vector<std::pair<std::size_t, std::size_t>> out;
  if (points.empty()) return out;
  split(points, 0, points.size(), rule.step, out, rule.max_segments);
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<Plateau> curve_plateaus(const std::vector<CurvePoint>& points,
                                    const PlateauRule& rule) {
  std::vector<Plateau> out;
  for (const auto& [lo, hi] : curve_segments(points, rule)) {
    const double m = segment_median(points, lo, hi);
    std::vector<std::size_t> core;
    for (std::size_t i = lo; i < hi; ++i)
      if (std::abs(points[i].gbps / m - 1) <= rule.flat) core.push_back(i);
    if (core.size() < rule.min_core) continue;
    Plateau p{core.front(), core.back(), 0, INFINITY, 0, core.size()};
    std::vector<double> v;
    for (const std::size_t i : core) {
      v.push_back(points[i].gbps);
      p.low = std::min(p.low, points[i].low);
      p.high = std::max(p.high, points[i].high);
    }
    p.gbps = middle_of(v);
    out.push_back(p);
  }
  return out;
}

std::optional<double> curve_knee(const std::vector<CurvePoint>& points, const Plateau& a,
                                 const Plateau& b) {
  const double level = std::sqrt(a.gbps * b.gbps);
  const bool falls = b.gbps < a.gbps;
  for (std::size_t i = a.last; i < b.first && i + 1 < points.size(); ++i) {
    const CurvePoint &p = points[i], &q = points[i + 1];
    const bool crosses =
        falls ? (p.gbps >= level && q.gbps < level) : (p.gbps <= level && q.gbps > level);
    if (!crosses) continue;
    const double t = (std::log(level) - std::log(p.gbps)) / (std::log(q.gbps) - std::log(p.gbps));
    return std::exp(std::log(p.bytes) + t * (std::log(q.bytes) - std::log(p.bytes)));
  }
  return std::nullopt;
}

std::vector<CurveLevel> curve_levels(std::span<const double> values, const LevelRule& rule) {
  std::vector<CurveLevel> out;
  if (values.empty()) return out;
  std::vector<double> logs;
  for (const double v : values)
    logs.push_back(std::log(std::max(v, 1e-9)));
  const Prefix pre(logs);
  std::vector<std::size_t> cuts;
  segment(values, pre, rule, 0, values.size(), cuts);
  std::sort(cuts.begin(), cuts.end());
  cuts.push_back(values.size());
  std::size_t a = 0;
  for (std::size_t c : cuts) {
    // Adjacent segments whose plateaus differ by less than a step are one level.
    if (!out.empty()) {
      const CurveLevel joined = level_of(values, rule, out.back().first, c);
      const CurveLevel alone = level_of(values, rule, a, c);
      if (std::abs(alone.median - out.back().median) <
          rule.min_step * std::min(alone.median, out.back().median)) {
        out.back() = joined;
        a = c;
        continue;
      }
    }
    out.push_back(level_of(values, rule, a, c));
    a = c;
  }
  return settled(values, rule, out);
}

TwoClusters split_two_clusters(std::vector<double> v) {
  TwoClusters c;
  if (v.size() < 2) return c;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  std::vector<double> sum(n + 1, 0), sq(n + 1, 0);
  for (std::size_t i = 0; i < n; ++i) {
    sum[i + 1] = sum[i] + v[i];
    sq[i + 1] = sq[i] + v[i] * v[i];
  }
  auto cost = [&](std::size_t a, std::size_t b) {
    const double k = static_cast<double>(b - a), s = sum[b] - sum[a];
    return (sq[b] - sq[a]) - s * s / k;
  };
  std::size_t best = 1;
  double best_cost = INFINITY;
  for (std::size_t k = 1; k < n; ++k) {
    const double w = cost(0, k) + cost(k, n);
    if (w < best_cost) best_cost = w, best = k;
  }
  const double total = cost(0, n);
  c.threshold = 0.5 * (v[best - 1] + v[best]);
  c.fast_median = median_or_zero({v.begin(), v.begin() + static_cast<std::ptrdiff_t>(best)});
  c.slow_median = median_or_zero({v.begin() + static_cast<std::ptrdiff_t>(best), v.end()});
  c.slow_share = static_cast<double>(n - best) / static_cast<double>(n);
  c.eta = total > 0 ? 1.0 - best_cost / total : 0.0;
  return c;
}

}  // namespace gpuprobe
