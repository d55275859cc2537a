// l2-persist's findings (host-only), each declared once (id, kind, fields, sentence), and built
// from the derived points: the window's effect per hot size, the best setting, over-commit,
// hitRatio 1.0 against the tuned one, the after-sweep check, the counters, the notes; last, its
// words (add_words: the findings and the columns' short headers).
#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "gpuprobe/core/counter_agreement.hpp"
#include "gpuprobe/core/finding_def.hpp"
#include "internal.hpp"

namespace gpuprobe::l2_persist {
namespace {

// The keys of l2-persist's findings: a row's params (the names of analysis.hpp's keys, as
// handles), what the measurement decided, and the values.
constexpr Text<"workload"> kWorkloadName;
constexpr Int<"setaside_pct", "%"> kSetAsideShare;
constexpr Int<"hot_pct", "%"> kHotShare;
constexpr Size<"setaside_bytes"> kSetAsideSize;
constexpr Size<"hot_bytes"> kHotSize;
constexpr Real<"hit_ratio"> kHitRatioSet;
constexpr Text<"window"> kWindowOn;
constexpr Text<"effect"> kEffect;      // effect_of
constexpr Text<"winner"> kWinner;      // tuned, 1.0, tie
constexpr Text<"hurts"> kHurts;        // no, slower than no window, smaller gain
constexpr Text<"residual"> kResidual;  // none, present
constexpr Size<"fit_hot_bytes"> kFitHotSize;
constexpr Size<"over_hot_bytes"> kOverHotSize;
constexpr Maybe<Value<"baseline_hot_time", "s">> kBaselineHotTime;
constexpr Maybe<Value<"baseline_hit_share">> kBaselineHitShare;
constexpr Maybe<Value<"baseline_dram_bytes", "B">> kBaselineDramBytes;
constexpr Value<"tuned_hit_ratio"> kTunedHitRatio;
constexpr Value<"overcommit_factor", "x"> kOvercommitFactor;
constexpr Value<"stream_time_vs_none", "x"> kStreamTimeVsNone;
constexpr Value<"iterations"> kIterations;
constexpr Value<"stream_bytes", "B"> kStreamBytes;
constexpr Value<"l2_bytes", "B"> kL2Bytes;
constexpr Value<"window_max", "B"> kWindowMax;

// A point's values as a finding carries them, under a prefix ("", "one_", "tuned_"): the
// speed-up with its interval, the hot kernel's time, the whole repetition's speed-up, counters.
template <FieldKey P>
struct Timing
    : ValueGroup<Timing<P>, Value<join<P, "speedup">(), "x">, Value<join<P, "speedup_low">(), "x">,
                 Value<join<P, "speedup_high">(), "x">, Value<join<P, "hot_time">(), "s">,
                 Value<join<P, "loop_speedup">(), "x">, Value<join<P, "hit_share">()>,
                 Value<join<P, "near_hit_share">()>, Value<join<P, "dram_bytes">(), "B">> {
  static constexpr Value<join<P, "speedup">(), "x"> speedup{};
  static constexpr Value<join<P, "speedup_low">(), "x"> speedup_low{};
  static constexpr Value<join<P, "speedup_high">(), "x"> speedup_high{};
  static constexpr Value<join<P, "hot_time">(), "s"> hot_time{};
  static constexpr Value<join<P, "loop_speedup">(), "x"> loop_speedup{};
  static constexpr Value<join<P, "hit_share">()> hit_share{};
  static constexpr Value<join<P, "near_hit_share">()> near_hit_share{};
  static constexpr Value<join<P, "dram_bytes">(), "B"> dram_bytes{};
};
constexpr Timing<""> kAt;
constexpr Timing<"one_"> kOne;
constexpr Timing<"tuned_"> kTuned;
constexpr Timing<"fit_"> kFit;
constexpr Timing<"over_"> kOver;

FindingList l2_findings;

// "1.23x [1.20, 1.25]" (the interval over the rounds, when there is one).
template <class View, class T>
std::string speedup_text(const View& f, T t) {
  const auto lo = f.maybe(t.speedup_low), hi = f.maybe(t.speedup_high);
  std::string s = f[t.speedup];
  if (lo && hi) s += fmt::format(" [{:.3f}, {:.3f}]", *lo, *hi);
  return s;
}

// "; counters: L2 served 0.70 of the reads (first slice 0.35), DRAM 12.3 MiB per kernel", or ""
// without counters.
template <class View, class T>
std::string counters_text(const View& f, T t) {
  const auto share = f.maybe(t.hit_share);
  if (!share) return "";
  return fmt::format(
      "; counters: L2 served {:.2f} of the reads (first slice hit {}), DRAM {} per kernel", *share,
      f[t.near_hit_share], f[t.dram_bytes]);
}

// "phases, hot 24 MiB".
template <class View>
std::string where(const View& f) {
  return fmt::format("{}, hot {}", f[kWorkloadName], size_words(f.param(kHotSize)));
}

const auto kEffectFinding = l2_findings.verdict(
    "l2_persist_effect", params(kWorkloadName, kHotSize, kSetAsideSize, kWindowOn),
    values(kAt, kBaselineHotTime, kBaselineHitShare, kBaselineDramBytes), outcome(kEffect),
    [](const auto& f) {
      std::string base;
      if (const auto s = f.maybe(kBaselineHitShare))
        base = fmt::format(" (without: L2 served {:.2f}, DRAM {})", *s, f[kBaselineDramBytes]);
      const auto loop = f.maybe(kAt.loop_speedup);
      return fmt::format(
          "{}: set-aside {}, hitRatio 1.0, window on the {}: hot kernel {} vs {} without a "
          "window, speed-up {} — {} (measured){}{}{}",
          where(f), size_words(f.param(kSetAsideSize)), f[kWindowOn], f[kAt.hot_time],
          f[kBaselineHotTime], speedup_text(f, kAt), f[kEffect],
          loop ? fmt::format(" (whole repetition, streaming included: {:.3f}x)", *loop) : "",
          counters_text(f, kAt), base);
    });

const auto kBest = l2_findings.verdict(
    "l2_persist_best", params(kWorkloadName, kHotSize), values(kAt),
    outcome(kSetAsideSize, kHitRatioSet, kWindowOn, kEffect), [](const auto& f) {
      return fmt::format(
          "{}: best setting set-aside {}, hitRatio {}, window on the {}: speed-up {} ({}){}",
          where(f), size_words(f.param(kSetAsideSize)), f[kHitRatioSet], f[kWindowOn],
          speedup_text(f, kAt), f[kEffect], counters_text(f, kAt));
    });

const auto kTunedVsOne = l2_findings.verdict(
    "l2_persist_tuned_vs_one", params(kWorkloadName, kHotSize, kSetAsideSize, kWindowOn),
    values(kOne, kTuned, kTunedHitRatio), outcome(kWinner), [](const auto& f) {
      const std::string w = f[kWinner];
      return fmt::format(
          "{}, set-aside {}, window on the {}: hitRatio 1.0 {} vs tuned hitRatio {:.3f} {} — {}",
          where(f), size_words(f.param(kSetAsideSize)), f[kWindowOn], speedup_text(f, kOne),
          f.value(kTunedHitRatio), speedup_text(f, kTuned),
          w == "tie" ? std::string("neither wins beyond the rounds' spread") : w + " wins");
    });

const auto kOvercommit = l2_findings.verdict(
    "l2_persist_overcommit", params(kWorkloadName, kSetAsideSize, kWindowOn),
    values(kFit, kOver, kOvercommitFactor), outcome(kFitHotSize, kOverHotSize, kHurts),
    [](const auto& f) {
      const std::string hurts = f[kHurts];
      return fmt::format(
          "{}, set-aside {}, hitRatio 1.0, window on the {}: hot {} (fits) speed-up {}, hot {} "
          "(over-commits {}) speed-up {} — over-commit {}",
          f[kWorkloadName], size_words(f.param(kSetAsideSize)), f[kWindowOn],
          size_words(f.param(kFitHotSize)), speedup_text(f, kFit),
          size_words(f.param(kOverHotSize)), f[kOvercommitFactor], speedup_text(f, kOver),
          hurts == "no" ? std::string("does not hurt here") : "hurts: " + hurts);
    });

const auto kSetAsideCost = l2_findings.verdict(
    "l2_persist_setaside_cost", params(kSetAsideSize), values(kStreamTimeVsNone),
    [](const auto& f) {
      return fmt::format(
          "a set-aside of {} alone (no window) makes the streaming kernel take {} of its time "
          "without one (measured): the set-aside is taken from the L2 every other access uses",
          size_words(f.param(kSetAsideSize)), f[kStreamTimeVsNone]);
    });

// A verdict where nothing persisted; a warning where the baseline came back faster.
const auto kNoResidual = l2_findings.verdict_or_warning(
    "l2_persist_no_residual", params(kWorkloadName, kHotSize), values(kAt), outcome(kResidual),
    [](const auto& f) {
      return fmt::format(
          "after the sweep, {} without a window again: {} of the first baseline's speed{} — "
          "residual persisting effect {}",
          where(f), speedup_text(f, kAt), counters_text(f, kAt), f[kResidual]);
    });

// One counter agreement of the rows, each named by its params: "phases hot 24 MiB, set-aside
// 30 MiB, hitRatio 1, window stream".
CounterAgreementMaker row_counter_agreement(std::string_view id, std::string_view what) {
  return define_counter_agreement(
      l2_findings, id, what,
      point(kWorkloadName, kSetAsideShare, kHotShare, kSetAsideSize, kHotSize, kHitRatioSet,
            kWindowOn),
      [](const auto& f) {
        return fmt::format("{} hot {}, set-aside {}, hitRatio {}, window {}", f[kWorkloadName],
                           size_words(f.param(kHotSize)), size_words(f.param(kSetAsideSize)),
                           f[kHitRatioSet], f[kWindowOn]);
      });
}

}  // namespace

const CounterAgreementMaker kCounterHotHits = row_counter_agreement(
    "l2_persist_counter_hot_hits",
    "the share of the hot kernels' reads L2 served over a counter range (model: its first "
    "iteration cold)");
const CounterAgreementMaker kCounterHotReads =
    row_counter_agreement("l2_persist_counter_hot_reads",
                          "the hot kernels' L2 read sectors (repetition less stream-only)");

// Defined after every finding above: the list is complete before any make() runs.
const auto kMethod = l2_findings.note(
    "l2_persist_method", params(), values(kIterations, kStreamBytes, kL2Bytes), [](const auto& f) {
      return fmt::format(
          "phases: one repetition is {:g} x (streaming read of {}, then the hot kernel); the hot "
          "kernel's time = (repetition - the same repetition without the hot kernel, at the "
          "same set-aside) / {:g}; speed-up = baseline (no window, set-aside 0) / row, interval "
          "= the smallest and largest per-round speed-up; counters cover one repetition whose "
          "first hot kernel starts cold (L2 {})",
          f.value(kIterations), f[kStreamBytes], f.value(kIterations), f[kL2Bytes]);
    });

const auto kWindowClamped =
    l2_findings.note("l2_persist_window_clamped", params(), values(kWindowMax), [](const auto& f) {
      return fmt::format(
          "hot regions over {} (accessPolicyMaxWindowSize) get a window over their first {} only",
          f[kWindowMax], f[kWindowMax]);
    });

Finding window_clamped_note(double window_max) {
  return kWindowClamped.make(kWindowMax(window_max));
}

namespace {

using Points = std::vector<const Point*>;

// A point's values in the order of Timing.
Timing<"">::Type timing(const Point& p) {
  return {p.speedup,      p.speedup_low, p.speedup_high,   p.hot_time,
          p.loop_speedup, p.hit_share,   p.near_hit_share, p.dram_bytes};
}

// The after-sweep check: L2-served share of the hot reads above the first baseline's by more
// than this, or a speed-up whose interval lies more than this above 1, is a residual.
constexpr double kResidualHitShare = 0.02;
constexpr double kResidualSpeedup = 0.05;

double low(const Point& p) {
  return p.speedup_low.value_or(p.speedup.value_or(0));
}
double high(const Point& p) {
  return p.speedup_high.value_or(p.speedup.value_or(0));
}

// "faster" when the speed-up's interval lies above 1, "slower" below, else "within noise".
std::string effect_of(const Point& p) {
  if (low(p) > 1) return "faster";
  if (high(p) < 1) return "slower";
  return "within noise";
}

// Window rows of a workload with a speed-up, by hot size.
std::map<std::uint64_t, Points> windowed_by_hot(const std::vector<Point>& pts,
                                                const std::string& workload) {
  std::map<std::uint64_t, Points> out;
  for (const auto& p : pts)
    if (p.workload == workload && p.hit_ratio && p.speedup) out[p.hot].push_back(&p);
  return out;
}

// The row at the largest set-aside of the sweep with hitRatio 1.0 (or, `tuned`, the tuned
// hitRatio), or nullptr.
const Point* at_full(const Points& rows, const std::string& window, std::uint64_t full,
                     bool tuned = false) {
  for (const Point* p : rows)
    if (p->window == window && p->set_aside == full && p->tuned == tuned) return p;
  return nullptr;
}

std::uint64_t full_set_aside(const std::vector<Point>& pts) {
  std::uint64_t full = 0;
  for (const auto& p : pts)
    if (p.hit_ratio) full = std::max(full, p.set_aside);
  return full;
}

void effect_findings(const std::vector<Point>& pts, const std::string& workload, std::uint64_t full,
                     std::vector<Finding>& out) {
  for (const auto& [hot, rows] : windowed_by_hot(pts, workload)) {
    const Point* base = nullptr;
    for (const auto& q : pts)
      if (q.workload == workload && q.window == kNone && q.hot == hot) base = &q;
    for (const char* window : {kStream, kLaunch}) {
      const Point* p = at_full(rows, window, full);
      if (!p) continue;
      using Maybe = std::optional<std::optional<double>>;
      out.push_back(kEffectFinding.make(
          kWorkloadName(workload), kHotSize(hot), kSetAsideSize(full), kWindowOn(window),
          kAt(timing(*p)), kBaselineHotTime(base ? Maybe(base->hot_time) : std::nullopt),
          kBaselineHitShare(base ? Maybe(base->hit_share) : std::nullopt),
          kBaselineDramBytes(base ? Maybe(base->dram_bytes) : std::nullopt),
          kEffect(effect_of(*p))));
    }
  }
}

void best_findings(const std::vector<Point>& pts, const std::string& workload,
                   std::vector<Finding>& out) {
  for (const auto& [hot, rows] : windowed_by_hot(pts, workload)) {
    const Point* best = *std::max_element(
        rows.begin(), rows.end(), [](auto* a, auto* b) { return *a->speedup < *b->speedup; });
    out.push_back(kBest.make(kWorkloadName(workload), kHotSize(hot), kAt(timing(*best)),
                             kSetAsideSize(best->set_aside), kHitRatioSet(*best->hit_ratio),
                             kWindowOn(best->window), kEffect(effect_of(*best))));
  }
}

// Which of two points is faster: when their intervals do not overlap, else "tie".
std::string winner(const Point& one, const Point& tuned) {
  if (low(tuned) > high(one)) return "tuned";
  if (low(one) > high(tuned)) return "1.0";
  return "tie";
}

void tuned_findings(const std::vector<Point>& pts, const std::string& workload, std::uint64_t full,
                    std::vector<Finding>& out) {
  for (const auto& [hot, rows] : windowed_by_hot(pts, workload)) {
    for (const char* window : {kStream, kLaunch}) {
      const Point* one = at_full(rows, window, full);
      const Point* tuned = at_full(rows, window, full, true);
      if (!one || !tuned) continue;
      out.push_back(kTunedVsOne.make(kWorkloadName(workload), kHotSize(hot), kSetAsideSize(full),
                                     kWindowOn(window), kOne(timing(*one)), kTuned(timing(*tuned)),
                                     kTunedHitRatio(*tuned->hit_ratio),
                                     kWinner(winner(*one, *tuned))));
    }
  }
}

// At the full set-aside and hitRatio 1.0: the largest hot size that fits against the smallest
// that over-commits it.
void overcommit_findings(const std::vector<Point>& pts, const std::string& workload,
                         std::uint64_t full, std::vector<Finding>& out) {
  const auto by_hot = windowed_by_hot(pts, workload);
  for (const char* window : {kStream, kLaunch}) {
    const Point* fits = nullptr;
    const Point* over = nullptr;
    for (const auto& [hot, rows] : by_hot) {
      const Point* p = at_full(rows, window, full);
      if (!p) continue;
      if (hot <= full) fits = p;
      if (hot > full && !over) over = p;
    }
    if (!fits || !over) continue;
    std::string hurts = "no";
    if (high(*over) < 1) {
      hurts = "slower than no window";
    } else if (high(*over) < low(*fits)) {
      hurts = "smaller gain";
    }
    out.push_back(kOvercommit.make(
        kWorkloadName(workload), kSetAsideSize(full), kWindowOn(window), kFit(timing(*fits)),
        kOver(timing(*over)),
        kOvercommitFactor(static_cast<double>(over->hot) / static_cast<double>(full)),
        kFitHotSize(fits->hot), kOverHotSize(over->hot), kHurts(hurts)));
  }
}

// The baseline measured again after the sweep: a persisting line left behind would show as L2
// hits its first measurement did not have, and as a speed-up well beyond the rounds' noise.
void residual_findings(const std::vector<Point>& pts, std::vector<Finding>& out) {
  for (const auto& p : pts) {
    if (p.window != kAfterSweep || !p.speedup) continue;
    const Point* first = nullptr;
    for (const auto& q : pts)
      if (q.workload == p.workload && q.window == kNone && q.hot == p.hot) first = &q;
    const bool more_hits = p.hit_share && first && first->hit_share &&
                           *p.hit_share > *first->hit_share + kResidualHitShare;
    const bool none = !more_hits && low(p) <= 1 + kResidualSpeedup;
    const auto make = [&](const auto&... given) {
      return none ? kNoResidual.make(given...) : kNoResidual.make_warning(given...);
    };
    out.push_back(make(kWorkloadName(p.workload), kHotSize(p.hot), kAt(timing(p)),
                       kResidual(none ? "none" : "present")));
  }
}

// What the largest set-aside costs the streaming kernel alone (stream-only rows).
void setaside_cost_findings(const std::vector<Point>& pts, std::vector<Finding>& out) {
  const Point* most = nullptr;
  for (const auto& p : pts)
    if (p.workload == kStreamOnly && (!most || p.set_aside > most->set_aside)) most = &p;
  if (!most || most->set_aside == 0) return;
  const auto cost = quantity_value(most->row->derived, "stream_time_vs_none");
  if (!cost) return;
  out.push_back(kSetAsideCost.make(kSetAsideSize(most->set_aside), kStreamTimeVsNone(*cost)));
}

}  // namespace

void sweep_findings(const std::vector<Point>& pts, const RunFacts& facts,
                    std::vector<Finding>& out) {
  const std::uint64_t full = full_set_aside(pts);
  for (const char* workload : {kPhases, kBpg}) {
    effect_findings(pts, workload, full, out);
    best_findings(pts, workload, out);
    tuned_findings(pts, workload, full, out);
    overcommit_findings(pts, workload, full, out);
  }
  setaside_cost_findings(pts, out);
  residual_findings(pts, out);
  out.push_back(kMethod.make(kIterations(std::max(1, facts.iterations)),
                             kStreamBytes(facts.stream_bytes), kL2Bytes(facts.l2_bytes)));
}

namespace {

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
  g.add_findings(l2_findings);
  g.add_terms("l2-persist", kTerms);
}

}  // namespace gpuprobe::l2_persist
