// l2-persist's findings (host-only), built as data from the derived points: the window's effect
// per hot size, the best setting, over-commit, hitRatio 1.0 against the tuned one, and the
// after-sweep check.
#include <algorithm>
#include <map>
#include <set>

#include "internal.hpp"

namespace gpuprobe::l2_persist {
namespace {

using Points = std::vector<const Point*>;

// The after-sweep check: L2-served share of the hot reads above the first baseline's by more
// than this, or a speed-up whose interval lies more than this above 1, is a residual.
constexpr double kResidualHitShare = 0.02;
constexpr double kResidualSpeedup = 0.05;

Param bytes(const char* key, std::uint64_t b) {
  return {key, static_cast<std::int64_t>(b), "B"};
}

double low(const Point& p) {
  return p.speedup_low.value_or(p.speedup.value_or(0));
}
double high(const Point& p) {
  return p.speedup_high.value_or(p.speedup.value_or(0));
}

// Window rows of a workload with a speed-up, by hot size.
std::map<std::uint64_t, Points> windowed_by_hot(const std::vector<Point>& pts,
                                                const std::string& workload) {
  std::map<std::uint64_t, Points> out;
  for (const auto& p : pts)
    if (p.workload == workload && p.hit_ratio && p.speedup) out[p.hot].push_back(&p);
  return out;
}

// The row at the largest set-aside of the sweep with hitRatio 1.0 (not tuned), or nullptr.
const Point* at_full(const Points& rows, const std::string& window, std::uint64_t full) {
  for (const Point* p : rows)
    if (p->window == window && p->set_aside == full && !p->tuned) return p;
  return nullptr;
}

const Point* tuned_at(const Points& rows, const std::string& window, std::uint64_t full) {
  for (const Point* p : rows)
    if (p->window == window && p->set_aside == full && p->tuned) return p;
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
      std::vector<Quantity> values = point_values(*p);
      if (base) {
        values.push_back({"baseline_hot_time", "s", base->hot_time});
        values.push_back({"baseline_hit_share", "", base->hit_share});
        values.push_back({"baseline_dram_bytes", "B", base->dram_bytes});
      }
      out.push_back(verdict("l2_persist_effect",
                            {{kWorkload, workload, ""},
                             bytes(kHot, hot),
                             bytes(kSetAside, full),
                             {kWindow, std::string(window), ""}},
                            std::move(values), {{"effect", effect_of(*p), ""}}));
    }
  }
}

void best_findings(const std::vector<Point>& pts, const std::string& workload,
                   std::vector<Finding>& out) {
  for (const auto& [hot, rows] : windowed_by_hot(pts, workload)) {
    const Point* best = *std::max_element(
        rows.begin(), rows.end(), [](auto* a, auto* b) { return *a->speedup < *b->speedup; });
    out.push_back(verdict("l2_persist_best", {{kWorkload, workload, ""}, bytes(kHot, hot)},
                          point_values(*best),
                          {bytes(kSetAside, best->set_aside),
                           {kHitRatio, *best->hit_ratio, ""},
                           {kWindow, best->window, ""},
                           {"effect", effect_of(*best), ""}}));
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
      const Point* tuned = tuned_at(rows, window, full);
      if (!one || !tuned) continue;
      std::vector<Quantity> values = point_values(*one, "one_");
      for (auto& q : point_values(*tuned, "tuned_"))
        values.push_back(std::move(q));
      values.push_back({"tuned_hit_ratio", "", *tuned->hit_ratio});
      out.push_back(verdict("l2_persist_tuned_vs_one",
                            {{kWorkload, workload, ""},
                             bytes(kHot, hot),
                             bytes(kSetAside, full),
                             {kWindow, std::string(window), ""}},
                            std::move(values), {{"winner", winner(*one, *tuned), ""}}));
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
    std::vector<Quantity> values = point_values(*fits, "fit_");
    for (auto& q : point_values(*over, "over_"))
      values.push_back(std::move(q));
    values.push_back(
        {"overcommit_factor", "x", static_cast<double>(over->hot) / static_cast<double>(full)});
    out.push_back(verdict(
        "l2_persist_overcommit",
        {{kWorkload, workload, ""}, bytes(kSetAside, full), {kWindow, std::string(window), ""}},
        std::move(values),
        {bytes("fit_hot_bytes", fits->hot),
         bytes("over_hot_bytes", over->hot),
         {"hurts", hurts, ""}}));
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
    std::vector<Param> params = {{kWorkload, p.workload, ""}, bytes(kHot, p.hot)};
    std::vector<Param> outcome = {{"residual", std::string(none ? "none" : "present"), ""}};
    if (none) {
      out.push_back(verdict("l2_persist_no_residual", params, point_values(p), outcome));
    } else {
      out.push_back(warning("l2_persist_no_residual", params, point_values(p), outcome));
    }
  }
}

// What the largest set-aside costs the streaming kernel alone (stream-only rows).
void setaside_cost_findings(const std::vector<Point>& pts, std::vector<Finding>& out) {
  const Point* most = nullptr;
  for (const auto& p : pts)
    if (p.workload == kStreamOnly && (!most || p.set_aside > most->set_aside)) most = &p;
  if (!most || most->set_aside == 0) return;
  const Quantity* q = find_quantity(most->row->derived, "stream_time_vs_none");
  if (!q || !q->value) return;
  out.push_back(verdict("l2_persist_setaside_cost", {bytes(kSetAside, most->set_aside)},
                        {{"stream_time_vs_none", "x", *q->value}}));
}

}  // namespace

std::string effect_of(const Point& p) {
  if (low(p) > 1) return "faster";
  if (high(p) < 1) return "slower";
  return "within noise";
}

std::vector<Quantity> point_values(const Point& p, const std::string& prefix) {
  return {{prefix + "speedup", "x", p.speedup},
          {prefix + "speedup_low", "x", p.speedup_low},
          {prefix + "speedup_high", "x", p.speedup_high},
          {prefix + "hot_time", "s", p.hot_time},
          {prefix + "loop_speedup", "x", p.loop_speedup},
          {prefix + "hit_share", "", p.hit_share},
          {prefix + "near_hit_share", "", p.near_hit_share},
          {prefix + "dram_bytes", "B", p.dram_bytes}};
}

void sweep_findings(const std::vector<Point>& pts, std::vector<Finding>& out) {
  const std::uint64_t full = full_set_aside(pts);
  for (const char* workload : {kPhases, kBpg}) {
    effect_findings(pts, workload, full, out);
    best_findings(pts, workload, out);
    tuned_findings(pts, workload, full, out);
    overcommit_findings(pts, workload, full, out);
  }
  setaside_cost_findings(pts, out);
  residual_findings(pts, out);
}

}  // namespace gpuprobe::l2_persist
