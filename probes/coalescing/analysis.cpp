// coalescing's analysis: model columns, relative and implied DRAM bandwidth, counters beside the
// model, summary rows per (pattern, width) and offset classes; findings.cpp builds the findings.
#include "analysis.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <stdexcept>
#include <string_view>

#include "gpuprobe/core/counter_agreement.hpp"
#include "internal.hpp"

namespace gpuprobe::coalescing {
namespace {

using models::CopyPrediction;

std::int64_t required_int(const Row& row, std::string_view key) {
  const auto value = int_param_of(row, key);
  if (!value)
    throw std::invalid_argument(fmt::format("coalescing row without integer param '{}'", key));
  return *value;
}

// ---- Counters ------------------------------------------------------------------------------

// N of a row's launch, as the probe sized it: the clamped N of a clamped stride, else the
// width's default; nullopt when the sizing does not say (then no DRAM bytes per useful byte).
std::optional<std::uint64_t> elements_of(const Sizing& z, const Measured& m) {
  if (m.pattern == CopyPattern::kStride) {
    for (const auto& c : z.clamped) {
      if (c.element_bytes == m.width && c.stride == m.param) return c.elements;
    }
  }
  for (const auto& [w, n] : z.default_elements) {
    if (w == m.width) return n;
  }
  return std::nullopt;
}

// The counter agreements of the rows that have counters, in the order their findings come.
struct CounterAgreements {
  CounterAgreement load{kCounterLoadSectors, "sectors"};
  CounterAgreement store{kCounterStoreSectors, "sectors"};
  CounterAgreement l2{kCounterL2Sectors, "sectors"};
  CounterAgreement dram_read{kCounterDramRead, "B/B"};
  CounterAgreement dram_write{kCounterDramWrite, "B/B"};
};

// Sectors per load request that L1 sends on to L2: the model's sectors less the L1 hits the
// counters saw (a misaligned request's boundary sector, already brought in by its neighbour).
void add_l2_sectors(const Measured& m, CounterAgreements& agreements) {
  Row& row = *m.row;
  const auto ld_requests = counter_value(row, kLoadRequests);
  const auto hits = ratio_of(counter_value(row, kLoadHitSectors), ld_requests);
  row.derived.push_back({"l1_hit_sectors_per_request_counter", "sectors", hits});
  const std::optional<double> sent =
      hits ? std::optional<double>(m.model.load_sectors_per_request - *hits) : std::nullopt;
  set_model_value(row, {"l2_sectors_per_request", "sectors", sent});
  agreements.l2.add(row, "l2_sectors_per_request_counter",
                    ratio_of(counter_value(row, kL2ReadSectors), ld_requests), sent);
}

// DRAM bytes per useful byte, reads and writes apart. Reads: between the model's count (each
// shared 64-B block fetched once) and its bound (once per request), with the share of shared
// blocks fetched twice. Writes: in-range plus write-back of the launch's dirty lines.
void add_dram(const Measured& m, std::optional<double> useful, CounterAgreements& agreements) {
  Row& row = *m.row;
  const double per_warp = useful_bytes_per_warp(m.width) / 2;  // one way: 32 elements
  const double low = m.model.dram_load_bytes_per_warp / per_warp;
  const double high = m.model.dram_load_bytes_per_warp_refetch / per_warp;
  set_model_value(row, {"dram_read_bytes_per_useful_byte", "B/B", low});
  set_model_value(row, {"dram_read_bytes_per_useful_byte_refetch", "B/B", high});
  set_model_value(row, {"dram_write_bytes_per_useful_byte", "B/B",
                        m.model.dram_store_bytes_per_warp / per_warp});
  const auto read = ratio_of(counter_value(row, kDramRead), useful);
  agreements.dram_read.add_bounded(row, "dram_read_bytes_per_useful_byte_counter", read, low, high);
  std::optional<double> refetched;
  if (read && high > low) refetched = std::clamp((*read - low) / (high - low), 0.0, 1.0);
  row.derived.push_back({"shared_blocks_refetched", "%",
                         refetched ? std::optional<double>(100 * *refetched) : std::nullopt});
  const auto written = sum_of(counter_value(row, kDramWrite), counter_value(row, kDramWriteBack));
  agreements.dram_write.add(row, "dram_write_bytes_per_useful_byte_counter",
                            ratio_of(written, useful),
                            m.model.dram_store_bytes_per_warp / per_warp);
}

// Counter-measured sectors per request (loads, stores, what L1 sends to L2) and DRAM bytes per
// useful byte beside the model's, on a row with counters.
void add_counter_columns(const Measured& m, const Sizing& z, CounterAgreements& agreements) {
  Row& row = *m.row;
  set_model_value(row, {"store_sectors_per_request", "sectors", m.model.store_sectors_per_request});
  const auto ld_requests = counter_value(row, kLoadRequests);
  agreements.load.add(row, "sectors_per_request_counter",
                      ratio_of(counter_value(row, kLoadSectors), ld_requests),
                      m.model.load_sectors_per_request);
  agreements.store.add(
      row, "store_sectors_per_request_counter",
      ratio_of(counter_value(row, kStoreSectors), counter_value(row, kStoreRequests)),
      m.model.store_sectors_per_request);
  add_l2_sectors(m, agreements);
  const auto n = elements_of(z, m);
  // Useful bytes each way: N elements read, N written.
  add_dram(m, n ? std::optional<double>(static_cast<double>(*n) * m.width) : std::nullopt,
           agreements);
}

// The measured rows, in row order.
std::vector<Measured> collect_measured(ProbeResult& result, int fetch) {
  std::vector<Measured> out;
  for (auto& row : result.rows) {
    const Metric* bw = find_metric(row, "bandwidth");
    if (!bw) continue;  // a planned row
    const Key k = row_key(row);
    out.push_back({&row, k.pattern, k.width, k.param, bw, bw->stats.median,
                   models::predict_copy(k.pattern, k.width, k.param, fetch),
                   quantity_value(row.derived, "working_set_over_l2"), std::nullopt});
  }
  return out;
}

using Baselines = std::map<std::pair<CopyPattern, int>, double>;  // GB/s by (pattern, width)

Baselines baselines_of(const std::vector<Measured>& measured) {
  Baselines baseline_gbps;
  for (const auto& m : measured) {
    if (m.param == baseline_param(m.pattern)) baseline_gbps[{m.pattern, m.width}] = m.median_gbps;
  }
  return baseline_gbps;
}

// Each row's derived columns: relative bandwidth to the baseline of the same (pattern, width),
// its working set over L2, implied DRAM bandwidth. Returns the smallest working set.
std::optional<double> add_derived(std::vector<Measured>& measured, const Baselines& baselines) {
  std::optional<double> min_ws;
  for (auto& m : measured) {
    const auto it = baselines.find({m.pattern, m.width});
    if (it != baselines.end() && it->second > 0) m.relative = m.median_gbps / it->second;
    m.row->derived = {{"relative_bandwidth", "x", m.relative}};
    if (m.working_set_over_l2) {
      m.row->derived.push_back({"working_set_over_l2", "x", m.working_set_over_l2});
      min_ws = std::min(min_ws.value_or(kInf), *m.working_set_over_l2);
    }
    m.row->derived.push_back({"implied_dram_bandwidth", "GB/s", implied_dram_gbps(m)});
  }
  return min_ws;
}

OffsetClasses offset_classes(const std::vector<const Measured*>& group, int w, int fetch) {
  const CopyPrediction base = models::predict_copy(CopyPattern::kOffset, w, 0, fetch);
  OffsetClasses out;
  out.bs = base.load_sectors_per_request;
  out.bl = base.load_lines_per_request;
  for (const auto* m : group) {
    if (m->param == 0) {
      out.zero = m;
      continue;
    }
    OffsetClass& c =
        out.classes[{m->model.load_sectors_per_request, m->model.load_lines_per_request}];
    c.sectors = m->model.load_sectors_per_request;
    c.lines = m->model.load_lines_per_request;
    c.members.push_back(m);
  }
  return out;
}

// The summary's mean relative bandwidth of misaligned, line-misaligned and aligned offsets.
void add_offset_means(const OffsetClasses& c, SummaryRow& s) {
  std::vector<const Measured*> mis, line_mis, line_aligned;
  for (const auto& [key, k] : c.classes) {
    auto& into = k.sectors > c.bs ? mis : (k.lines > c.bl ? line_mis : line_aligned);
    into.insert(into.end(), k.members.begin(), k.members.end());
  }
  if (!mis.empty()) {
    s.values.push_back({"misaligned_mean_relative", "x", mean_of(mis, rel)});
    s.values.push_back({"model_misaligned_relative", "x", mean_of(mis, model_rel)});
    s.values.push_back({"model_dram_misaligned_relative", "x", mean_of(mis, dram_rel)});
  }
  if (!line_mis.empty())
    s.values.push_back({"line_misaligned_mean_relative", "x", mean_of(line_mis, rel)});
  if (!line_aligned.empty())
    s.values.push_back({"line_aligned_mean_relative", "x", mean_of(line_aligned, rel)});
}

// The summary's worst point of a group, beside both models.
void add_worst(const std::vector<const Measured*>& group, SummaryRow& s) {
  const Measured& low = **std::ranges::min_element(group, {}, [](auto* m) { return rel(*m); });
  s.values.push_back({"worst_relative_bandwidth", "x", low.relative});
  s.values.push_back({"worst_at", "elements", static_cast<double>(low.param)});
  s.values.push_back({"model_at_worst", "x", model_rel(low)});
  s.values.push_back({"model_dram_at_worst", "x", dram_rel(low)});
}

// The summary row and findings of one (pattern, width) group with rows.
void summarise_group(ProbeResult& result, CopyPattern pattern, int w,
                     const std::vector<const Measured*>& group, const Baselines& baselines,
                     int fetch, std::vector<Finding>& verdicts, std::vector<Finding>& notes) {
  SummaryRow s;
  s.params = {{"pattern", std::string(pattern_name(pattern)), ""}, width_param(w)};
  const auto base = baselines.find({pattern, w});
  if (base == baselines.end() || base->second <= 0) {
    s.values.push_back({"baseline_bandwidth", "GB/s", std::nullopt});
    notes.push_back(no_baseline_warning(pattern, w));
    result.summary.push_back(std::move(s));
    return;
  }
  s.values.push_back({"baseline_bandwidth", "GB/s", base->second});
  if (pattern == CopyPattern::kOffset) {
    const OffsetClasses classes = offset_classes(group, w, fetch);
    if (!classes.classes.empty()) {
      add_offset_means(classes, s);
      offset_findings(w, classes, fetch, verdicts);
    }
  } else {
    stride_findings(w, group, fetch, verdicts);
  }
  add_worst(group, s);
  result.summary.push_back(std::move(s));
}

// Summary and findings per (pattern, width): offsets first, widths in the order of the rows.
void summarise(ProbeResult& result, const std::vector<Measured>& measured,
               const Baselines& baselines, int fetch, std::vector<Finding>& verdicts,
               std::vector<Finding>& notes) {
  std::vector<int> widths;
  for (const auto& m : measured)
    if (std::ranges::find(widths, m.width) == widths.end()) widths.push_back(m.width);
  for (CopyPattern pattern : {CopyPattern::kOffset, CopyPattern::kStride}) {
    for (int w : widths) {
      std::vector<const Measured*> group;
      for (const auto& m : measured) {
        if (m.pattern == pattern && m.width == w) group.push_back(&m);
      }
      if (group.empty()) continue;
      summarise_group(result, pattern, w, group, baselines, fetch, verdicts, notes);
    }
  }
}

void add_conditions(ProbeResult& result, const RunFacts& facts, std::optional<double> min_ws) {
  if (min_ws) result.conditions.push_back({"working_set_over_l2", "x", min_ws});
  result.conditions.push_back({"memory_cap", "B", static_cast<double>(facts.sizing.memory_cap)});
  if (facts.reported_fetch)
    result.conditions.push_back(
        {"l2_fetch_granularity", "B", static_cast<double>(*facts.reported_fetch)});
  result.conditions.push_back({"model_fetch_bytes", "B", static_cast<double>(facts.fetch_bytes)});
}

}  // namespace

Key row_key(const Row& row) {
  const Param* p = find_param(row.params, "pattern");
  if (!p) throw std::invalid_argument("coalescing row without param 'pattern'");
  const CopyPattern pattern = pattern_from_name(scalar_text(p->value));
  return {pattern, static_cast<int>(required_int(row, "element_bytes")),
          static_cast<std::uint64_t>(required_int(row, pattern_name(pattern)))};
}

Param width_param(int width) {
  return {"element_bytes", static_cast<std::int64_t>(width), "B"};
}

const char* pattern_name(CopyPattern pattern) {
  return pattern == CopyPattern::kOffset ? "offset" : "stride";
}

CopyPattern pattern_from_name(const std::string& name) {
  if (name == "offset") return CopyPattern::kOffset;
  if (name == "stride") return CopyPattern::kStride;
  throw std::invalid_argument("unknown coalescing pattern '" + name + "'");
}

std::uint64_t baseline_param(CopyPattern pattern) {
  return pattern == CopyPattern::kOffset ? 0 : 1;
}

std::vector<Param> row_params(CopyPattern pattern, int element_bytes, std::uint64_t param) {
  return {{"pattern", std::string(pattern_name(pattern)), ""},
          {pattern_name(pattern), static_cast<std::int64_t>(param), ""},
          width_param(element_bytes)};
}

void add_model(ProbeResult& result, int fetch_bytes) {
  for (auto& row : result.rows) {
    const Key k = row_key(row);
    const CopyPrediction m = models::predict_copy(k.pattern, k.width, k.param, fetch_bytes);
    row.model = {{"sectors_per_request", "sectors", m.load_sectors_per_request},
                 {"lines_per_request", "lines", m.load_lines_per_request},
                 {"sector_efficiency", "%", m.sector_efficiency},
                 {"predicted_relative_bandwidth", "x", m.predicted_relative_bandwidth},
                 {"predicted_relative_bandwidth_dram", "x", m.predicted_relative_bandwidth_dram}};
  }
}

void analyse(ProbeResult& result, const RunFacts& facts) {
  const int fetch = facts.fetch_bytes;
  add_model(result, fetch);
  std::vector<Measured> measured = collect_measured(result, fetch);
  const Baselines baselines = baselines_of(measured);
  const std::optional<double> min_ws = add_derived(measured, baselines);
  CounterAgreements agreements;
  for (const auto& m : measured) {
    if (m.row->counters) add_counter_columns(m, facts.sizing, agreements);
  }
  std::vector<Finding> verdicts, notes;
  summarise(result, measured, baselines, fetch, verdicts, notes);
  extreme_findings(measured, facts, verdicts);
  // Counters beside the model: agreement verdicts and disagreement warnings, after the verdicts.
  for (const CounterAgreement* c : {&agreements.load, &agreements.store, &agreements.l2,
                                    &agreements.dram_read, &agreements.dram_write}) {
    if (auto f = c->finding()) verdicts.push_back(std::move(*f));
  }
  // Conditions, then the notes: sizing, baselines added, what the columns mean.
  add_conditions(result, facts, min_ws);
  note_findings(result, facts, min_ws, notes);
  result.findings.insert(result.findings.end(), verdicts.begin(), verdicts.end());
  result.findings.insert(result.findings.end(), notes.begin(), notes.end());
}

}  // namespace gpuprobe::coalescing
