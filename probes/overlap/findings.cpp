// overlap's findings, each declared once (id, kind, fields, sentence), and built from pipelines;
// its words (add_words: the findings and the columns' short headers).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "analysis.hpp"
#include "gpuprobe/core/finding_def.hpp"
#include "internal.hpp"

namespace gpuprobe::overlap {
namespace {

// The keys of overlap's findings.
constexpr Text<"memory"> kMemory;
constexpr Text<"workload"> kWorkload;
constexpr Int<"best_streams"> kBestStreams;
constexpr Text<"best_order"> kBestOrder;
constexpr Text<"agreement"> kAgreement;  // within, outside
constexpr Int<"worst_streams"> kWorstStreams;
constexpr Text<"worst_order"> kWorstOrder;
constexpr Text<"order"> kOrder;
constexpr Text<"outcome"> kOutcome;
constexpr Int<"streams"> kStreams;
constexpr Int<"stream"> kStream;
constexpr Text<"slowdown"> kSlowdown;  // slower, as alone
constexpr Value<"async_engines"> kAsyncEngines;
constexpr Value<"best_time", "s"> kBestTime;
constexpr Value<"sequential_time", "s"> kSequentialTime;
constexpr Value<"time_ratio", "x"> kTimeRatio;
constexpr Value<"speedup", "x"> kSpeedup;
constexpr Value<"speedup_low", "x"> kSpeedupLow;
constexpr Value<"speedup_high", "x"> kSpeedupHigh;
constexpr Value<"near_best_streams"> kNearBestStreams;
constexpr Value<"near_best_time", "s"> kNearBestTime;
constexpr Value<"near_best_margin", "%"> kNearBestMargin;
constexpr Value<"worst_time", "s"> kWorstTime;
constexpr Value<"worst_model", "s"> kWorstModel;
constexpr Value<"worst_deviation", "%"> kWorstDeviation;
constexpr Value<"tolerance", "%"> kTolerance;
constexpr Value<"range_low"> kRangeLow;
constexpr Value<"range_high"> kRangeHigh;
constexpr Value<"streams"> kStreamCount;
constexpr Value<"time", "s"> kTime;
constexpr Value<"model", "s"> kModel;
constexpr Value<"model_without_chunk_costs", "s"> kModelWithoutChunkCosts;
constexpr Value<"deviation", "%"> kDeviation;
constexpr Value<"chunk_cost", "s"> kChunkCost;
constexpr Value<"chunk_cost_share", "%"> kChunkCostShare;
constexpr Value<"depth_over_batched", "x"> kDepthOverBatched;
constexpr Value<"margin", "%"> kMargin;
constexpr Value<"h2d", "s"> kH2d;
constexpr Value<"d2h", "s"> kD2h;
constexpr Value<"h2d_concurrent", "s"> kH2dConcurrent;
constexpr Value<"d2h_concurrent", "s"> kD2hConcurrent;
constexpr Value<"at_once", "s"> kAtOnce;
constexpr Value<"one_after_other", "s"> kOneAfterOther;
constexpr Value<"h2d_slowdown", "x"> kH2dSlowdown;
constexpr Value<"d2h_slowdown", "x"> kD2hSlowdown;
// A stream's stage spans, named <stage>_c<chunk>_start and _end (every value before span).
constexpr Each<"", "s"> kStageTimes;
constexpr Value<"span", "s"> kSpan;

FindingList overlap_findings;

// "pinned copy-bound": the pipeline a finding is about.
template <class View>
std::string pipeline_text(const View& f) {
  return fmt::format("{} {}", f[kMemory], f[kWorkload]);
}

const auto kEngines =
    overlap_findings.note("overlap_engines", params(), values(kAsyncEngines), [](const auto& f) {
      return fmt::format("asyncEngineCount {:g}: copy engines that can run beside kernels",
                         f.value(kAsyncEngines));
    });

const auto kBestStreamsFinding = overlap_findings.verdict(
    "overlap_best_streams", params(kMemory, kWorkload),
    values(kBestTime, kSequentialTime, kTimeRatio, kSpeedup, kSpeedupLow, kSpeedupHigh,
           kNearBestStreams, kNearBestTime, kNearBestMargin),
    outcome(kBestStreams, kBestOrder), [](const auto& f) {
      return fmt::format(
          "{}: best staged run {} at {} streams ({}) vs sequential {} — {:.2f}x the sequential "
          "time, speed-up {:.2f}x [{:.2f}, {:.2f}]; the smallest stream count within {} of the "
          "best is {:g} ({})",
          pipeline_text(f), f[kBestTime], f[kBestStreams], f[kBestOrder], f[kSequentialTime],
          f.value(kTimeRatio), f.value(kSpeedup), f.value(kSpeedupLow), f.value(kSpeedupHigh),
          f[kNearBestMargin], f.value(kNearBestStreams), f[kNearBestTime]);
    });

const auto kModelFit = overlap_findings.verdict(
    "overlap_model_fit", params(kMemory, kWorkload),
    values(kWorstTime, kWorstModel, kWorstDeviation, kTolerance, kRangeLow, kRangeHigh),
    outcome(kAgreement, kWorstStreams, kWorstOrder), [](const auto& f) {
      return fmt::format(
          "{}: staged runs of {:g}-{:g} streams {} {} of the concurrent-rate model (worst: {} "
          "streams {}, {} measured vs {} model, {:+.1f}%)",
          pipeline_text(f), f.value(kRangeLow), f.value(kRangeHigh),
          f[kAgreement] == "within" ? "are within" : "are NOT all within", f[kTolerance],
          f[kWorstStreams], f[kWorstOrder], f[kWorstTime], f[kWorstModel],
          f.value(kWorstDeviation));
    });

const auto kLargeN = overlap_findings.verdict(
    "overlap_model_large_n", params(kMemory, kWorkload),
    values(kStreamCount, kTime, kModel, kModelWithoutChunkCosts, kDeviation, kChunkCost,
           kChunkCostShare),
    outcome(kAgreement, kOrder), [](const auto& f) {
      return fmt::format(
          "{}: at {:g} streams ({}) measured {} vs model {} ({:+.1f}%, {}); the model includes "
          "the measured per-chunk costs (largest {} per chunk, {:.1f}% of the run at this count; "
          "without them it says {})",
          pipeline_text(f), f.value(kStreamCount), f[kOrder], f[kTime], f[kModel],
          f.value(kDeviation),
          f[kAgreement] == "within" ? "within the tolerance" : "departs beyond the 15% tolerance",
          f[kChunkCost], f.value(kChunkCostShare), f[kModelWithoutChunkCosts]);
    });

const auto kIssueOrder = overlap_findings.verdict(
    "overlap_issue_order", params(kMemory, kWorkload), values(kDepthOverBatched, kMargin),
    outcome(kOutcome, kStreams), [](const auto& f) {
      return fmt::format(
          "{}: depth-first vs batched issue order {} (largest gap at {} streams: depth-first "
          "takes {:.3f}x batched's time; margin {})",
          pipeline_text(f), f[kOutcome] == "differ" ? "differ" : "make no difference", f[kStreams],
          f.value(kDepthOverBatched), f[kMargin]);
    });

const auto kPageable = overlap_findings.verdict(
    "overlap_pageable", params(kMemory, kWorkload),
    values(kSpeedup, kSpeedupLow, kSpeedupHigh, kMargin), outcome(kOutcome, kStreams, kOrder),
    [](const auto& f) {
      const std::string gain =
          f[kOutcome] == "overlaps"
              ? fmt::format(
                    "a gain beyond {} (measured); the host stages the copies one after "
                    "another, only kernels run beside them",
                    f[kMargin])
              : fmt::format(
                    "no gain beyond {} that the interval supports (measured); pageable "
                    "copies are staged synchronously",
                    f[kMargin]);
      return fmt::format(
          "{}: staging pageable memory — best staged speed-up {:.2f}x [{:.2f}, {:.2f}] at {} "
          "streams ({}): {}",
          pipeline_text(f), f.value(kSpeedup), f.value(kSpeedupLow), f.value(kSpeedupHigh),
          f[kStreams], f[kOrder], gain);
    });

const auto kCopyConcurrency = overlap_findings.verdict(
    "overlap_copy_concurrency", params(kMemory),
    values(kH2d, kD2h, kH2dConcurrent, kD2hConcurrent, kAtOnce, kOneAfterOther, kH2dSlowdown,
           kD2hSlowdown),
    outcome(kOutcome, kSlowdown), [](const auto& f) {
      const bool overlap = f[kOutcome] == "overlap";
      return fmt::format(
          "{} copies: h2d {} and d2h {} alone; started together both are done after {} vs {} "
          "one after the other — the directions {}{} (each at once: {:.2f}x and {:.2f}x its "
          "time alone)",
          f[kMemory], f[kH2d], f[kD2h], f[kAtOnce], f[kOneAfterOther],
          overlap ? "overlap" : "do not overlap (measured)",
          overlap && f[kSlowdown] == "slower" ? ", but slow each other" : "", f.value(kH2dSlowdown),
          f.value(kD2hSlowdown));
    });

// One stream of the timeline as a bar: H, K, D where the stage ran, '.' where nothing did.
std::string timeline_bar(const EachValues& times, double span) {
  constexpr std::size_t kWidth = 64;
  std::string bar(kWidth, '.');
  for (const auto& [name, start] : times) {
    const auto at = name.rfind("_start");
    if (at == std::string::npos || !start || span <= 0) continue;
    const std::string end_name = name.substr(0, at) + "_end";
    const auto end = std::find_if(times.begin(), times.end(),
                                  [&](const auto& t) { return t.first == end_name; });
    if (end == times.end() || !end->second) continue;
    const char mark = name[0] == 'h' ? 'H' : name[0] == 'k' ? 'K' : 'D';
    const auto cell = [&](double t) {
      return std::min(kWidth, static_cast<std::size_t>(t / span * kWidth));
    };
    for (std::size_t i = cell(*start); i < std::max(cell(*start) + 1, cell(*end->second)); ++i)
      if (i < kWidth) bar[i] = mark;
  }
  return bar;
}

const auto kTimeline = overlap_findings.note(
    "overlap_timeline", params(kStream), values(kStageTimes, kSpan), [](const auto& f) {
      return fmt::format(
          "timeline stream {:>2} |{}| {} (H h2d, K kernel, D d2h, from when the stream reached it)",
          f[kStream], timeline_bar(f.items(kStageTimes), f.value(kSpan)), f[kSpan]);
    });

// The staged runs (not the sequential one) of `from` to `to` streams.
std::vector<const Staged*> staged_only(const Pipeline& p, std::size_t from = 0,
                                       std::size_t to = SIZE_MAX) {
  std::vector<const Staged*> out;
  for (const auto& s : p.staged)
    if (!s.order.empty() && s.streams >= from && s.streams <= to) out.push_back(&s);
  return out;
}

// The best staged run and the smallest stream count within kNearBest of it.
std::optional<Finding> best_streams(const Pipeline& p) {
  const auto staged = staged_only(p);
  if (staged.empty() || p.sequential <= 0) return std::nullopt;
  const Staged* best = *std::ranges::min_element(staged, {}, &Staged::time);
  const Staged* smallest = best;
  for (const Staged* s : staged)
    if (s->time <= best->time * (1 + kNearBest) && s->streams < smallest->streams) smallest = s;
  return kBestStreamsFinding.make(
      kMemory(p.memory), kWorkload(p.workload), kBestTime(best->time),
      kSequentialTime(p.sequential), kTimeRatio(best->time / p.sequential), kSpeedup(best->speedup),
      kSpeedupLow(best->speedup_low), kSpeedupHigh(best->speedup_high),
      kNearBestStreams(smallest->streams), kNearBestTime(smallest->time),
      kNearBestMargin(100 * kNearBest), kBestStreams(best->streams), kBestOrder(best->order));
}

double deviation(const Staged& s) {
  return s.time / s.concurrent - 1;
}

// How far a run departs from the concurrent-rate model, either way.
double departure(const Staged* s) {
  return std::abs(deviation(*s));
}

// The staged runs of 2..16 streams against the concurrent-rate model.
// Pageable copies are synchronous: no pipeline model applies to them (the pageable verdict).
std::optional<Finding> model_fit(const Pipeline& p) {
  const auto in_range = staged_only(p, kModelRangeLow, kModelRangeHigh);
  if (p.memory == "pageable" || in_range.empty()) return std::nullopt;
  const Staged* worst = *std::ranges::max_element(in_range, {}, departure);
  const bool within = departure(worst) <= kModelTolerance;
  return kModelFit.make(kMemory(p.memory), kWorkload(p.workload), kWorstTime(worst->time),
                        kWorstModel(worst->concurrent), kWorstDeviation(100 * deviation(*worst)),
                        kTolerance(100 * kModelTolerance), kRangeLow(kModelRangeLow),
                        kRangeHigh(kModelRangeHigh), kAgreement(within ? "within" : "outside"),
                        kWorstStreams(worst->streams), kWorstOrder(worst->order));
}

// The largest stream count beyond the model's range: how far it departs, and the share of its
// time that the measured per-chunk costs explain (n chunks times the largest stage's cost).
std::optional<Finding> large_n(const Pipeline& p) {
  const auto beyond = staged_only(p, kModelRangeHigh + 1);
  if (p.memory == "pageable" || beyond.empty()) return std::nullopt;
  const Staged* largest = *std::ranges::max_element(
      beyond, {}, [](const Staged* s) { return std::pair(s->streams, departure(s)); });
  const double cost = std::max({p.costs.h2d, p.costs.kernel, p.costs.d2h});
  const bool within = departure(largest) <= kModelTolerance;
  const double without_costs = models::concurrent_pipeline_time(p.solo, p.both, largest->streams);
  return kLargeN.make(
      kMemory(p.memory), kWorkload(p.workload), kStreamCount(largest->streams),
      kTime(largest->time), kModel(largest->concurrent), kModelWithoutChunkCosts(without_costs),
      kDeviation(100 * deviation(*largest)), kChunkCost(cost),
      kChunkCostShare(100 * static_cast<double>(largest->streams) * cost / largest->time),
      kAgreement(within ? "within" : "outside"), kOrder(largest->order));
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
  return kIssueOrder.make(kMemory(p.memory), kWorkload(p.workload), kDepthOverBatched(worst),
                          kMargin(100 * kDiffer), kOutcome(differ ? "differ" : "same"),
                          kStreams(at));
}

// Pageable memory: does staging gain anything at all?
std::optional<Finding> pageable(const Pipeline& p) {
  if (p.memory != "pageable") return std::nullopt;
  const auto staged = staged_only(p);
  if (staged.empty()) return std::nullopt;
  const Staged* best = *std::ranges::max_element(staged, {}, &Staged::speedup);
  const bool overlaps = best->speedup_low > 1 + kDiffer;
  return kPageable.make(kMemory(p.memory), kWorkload(p.workload), kSpeedup(best->speedup),
                        kSpeedupLow(best->speedup_low), kSpeedupHigh(best->speedup_high),
                        kMargin(100 * kDiffer), kOutcome(overlaps ? "overlaps" : "no overlap"),
                        kStreams(best->streams), kOrder(best->order));
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
  return kCopyConcurrency.make(kMemory(p.memory), kH2d(p.solo.h2d), kD2h(p.solo.d2h),
                               kH2dConcurrent(p.both.h2d), kD2hConcurrent(p.both.d2h),
                               kAtOnce(at_once), kOneAfterOther(one_after), kH2dSlowdown(h2d),
                               kD2hSlowdown(d2h), kOutcome(overlap ? "overlap" : "no overlap"),
                               kSlowdown(slow ? "slower" : "as alone"));
}

constexpr TermEntry kTerms[] = {
    // the columns' short headers and legend lines
    {"model.model_pipeline", "pipe",
     "model: max(s) + (sum(s) - max(s))/n per chunk, solo stage times + per-chunk costs"},
    {"model.model_concurrent", "conc",
     "model: the pipeline with the copies at their concurrent times in the n-2 middle slots"},
    {"model.model_guide", "guide", "model: Best Practices Guide, max(tE,tT) + min(tE,tT)/n"},
    {"model.model_ideal", "ideal", "model: max(tH2D, tK, tD2H)"},
    {"speedup", "x seq", "sequential time / this time (medians)"},
    {"speedup_low", "lo", "95% interval of the speed-up, low (bootstrap over rounds)"},
    {"speedup_high", "hi", "95% interval of the speed-up, high"},
    {"efficiency", "eff", "(t_seq - t) / (t_seq - t_ideal): share of the saving possible"},
    {"time_vs_concurrent", "t/conc", "measured time / concurrent-rate model"},
    {"pcie_read_per_payload", "rd/pay", "counters: PCIe read bytes / buffer bytes"},
    {"pcie_write_per_payload", "wr/pay", "counters: PCIe write bytes / buffer bytes"},
    {"bandwidth_h2d", "h2d GB/s", "h2d lane of h2d+d2h"},
    {"bandwidth_d2h", "d2h GB/s", "d2h lane of h2d+d2h"},
    {"time_h2d", "h2d time", "h2d lane of h2d+d2h: from the common start to its end"},
    {"time_d2h", "d2h time", "d2h lane of h2d+d2h: from the common start to its end"},
    {"summary.h2d_concurrent", "h2d conc", "h2d time while d2h runs (h2d+d2h lane)"},
    {"summary.d2h_concurrent", "d2h conc", "d2h time while h2d runs (h2d+d2h lane)"},
    {"summary.h2d_chunk_cost", "h2d/chunk", "h2d cost per extra chunk (chunked - whole)/(n-1)"},
    {"summary.kernel_chunk_cost", "k/chunk", "kernel cost per extra chunk"},
    {"summary.d2h_chunk_cost", "d2h/chunk", "d2h cost per extra chunk"},
    {"summary.model_sequential", "model seq", "model: h2d + kernel + d2h"},
    {"summary.model_ideal", "ideal", "model: max(h2d, kernel, d2h)"},
};

}  // namespace

void add_words(Glossary& g) {
  g.add_findings(overlap_findings);
  g.add_terms("overlap", kTerms);
}

void add_findings(ProbeResult& result, const std::vector<Pipeline>& pipelines) {
  if (const auto engines = quantity_value(result.conditions, "async_engine_count"))
    result.findings.push_back(kEngines.make(kAsyncEngines(*engines)));
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
  std::map<std::int64_t, EachValues> by_stream;
  double span = 0;
  for (const auto& row : result.summary) {
    const auto chunk = int_param_of(row.params, "chunk");
    const auto stream = int_param_of(row.params, "stream");
    const auto stage = text_param_of(row.params, "stage");
    const auto start = quantity_value(row.values, "start"), end = quantity_value(row.values, "end");
    if (!chunk || !stream || !stage || !start || !end) continue;
    const std::string prefix = *stage + "_c" + std::to_string(*chunk);
    by_stream[*stream].emplace_back(prefix + "_start", start);
    by_stream[*stream].emplace_back(prefix + "_end", end);
    span = std::max(span, *end);
  }
  for (auto& [stream, times] : by_stream)
    result.findings.push_back(kTimeline.make(kStream(stream), kStageTimes(times), kSpan(span)));
}

}  // namespace gpuprobe::overlap
