// constant's analysis (host-only): the lookup rows' model and counter columns and measured
// slowdown against the broadcast, the chase series' levels (latency's change points), and the
// run's findings.
#include "analysis.hpp"

#include <algorithm>
#include <stdexcept>

#include "internal.hpp"

namespace gpuprobe::constant {
namespace {

// The row's path; nullopt for a row of another version that names none this build knows.
std::optional<LookupPath> path_of(const Row& row) {
  try {
    return models::lookup_path_from_name(text_param_of(row, kPath).value_or(""));
  } catch (const std::invalid_argument&) {
    return std::nullopt;
  }
}

std::vector<Lookup> read_lookups(ProbeResult& result) {
  std::vector<Lookup> out;
  for (Row& row : result.rows) {
    if (text_param_of(row, kMode) != std::string(kLookup)) continue;
    const auto width = int_param_of(row, kWidth), distinct = int_param_of(row, kDistinct);
    const auto bytes = int_param_of(row, kBytes);
    const Metric* rate = find_metric(row, kLookups);
    const auto path = path_of(row);
    if (!width || !distinct || !bytes || !rate || !path) continue;
    out.push_back({&row, *path, static_cast<int>(*width), static_cast<int>(*distinct),
                   static_cast<std::uint64_t>(*bytes), rate});
  }
  return out;
}

// The model columns, and the measured slowdown against the same path's broadcast (distinct 1).
void add_model(const std::vector<Lookup>& rows) {
  for (const Lookup& l : rows) {
    const auto m = models::predict_lookup(l.path, l.width, l.distinct,
                                          l.bytes / static_cast<std::uint64_t>(l.width));
    Row& row = *l.row;
    if (l.path == LookupPath::kConstant)
      row.model.push_back({"transactions_per_ldc", "", m.constant_transactions / m.ldc_per_lookup});
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

// The counters: the path's requests per warp lookup (model: one request, LDCs per lookup for
// constant), its transactions per request (idc per LDC, or sectors per request) and, as measured,
// L2 sectors per warp lookup and the idc hit rate.
void add_counters(const std::vector<Lookup>& rows, std::vector<Finding>& out) {
  CounterAgreement requests(requests_agreement(), "");
  CounterAgreement transactions(transactions_agreement(), "");
  for (const Lookup& l : rows) {
    Row& row = *l.row;
    if (!row.counters) continue;
    const Quantity* warps = find_quantity(row.derived, kWarpLookups);
    const std::optional<double> warp_lookups = warps ? warps->value : std::nullopt;
    const auto m = models::predict_lookup(l.path, l.width, l.distinct,
                                          l.bytes / static_cast<std::uint64_t>(l.width));
    const bool constant = l.path == LookupPath::kConstant;
    const bool tex = l.path == LookupPath::kTexture;
    const auto req = counter_value(row, constant ? kLdc : tex ? kTexRequests : kLsuRequests);
    const auto per = constant ? counter_value(row, kIdcRequests)
                              : counter_value(row, tex ? kTexSectors : kLsuSectors);
    set_model_value(row, {"requests_per_lookup", "", constant ? m.ldc_per_lookup : 1.0});
    requests.add(row, "requests_per_lookup_counter", ratio_of(req, warp_lookups),
                 constant ? m.ldc_per_lookup : 1.0);
    transactions.add(row, constant ? "transactions_per_ldc_counter" : "sectors_per_request_counter",
                     ratio_of(per, req),
                     constant ? m.constant_transactions / m.ldc_per_lookup : m.sectors_per_request);
    row.derived.push_back(
        {"l2_sectors_per_lookup", "sectors",
         ratio_of(sum_of(counter_value(row, kL2FromL1), counter_value(row, kL2FromGcc)),
                  warp_lookups)});
    if (constant)
      row.derived.push_back(
          {"idc_hit", "",
           ratio_of(counter_value(row, kIdcHits), counter_value(row, kIdcRequests))});
  }
  for (const CounterAgreement* a : {&requests, &transactions})
    if (auto f = a->finding()) out.push_back(std::move(*f));
}

std::vector<ChaseSeries> chase_series(ProbeResult& result) {
  std::vector<ChaseSeries> out;
  std::vector<std::pair<std::uint64_t, const Row*>> rows;
  for (const Row& row : result.rows)
    if (text_param_of(row, kMode) == std::string(kChase))
      rows.emplace_back(static_cast<std::uint64_t>(int_param_of(row, kBytes).value_or(0)), &row);
  std::stable_sort(rows.begin(), rows.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const auto& [bytes, row] : rows) {
    const auto cycles = metric_median(*row, kCycles), secs = metric_median(*row, kSeconds);
    const auto found = path_of(*row);
    if (!cycles || *cycles <= 0 || bytes == 0 || !found) continue;
    const LookupPath path = *found;
    auto it = std::find_if(out.begin(), out.end(), [&](const auto& s) { return s.path == path; });
    if (it == out.end()) it = out.insert(out.end(), ChaseSeries{path, {}, {}, {}});
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
  add_lookup_findings(rows, result.findings);
  add_level_findings(chase_series(result), result.findings);
  add_notes(facts, result.findings);
}

}  // namespace gpuprobe::constant
