// Unit tests of the curve methods shared by the probes (core/curve_levels.hpp): bandwidth
// plateaus and knees, latency levels, two clusters; on hand-made curves.
#include "gpuprobe/core/curve_levels.hpp"

#include <cmath>
#include <vector>

#include <gtest/gtest.h>

namespace gpuprobe {
namespace {

constexpr double kKiB = 1024;

// A bandwidth curve from (bytes, GB/s) pairs, each interval +-1 %.
std::vector<CurvePoint> bandwidth_curve(const std::vector<std::pair<double, double>>& pts) {
  std::vector<CurvePoint> out;
  for (const auto& [bytes, gbps] : pts)
    out.push_back({bytes, gbps, gbps * 0.99, gbps * 1.01});
  return out;
}

TEST(CurvePlateaus, TwoLevelsAndTheKneeBetween) {
  // 1000 GB/s up to 64 KiB, 250 GB/s from 256 KiB; 128 KiB on the way down.
  const auto pts = bandwidth_curve({{8 * kKiB, 1000},
                                    {16 * kKiB, 1010},
                                    {32 * kKiB, 990},
                                    {64 * kKiB, 1000},
                                    {128 * kKiB, 600},
                                    {256 * kKiB, 250},
                                    {512 * kKiB, 252},
                                    {1024 * kKiB, 248}});
  const PlateauRule rule;
  const auto p = curve_plateaus(pts, rule);
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p[0].first, 0u);
  EXPECT_EQ(p[0].last, 3u);
  EXPECT_DOUBLE_EQ(p[0].gbps, 1000);  // the mean of the two middle medians, 1000 and 1000
  EXPECT_DOUBLE_EQ(p[0].low, 990 * 0.99);
  EXPECT_DOUBLE_EQ(p[0].high, 1010 * 1.01);
  EXPECT_EQ(p[1].first, 5u);
  EXPECT_EQ(p[1].sizes, 3u);
  // The crossing of sqrt(1000 x 250) = 500 GB/s lies between 128 KiB (600) and 256 KiB (250).
  const auto knee = curve_knee(pts, p[0], p[1]);
  ASSERT_TRUE(knee.has_value());
  EXPECT_GT(*knee, 128 * kKiB);
  EXPECT_LT(*knee, 256 * kKiB);
  const double t = (std::log(500.0) - std::log(600.0)) / (std::log(250.0) - std::log(600.0));
  EXPECT_NEAR(*knee, 128 * kKiB * std::pow(2.0, t), 1e-6);
}

TEST(CurvePlateaus, StepsWithinTheRuleAreOneSegment) {
  const auto pts = bandwidth_curve({{1, 100}, {2, 104}, {4, 108}, {8, 112}});
  EXPECT_EQ(curve_segments(pts, PlateauRule{}).size(), 1u);
  // The same curve is two plateaus under a rule that splits at 5 % and needs two sizes.
  const auto p = curve_plateaus(pts, PlateauRule{0.05, 0.05, 2, 5});
  EXPECT_EQ(p.size(), 2u);
  EXPECT_TRUE(curve_plateaus({}, PlateauRule{}).empty());
}

TEST(CurveLevels, ThreeLevelsWithTheirPlateaus) {
  const std::vector<double> cycles = {30, 31, 30, 200, 205, 210, 600, 610, 605, 690};
  const auto levels = curve_levels(cycles, LevelRule{});
  ASSERT_EQ(levels.size(), 3u);
  EXPECT_EQ(levels[0].first, 0u);
  EXPECT_EQ(levels[0].last, 2u);
  EXPECT_DOUBLE_EQ(levels[0].median, 30);
  EXPECT_EQ(levels[1].plateau_first, 3u);
  EXPECT_DOUBLE_EQ(levels[1].median, 205);
  // 690 is 14 % above the last segment's (lower-middle) median, 605: in its segment (less than a
  // step), not on its plateau (more than the band).
  EXPECT_EQ(levels[2].last, 9u);
  EXPECT_EQ(levels[2].plateau_last, 8u);
  EXPECT_DOUBLE_EQ(levels[2].high, 610);
}

TEST(CurveLevels, SmallStepsAndShortCurvesAreOneLevel) {
  EXPECT_EQ(curve_levels(std::vector<double>{100, 105, 110, 112, 108}, LevelRule{}).size(), 1u);
  EXPECT_EQ(curve_levels(std::vector<double>{100, 400, 410}, LevelRule{}).size(), 1u);
  EXPECT_TRUE(curve_levels({}, LevelRule{}).empty());
}

// A curve of negative values (a clock difference gone wrong) still gives levels with a median and
// reads nothing outside the curve (the band is |median|); NaNs are an error, not a crash.
TEST(CurveLevels, NegativesGiveALevelAndNaNsAnErrorNotACrash) {
  const auto negative = curve_levels(std::vector<double>{-5, -5, -5, -5}, LevelRule{});
  ASSERT_FALSE(negative.empty());
  for (const CurveLevel& l : negative) {
    EXPECT_DOUBLE_EQ(l.median, -5);
    EXPECT_EQ(l.plateau_first, l.first);  // every point of the segment on its plateau
    EXPECT_EQ(l.plateau_last, l.last);
  }
  // NaNs are refused with a clear error (statistics_of), which the runner reports as the
  // analysis's failure, the rows kept.
  EXPECT_THROW(curve_levels(std::vector<double>{NAN, NAN, NAN}, LevelRule{}), std::exception);
}

TEST(TwoClusters, SplitsWhereTheGapIs) {
  std::vector<double> v;
  for (int i = 0; i < 30; ++i)
    v.push_back(200 + i % 3);
  for (int i = 0; i < 10; ++i)
    v.push_back(400 + i % 3);
  const TwoClusters c = split_two_clusters(v);
  EXPECT_DOUBLE_EQ(c.threshold, (202 + 400) / 2.0);
  EXPECT_DOUBLE_EQ(c.fast_median, 201);
  EXPECT_DOUBLE_EQ(c.slow_median, 401);
  EXPECT_DOUBLE_EQ(c.slow_share, 0.25);
  EXPECT_GT(c.eta, 0.99);
  EXPECT_DOUBLE_EQ(split_two_clusters({5}).eta, 0);
}

}  // namespace
}  // namespace gpuprobe
