// constant's analysis (host-only): the sweep's points and row params; the lookup rows' model and
// counter columns and slowdown against the broadcast, the chase series' levels, the findings.
#include "analysis.hpp"

#include <algorithm>
#include <stdexcept>

#include "gpuprobe/models/latency_model.hpp"

namespace gpuprobe::constant {
namespace {

// The row's path; nullopt for one this build does not know (a file of another version).
std::optional<LookupPath> path_of(const Row& row) {
  try {
    return models::lookup_path_from_name(text_param_of(row, kPath).value_or(""));
  } catch (const std::invalid_argument&) {
    return std::nullopt;
  }
}

// The lookup rows this build can model (a row of another version may name a path or a width it
// does not know: it is left as it is).
std::vector<Lookup> read_lookups(ProbeResult& result) {
  std::vector<Lookup> out;
  for (Row& row : result.rows) {
    const auto width = int_param_of(row, kWidth), distinct = int_param_of(row, kDistinct);
    const auto bytes = int_param_of(row, kBytes);
    const auto path = path_of(row);
    const Metric* rate = find_metric(row, kLookups);
    if (text_param_of(row, kMode) != std::string(kLookup) || !path || !width || !distinct ||
        !bytes || !rate || *width <= 0)
      continue;
    const auto w = static_cast<int>(*width), d = static_cast<int>(*distinct);
    const auto b = static_cast<std::uint64_t>(*bytes);
    try {
      out.push_back({&row, *path, w, d, b, rate,
                     models::predict_lookup(*path, w, d, b / static_cast<std::uint64_t>(w))});
    } catch (const std::invalid_argument&) {
    }
  }
  return out;
}

// The model columns, and the measured slowdown against the same path's broadcast (distinct 1).
void add_model(const std::vector<Lookup>& rows) {
  for (const Lookup& l : rows) {
    const models::LookupPrediction& m = l.model;
    Row& row = *l.row;
    if (l.path == LookupPath::kConstant)
      row.model.push_back(
          {"transactions_per_ldc", "", m.constant_transactions / m.requests_per_lookup});
    else if (l.path == LookupPath::kTexture)
      row.model.push_back({"sectors_per_lookup", "sectors", m.sectors_per_lookup});
    else
      row.model.push_back({"sectors_per_request", "sectors", m.sectors_per_request});
    row.model.push_back({"predicted_slowdown", "x", m.relative_time});
    const auto base = std::find_if(rows.begin(), rows.end(), [&](const Lookup& b) {
      return b.path == l.path && b.width == l.width && b.bytes == l.bytes && b.distinct == 1;
    });
    row.derived.push_back({"slowdown", "x",
                           base == rows.end()
                               ? std::nullopt
                               : ratio_of(base->rate->stats.median, l.rate->stats.median)});
  }
}

std::vector<ChaseSeries> chase_series(ProbeResult& result) {
  std::vector<ChaseSeries> out;
  std::vector<std::pair<std::uint64_t, const Row*>> rows;
  for (const Row& row : result.rows)
    if (text_param_of(row, kMode) == std::string(kChase))
      rows.emplace_back(static_cast<std::uint64_t>(int_param_of(row, kBytes).value_or(0)), &row);
  std::ranges::stable_sort(rows, {}, [](const auto& r) { return r.first; });
  for (const auto& [bytes, row] : rows) {
    const auto cycles = metric_median(*row, kCycles), secs = metric_median(*row, kSeconds);
    const auto path = path_of(*row);
    if (!cycles || *cycles <= 0 || bytes == 0 || !path) continue;
    auto it = std::find_if(out.begin(), out.end(), [&](const auto& s) { return s.path == *path; });
    if (it == out.end()) it = out.insert(out.end(), ChaseSeries{*path, {}, {}, {}});
    it->points.push_back({bytes, *cycles});
    it->ns_per_cycle.push_back(secs ? *secs * 1e9 / *cycles : 0.0);
  }
  for (ChaseSeries& s : out)
    s.levels = latency::find_levels(s.points);
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.path < b.path; });
  return out;
}

}  // namespace

void analyse(ProbeResult& result, const RunFacts& facts) {
  const std::vector<Lookup> rows = read_lookups(result);
  add_model(rows);
  add_counters(rows, result.findings);
  add_findings(rows, chase_series(result), facts, result.findings);
}

std::vector<Point> points(const AxisValues& v, std::size_t* constant_skipped) {
  std::vector<Point> out;
  std::size_t skipped = 0;
  for (const std::string& name : v.choices("path")) {
    const LookupPath path = models::lookup_path_from_name(name);
    for (const std::uint64_t w : v.list("width"))
      for (const std::uint64_t d : v.list("distinct"))
        for (const std::uint64_t b : v.list("sizes")) {
          if (path == LookupPath::kConstant && b > models::kConstantTableMax) {
            ++skipped;
            continue;
          }
          out.push_back({kLookup, path, static_cast<int>(w), static_cast<int>(d), b});
        }
  }
  for (const std::string& name : v.choices("path")) {
    const LookupPath path = models::lookup_path_from_name(name);
    const std::uint64_t top = path == LookupPath::kConstant
                                  ? std::min(v.number("chase-max"), models::kConstantTableMax)
                                  : v.number("chase-max");
    for (const std::uint64_t b :
         models::size_ladder(kChaseMin, top, v.number("per-octave"), models::kChaseStride))
      out.push_back({kChase, path, 4, 1, b});
  }
  if (constant_skipped) *constant_skipped = skipped;
  return out;
}

std::vector<Param> row_params(const Point& p) {
  std::vector<Param> params = {{kMode, p.mode, ""}, {kPath, models::lookup_path_name(p.path), ""}};
  if (p.mode == kLookup) {
    params.push_back({kWidth, static_cast<std::int64_t>(p.width), "B"});
    params.push_back({kDistinct, static_cast<std::int64_t>(p.distinct), ""});
  }
  params.push_back({kBytes, static_cast<std::int64_t>(p.bytes), "B"});
  return params;
}

}  // namespace gpuprobe::constant
