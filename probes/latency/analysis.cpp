// latency's analysis (host-only): level boundaries by binary segmentation, the per-access trace's
// two clusters, the level each plateau's counters point to, and the run's findings.
#include "analysis.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "gpuprobe/core/counter_agreement.hpp"
#include "gpuprobe/core/stats.hpp"
#include "internal.hpp"

namespace gpuprobe::latency {
namespace {

double median_of(std::vector<double> v) {
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

// The middle one of a segment's sorted latencies (the lower of the two middle ones for an even
// count): a measured point, never an average of two that may fall between two groups.
double segment_median(std::span<const SeriesPoint> pts, std::size_t a, std::size_t b) {
  std::vector<double> v;
  for (std::size_t i = a; i < b; ++i)
    v.push_back(pts[i].cycles);
  const auto mid = v.begin() + static_cast<std::ptrdiff_t>((v.size() - 1) / 2);
  std::nth_element(v.begin(), mid, v.end());
  return *mid;
}

// Splits [a, b) recursively; appends the cut points (the first index of each right part).
void segment(std::span<const SeriesPoint> pts, const Prefix& pre, std::size_t a, std::size_t b,
             std::vector<std::size_t>& cuts) {
  if (b - a < 2 * kMinPoints || cuts.size() + 1 >= kMaxLevels) return;
  std::size_t best = 0;
  double best_cost = INFINITY;
  for (std::size_t k = a + kMinPoints; k + kMinPoints <= b; ++k) {
    const double c = pre.cost(a, k) + pre.cost(k, b);
    if (c < best_cost) best_cost = c, best = k;
  }
  if (best == 0) return;
  const double left = segment_median(pts, a, best), right = segment_median(pts, best, b);
  if (std::abs(right - left) < kMinStep * std::min(left, right)) return;
  cuts.push_back(best);
  segment(pts, pre, a, best, cuts);
  segment(pts, pre, best, b, cuts);
}

// The plateau of a segment: its points within kPlateauBand of the segment's median.
Level level_of(std::span<const SeriesPoint> pts, std::size_t a, std::size_t b) {
  Level l;
  l.first = a;
  l.last = b - 1;
  const double m = segment_median(pts, a, b);  // a measured point: the band holds one at least
  std::vector<double> on;
  bool any = false;
  for (std::size_t i = a; i < b; ++i) {
    if (std::abs(pts[i].cycles - m) > kPlateauBand * m) continue;
    if (!any) l.plateau_first = i;
    l.plateau_last = i;
    any = true;
    on.push_back(pts[i].cycles);
  }
  l.median = median_of(on);
  l.low = *std::min_element(on.begin(), on.end());
  l.high = *std::max_element(on.begin(), on.end());
  l.smallest = pts[l.plateau_first].bytes;
  l.size = pts[l.plateau_last].bytes;
  if (l.plateau_last + 1 < pts.size()) l.next_size = pts[l.plateau_last + 1].bytes;
  return l;
}

double ratio(std::optional<double> num, std::optional<double> den) {
  return num && den && *den > 0 ? *num / *den : 0.0;
}

}  // namespace

int served_rank(const std::string& level) {
  const char* order[] = {kServedL1, kServedL2, kServedDram};
  for (int i = 0; i < 3; ++i)
    if (level == order[i]) return i;
  return -1;
}

std::vector<ChaseRow> read_chase_rows(ProbeResult& result, const RunFacts& facts) {
  std::vector<ChaseRow> out;
  for (Row& row : result.rows) {
    if (text_param_of(row, kMode) != std::string(kChase)) continue;
    const auto stride = int_param_of(row, kStride), carve = int_param_of(row, kCarveout);
    const auto bytes = int_param_of(row, kBytes);
    const auto cycles = metric_median(row, kCycles);
    if (!stride || !carve || !bytes || !cycles || *stride <= 0) continue;
    ChaseRow r{&row,
               static_cast<std::uint64_t>(*stride),
               static_cast<std::uint64_t>(*carve),
               static_cast<std::uint64_t>(*bytes),
               *cycles,
               std::nullopt,
               std::nullopt};
    if (const Quantity* q = find_quantity(row.derived, kClock); q && q->value)
      r.clock_mhz = q->value;
    const std::uint64_t n = r.bytes / r.stride;
    r.served = served_by(row, static_cast<double>(warm_steps(n) + facts.steps));
    if (r.served && !find_quantity(row.derived, "l1_hit")) {
      row.derived.push_back({"l1_hit", "", r.served->l1_hit});
      row.derived.push_back({"l2_hit", "", r.served->l2_hit});
      row.derived.push_back({"fabric_share", "", r.served->fabric_share});
      row.derived.push_back({"dram_per_access", "B", r.served->dram_per_access});
    }
    out.push_back(r);
  }
  return out;
}

std::vector<Series> make_series(const std::vector<ChaseRow>& rows) {
  std::vector<Series> out;
  for (const ChaseRow& r : rows) {
    auto it = std::find_if(out.begin(), out.end(), [&](const Series& s) {
      return s.stride == r.stride && s.carveout == r.carveout;
    });
    if (it == out.end()) {
      out.push_back({r.stride, r.carveout, {}, {}});
      it = out.end() - 1;
    }
    it->rows.push_back(&r);
  }
  for (Series& s : out)
    std::stable_sort(s.rows.begin(), s.rows.end(),
                     [](const ChaseRow* a, const ChaseRow* b) { return a->bytes < b->bytes; });
  return out;
}

double run_clock(const std::vector<ChaseRow>& rows) {
  std::vector<double> v;
  for (const ChaseRow& r : rows)
    if (r.clock_mhz) v.push_back(*r.clock_mhz);
  return median_of(v);
}

std::vector<Level> find_levels(std::span<const SeriesPoint> points) {
  std::vector<Level> out;
  if (points.empty()) return out;
  std::vector<double> logs;
  for (const auto& p : points)
    logs.push_back(std::log(std::max(p.cycles, 1e-9)));
  const Prefix pre(logs);
  std::vector<std::size_t> cuts;
  segment(points, pre, 0, points.size(), cuts);
  std::sort(cuts.begin(), cuts.end());
  cuts.push_back(points.size());
  std::size_t a = 0;
  for (std::size_t c : cuts) {
    // Adjacent segments whose plateaus differ by less than a step are one level.
    if (!out.empty()) {
      const Level joined = level_of(points, out.back().first, c);
      const Level alone = level_of(points, a, c);
      if (std::abs(alone.median - out.back().median) <
          kMinStep * std::min(alone.median, out.back().median)) {
        out.back() = joined;
        a = c;
        continue;
      }
    }
    out.push_back(level_of(points, a, c));
    a = c;
  }
  return out;
}

Clusters two_clusters(std::vector<double> v) {
  Clusters c;
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
  c.fast_median = median_of({v.begin(), v.begin() + static_cast<std::ptrdiff_t>(best)});
  c.slow_median = median_of({v.begin() + static_cast<std::ptrdiff_t>(best), v.end()});
  c.slow_share = static_cast<double>(n - best) / static_cast<double>(n);
  c.eta = total > 0 ? 1.0 - best_cost / total : 0.0;
  c.two = clusters_apart(c.fast_median, c.slow_median, c.slow_share, c.eta);
  return c;
}

bool clusters_apart(double fast_median, double slow_median, double slow_share, double eta) {
  return eta >= kMinEta && slow_share >= kMinShare && slow_share <= 1 - kMinShare &&
         slow_median >= kMinClusterRatio * fast_median;
}

std::optional<Served> served_by(const Row& row, double accesses) {
  if (!row.counters || accesses <= 0) return std::nullopt;
  const auto l1 = counter_value(row, kL1Sectors), l1h = counter_value(row, kL1Hits);
  const auto l2 = counter_value(row, kL2Reads), l2h = counter_value(row, kL2Hits);
  const auto fab = counter_value(row, kFabricReads), dram = counter_value(row, kDramRead);
  if (!l1 || !l1h || !l2 || !dram) return std::nullopt;
  Served s;
  s.l1_hit = ratio(l1h, l1);
  s.l2_hit = ratio(l2h, l2);
  s.fabric_share = ratio(fab, l2);
  s.dram_per_access = *dram / accesses;
  // Shares of the accesses: L1 hits; DRAM (kDramBytesPerMiss per access that went there); the
  // rest L2. The level is the largest share.
  const double from_l1 = s.l1_hit;
  const double from_dram = std::min(1.0 - from_l1, s.dram_per_access / kDramBytesPerMiss);
  const double from_l2 = std::max(0.0, 1.0 - from_l1 - from_dram);
  const std::pair<double, const char*> shares[] = {
      {from_l1, kServedL1}, {from_l2, kServedL2}, {from_dram, kServedDram}};
  s.level =
      std::max_element(std::begin(shares), std::end(shares), [](const auto& a, const auto& b) {
        return a.first < b.first;
      })->second;
  return s;
}

void add_trace_values(Row& row, std::vector<double> cycles) {
  if (cycles.empty()) return;
  const Clusters c = two_clusters(cycles);
  std::sort(cycles.begin(), cycles.end());
  auto pct = [&](double q) {
    return cycles[static_cast<std::size_t>(q * static_cast<double>(cycles.size() - 1))];
  };
  row.derived.push_back({"p10_cycles", "cycles", pct(0.10)});
  row.derived.push_back({"p50_cycles", "cycles", pct(0.50)});
  row.derived.push_back({"p90_cycles", "cycles", pct(0.90)});
  row.derived.push_back({"fast_cycles", "cycles", c.fast_median});
  row.derived.push_back({"slow_cycles", "cycles", c.slow_median});
  row.derived.push_back({"slow_share", "", c.slow_share});
  row.derived.push_back({"cluster_eta", "", c.eta});
  row.derived.push_back({"cluster_threshold", "cycles", c.threshold});
}

void analyse(ProbeResult& result, const RunFacts& facts) {
  std::vector<ChaseRow> rows = read_chase_rows(result, facts);
  const double clock = run_clock(rows);
  std::vector<Series> series = make_series(rows);
  for (Series& s : series) {
    std::vector<SeriesPoint> pts;
    for (const ChaseRow* r : s.rows)
      pts.push_back({r->bytes, r->cycles});
    s.levels = find_levels(pts);
  }
  add_series_findings(series, facts, clock, result.findings);
  add_trace_findings(result, clock, result.findings);
}

}  // namespace gpuprobe::latency
