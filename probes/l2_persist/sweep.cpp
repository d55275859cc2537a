// l2-persist's sweep (host-only): points from the axes, sizes clamped to the device's maxima.
#include "sweep.hpp"

#include <algorithm>
#include <cstdlib>

#include "gpuprobe/models/l2_persist_model.hpp"

namespace gpuprobe::l2_persist {
namespace {

// Window points of one workload: set-aside x hot x window x hitRatio.
void window_points(const AxisValues& v, const std::string& workload, std::vector<SweepPoint>& out) {
  const bool one = v.has_choice("hit-ratio", "1.0");
  const bool tuned = v.has_choice("hit-ratio", "tuned");
  for (auto aside : v.list("setaside"))
    for (auto hot : v.list("hot"))
      for (const auto& window : v.choices("window")) {
        const bool below_one = aside > 0 && aside < hot;
        if (one || (tuned && !below_one && aside > 0))
          out.push_back({workload, aside, hot, HitKind::kOne, window});
        if (tuned && below_one) out.push_back({workload, aside, hot, HitKind::kTuned, window});
      }
}

std::uint64_t nearest_full(const std::vector<std::uint64_t>& hots) {
  std::uint64_t best = hots.front();
  for (auto h : hots)
    if (std::llabs(static_cast<long long>(h) - 100) <
        std::llabs(static_cast<long long>(best) - 100))
      best = h;
  return best;
}

}  // namespace

std::vector<SweepPoint> points(const AxisValues& v) {
  std::vector<SweepPoint> out;
  for (const auto& workload : v.choices("workload")) {
    if (workload == kPhases) {
      std::vector<std::uint64_t> asides = v.list("setaside");
      if (std::find(asides.begin(), asides.end(), 0) == asides.end())
        asides.insert(asides.begin(), 0);
      for (auto aside : asides)
        out.push_back({kStreamOnly, aside, 0, HitKind::kNoWindow, kNone});
    }
    for (auto hot : v.list("hot"))
      out.push_back({workload, 0, hot, HitKind::kNoWindow, kNone});
    window_points(v, workload, out);
  }
  if (v.has_choice("workload", kPhases))
    out.push_back({kPhases, 0, nearest_full(v.list("hot")), HitKind::kNoWindow, kAfterSweep});
  return out;
}

std::uint64_t Sizes::set_aside(const SweepPoint& p) const {
  return models::percent_of(p.setaside_pct, persisting_max, kQuantum);
}

std::uint64_t Sizes::hot(const SweepPoint& p) const {
  return models::percent_of(p.hot_pct, persisting_max, kQuantum);
}

std::uint64_t Sizes::window(const SweepPoint& p) const {
  return models::window_bytes(hot(p), window_max) / kQuantum * kQuantum;
}

double Sizes::hit_ratio(const SweepPoint& p) const {
  return p.hit == HitKind::kTuned ? models::tuned_hit_ratio(set_aside(p), window(p)) : 1.0;
}

bool Sizes::clamped_any(const std::vector<SweepPoint>& pts) const {
  return std::any_of(pts.begin(), pts.end(), [this](const SweepPoint& p) {
    return p.hit != HitKind::kNoWindow && window(p) < hot(p);
  });
}

RunFacts Sizes::facts() const {
  return {l2, persisting_max, window_max, stream_bytes, kIterations};
}

Sizes size_run(std::uint64_t l2, std::uint64_t persisting_max, std::uint64_t window_max) {
  Sizes s;
  s.l2 = l2;
  s.persisting_max = persisting_max;
  s.window_max = window_max;
  s.stream_bytes = (kStreamL2Multiple * l2 + kQuantum - 1) / kQuantum * kQuantum;
  return s;
}

RowSpec spec_of(const SweepPoint& p, const Sizes* sizes) {
  RowSpec r{p.workload,   p.setaside_pct, p.hot_pct, std::nullopt,
            std::nullopt, std::nullopt,   p.window};
  if (sizes) {
    r.setaside_bytes = sizes->set_aside(p);
    r.hot_bytes = sizes->hot(p);
  }
  if (p.hit == HitKind::kOne) r.hit_ratio = 1.0;
  if (p.hit == HitKind::kTuned)
    r.hit_ratio = sizes ? sizes->hit_ratio(p)
                        : static_cast<double>(p.setaside_pct) / static_cast<double>(p.hot_pct);
  return r;
}

std::vector<std::string> point_flags(const SweepPoint& p) {
  if (p.hit == HitKind::kTuned) return {kTunedFlag};
  if (p.workload == kStreamOnly) return {"stream-only"};
  if (p.window == kAfterSweep) return {"after-sweep"};
  if (p.window == kNone) return {"baseline"};
  return {};
}

}  // namespace gpuprobe::l2_persist
