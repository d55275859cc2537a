// l2-persist's words: the findings' sentences and the columns' short headers.
#include <fmt/format.h>

#include "analysis.hpp"
#include "gpuprobe/core/counter_check.hpp"
#include "gpuprobe/core/units.hpp"

namespace gpuprobe::l2_persist {
namespace {

// A byte param as a size, whether it kept its unit or came back from JSON without one.
std::string size_text(const Finding& f, const std::string& key) {
  const Param* p = find_param(f.params, key);
  if (!p) p = find_param(f.outcome, key);
  if (p) {
    if (const auto* i = std::get_if<std::int64_t>(&p->value))
      return format_bytes(static_cast<double>(*i));
    if (const auto* d = std::get_if<double>(&p->value)) return format_bytes(*d);
  }
  return param_text_of(f, key);
}

// "1.23x [1.20, 1.25]" (the interval over the rounds, when there is one).
std::string speedup_text(const Finding& f, const std::string& prefix) {
  const auto lo = optional_value_of(f, prefix + "speedup_low");
  const auto hi = optional_value_of(f, prefix + "speedup_high");
  std::string s = value_text(f, prefix + "speedup");
  if (lo && hi) s += fmt::format(" [{:.3f}, {:.3f}]", *lo, *hi);
  return s;
}

// "L2 served 0.70 of the reads (first slice 0.35), DRAM 12.3 MiB per kernel" from the counters,
// or "" without them.
std::string counters_text(const Finding& f, const std::string& prefix) {
  const auto share = optional_value_of(f, prefix + "hit_share");
  if (!share) return "";
  return fmt::format(
      "; counters: L2 served {:.2f} of the reads (first slice hit {}), DRAM {} "
      "per kernel",
      *share, value_text(f, prefix + "near_hit_share"), value_text(f, prefix + "dram_bytes"));
}

// ", whole repetition 1.05x" for phases (streaming included), or "".
std::string loop_text(const Finding& f) {
  const auto loop = optional_value_of(f, "loop_speedup");
  return loop ? fmt::format(" (whole repetition, streaming included: {:.3f}x)", *loop) : "";
}

std::string where(const Finding& f) {
  return fmt::format("{}, hot {}", param_text_of(f, "workload"), size_text(f, "hot_bytes"));
}

void add_sweep_phrasings(Glossary& g) {
  g.add_phrasing("l2_persist_effect", [](const Finding& f) {
    std::string base;
    if (const auto s = optional_value_of(f, "baseline_hit_share"))
      base = fmt::format(" (without: L2 served {:.2f}, DRAM {})", *s,
                         value_text(f, "baseline_dram_bytes"));
    return fmt::format(
        "{}: set-aside {}, hitRatio 1.0, window on the {}: hot kernel {} vs {} without a window, "
        "speed-up {} — {} (measured){}{}{}",
        where(f), size_text(f, "setaside_bytes"), param_text_of(f, "window"),
        value_text(f, "hot_time"), value_text(f, "baseline_hot_time"), speedup_text(f, ""),
        param_text_of(f, "effect"), loop_text(f), counters_text(f, ""), base);
  });
  g.add_phrasing("l2_persist_best", [](const Finding& f) {
    return fmt::format(
        "{}: best setting set-aside {}, hitRatio {}, window on the {}: speed-up {} "
        "({}){}",
        where(f), size_text(f, "setaside_bytes"), param_text_of(f, "hit_ratio"),
        param_text_of(f, "window"), speedup_text(f, ""), param_text_of(f, "effect"),
        counters_text(f, ""));
  });
  g.add_phrasing("l2_persist_tuned_vs_one", [](const Finding& f) {
    const std::string w = param_text_of(f, "winner");
    return fmt::format(
        "{}, set-aside {}, window on the {}: hitRatio 1.0 {} vs tuned hitRatio {:.3f} {} — {}",
        where(f), size_text(f, "setaside_bytes"), param_text_of(f, "window"),
        speedup_text(f, "one_"), value_of(f, "tuned_hit_ratio"), speedup_text(f, "tuned_"),
        w == "tie" ? std::string("neither wins beyond the rounds' spread") : w + " wins");
  });
  g.add_phrasing("l2_persist_overcommit", [](const Finding& f) {
    const std::string hurts = param_text_of(f, "hurts");
    return fmt::format(
        "{}, set-aside {}, hitRatio 1.0, window on the {}: hot {} (fits) speed-up {}, hot {} "
        "(over-commits {}) speed-up {} — over-commit {}",
        param_text_of(f, "workload"), size_text(f, "setaside_bytes"), param_text_of(f, "window"),
        size_text(f, "fit_hot_bytes"), speedup_text(f, "fit_"), size_text(f, "over_hot_bytes"),
        value_text(f, "overcommit_factor"), speedup_text(f, "over_"),
        hurts == "no" ? std::string("does not hurt here") : "hurts: " + hurts);
  });
  g.add_phrasing("l2_persist_setaside_cost", [](const Finding& f) {
    return fmt::format(
        "a set-aside of {} alone (no window) makes the streaming kernel take {} of its time "
        "without one (measured): the set-aside is taken from the L2 every other access uses",
        size_text(f, "setaside_bytes"), value_text(f, "stream_time_vs_none"));
  });
  g.add_phrasing("l2_persist_no_residual", [](const Finding& f) {
    return fmt::format(
        "after the sweep, {} without a window again: {} of the first baseline's speed{} "
        "— residual persisting effect {}",
        where(f), speedup_text(f, ""), counters_text(f, ""), param_text_of(f, "residual"));
  });
}

void add_note_phrasings(Glossary& g) {
  g.add_phrasing("l2_persist_method", [](const Finding& f) {
    return fmt::format(
        "phases: one repetition is {:g} x (streaming read of {}, then the hot kernel); the hot "
        "kernel's time = (repetition - the same repetition without the hot kernel, at the same "
        "set-aside) / {:g}; speed-up = baseline (no window, set-aside 0) / row, interval = the "
        "smallest and largest per-round speed-up; counters cover one repetition whose first hot "
        "kernel starts cold (L2 {})",
        value_of(f, "iterations"), value_text(f, "stream_bytes"), value_of(f, "iterations"),
        value_text(f, "l2_bytes"));
  });
  g.add_phrasing("l2_persist_window_clamped", [](const Finding& f) {
    return fmt::format(
        "hot regions over {} (accessPolicyMaxWindowSize) get a window over their "
        "first {} only",
        value_text(f, "window_max"), value_text(f, "window_max"));
  });
  const auto point = [](const Finding& f) {
    return fmt::format("{} hot {}, set-aside {}, hitRatio {}, window {}",
                       param_text_of(f, "workload"), size_text(f, "hot_bytes"),
                       size_text(f, "setaside_bytes"), param_text_of(f, "hit_ratio"),
                       param_text_of(f, "window"));
  };
  CounterCheck::add_phrasings(g, "l2_persist_counter_hot_hits",
                              "the share of the hot kernels' reads L2 served over a counter range "
                              "(model: its first iteration cold)",
                              point);
  CounterCheck::add_phrasings(g, "l2_persist_counter_hot_reads",
                              "the hot kernels' L2 read sectors (repetition less stream-only)",
                              point);
}

constexpr TermEntry kTerms[] = {
    // the columns' short headers and legend lines
    {"workload", "work", "phases: hot kernel after a streaming kernel; bpg: one mixed kernel"},
    {"setaside_bytes", "aside", "persisting-L2 set-aside (cudaLimitPersistingL2CacheSize)"},
    {"hot_bytes", "hot", "hot region"},
    {"setaside_pct", "aside%", "set-aside, % of persistingL2CacheMaxSize"},
    {"hot_pct", "hot%", "hot region, % of persistingL2CacheMaxSize"},
    {"hit_ratio", "hitR", "the window's hitRatio (blank: no window)"},
    {"window", "win", "where the window is set: stream attribute, launch attribute, none"},
    {"hot_time", "t_hot", "hot kernel's time (phases: repetition less streaming part)"},
    {"hot_bandwidth", "GB/s hot", "2 x hot bytes / hot kernel time"},
    {"speedup", "speed-up", "baseline hot time / this row's"},
    {"speedup_low", "lo", "smallest per-round speed-up"},
    {"speedup_high", "hi", "largest per-round speed-up"},
    {"loop_speedup", "loop", "baseline repetition / this one (streaming included)"},
    {"stream_time_vs_none", "vs 0", "streaming kernel's time / at set-aside 0"},
    {"hot_l2_hit_share", "L2", "counters: share of hot reads L2 served (1 - DRAM read / read)"},
    {"l2_hit_share", "L2", "counters: share of reads L2 served (1 - DRAM read / read)"},
    {"hot_near_hit_share", "near", "counters: hot reads that hit the first L2 slice asked"},
    {"near_hit_share", "near", "counters: reads that hit the first L2 slice asked"},
    {"hot_fabric_hit_share", "fabric", "counters: hot reads served by the other partition"},
    {"fabric_hit_share", "fabric", "counters: reads served by the other L2 partition"},
    {"hot_dram_bytes", "DRAM", "counters: DRAM bytes per hot kernel"},
    {"dram_bytes", "DRAM", "counters: DRAM bytes per kernel"},
    {"evict_last_share", "ev-last", "counters: evict-last sectors / 2 x hot sectors accessed"},
    {"hot_l2_hit_share_range", "L2/rng", "counters: L2-served share over the range"},
    {"hot_l2_hit_share_range_vs_model", "L2/m", "counter / model x (k-1)/k"},
    {"hot_read_sectors", "rd sec", "counters: hot kernels' L2 read sectors"},
    {"hot_read_sectors_vs_model", "rd/m", "counter / model"},
    {"persisting_fraction", "pers", "model: min(1, set-aside / (hitRatio x window))"},
    {"overcommit", "oc", "model: 1 when hitRatio x window > set-aside"},
    {"hot_hit_share", "hit", "model: min(hitRatio x window, set-aside) / hot"},
};

}  // namespace

void add_words(Glossary& g) {
  add_sweep_phrasings(g);
  add_note_phrasings(g);
  g.add_terms("l2-persist", kTerms);
}

}  // namespace gpuprobe::l2_persist
