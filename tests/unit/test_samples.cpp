// Unit tests for turning timing samples into the time and bandwidth metrics of a row.
#include "gpuprobe/core/samples.hpp"

#include <cmath>
#include <stdexcept>

#include <gtest/gtest.h>

namespace gpuprobe {
namespace {

TEST(BandwidthMetric, SummarisesPerSampleBandwidth) {
  // 1e6 B in 1 ms = 1 GB/s, in 2 ms = 0.5 GB/s.
  const Metric m = bandwidth_metric({0.001, 0.002}, 1e6);
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
  const Metric m = bandwidth_metric({0.004, 0.001, 0.002}, 1e6);
  EXPECT_DOUBLE_EQ(m.stats.median, 0.5);
  EXPECT_NEAR(m.stats.mean, (1.0 + 0.5 + 0.25) / 3, 1e-12);
  EXPECT_DOUBLE_EQ(m.stats.min, 0.25);
}

TEST(BandwidthMetric, UsesDecimalGigabytes) {
  EXPECT_EQ(kBytesPerGB, 1e9);
  const Metric m = bandwidth_metric({1.0}, 1073741824.0, "h2d");
  EXPECT_EQ(m.name, "h2d");
  EXPECT_DOUBLE_EQ(m.stats.median, 1.073741824);
  EXPECT_EQ(m.stats.stdev, 0);
  EXPECT_EQ(m.stats.rel_noise, 0);
}

TEST(BandwidthMetric, EmptySamplesThrow) {
  EXPECT_THROW(bandwidth_metric({}, 1e6), std::invalid_argument);
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

}  // namespace
}  // namespace gpuprobe
