// cache's analysis (host-only): each (scope, op) curve segmented into plateaus, the knees between
// them, the model and counter columns, summary rows; the findings come from findings.cpp.
#include "analysis.hpp"

#include <algorithm>
#include <map>

#include "gpuprobe/core/counter_agreement.hpp"
#include "gpuprobe/core/stats.hpp"
#include "internal.hpp"

namespace gpuprobe::cache {

std::string size_level(const std::string& scope, const std::string& op, double from_bytes,
                       double /*to_bytes*/, const RunFacts& facts) {
  const double resident = kL2Resident * static_cast<double>(facts.l2_bytes);
  if (scope == kShared) return "shared";
  if (scope == kSm && op == kWrite) return from_bytes * facts.sm_count < resident ? "L2" : "DRAM";
  if (scope == kSm) return from_bytes < static_cast<double>(facts.l1_bytes) ? "L1" : "L2";
  return from_bytes < resident ? "L2" : "DRAM";
}

std::string counter_level(std::optional<double> l1_hit, std::optional<double> dram_per_byte) {
  if (!dram_per_byte) return "";
  if (*dram_per_byte >= 0.5) return "DRAM";
  if (l1_hit && *l1_hit >= 0.5) return "L1";
  return "L2";
}

namespace {

void put(std::vector<Quantity>& q, const std::string& name, const std::string& unit,
         std::optional<double> v) {
  q.push_back({name, unit, v});
}

// The counter columns of a row: L1 hit rate of global loads, L2 hit rate of reads from the SMs,
// DRAM bytes per byte the kernel moved.
void counter_columns(Row& row) {
  if (!row.counters) return;
  // Copied before the pushes below, which may move row.derived's storage.
  const std::optional<double> moved = quantity_value(row.derived, "bytes_moved");
  const auto dram_r = counter_value(row, kDramRead), dram_w = counter_value(row, kDramWrite);
  const std::optional<double> dram = sum_of(dram_r, dram_w);
  put(row.derived, "l1_hit_rate", "",
      ratio_of(counter_value(row, kL1Hits), counter_value(row, kL1Sectors)));
  put(row.derived, "l2_hit_rate", "",
      ratio_of(counter_value(row, kL2ReadHits), counter_value(row, kL2Reads)));
  put(row.derived, "dram_bytes_per_byte", "", ratio_of(dram, moved));
}

CurvePoint point_of(const Row& row) {
  const Metric* bw = find_metric(row, "bandwidth");
  CurvePoint p;
  p.bytes = static_cast<double>(int_param_of(row, kBytes).value_or(0));
  if (bw == nullptr) return p;
  p.gbps = bw->stats.median;
  std::vector<double> all;
  for (const auto& round : bw->samples)
    all.insert(all.end(), round.begin(), round.end());
  const double u = all.empty() ? 0 : median_uncertainty(all);
  p.low = p.gbps * (1 - u);
  p.high = p.gbps * (1 + u);
  return p;
}

std::optional<double> mean_derived(const Curve& c, const Plateau& p, const char* name) {
  double sum = 0;
  std::size_t n = 0;
  for (std::size_t i = p.first; i <= p.last; ++i) {
    const auto v = quantity_value(c.rows[i]->derived, name);
    if (!v) return std::nullopt;
    sum += *v;
    ++n;
  }
  if (n == 0) return std::nullopt;
  return sum / static_cast<double>(n);
}

std::vector<Curve> curves_of(ProbeResult& result) {
  std::map<std::pair<std::string, std::string>, Curve> by;
  for (Row& row : result.rows) {
    const auto scope = text_param_of(row, kScope), op = text_param_of(row, kOp);
    if (!scope || !op || find_metric(row, "bandwidth") == nullptr) continue;
    Curve& c = by[{*scope, *op}];
    c.scope = *scope, c.op = *op;
    c.rows.push_back(&row);
  }
  std::vector<Curve> out;
  for (auto& [key, c] : by) {
    std::stable_sort(c.rows.begin(), c.rows.end(), [](const Row* a, const Row* b) {
      return int_param_of(*a, kBytes).value_or(0) < int_param_of(*b, kBytes).value_or(0);
    });
    for (const Row* r : c.rows)
      c.points.push_back(point_of(*r));
    out.push_back(std::move(c));
  }
  return out;
}

std::optional<double> model_of(const std::string& level, const RunFacts& f) {
  if ((level == "L1" || level == "shared") && f.l1_peak_gbps > 0) return f.l1_peak_gbps;
  if (level == "DRAM" && f.dram_peak_gbps > 0) return f.dram_peak_gbps;
  return std::nullopt;
}

// Levels and knees of one curve; a level name met twice gets "#2", "#3".
void derive(Curve& c, const RunFacts& facts) {
  std::map<std::string, int> seen;
  const std::vector<Plateau> found = plateaus(c.points);
  for (const Plateau& p : found) {
    Level l;
    l.plateau = p;
    l.from_bytes = c.points[p.first].bytes;
    l.to_bytes = c.points[p.last].bytes;
    l.level = size_level(c.scope, c.op, l.from_bytes, l.to_bytes, facts);
    if (const int n = ++seen[l.level]; n > 1) l.level += "#" + std::to_string(n);
    l.model_gbps = model_of(l.level, facts);
    if (c.scope != kShared) {
      l.l1_hit = mean_derived(c, p, "l1_hit_rate");
      l.l2_hit = mean_derived(c, p, "l2_hit_rate");
      l.dram_per_byte = mean_derived(c, p, "dram_bytes_per_byte");
      l.counter_level = counter_level(c.op == kWrite ? std::nullopt : l.l1_hit, l.dram_per_byte);
    }
    c.levels.push_back(l);
  }
  for (std::size_t i = 0; i + 1 < c.levels.size(); ++i) {
    const Level &a = c.levels[i], &b = c.levels[i + 1];
    if (const auto k = knee_between(c.points, a.plateau, b.plateau))
      c.knees.push_back({a.level, b.level, *k, a.plateau.gbps, b.plateau.gbps});
  }
}

Param text(const char* key, const std::string& v) {
  return {key, v, ""};
}

void add_summary(ProbeResult& r, const Curve& c) {
  for (const Level& l : c.levels) {
    SummaryRow s{{text(kScope, c.scope), text(kOp, c.op), text("level", l.level)}, {}};
    put(s.values, "plateau", "GB/s", l.plateau.gbps);
    put(s.values, "plateau_low", "GB/s", l.plateau.low);
    put(s.values, "plateau_high", "GB/s", l.plateau.high);
    put(s.values, "from_bytes", "B", l.from_bytes);
    put(s.values, "to_bytes", "B", l.to_bytes);
    put(s.values, "model_peak", "GB/s", l.model_gbps);
    r.summary.push_back(std::move(s));
  }
  for (const Knee& k : c.knees) {
    SummaryRow s{{text(kScope, c.scope), text(kOp, c.op), text("level", k.from + "->" + k.to)}, {}};
    put(s.values, "knee_bytes", "B", k.bytes);
    r.summary.push_back(std::move(s));
  }
}

void model_columns(Row& row, const RunFacts& f) {
  const auto scope = text_param_of(row, kScope).value_or("");
  if (scope == kDevice)
    put(row.model, "dram_peak", "GB/s",
        f.dram_peak_gbps > 0 ? std::optional(f.dram_peak_gbps) : std::nullopt);
  else
    put(row.model, "l1_peak", "GB/s",
        f.l1_peak_gbps > 0 ? std::optional(f.l1_peak_gbps) : std::nullopt);
}

}  // namespace

void analyse(ProbeResult& result, const RunFacts& facts) {
  for (Row& row : result.rows) {
    model_columns(row, facts);
    counter_columns(row);
  }
  std::vector<Curve> curves = curves_of(result);
  for (Curve& c : curves) {
    derive(c, facts);
    add_summary(result, c);
  }
  result.conditions.push_back({"sm_clock_measured", "MHz", facts.clock_mhz});
  add_findings(result, curves, facts);
}

}  // namespace gpuprobe::cache
