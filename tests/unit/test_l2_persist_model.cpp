// Unit tests of the l2-persist model (persisting fraction, over-commit, expected hot hit share,
// tuned hitRatio, sizes) and of the probe's sweep construction (points, clamping, tuned rows),
// against cases computed by hand.
#include "gpuprobe/models/l2_persist_model.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gpuprobe/core/axes.hpp"
#include "l2_persist/sweep.hpp"

namespace gpuprobe {
namespace {

using models::predict_persisting;

constexpr std::uint64_t kMiB = 1u << 20;

TEST(L2PersistModel, HotRegionThatFitsPersistsWhole) {
  // 30 MiB set-aside, 20 MiB window over a 20 MiB region, hitRatio 1: all of it fits.
  const auto p = predict_persisting(30 * kMiB, 1.0, 20 * kMiB, 20 * kMiB);
  EXPECT_DOUBLE_EQ(p.persisting_fraction, 1.0);
  EXPECT_FALSE(p.overcommit);
  EXPECT_DOUBLE_EQ(p.hot_hit_share, 1.0);
}

TEST(L2PersistModel, TwiceTheSetAsideOverCommitsIt) {
  // 30 MiB set-aside, 60 MiB tagged: half the tagged lines fit; half the region hits at best.
  const auto p = predict_persisting(30 * kMiB, 1.0, 60 * kMiB, 60 * kMiB);
  EXPECT_DOUBLE_EQ(p.persisting_fraction, 0.5);
  EXPECT_TRUE(p.overcommit);
  EXPECT_DOUBLE_EQ(p.hot_hit_share, 0.5);
}

TEST(L2PersistModel, TunedHitRatioTagsWhatFits) {
  // hitRatio 0.5 over 60 MiB tags 30 MiB = the set-aside: no over-commit, same hit share.
  const double r = models::tuned_hit_ratio(30 * kMiB, 60 * kMiB);
  EXPECT_DOUBLE_EQ(r, 0.5);
  const auto p = predict_persisting(30 * kMiB, r, 60 * kMiB, 60 * kMiB);
  EXPECT_DOUBLE_EQ(p.persisting_fraction, 1.0);
  EXPECT_FALSE(p.overcommit);
  EXPECT_DOUBLE_EQ(p.hot_hit_share, 0.5);
  EXPECT_DOUBLE_EQ(models::tuned_hit_ratio(30 * kMiB, 10 * kMiB), 1.0);  // clamped
  EXPECT_DOUBLE_EQ(models::tuned_hit_ratio(30 * kMiB, 0), 1.0);
}

TEST(L2PersistModel, NoSetAsideNoHits) {
  const auto p = predict_persisting(0, 1.0, 8 * kMiB, 8 * kMiB);
  EXPECT_DOUBLE_EQ(p.persisting_fraction, 0.0);
  EXPECT_TRUE(p.overcommit);
  EXPECT_DOUBLE_EQ(p.hot_hit_share, 0.0);
  // No window at all: nothing tagged, nothing over-committed.
  const auto none = predict_persisting(0, 0.0, 0, 8 * kMiB);
  EXPECT_FALSE(none.overcommit);
  EXPECT_DOUBLE_EQ(none.hot_hit_share, 0.0);
}

TEST(L2PersistModel, WindowClampedToTheDeviceMaximum) {
  // A 200 MiB region under a 128 MiB maximum window: 128 MiB tagged, 100 MiB set-aside.
  const std::uint64_t w = models::window_bytes(200 * kMiB, 128 * kMiB);
  EXPECT_EQ(w, 128 * kMiB);
  EXPECT_EQ(models::window_bytes(64 * kMiB, 128 * kMiB), 64 * kMiB);
  const auto p = predict_persisting(100 * kMiB, 1.0, w, 200 * kMiB);
  EXPECT_DOUBLE_EQ(p.persisting_fraction, 100.0 / 128.0);
  EXPECT_DOUBLE_EQ(p.hot_hit_share, 0.5);
}

TEST(L2PersistModel, PercentOfRoundsDownToTheQuantum) {
  // The H100 VM's maximum: 32,768,000 B (8000 x 4 KiB).
  EXPECT_EQ(models::percent_of(100, 32768000, 4096), 32768000u);
  EXPECT_EQ(models::percent_of(25, 32768000, 4096), 8192000u);
  EXPECT_EQ(models::percent_of(75, 32768000, 4096), 24576000u);
  EXPECT_EQ(models::percent_of(200, 32768000, 4096), 65536000u);
  EXPECT_EQ(models::percent_of(33, 10000, 4096), 0u);  // 3300 B: below one quantum
  EXPECT_EQ(models::percent_of(50, 12345, 1), 6172u);
}

// Axis values as resolve_axes makes them (the probe's axes live with its CUDA code).
AxisValues values_of(std::vector<std::string> workloads, std::vector<std::uint64_t> asides,
                     std::vector<std::uint64_t> hots, std::vector<std::string> windows) {
  AxisValues v;
  v.values["workload"] = {AxisKind::kChoice, "", true, {}, std::move(workloads), false};
  v.values["setaside"] = {AxisKind::kList, "", true, std::move(asides), {}, false};
  v.values["hot"] = {AxisKind::kList, "", true, std::move(hots), {}, false};
  v.values["hit-ratio"] = {AxisKind::kChoice, "", false, {}, {"1.0", "tuned"}, false};
  v.values["window"] = {AxisKind::kChoice, "", true, {}, std::move(windows), false};
  return v;
}

TEST(L2PersistSweep, TunedRowsOnlyWhereTheRatioIsBelowOne) {
  const auto pts =
      l2_persist::points(values_of({"bpg"}, {0, 25, 50, 75, 100}, {25, 50, 100, 200}, {"stream"}));
  // bpg: 4 baselines; 1.0 rows: 5 set-asides x 4 hot sizes = 20; tuned below one: (25: 50, 100,
  // 200), (50: 100, 200), (75: 100, 200), (100: 200) = 8. No stream-only, no after-sweep row.
  EXPECT_EQ(pts.size(), 4u + 20u + 8u);
  for (const auto& p : pts) {
    EXPECT_EQ(p.workload, "bpg");
    if (p.hit == l2_persist::HitKind::kTuned) {
      EXPECT_GT(p.setaside_pct, 0u);
      EXPECT_LT(p.setaside_pct, p.hot_pct);
    }
  }
}

TEST(L2PersistSweep, PhasesHaveStreamOnlyRowsAndAnAfterSweepBaseline) {
  const auto pts =
      l2_persist::points(values_of({"phases"}, {50, 100}, {50, 150}, {"stream", "launch"}));
  // stream-only at 0 (added), 50, 100; baselines 50, 150; per window (2): 1.0 x 4 + tuned (50:
  // 150), (100: 150) = 6; after-sweep at the hot size nearest 100 %.
  ASSERT_EQ(pts.size(), 3u + 2u + 12u + 1u);
  EXPECT_EQ(pts.front().workload, "stream-only");
  EXPECT_EQ(pts.front().setaside_pct, 0u);
  EXPECT_EQ(pts.back().window, "none-after-sweep");
  EXPECT_EQ(pts.back().hot_pct, 50u);  // |50 - 100| = |150 - 100|: the first one
}

TEST(L2PersistSweep, SizesClampTheWindowAndComputeTunedRatios) {
  // A device with a 40 MB set-aside maximum and a 64 MiB window maximum.
  const auto z = l2_persist::size_run(50 * kMiB, 40'000'000, 64 * kMiB);
  EXPECT_EQ(z.stream_bytes, 200 * kMiB);
  const l2_persist::SweepPoint big{"phases", 50, 400, l2_persist::HitKind::kTuned, "stream"};
  EXPECT_EQ(z.hot(big), 160'000'000u / 4096 * 4096);  // 159,997,952
  EXPECT_EQ(z.window(big), 64 * kMiB);                // clamped
  EXPECT_EQ(z.set_aside(big), 20'000'000u / 4096 * 4096);
  EXPECT_DOUBLE_EQ(z.hit_ratio(big), static_cast<double>(z.set_aside(big)) / (64.0 * kMiB));
  EXPECT_TRUE(z.clamped_any({big}));
  const l2_persist::SweepPoint small{"phases", 50, 100, l2_persist::HitKind::kOne, "launch"};
  EXPECT_DOUBLE_EQ(z.hit_ratio(small), 1.0);
  EXPECT_FALSE(z.clamped_any({small}));
  const auto spec = l2_persist::spec_of(big, &z);
  ASSERT_TRUE(spec.hot_bytes && spec.hit_ratio);
  EXPECT_EQ(*spec.hot_bytes, z.hot(big));
  // A plan has no device: the tuned ratio from the shares, no bytes.
  const auto plan = l2_persist::spec_of(big, nullptr);
  EXPECT_FALSE(plan.hot_bytes.has_value());
  EXPECT_DOUBLE_EQ(*plan.hit_ratio, 0.125);
}

}  // namespace
}  // namespace gpuprobe
