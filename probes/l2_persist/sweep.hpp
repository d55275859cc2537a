// l2-persist's sweep (host-only, tested in CI; defined in analysis.cpp): the points the axes ask
// for, and their sizes on a device, clamped to its maxima.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis.hpp"
#include "gpuprobe/core/axes.hpp"

namespace gpuprobe::l2_persist {

inline constexpr int kIterations = 4;        // phases: (stream, hot) pairs per repetition
inline constexpr int kStreamL2Multiple = 4;  // the streaming region, in L2 sizes
inline constexpr std::uint64_t kMaxHotPct = 400;
inline constexpr std::uint64_t kQuantum = 4096;  // sizes are multiples of this

enum class HitKind { kNoWindow, kOne, kTuned };

// One sweep point, before sizing.
struct SweepPoint {
  std::string workload;  // kPhases, kBpg, kStreamOnly
  std::uint64_t setaside_pct = 0;
  std::uint64_t hot_pct = 0;  // 0 for stream-only
  HitKind hit = HitKind::kNoWindow;
  std::string window = kNone;  // kNone, kStream, kLaunch, kAfterSweep
};

// The points of the axes, in measuring order: per workload (phases first) the stream-only rows
// (phases: one per set-aside, 0 included), the baselines (no window, one per hot size), then
// set-aside x hot x window x hitRatio (the tuned hitRatio only where it is below 1, never at
// set-aside 0); last, phases' after-sweep baseline at the hot size nearest 100%.
std::vector<SweepPoint> points(const AxisValues& values);

// The device's limits and the run's sizes.
struct Sizes {
  std::uint64_t l2 = 0;
  std::uint64_t persisting_max = 0;
  std::uint64_t window_max = 0;
  std::uint64_t stream_bytes = 0;

  std::uint64_t set_aside(const SweepPoint& p) const;
  std::uint64_t hot(const SweepPoint& p) const;
  std::uint64_t window(const SweepPoint& p) const;  // hot, clamped to window_max
  double hit_ratio(const SweepPoint& p) const;      // 1.0, or tuned = set-aside / window
  bool clamped_any(const std::vector<SweepPoint>& pts) const;
  RunFacts facts() const;
};

// Sizes from the device's L2, maximum set-aside and maximum window.
Sizes size_run(std::uint64_t l2, std::uint64_t persisting_max, std::uint64_t window_max);

// The row spec of a point: with sizes, in bytes and exact hitRatios; without (a plan), the
// shares only and the tuned hitRatio as set-aside % / hot %.
RowSpec spec_of(const SweepPoint& p, const Sizes* sizes);
// The row flags of a point: tuned, baseline, stream-only, after-sweep.
std::vector<std::string> point_flags(const SweepPoint& p);

}  // namespace gpuprobe::l2_persist
