// overlap's analysis: stage times per (memory, workload), model columns, speed-ups, summary.
#include "analysis.hpp"

#include <optional>
#include <string>
#include <vector>

#include "gpuprobe/core/compare_stats.hpp"
#include "gpuprobe/core/counter_agreement.hpp"
#include "gpuprobe/models/overlap_model.hpp"
#include "internal.hpp"

namespace gpuprobe::overlap {
namespace {

std::string text_of(const Row& row, std::string_view key) {
  return text_param_of(row, key).value_or("");
}

std::size_t count_of(const Row& row, std::string_view key) {
  return static_cast<std::size_t>(int_param_of(row, key).value_or(1));
}

// The row of a run: memory and workload "" match rows that do not depend on them.
Row* find_run(ProbeResult& r, const std::string& memory, const std::string& workload,
              const std::string& run) {
  for (auto& row : r.rows) {
    if (text_of(row, "run") == run && text_of(row, "memory") == memory &&
        text_of(row, "workload") == workload)
      return &row;
  }
  return nullptr;
}

double median_or_zero(const Row* row, std::string_view metric) {
  return row ? metric_median(*row, metric).value_or(0.0) : 0.0;
}

// The stage times and per-chunk costs of one pipeline, from its solo rows. nullopt when a solo
// row is missing (a plan, a partial file).
std::optional<Pipeline> stage_times(ProbeResult& r, const std::string& memory,
                                    const std::string& workload) {
  Row* h2d = find_run(r, memory, "", "h2d");
  Row* d2h = find_run(r, memory, "", "d2h");
  Row* both = find_run(r, memory, "", "h2d+d2h");
  Row* kernel = find_run(r, "", workload, "kernel");
  if (!h2d || !d2h || !both || !kernel || !metric_median(*h2d, "time")) return std::nullopt;
  Pipeline p;
  p.memory = memory;
  p.workload = workload;
  p.solo = {median_or_zero(h2d, "time"), median_or_zero(kernel, "time"),
            median_or_zero(d2h, "time")};
  p.both = {median_or_zero(both, "time_h2d"), p.solo.kernel, median_or_zero(both, "time_d2h")};
  Row* h2d_chunked = find_run(r, memory, "", "h2d-chunked");
  Row* d2h_chunked = find_run(r, memory, "", "d2h-chunked");
  Row* kernel_chunked = find_run(r, "", workload, "kernel-chunked");
  if (h2d_chunked && d2h_chunked && kernel_chunked) {
    const std::size_t n = count_of(*h2d_chunked, "chunks");
    p.costs = {models::chunk_cost(p.solo.h2d, median_or_zero(h2d_chunked, "time"), n),
               models::chunk_cost(p.solo.kernel, median_or_zero(kernel_chunked, "time"), n),
               models::chunk_cost(p.solo.d2h, median_or_zero(d2h_chunked, "time"), n)};
  }
  return p;
}

// The speed-up of a row over the sequential row, and its interval: compare's hierarchical
// bootstrap over the two rows' rounds of time samples.
void add_speedup(Staged& s, const Row& sequential) {
  const Metric* seq = find_metric(sequential, "time");
  const Metric* own = find_metric(*s.row, "time");
  std::optional<RatioInterval> ratio;
  if (seq && own && !seq->samples.empty() && !own->samples.empty())
    ratio = bootstrap_ratio(own->samples, seq->samples);
  s.speedup = s.time > 0 ? metric_median(sequential, "time").value_or(0) / s.time : 0;
  s.speedup_low = ratio ? ratio->low : s.speedup;
  s.speedup_high = ratio ? ratio->high : s.speedup;
  s.row->derived.push_back({"speedup", "x", s.speedup});
  s.row->derived.push_back({"speedup_low", "x", ratio ? std::optional(ratio->low) : std::nullopt});
  s.row->derived.push_back(
      {"speedup_high", "x", ratio ? std::optional(ratio->high) : std::nullopt});
}

// PCIe bytes per payload byte of one direction, where the counters were collected.
void add_link_columns(Row& row, double buffer_bytes) {
  if (!row.counters || buffer_bytes <= 0) return;
  const auto read = counter_value(row, kPcieRead);
  const auto write = counter_value(row, kPcieWrite);
  if (read) row.derived.push_back({"pcie_read_per_payload", "B/B", *read / buffer_bytes});
  if (write) row.derived.push_back({"pcie_write_per_payload", "B/B", *write / buffer_bytes});
}

// Models and derived values of one pipeline's sequential and staged rows.
void add_row_values(ProbeResult& r, Pipeline& p, double buffer_bytes) {
  Row* sequential = find_run(r, p.memory, p.workload, "sequential");
  if (!sequential) return;
  p.sequential = median_or_zero(sequential, "time");
  const double ideal = models::ideal_time(p.solo);
  for (auto& row : r.rows) {
    const std::string run = text_of(row, "run");
    if ((run != "staged" && run != "sequential") || text_of(row, "memory") != p.memory ||
        text_of(row, "workload") != p.workload)
      continue;
    Staged s{&row, text_of(row, "order"), count_of(row, "streams")};
    s.time = median_or_zero(&row, "time");
    const std::size_t n = count_of(row, "chunks");
    s.concurrent = models::concurrent_pipeline_time(p.solo, p.both, n, p.costs);
    row.model.push_back({"model_pipeline", "s", models::pipeline_time(p.solo, n, p.costs)});
    row.model.push_back({"model_concurrent", "s", s.concurrent});
    row.model.push_back({"model_guide", "s", models::guide_time(p.solo, n)});
    row.model.push_back({"model_ideal", "s", ideal});
    add_speedup(s, *sequential);
    row.derived.push_back(
        {"efficiency", "", models::overlap_efficiency(p.sequential, s.time, ideal)});
    row.derived.push_back({"time_vs_concurrent", "x", s.time / s.concurrent});
    add_link_columns(row, buffer_bytes);
    if (run == "sequential")
      p.staged.insert(p.staged.begin(), s);
    else
      p.staged.push_back(s);
  }
}

SummaryRow stage_summary(const Pipeline& p) {
  SummaryRow s{{{"memory", p.memory, ""}, {"workload", p.workload, ""}}, {}};
  s.values = {{"h2d", "s", p.solo.h2d},
              {"kernel", "s", p.solo.kernel},
              {"d2h", "s", p.solo.d2h},
              {"h2d_concurrent", "s", p.both.h2d},
              {"d2h_concurrent", "s", p.both.d2h},
              {"h2d_chunk_cost", "s", p.costs.h2d},
              {"kernel_chunk_cost", "s", p.costs.kernel},
              {"d2h_chunk_cost", "s", p.costs.d2h},
              {"sequential", "s", p.sequential},
              {"model_sequential", "s", models::sequential_time(p.solo)},
              {"model_ideal", "s", models::ideal_time(p.solo)}};
  return s;
}

}  // namespace

void analyse(ProbeResult& result, bool timeline_text) {
  const double buffer_bytes = quantity_value(result.conditions, "buffer_bytes").value_or(0.0);
  std::vector<Pipeline> pipelines;
  for (const auto& row : result.rows) {
    if (text_of(row, "run") != "sequential") continue;
    auto p = stage_times(result, text_of(row, "memory"), text_of(row, "workload"));
    if (!p) continue;
    add_row_values(result, *p, buffer_bytes);
    pipelines.push_back(std::move(*p));
  }
  // Stage times first, then the timeline the probe recorded.
  std::vector<SummaryRow> summary;
  for (const auto& p : pipelines)
    summary.push_back(stage_summary(p));
  result.summary.insert(result.summary.begin(), summary.begin(), summary.end());
  add_findings(result, pipelines);
  if (timeline_text) add_timeline_findings(result);
}

}  // namespace gpuprobe::overlap
