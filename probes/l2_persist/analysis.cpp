// l2-persist's sweep and derivation (host-only): the points of the axes and their sizes on a
// device (sweep.hpp); hot-kernel time from the repetition less the streaming part, speed-ups over
// the no-window baseline with an interval over the rounds, model columns, counters beside the
// model, conditions; the findings are built in findings.cpp.
#include "analysis.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "gpuprobe/core/counter_agreement.hpp"
#include "gpuprobe/core/stats.hpp"
#include "gpuprobe/models/l2_persist_model.hpp"
#include "internal.hpp"
#include "sweep.hpp"

namespace gpuprobe::l2_persist {
namespace {

// Window points of one workload: set-aside x hot x window x hitRatio.
void window_points(const AxisValues& v, const std::string& workload, std::vector<SweepPoint>& out) {
  const bool one = v.has_choice("hit-ratio", "1.0");
  const bool tuned = v.has_choice("hit-ratio", "tuned");
  for (auto aside : v.list("setaside"))
    for (auto hot : v.list("hot"))
      for (const auto& window : v.choices("window")) {
        const bool below_one = aside > 0 && aside < hot;
        if (one || (tuned && !below_one && aside > 0))
          out.push_back({workload, aside, hot, HitKind::kOne, window});
        if (tuned && below_one) out.push_back({workload, aside, hot, HitKind::kTuned, window});
      }
}

// The hot size nearest 100%.
std::uint64_t nearest_full(const std::vector<std::uint64_t>& hots) {
  return *std::ranges::min_element(
      hots, {}, [](std::uint64_t h) { return std::llabs(static_cast<long long>(h) - 100); });
}

constexpr double kSectorBytes = 32;

std::string text_param(const Row& row, const char* key) {
  return text_param_of(row, key).value_or("");
}

std::uint64_t bytes_param(const Row& row, const char* key) {
  return static_cast<std::uint64_t>(int_param_of(row, key).value_or(0));
}

std::optional<double> ratio_param(const Row& row) {
  const Param* p = find_param(row.params, kHitRatio);
  const auto* d = p ? std::get_if<double>(&p->value) : nullptr;
  return d ? std::optional<double>(*d) : std::nullopt;
}

// Median time of each round (empty when the metric kept no samples).
std::vector<double> round_medians(const Row& row) {
  std::vector<double> out;
  if (const Metric* m = find_metric(row, "time"))
    for (const auto& round : m->samples)
      if (!round.empty()) out.push_back(statistics_of(round).median);
  return out;
}

// The hot kernel's time per round: the repetition's, less the stream-only row's, over the
// iterations (phases); the whole kernel's (bpg).
std::vector<double> hot_rounds(const Point& p, const Point* stream, int iterations) {
  std::vector<double> own = round_medians(*p.row);
  if (p.workload != kPhases) return own;
  if (!stream) return {};
  const std::vector<double> base = round_medians(*stream->row);
  if (base.size() != own.size()) return {};
  for (std::size_t r = 0; r < own.size(); ++r)
    own[r] = (own[r] - base[r]) / iterations;
  return own;
}

std::optional<double> hot_time(const Point& p, const Point* stream, int iterations) {
  const Metric* t = find_metric(*p.row, "time");
  if (!t) return std::nullopt;
  if (p.workload != kPhases) return t->stats.median;
  const Metric* s = stream ? find_metric(*stream->row, "time") : nullptr;
  if (!s) return std::nullopt;
  return (t->stats.median - s->stats.median) / iterations;
}

const Point* find_point(const std::vector<Point>& pts, const std::string& workload,
                        const std::string& window, std::uint64_t set_aside, std::uint64_t hot) {
  for (const auto& q : pts)
    if (q.workload == workload && q.window == window && q.set_aside == set_aside && q.hot == hot)
      return &q;
  return nullptr;
}

// The stream-only row at the point's set-aside (or, missing that, at none).
const Point* stream_of(const std::vector<Point>& pts, const Point& p) {
  const Point* s = find_point(pts, kStreamOnly, kNone, p.set_aside, 0);
  return s ? s : find_point(pts, kStreamOnly, kNone, 0, 0);
}

const Point* baseline_of(const std::vector<Point>& pts, const Point& p) {
  return find_point(pts, p.workload, kNone, 0, p.hot);
}

void derive_speedup(Point& p, const Point& base, const std::vector<double>& own,
                    const std::vector<double>& base_rounds) {
  if (!p.hot_time || !base.hot_time || *p.hot_time <= 0) return;
  p.speedup = *base.hot_time / *p.hot_time;
  if (own.empty() || own.size() != base_rounds.size()) return;
  double lo = INFINITY, hi = 0;
  for (std::size_t r = 0; r < own.size(); ++r) {
    if (own[r] <= 0) return;
    lo = std::min(lo, base_rounds[r] / own[r]);
    hi = std::max(hi, base_rounds[r] / own[r]);
  }
  p.speedup_low = lo;
  p.speedup_high = hi;
}

std::optional<double> diff(const Row& a, const Row* b, std::string_view name) {
  const auto x = counter_value(a, name);
  if (!b) return x;
  const auto y = counter_value(*b, name);
  if (!x || !y) return std::nullopt;
  return *x - *y;
}

// Counter values of a point: phases, the repetition less the stream-only row (the hot kernels
// alone); bpg, the kernel. The share of reads L2 served is 1 - DRAM read bytes / bytes read (the
// first-slice hit counter alone misses what the other L2 partition serves over the fabric).
// Checked against the model where it predicts.
void derive_counters(Point& p, const Point* stream, const RunFacts& facts, CounterAgreement& hits,
                     CounterAgreement& reads) {
  Row& row = *p.row;
  if (!row.counters) return;
  const bool phases = p.workload == kPhases;
  const Row* s = phases && stream ? stream->row : nullptr;
  if (phases && !s) return;
  const double k = phases ? std::max(1, facts.iterations) : 1;
  const auto read_sectors = diff(row, s, kL2Reads);
  const auto dram_read = diff(row, s, kDramRead);
  if (read_sectors && dram_read && *read_sectors > 0)
    p.hit_share = 1 - *dram_read / (*read_sectors * kSectorBytes);
  p.near_hit_share = ratio_of(diff(row, s, kL2ReadHits), read_sectors);
  p.dram_bytes = sum_of(dram_read, diff(row, s, kDramWrite));
  if (p.dram_bytes) *p.dram_bytes /= k;
  const std::string pre = phases ? "hot_" : "";
  row.derived.push_back({pre + "l2_hit_share", "", p.hit_share});
  row.derived.push_back({pre + "near_hit_share", "", p.near_hit_share});
  row.derived.push_back(
      {pre + "fabric_hit_share", "", ratio_of(diff(row, s, kFabricReadHits), read_sectors)});
  row.derived.push_back({pre + "dram_bytes", "B", p.dram_bytes});
  // Hot sectors read per repetition: phases, the region per iteration; bpg, one word per
  // streaming word. Each is read and written, hence twice that tagged at most.
  const double hot_sectors =
      (phases ? k * static_cast<double>(p.hot) : static_cast<double>(facts.stream_bytes)) /
      kSectorBytes;
  row.derived.push_back(
      {"evict_last_share", "", ratio_of(diff(row, s, kEvictLast), 2 * hot_sectors)});
  if (!phases) return;
  // The first iteration of a counter range starts cold (the stream evicted the region, persisting
  // lines were reset): the model's warm share counts for the other k - 1.
  const std::optional<double> warm = quantity_value(row.model, "hot_hit_share");
  const std::optional<double> expected =
      warm ? std::optional<double>(*warm * (k - 1) / k) : std::nullopt;
  hits.add(row, "hot_l2_hit_share_range", p.hit_share, expected);
  reads.add(row, "hot_read_sectors", read_sectors, hot_sectors);
}

std::vector<Point> read_points(ProbeResult& result) {
  std::vector<Point> out;
  for (auto& row : result.rows) {
    Point p;
    p.row = &row;
    p.workload = text_param(row, kWorkload);
    p.window = text_param(row, kWindow);
    p.set_aside = bytes_param(row, kSetAside);
    p.hot = bytes_param(row, kHot);
    p.hit_ratio = ratio_param(row);
    p.tuned = std::find(row.flags.begin(), row.flags.end(), kTunedFlag) != row.flags.end();
    out.push_back(p);
  }
  return out;
}

// The time ratio of two rows' medians (a / b), when both have one.
std::optional<double> time_ratio(const Row& a, const Row& b) {
  const Metric* x = find_metric(a, "time");
  const Metric* y = find_metric(b, "time");
  if (!x || !y || y->stats.median <= 0) return std::nullopt;
  return x->stats.median / y->stats.median;
}

// The hot-kernel columns of one (non stream-only) point.
void derive_point(Point& p, const std::vector<Point>& pts, int k) {
  const Point* base = baseline_of(pts, p);
  const Point* stream = stream_of(pts, p);
  if (base) {
    derive_speedup(p, *base, hot_rounds(p, stream, k), hot_rounds(*base, stream_of(pts, *base), k));
    if (p.workload == kPhases) p.loop_speedup = time_ratio(*base->row, *p.row);
  }
  Row& row = *p.row;
  row.derived.push_back({"hot_time", "s", p.hot_time});
  if (p.workload == kPhases && p.hot_time && *p.hot_time > 0)
    row.derived.push_back(
        {"hot_bandwidth", "GB/s", 2.0 * static_cast<double>(p.hot) / *p.hot_time / 1e9});
  row.derived.push_back({"speedup", "x", p.speedup});
  row.derived.push_back({"speedup_low", "x", p.speedup_low});
  row.derived.push_back({"speedup_high", "x", p.speedup_high});
  if (p.workload == kPhases) row.derived.push_back({"loop_speedup", "x", p.loop_speedup});
}

void add_conditions(ProbeResult& result, const RunFacts& facts, int k) {
  const auto bytes = [](std::uint64_t b) { return static_cast<double>(b); };
  result.conditions.insert(result.conditions.end(),
                           {{"l2_bytes", "B", bytes(facts.l2_bytes)},
                            {"persisting_l2_max", "B", bytes(facts.persisting_max)},
                            {"access_policy_max_window", "B", bytes(facts.window_max)},
                            {"stream_bytes", "B", bytes(facts.stream_bytes)},
                            {"phase_iterations", "", k}});
}

}  // namespace

std::vector<SweepPoint> points(const AxisValues& v) {
  std::vector<SweepPoint> out;
  for (const auto& workload : v.choices("workload")) {
    if (workload == kPhases) {
      std::vector<std::uint64_t> asides = v.list("setaside");
      if (std::find(asides.begin(), asides.end(), 0) == asides.end())
        asides.insert(asides.begin(), 0);
      for (auto aside : asides)
        out.push_back({kStreamOnly, aside, 0, HitKind::kNoWindow, kNone});
    }
    for (auto hot : v.list("hot"))
      out.push_back({workload, 0, hot, HitKind::kNoWindow, kNone});
    window_points(v, workload, out);
  }
  if (v.has_choice("workload", kPhases))
    out.push_back({kPhases, 0, nearest_full(v.list("hot")), HitKind::kNoWindow, kAfterSweep});
  return out;
}

std::uint64_t Sizes::set_aside(const SweepPoint& p) const {
  return models::percent_of(p.setaside_pct, persisting_max, kQuantum);
}

std::uint64_t Sizes::hot(const SweepPoint& p) const {
  return models::percent_of(p.hot_pct, persisting_max, kQuantum);
}

std::uint64_t Sizes::window(const SweepPoint& p) const {
  return models::window_bytes(hot(p), window_max) / kQuantum * kQuantum;
}

double Sizes::hit_ratio(const SweepPoint& p) const {
  return p.hit == HitKind::kTuned ? models::tuned_hit_ratio(set_aside(p), window(p)) : 1.0;
}

bool Sizes::clamped_any(const std::vector<SweepPoint>& pts) const {
  return std::any_of(pts.begin(), pts.end(), [this](const SweepPoint& p) {
    return p.hit != HitKind::kNoWindow && window(p) < hot(p);
  });
}

RunFacts Sizes::facts() const {
  return {l2, persisting_max, window_max, stream_bytes, kIterations};
}

Sizes size_run(std::uint64_t l2, std::uint64_t persisting_max, std::uint64_t window_max) {
  Sizes s;
  s.l2 = l2;
  s.persisting_max = persisting_max;
  s.window_max = window_max;
  s.stream_bytes = (kStreamL2Multiple * l2 + kQuantum - 1) / kQuantum * kQuantum;
  return s;
}

RowSpec spec_of(const SweepPoint& p, const Sizes* sizes) {
  RowSpec r{p.workload,   p.setaside_pct, p.hot_pct, std::nullopt,
            std::nullopt, std::nullopt,   p.window};
  if (sizes) {
    r.setaside_bytes = sizes->set_aside(p);
    r.hot_bytes = sizes->hot(p);
  }
  if (p.hit == HitKind::kOne) r.hit_ratio = 1.0;
  if (p.hit == HitKind::kTuned)
    r.hit_ratio = sizes ? sizes->hit_ratio(p)
                        : static_cast<double>(p.setaside_pct) / static_cast<double>(p.hot_pct);
  return r;
}

std::vector<std::string> point_flags(const SweepPoint& p) {
  if (p.hit == HitKind::kTuned) return {kTunedFlag};
  if (p.workload == kStreamOnly) return {"stream-only"};
  if (p.window == kAfterSweep) return {"after-sweep"};
  if (p.window == kNone) return {"baseline"};
  return {};
}

std::vector<Param> row_params(const RowSpec& spec) {
  const auto size = [](std::optional<std::uint64_t> b) {
    return b ? Scalar{static_cast<std::int64_t>(*b)} : Scalar{};
  };
  return {{kWorkload, spec.workload, ""},
          {kSetAsidePct, static_cast<std::int64_t>(spec.setaside_pct), "%"},
          {kHotPct, static_cast<std::int64_t>(spec.hot_pct), "%"},
          {kSetAside, size(spec.setaside_bytes), "B"},
          {kHot, size(spec.hot_bytes), "B"},
          {kHitRatio, spec.hit_ratio ? Scalar{*spec.hit_ratio} : Scalar{}, ""},
          {kWindow, spec.window, ""}};
}

void add_model(ProbeResult& result, std::uint64_t window_max) {
  for (auto& row : result.rows) {
    if (text_param(row, kWorkload) == kStreamOnly) continue;
    // A plan has shares, not bytes: the model depends on their ratios only.
    const bool sized = bytes_param(row, kHot) > 0;
    const std::uint64_t hot = sized ? bytes_param(row, kHot) : bytes_param(row, kHotPct);
    const std::uint64_t aside =
        sized ? bytes_param(row, kSetAside) : bytes_param(row, kSetAsidePct);
    const auto ratio = ratio_param(row);
    const std::uint64_t window = ratio ? models::window_bytes(hot, sized ? window_max : 0) : 0;
    const auto m = models::predict_persisting(aside, ratio.value_or(0), window, hot);
    row.model.push_back({"persisting_fraction", "", m.persisting_fraction});
    row.model.push_back({"overcommit", "", m.overcommit ? 1.0 : 0.0});
    row.model.push_back({"hot_hit_share", "", m.hot_hit_share});
  }
}

void analyse(ProbeResult& result, const RunFacts& facts) {
  std::vector<Point> pts = read_points(result);
  const int k = std::max(1, facts.iterations);
  for (auto& p : pts)
    if (p.workload != kStreamOnly) p.hot_time = hot_time(p, stream_of(pts, p), k);
  CounterAgreement hits(kCounterHotHits, "");
  CounterAgreement reads(kCounterHotReads, "sectors");
  for (auto& p : pts) {
    if (p.workload == kStreamOnly) {
      // What the set-aside alone costs the streaming kernel (no window, no hot kernel).
      const Point* none = find_point(pts, kStreamOnly, kNone, 0, 0);
      if (none)
        p.row->derived.push_back({"stream_time_vs_none", "x", time_ratio(*p.row, *none->row)});
      continue;
    }
    derive_point(p, pts, k);
    derive_counters(p, stream_of(pts, p), facts, hits, reads);
  }
  add_conditions(result, facts, k);
  sweep_findings(pts, facts, result.findings);
  for (const auto* agreement : {&hits, &reads})
    if (auto f = agreement->finding()) result.findings.push_back(std::move(*f));
}

}  // namespace gpuprobe::l2_persist
