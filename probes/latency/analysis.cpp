// latency's analysis (host-only): level boundaries by binary segmentation, the per-access trace's
// two clusters, the level each plateau's counters point to, and the run's findings.
#include "analysis.hpp"

#include <algorithm>
#include <utility>

#include "gpuprobe/core/counter_agreement.hpp"
#include "gpuprobe/core/stats.hpp"
#include "internal.hpp"

namespace gpuprobe::latency {
namespace {

double median_of(std::vector<double> v) {
  return v.empty() ? 0.0 : statistics_of(v).median;
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
    r.clock_mhz = quantity_value(row.derived, kClock);
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

std::vector<Level> find_levels(std::span<const SeriesPoint> points, const LevelRule& rule) {
  std::vector<double> cycles;
  for (const auto& p : points)
    cycles.push_back(p.cycles);
  std::vector<Level> out;
  for (const CurveLevel& c : curve_levels(cycles, rule)) {
    Level l;
    static_cast<CurveLevel&>(l) = c;
    l.smallest = points[l.plateau_first].bytes;
    l.size = points[l.plateau_last].bytes;
    if (l.plateau_last + 1 < points.size()) l.next_size = points[l.plateau_last + 1].bytes;
    out.push_back(l);
  }
  return out;
}

Clusters two_clusters(std::vector<double> v) {
  Clusters c;
  static_cast<TwoClusters&>(c) = split_two_clusters(std::move(v));
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
    s.levels = find_levels(pts, s.pages() ? kLevelRule : kCacheLevelRule);
  }
  add_series_findings(series, facts, clock, result.findings);
  add_trace_findings(result, clock, result.findings);
}

}  // namespace gpuprobe::latency
