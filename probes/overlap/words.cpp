// overlap's words (host-only): the findings' sentences and the columns' short headers.
#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

#include "analysis.hpp"

namespace gpuprobe::overlap {
namespace {

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

std::string pipeline_text(const Finding& f) {
  return fmt::format("{} {}", param_text_of(f, "memory"), param_text_of(f, "workload"));
}

std::string best_streams_text(const Finding& f) {
  return fmt::format(
      "{}: best staged run {} at {} streams ({}) vs sequential {} — {:.2f}x the sequential time, "
      "speed-up {:.2f}x [{:.2f}, {:.2f}]; the smallest stream count within {} of the best is "
      "{:g} ({})",
      pipeline_text(f), value_text(f, "best_time"), param_text_of(f, "best_streams"),
      param_text_of(f, "best_order"), value_text(f, "sequential_time"), value_of(f, "time_ratio"),
      value_of(f, "speedup"), value_of(f, "speedup_low"), value_of(f, "speedup_high"),
      value_text(f, "near_best_margin"), value_of(f, "near_best_streams"),
      value_text(f, "near_best_time"));
}

std::string model_fit_text(const Finding& f) {
  return fmt::format(
      "{}: staged runs of {:g}-{:g} streams {} {} of the concurrent-rate model (worst: {} "
      "streams {}, {} measured vs {} model, {:+.1f}%)",
      pipeline_text(f), value_of(f, "range_low"), value_of(f, "range_high"),
      param_text_of(f, "agreement") == "within" ? "are within" : "are NOT all within",
      value_text(f, "tolerance"), param_text_of(f, "worst_streams"),
      param_text_of(f, "worst_order"), value_text(f, "worst_time"), value_text(f, "worst_model"),
      value_of(f, "worst_deviation"));
}

std::string large_n_text(const Finding& f) {
  const bool within = param_text_of(f, "agreement") == "within";
  return fmt::format(
      "{}: at {:g} streams ({}) measured {} vs model {} ({:+.1f}%, {}); the model includes the "
      "measured per-chunk costs (largest {} per chunk, {:.1f}% of the run at this count; "
      "without them it says {})",
      pipeline_text(f), value_of(f, "streams"), param_text_of(f, "order"), value_text(f, "time"),
      value_text(f, "model"), value_of(f, "deviation"),
      within ? "within the tolerance" : "departs beyond the 15% tolerance",
      value_text(f, "chunk_cost"), value_of(f, "chunk_cost_share"),
      value_text(f, "model_without_chunk_costs"));
}

std::string issue_order_text(const Finding& f) {
  const bool differ = param_text_of(f, "outcome") == "differ";
  return fmt::format(
      "{}: depth-first vs batched issue order {} (largest gap at {} streams: depth-first takes "
      "{:.3f}x batched's time; margin {})",
      pipeline_text(f), differ ? "differ" : "make no difference", param_text_of(f, "streams"),
      value_of(f, "depth_over_batched"), value_text(f, "margin"));
}

std::string pageable_text(const Finding& f) {
  const bool overlaps = param_text_of(f, "outcome") == "overlaps";
  return fmt::format(
      "{}: staging pageable memory — best staged speed-up {:.2f}x [{:.2f}, {:.2f}] at {} streams "
      "({}): {}",
      pipeline_text(f), value_of(f, "speedup"), value_of(f, "speedup_low"),
      value_of(f, "speedup_high"), param_text_of(f, "streams"), param_text_of(f, "order"),
      overlaps ? fmt::format("a gain beyond {} (measured); the host stages the copies one after "
                             "another, only kernels run beside them",
                             value_text(f, "margin"))
               : fmt::format("no gain beyond {} that the interval supports (measured); pageable "
                             "copies are staged synchronously",
                             value_text(f, "margin")));
}

std::string copies_text(const Finding& f) {
  const bool overlap = param_text_of(f, "outcome") == "overlap";
  const bool slower = param_text_of(f, "slowdown") == "slower";
  return fmt::format(
      "{} copies: h2d {} and d2h {} alone; started together both are done after {} vs {} one "
      "after the other — the directions {}{} (each at once: {:.2f}x and {:.2f}x its time alone)",
      param_text_of(f, "memory"), value_text(f, "h2d"), value_text(f, "d2h"),
      value_text(f, "at_once"), value_text(f, "one_after_other"),
      overlap ? "overlap" : "do not overlap (measured)",
      overlap && slower ? ", but slow each other" : "", value_of(f, "h2d_slowdown"),
      value_of(f, "d2h_slowdown"));
}

// One stream of the timeline as a bar: H, K, D where the stage ran, '.' where nothing did.
std::string timeline_text(const Finding& f) {
  constexpr std::size_t kWidth = 64;
  const double span = value_of(f, "span");
  std::string bar(kWidth, '.');
  for (const auto& q : f.values) {
    const auto at = q.name.rfind("_start");
    if (at == std::string::npos || !q.value || span <= 0) continue;
    const auto end = optional_value_of(f, q.name.substr(0, at) + "_end");
    if (!end) continue;
    const char mark = q.name[0] == 'h' ? 'H' : q.name[0] == 'k' ? 'K' : 'D';
    const auto cell = [&](double t) {
      return std::min(kWidth, static_cast<std::size_t>(t / span * kWidth));
    };
    for (std::size_t i = cell(*q.value); i < std::max(cell(*q.value) + 1, cell(*end)); ++i)
      if (i < kWidth) bar[i] = mark;
  }
  return fmt::format(
      "timeline stream {:>2} |{}| {} (H h2d, K kernel, D d2h, from when the stream reached it)",
      param_text_of(f, "stream"), bar, value_text(f, "span"));
}

}  // namespace

void add_words(Glossary& g) {
  g.add_phrasing("overlap_engines", [](const Finding& f) {
    return fmt::format("asyncEngineCount {:g}: copy engines that can run beside kernels",
                       value_of(f, "async_engines"));
  });
  g.add_phrasing("overlap_copy_concurrency", copies_text);
  g.add_phrasing("overlap_best_streams", best_streams_text);
  g.add_phrasing("overlap_model_fit", model_fit_text);
  g.add_phrasing("overlap_model_large_n", large_n_text);
  g.add_phrasing("overlap_issue_order", issue_order_text);
  g.add_phrasing("overlap_pageable", pageable_text);
  g.add_phrasing("overlap_timeline", timeline_text);
  g.add_terms("overlap", kTerms);
}

}  // namespace gpuprobe::overlap
