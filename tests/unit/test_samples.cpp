// Unit tests for turning timing samples into the time and bandwidth metrics of a row.
#include "gpuprobe/core/samples.hpp"

#include <cmath>
#include <stdexcept>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

namespace gpuprobe {
namespace {

// A sample set of one lane moving `bytes` per repetition, with these per-repetition seconds.
SampleSet one_lane(double bytes, std::vector<double> seconds) {
  SampleSet set;
  set.lanes = {{"copy", bytes, seconds}};
  set.seconds = std::move(seconds);
  return set;
}

TEST(BandwidthMetric, SummarisesPerSampleBandwidth) {
  // 1e6 B in 1 ms = 1 GB/s, in 2 ms = 0.5 GB/s.
  const Metric m = bandwidth_metric(one_lane(1e6, {0.001, 0.002}));
  EXPECT_EQ(m.name, "bandwidth");
  EXPECT_EQ(m.unit, "GB/s");
  EXPECT_DOUBLE_EQ(m.stats.median, 0.75);
  EXPECT_DOUBLE_EQ(m.stats.mean, 0.75);
  EXPECT_DOUBLE_EQ(m.stats.min, 0.5);
  EXPECT_DOUBLE_EQ(m.stats.max, 1.0);
  EXPECT_NEAR(m.stats.stdev, std::sqrt(0.125), 1e-12);
  EXPECT_NEAR(m.stats.rel_noise, std::sqrt(0.125) / 0.75, 1e-12);
  EXPECT_EQ(m.stats.n, 2u);
}

TEST(BandwidthMetric, MedianIsOfBandwidthsNotOfTimes) {
  // Times 1, 2, 4 ms: bandwidths 1, 0.5, 0.25 GB/s; median 0.5 (bytes / median time too,
  // but the mean of bandwidths 0.5833 differs from bytes / mean time 0.4286).
  const Metric m = bandwidth_metric(one_lane(1e6, {0.004, 0.001, 0.002}));
  EXPECT_DOUBLE_EQ(m.stats.median, 0.5);
  EXPECT_NEAR(m.stats.mean, (1.0 + 0.5 + 0.25) / 3, 1e-12);
  EXPECT_DOUBLE_EQ(m.stats.min, 0.25);
}

TEST(BandwidthMetric, UsesDecimalGigabytes) {
  const Metric m = bandwidth_metric(one_lane(1073741824.0, {1.0}), "h2d");
  EXPECT_EQ(m.name, "h2d");
  EXPECT_DOUBLE_EQ(m.stats.median, 1.073741824);
  EXPECT_EQ(m.stats.stdev, 0);
  EXPECT_EQ(m.stats.rel_noise, 0);
}

TEST(BandwidthMetric, EmptySamplesThrow) {
  EXPECT_THROW(bandwidth_metric(one_lane(1e6, {})), std::invalid_argument);
}

TEST(TimeMetric, SummarisesSeconds) {
  SampleSet set;
  set.seconds = {0.003, 0.001, 0.002, 0.010};
  const Metric m = time_metric(set);
  EXPECT_EQ(m.name, "time");
  EXPECT_EQ(m.unit, "s");
  EXPECT_DOUBLE_EQ(m.stats.median, 0.0025);
  EXPECT_DOUBLE_EQ(m.stats.min, 0.001);
  EXPECT_DOUBLE_EQ(m.stats.max, 0.010);
  EXPECT_DOUBLE_EQ(m.stats.mean, 0.004);
  EXPECT_EQ(m.stats.n, 4u);
  EXPECT_EQ(time_metric(set, "latency").name, "latency");
}

TEST(TimeMetric, IgnoresLanes) {
  SampleSet set;
  set.seconds = {2.0};
  set.lanes = {{"h2d", 100, {9.0}}};
  EXPECT_DOUBLE_EQ(time_metric(set).stats.median, 2.0);
}

TEST(SampleSet, TotalBytesSumsLanes) {
  SampleSet set;
  EXPECT_EQ(set.total_bytes(), 0);
  set.lanes = {{"h2d", 67108864, {0.001}}, {"d2h", 33554432, {0.002}}};
  EXPECT_DOUBLE_EQ(set.total_bytes(), 100663296.0);
  set.lanes.push_back({"extra", 0.5, {}});
  EXPECT_DOUBLE_EQ(set.total_bytes(), 100663296.5);
}

TEST(SampleSet, AddKeepsRoundsAndLanesInStep) {
  SampleSet set = one_lane(8, {});
  set.lanes.push_back({"other", 4, {}});
  const double lanes[] = {0.5, 0.25};
  set.add(0, 1.0, lanes);
  set.add(2, 2.0, lanes);
  EXPECT_EQ(set.seconds, (std::vector<double>{1.0, 2.0}));
  EXPECT_EQ(set.rounds, (std::vector<std::uint32_t>{0, 2}));
  EXPECT_EQ(set.lanes[0].seconds, (std::vector<double>{0.5, 0.5}));
  EXPECT_EQ(set.lanes[1].seconds, (std::vector<double>{0.25, 0.25}));
}

TEST(MappedMetric, GroupsValuesByRoundInOrderTaken) {
  SampleSet set = one_lane(1e9, {});
  for (const auto& [round, s] : std::vector<std::pair<std::uint32_t, double>>{
           {0, 1.0}, {1, 0.5}, {0, 2.0}, {2, 0.25}, {1, 4.0}})
    set.add(round, s, {});
  const Metric m = bandwidth_metric(set);  // 1e9 B: GB/s = 1 / seconds
  ASSERT_EQ(m.samples.size(), 3u);
  EXPECT_EQ(m.samples[0], (std::vector<double>{1.0, 0.5}));
  EXPECT_EQ(m.samples[1], (std::vector<double>{2.0, 0.25}));
  EXPECT_EQ(m.samples[2], (std::vector<double>{4.0}));
  EXPECT_EQ(m.stats.n, 5u);
  // The median of the rounds' medians (0.75, 1.125, 4), not of the five values (1).
  EXPECT_DOUBLE_EQ(m.stats.median, 1.125);
  EXPECT_DOUBLE_EQ(m.stats.min, 0.25);
}

// A slow round that took most of the samples does not carry the median (H100, overlap 16
// streams, gate run 6: four rounds of 2 samples at 842-857 us, one of 15 at 964-1013 us).
TEST(MappedMetric, ASlowRoundWithManySamplesCountsAsOneRound) {
  SampleSet set = one_lane(1, {});
  const std::vector<std::vector<double>> rounds_us = {
      {855, 844},
      {842, 851},
      {988, 980, 981, 989, 981, 978, 987, 972, 978, 985, 1013, 981, 982, 1000, 964},
      {857, 846},
      {856, 850}};
  for (std::uint32_t r = 0; r < rounds_us.size(); ++r) {
    for (double us : rounds_us[r])
      set.add(r, us * 1e-6, {});
  }
  const Metric t = time_metric(set);
  EXPECT_EQ(t.stats.n, 23u);
  EXPECT_NEAR(t.stats.median, 851.5e-6, 1e-12);  // round medians 849.5 846.5 981 851.5 853
  EXPECT_NEAR(t.stats.max, 1013e-6, 1e-12);
  // Two rounds are not enough to call one of them the odd one: all samples then.
  SampleSet two = one_lane(1, {});
  for (double us : {1.0, 2.0, 3.0})
    two.add(0, us, {});
  two.add(1, 10.0, {});
  EXPECT_DOUBLE_EQ(time_metric(two).stats.median, 2.5);
}

TEST(MappedMetric, WithoutRoundsEverySampleIsRoundZero) {
  const Metric m = time_metric(one_lane(1, {3.0, 1.0, 2.0}));
  ASSERT_EQ(m.samples.size(), 1u);
  EXPECT_EQ(m.samples[0], (std::vector<double>{3.0, 1.0, 2.0}));
}

TEST(MappedMetric, RoundsOfAnotherLengthAreRefused) {
  SampleSet set = one_lane(1, {1.0, 2.0});
  set.rounds = {0};
  EXPECT_THROW(time_metric(set), std::invalid_argument);
}

TEST(LaneBandwidthMetric, UsesTheLanesBytesAndSeconds) {
  SampleSet set;
  set.lanes = {{"h2d", 2e9, {}}, {"d2h", 1e9, {}}};
  const double lanes[] = {1.0, 0.5};
  set.add(0, 1.0, lanes);
  set.add(1, 1.0, lanes);
  const Metric m = lane_bandwidth_metric(set, 1);
  EXPECT_EQ(m.name, "bandwidth_d2h");
  EXPECT_DOUBLE_EQ(m.stats.median, 2.0);
  EXPECT_EQ(m.samples.size(), 2u);
  EXPECT_DOUBLE_EQ(bandwidth_metric(set).stats.median, 3.0);  // 3e9 B in 1 s
}

TEST(MeasuredRow, CarriesParamsMetricsFlagsAndCounters) {
  SampleSet set = one_lane(1e6, {0.001});
  set.flags = {"noisy"};
  set.counters = std::vector<Quantity>{{"dram__bytes_read.sum", "byte", 7.0}};
  const Row row = measured_row({{"size", std::int64_t{4}, "B"}}, set);
  ASSERT_EQ(row.params.size(), 1u);
  ASSERT_EQ(row.metrics.size(), 2u);
  EXPECT_EQ(row.metrics[0].name, "bandwidth");
  EXPECT_EQ(row.metrics[1].name, "time");
  EXPECT_EQ(row.flags, std::vector<std::string>{"noisy"});
  ASSERT_TRUE(row.counters.has_value());
  EXPECT_EQ(row.counters->front().value, 7.0);
}

TEST(BetweenRoundSpread, OfTheSecondsSoFar) {
  SampleSet set = one_lane(1, {});
  EXPECT_EQ(between_round_spread(set), 0.0);
  for (double s : {1.0, 1.0, 1.0})
    set.add(0, s, {});
  EXPECT_EQ(between_round_spread(set), 0.0);  // one round: nothing between rounds
  for (double s : {1.2, 1.2, 1.2})
    set.add(1, s, {});
  // Round medians 1.0 and 1.2, median of all six 1.1.
  EXPECT_NEAR(between_round_spread(set), 0.2 / 1.1, 1e-12);
}

TEST(RoundSpread, IsTheRangeOfRoundMediansOverTheMedian) {
  Metric m{"bandwidth", "GB/s", {}, {{10, 10, 11}, {9, 8, 9}, {10.5}}};
  m.stats.median = 10;
  ASSERT_TRUE(round_spread(m).has_value());
  EXPECT_DOUBLE_EQ(*round_spread(m), (10.5 - 9) / 10);
  m.samples = {{10, 11}};
  EXPECT_FALSE(round_spread(m).has_value());  // one round: no spread between rounds
  m.samples = {{10}, {}, {12}};
  EXPECT_DOUBLE_EQ(*round_spread(m), 0.2);  // an empty round does not count
}

}  // namespace
}  // namespace gpuprobe
