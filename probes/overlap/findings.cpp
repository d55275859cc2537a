// overlap's findings as data: best stream count, fit to the model, issue order, pageable, copies.
#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "analysis.hpp"
#include "internal.hpp"

namespace gpuprobe::overlap {
namespace {

std::vector<const Staged*> staged_only(const Pipeline& p) {
  std::vector<const Staged*> out;
  for (const auto& s : p.staged)
    if (!s.order.empty()) out.push_back(&s);
  return out;
}

std::int64_t as_int(std::size_t n) {
  return static_cast<std::int64_t>(n);
}

// The best staged run and the smallest stream count within kNearBest of it.
std::optional<Finding> best_streams(const Pipeline& p) {
  const auto staged = staged_only(p);
  if (staged.empty() || p.sequential <= 0) return std::nullopt;
  const Staged* best = *std::min_element(staged.begin(), staged.end(),
                                         [](auto* a, auto* b) { return a->time < b->time; });
  const Staged* smallest = best;
  for (const Staged* s : staged)
    if (s->time <= best->time * (1 + kNearBest) && s->streams < smallest->streams) smallest = s;
  return verdict("overlap_best_streams", pipeline_params(p),
                 {{"best_time", "s", best->time},
                  {"sequential_time", "s", p.sequential},
                  {"time_ratio", "x", best->time / p.sequential},
                  {"speedup", "x", best->speedup},
                  {"speedup_low", "x", best->speedup_low},
                  {"speedup_high", "x", best->speedup_high},
                  {"near_best_streams", "", static_cast<double>(smallest->streams)},
                  {"near_best_time", "s", smallest->time},
                  {"near_best_margin", "%", 100 * kNearBest}},
                 {{"best_streams", as_int(best->streams), ""}, {"best_order", best->order, ""}});
}

double deviation(const Staged& s) {
  return s.time / s.concurrent - 1;
}

// The staged runs of 2..16 streams against the concurrent-rate model.
// Pageable copies are synchronous: no pipeline model applies to them (the pageable verdict).
std::optional<Finding> model_fit(const Pipeline& p) {
  if (p.memory == "pageable") return std::nullopt;
  const Staged* worst = nullptr;
  for (const Staged* s : staged_only(p)) {
    if (s->streams < kModelRangeLow || s->streams > kModelRangeHigh) continue;
    if (!worst || std::abs(deviation(*s)) > std::abs(deviation(*worst))) worst = s;
  }
  if (!worst) return std::nullopt;
  const bool within = std::abs(deviation(*worst)) <= kModelTolerance;
  return verdict("overlap_model_fit", pipeline_params(p),
                 {{"worst_time", "s", worst->time},
                  {"worst_model", "s", worst->concurrent},
                  {"worst_deviation", "%", 100 * deviation(*worst)},
                  {"tolerance", "%", 100 * kModelTolerance},
                  {"range_low", "", static_cast<double>(kModelRangeLow)},
                  {"range_high", "", static_cast<double>(kModelRangeHigh)}},
                 {{"agreement", std::string(within ? "within" : "outside"), ""},
                  {"worst_streams", as_int(worst->streams), ""},
                  {"worst_order", worst->order, ""}});
}

// The largest stream count beyond the model's range: how far it departs, and the share of its
// time that the measured per-chunk costs explain (n chunks times the largest stage's cost).
std::optional<Finding> large_n(const Pipeline& p) {
  if (p.memory == "pageable") return std::nullopt;
  const Staged* largest = nullptr;
  for (const Staged* s : staged_only(p)) {
    if (s->streams <= kModelRangeHigh) continue;
    if (!largest || s->streams > largest->streams ||
        (s->streams == largest->streams && std::abs(deviation(*s)) > std::abs(deviation(*largest))))
      largest = s;
  }
  if (!largest) return std::nullopt;
  const double cost = std::max({p.costs.h2d, p.costs.kernel, p.costs.d2h});
  const bool within = std::abs(deviation(*largest)) <= kModelTolerance;
  const models::StageTimes no_costs_model = p.solo;
  const double without_costs =
      models::concurrent_pipeline_time(no_costs_model, p.both, largest->streams);
  return verdict("overlap_model_large_n", pipeline_params(p),
                 {{"streams", "", static_cast<double>(largest->streams)},
                  {"time", "s", largest->time},
                  {"model", "s", largest->concurrent},
                  {"model_without_chunk_costs", "s", without_costs},
                  {"deviation", "%", 100 * deviation(*largest)},
                  {"chunk_cost", "s", cost},
                  {"chunk_cost_share", "%",
                   100 * static_cast<double>(largest->streams) * cost / largest->time}},
                 {{"agreement", std::string(within ? "within" : "outside"), ""},
                  {"order", largest->order, ""}});
}

// Depth-first against batched issue at every stream count both were run at.
std::optional<Finding> issue_order(const Pipeline& p) {
  std::map<std::size_t, std::map<std::string, double>> by_n;
  for (const Staged* s : staged_only(p))
    by_n[s->streams][s->order] = s->time;
  double worst = 0;
  std::size_t at = 0;
  for (const auto& [n, orders] : by_n) {
    if (orders.size() < 2) continue;
    const double ratio = orders.at("depth-first") / orders.at("batched");
    if (at == 0 || std::abs(ratio - 1) > std::abs(worst - 1)) {
      worst = ratio;
      at = n;
    }
  }
  if (at == 0) return std::nullopt;
  const bool differ = std::abs(worst - 1) > kDiffer;
  return verdict(
      "overlap_issue_order", pipeline_params(p),
      {{"depth_over_batched", "x", worst}, {"margin", "%", 100 * kDiffer}},
      {{"outcome", std::string(differ ? "differ" : "same"), ""}, {"streams", as_int(at), ""}});
}

// Pageable memory: does staging gain anything at all?
std::optional<Finding> pageable(const Pipeline& p) {
  if (p.memory != "pageable") return std::nullopt;
  const auto staged = staged_only(p);
  if (staged.empty()) return std::nullopt;
  const Staged* best = *std::max_element(staged.begin(), staged.end(),
                                         [](auto* a, auto* b) { return a->speedup < b->speedup; });
  const bool overlaps = best->speedup_low > 1 + kDiffer;
  return verdict("overlap_pageable", pipeline_params(p),
                 {{"speedup", "x", best->speedup},
                  {"speedup_low", "x", best->speedup_low},
                  {"speedup_high", "x", best->speedup_high},
                  {"margin", "%", 100 * kDiffer}},
                 {{"outcome", std::string(overlaps ? "overlaps" : "no overlap"), ""},
                  {"streams", as_int(best->streams), ""},
                  {"order", best->order, ""}});
}

// H2D and D2H at once against each alone (once per memory kind): whether the two directions
// overlap (both done sooner than one after the other) and whether each is slower than alone.
Finding copy_concurrency(const Pipeline& p) {
  const double h2d = p.both.h2d / p.solo.h2d;
  const double d2h = p.both.d2h / p.solo.d2h;
  const double at_once = std::max(p.both.h2d, p.both.d2h);
  const double one_after = p.solo.h2d + p.solo.d2h;
  const bool overlap = at_once < one_after * (1 - kDiffer);
  const bool slow = std::max(h2d, d2h) > 1 + kDiffer;
  return verdict("overlap_copy_concurrency", {{"memory", p.memory, ""}},
                 {{"h2d", "s", p.solo.h2d},
                  {"d2h", "s", p.solo.d2h},
                  {"h2d_concurrent", "s", p.both.h2d},
                  {"d2h_concurrent", "s", p.both.d2h},
                  {"at_once", "s", at_once},
                  {"one_after_other", "s", one_after},
                  {"h2d_slowdown", "x", h2d},
                  {"d2h_slowdown", "x", d2h}},
                 {{"outcome", std::string(overlap ? "overlap" : "no overlap"), ""},
                  {"slowdown", std::string(slow ? "slower" : "as alone"), ""}});
}

}  // namespace

void add_findings(ProbeResult& result, const std::vector<Pipeline>& pipelines) {
  if (const Quantity* q = find_quantity(result.conditions, "async_engine_count"); q && q->value)
    result.findings.push_back(note("overlap_engines", {}, {{"async_engines", "", *q->value}}));
  std::vector<std::string> copies_done;
  for (const auto& p : pipelines) {
    if (std::find(copies_done.begin(), copies_done.end(), p.memory) == copies_done.end()) {
      copies_done.push_back(p.memory);
      if (p.solo.h2d > 0 && p.solo.d2h > 0) result.findings.push_back(copy_concurrency(p));
    }
    for (auto make : {best_streams, model_fit, large_n, issue_order, pageable}) {
      if (auto f = make(p)) result.findings.push_back(std::move(*f));
    }
  }
}

void add_timeline_findings(ProbeResult& result) {
  std::map<std::int64_t, std::vector<Quantity>> by_stream;
  double span = 0;
  for (const auto& row : result.summary) {
    const Param* chunk = find_param(row.params, "chunk");
    const Param* stream = find_param(row.params, "stream");
    const Param* stage = find_param(row.params, "stage");
    const Quantity* start = find_quantity(row.values, "start");
    const Quantity* end = find_quantity(row.values, "end");
    if (!chunk || !stream || !stage || !start || !end || !start->value || !end->value) continue;
    const auto* k = std::get_if<std::int64_t>(&chunk->value);
    const auto* i = std::get_if<std::int64_t>(&stream->value);
    const auto* name = std::get_if<std::string>(&stage->value);
    if (!k || !i || !name) continue;
    const std::string prefix = *name + "_c" + std::to_string(*k);
    by_stream[*i].push_back({prefix + "_start", "s", start->value});
    by_stream[*i].push_back({prefix + "_end", "s", end->value});
    span = std::max(span, *end->value);
  }
  for (auto& [stream, values] : by_stream) {
    values.push_back({"span", "s", span});
    result.findings.push_back(note("overlap_timeline", {{"stream", stream, ""}}, values));
  }
}

}  // namespace gpuprobe::overlap
