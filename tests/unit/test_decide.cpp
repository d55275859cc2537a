// Unit tests for decisions inside one run's findings that respect the noise (core/decide.hpp).
#include "gpuprobe/core/decide.hpp"

#include <vector>

#include <gtest/gtest.h>

#include "fixtures.hpp"

#include "gpuprobe/core/stats.hpp"

namespace gpuprobe {
namespace {

// A bandwidth metric with samples in rounds (tests/unit/fixtures.hpp).
Metric bandwidth(double center, double spread) {
  return testing::zigzag_bandwidth(center, spread);
}

// The same median and relative noise without samples (a schema 1/2 row).
Metric without_samples(double median, double rel_noise) {
  Metric m{"bandwidth", "GB/s", {}, {}};
  m.stats.n = 10;
  m.stats.median = m.stats.min = m.stats.max = m.stats.mean = median;
  m.stats.rel_noise = rel_noise;
  return m;
}

TEST(OrderOf, DecidesOnlyBeyondTheNoise) {
  const Metric a = bandwidth(100, 0.01);
  EXPECT_EQ(order_of(bandwidth(120, 0.01), a), Change::kFaster);
  EXPECT_EQ(order_of(bandwidth(80, 0.01), a), Change::kSlower);
  EXPECT_EQ(order_of(bandwidth(100.3, 0.01), a), Change::kSame);
  // 3% apart, each spread +-10%: the interval reaches both inside and beyond the 2% margin.
  EXPECT_EQ(order_of(bandwidth(103, 0.10), bandwidth(100, 0.10)), Change::kInconclusive);
}

TEST(AlikeToExtreme, TheTopsTheNoiseCannotTellApartAllBelong) {
  // 200.5 and 201 are alike within +-5% noise; 150 is far below; order kept as given.
  const Metric m0 = bandwidth(150, 0.05);
  const Metric m1 = bandwidth(200.5, 0.05);
  const Metric m2 = bandwidth(201, 0.05);
  const std::vector<const Metric*> metrics = {&m0, &m1, &m2};
  EXPECT_EQ(alike_to_extreme(metrics, Extreme::kHighest), (std::vector<std::size_t>{1, 2}));
  EXPECT_EQ(alike_to_extreme(metrics, Extreme::kLowest), (std::vector<std::size_t>{0}));
}

TEST(AlikeToExtreme, QuietPointsAreToldApart) {
  // 3% apart with +-0.2% noise: the lower one is measurably lower.
  const Metric m0 = bandwidth(97, 0.002);
  const Metric m1 = bandwidth(100, 0.002);
  const std::vector<const Metric*> metrics = {&m0, &m1};
  EXPECT_EQ(alike_to_extreme(metrics, Extreme::kHighest), (std::vector<std::size_t>{1}));
  EXPECT_TRUE(alike_to_extreme({}, Extreme::kHighest).empty());
}

TEST(AlikeToExtreme, WithoutSamplesTheNoiseBandDecides) {
  // 1% apart: alike with 1% relative noise (band 3%), told apart with 0.1% (band floor 0.5%).
  const Metric a = without_samples(100, 0.01), b = without_samples(99, 0.01);
  const Metric c = without_samples(100, 0.001), d = without_samples(99, 0.001);
  EXPECT_EQ(alike_to_extreme(std::vector<const Metric*>{&a, &b}, Extreme::kHighest).size(), 2u);
  EXPECT_EQ(alike_to_extreme(std::vector<const Metric*>{&c, &d}, Extreme::kHighest).size(), 1u);
}

TEST(ExtremesOf, BothAlikeSetsAndTheExtremeMedians) {
  // 200.5 and 201 alike at the top, 150 alone at the bottom; the medians' extremes beside them.
  const std::vector<Metric> metrics = {bandwidth(200.5, 0.05), bandwidth(150, 0.05),
                                       bandwidth(201, 0.05)};
  const ExtremeSets e = extremes_of(metrics);
  EXPECT_EQ(e.high, (std::vector<std::size_t>{0, 2}));
  EXPECT_EQ(e.low, (std::vector<std::size_t>{1}));
  EXPECT_DOUBLE_EQ(e.high_value, metrics[2].stats.median);
  EXPECT_DOUBLE_EQ(e.low_value, metrics[1].stats.median);
  EXPECT_TRUE(extremes_of({}).high.empty());
}

TEST(ScaledMetric, ScalesEveryValueAndRenames) {
  const Metric s = scaled_metric(bandwidth(100, 0.01), 2.5, "GB/s");
  EXPECT_DOUBLE_EQ(s.stats.median, 250);
  EXPECT_DOUBLE_EQ(s.samples[0][0], 2.5 * bandwidth(100, 0.01).samples[0][0]);
  EXPECT_EQ(s.unit, "GB/s");
}

TEST(BandDecision, InsideOutsideOrStraddling) {
  const Metric base = bandwidth(100, 0.005);
  EXPECT_EQ(band_decision(bandwidth(103, 0.005), base, 0.10), BandDecision::kInside);
  EXPECT_EQ(band_decision(bandwidth(130, 0.005), base, 0.10), BandDecision::kOutside);
  EXPECT_EQ(band_decision(bandwidth(70, 0.005), base, 0.10), BandDecision::kOutside);
  // 10% above with +-8% noise: the interval reaches across the band's edge at 1.10.
  EXPECT_EQ(band_decision(bandwidth(110, 0.08), bandwidth(100, 0.08), 0.10),
            BandDecision::kStraddles);
  // Without samples the medians decide.
  EXPECT_EQ(band_decision(without_samples(109, 0.08), without_samples(100, 0.08), 0.10),
            BandDecision::kInside);
  EXPECT_STREQ(band_decision_name(BandDecision::kStraddles), "straddles");
}

}  // namespace
}  // namespace gpuprobe
