// Unit tests for sample statistics and the rule that decides when to stop sampling.
#include "gpuprobe/core/stats.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

namespace gpuprobe {
namespace {

using Samples = std::vector<double>;

TEST(Summarize, EvenCount) {
  const Samples s{4, 1, 3, 2};
  const Statistics r = statistics_of(s);
  EXPECT_EQ(r.n, 4u);
  EXPECT_DOUBLE_EQ(r.median, 2.5);
  EXPECT_DOUBLE_EQ(r.min, 1);
  EXPECT_DOUBLE_EQ(r.max, 4);
  EXPECT_DOUBLE_EQ(r.mean, 2.5);
  EXPECT_NEAR(r.stdev, 1.2909944487358056, 1e-12);  // sqrt(5 / 3)
  EXPECT_NEAR(r.rel_noise, 1.2909944487358056 / 2.5, 1e-12);
  EXPECT_EQ(s, (Samples{4, 1, 3, 2}));  // input untouched
}

TEST(Summarize, OddCount) {
  const Samples s{5, 1, 3};
  const Statistics r = statistics_of(s);
  EXPECT_DOUBLE_EQ(r.median, 3);
  EXPECT_DOUBLE_EQ(r.mean, 3);
  EXPECT_DOUBLE_EQ(r.stdev, 2);  // deviations -2, 0, 2: sqrt(8 / 2)
  EXPECT_DOUBLE_EQ(r.rel_noise, 2.0 / 3.0);
}

TEST(Summarize, SingleSample) {
  const Statistics r = statistics_of(Samples{7});
  EXPECT_EQ(r.n, 1u);
  EXPECT_DOUBLE_EQ(r.median, 7);
  EXPECT_DOUBLE_EQ(r.min, 7);
  EXPECT_DOUBLE_EQ(r.max, 7);
  EXPECT_DOUBLE_EQ(r.stdev, 0);
  EXPECT_DOUBLE_EQ(r.rel_noise, 0);
}

TEST(Summarize, ZeroMeanHasZeroNoise) {
  const Statistics r = statistics_of(Samples{-1, 1});
  EXPECT_DOUBLE_EQ(r.mean, 0);
  EXPECT_DOUBLE_EQ(r.stdev, std::sqrt(2.0));
  EXPECT_DOUBLE_EQ(r.rel_noise, 0);
}

TEST(Summarize, SmallNoiseOnLargeValues) {
  // The naive sum-of-squares formula loses these digits; the result must not.
  const Statistics r = statistics_of(Samples{1e9 + 1, 1e9 + 2, 1e9 + 3});
  EXPECT_NEAR(r.stdev, 1.0, 1e-9);
}

TEST(Summarize, RejectsEmptyAndNonFinite) {
  EXPECT_THROW(statistics_of(Samples{}), std::invalid_argument);
  EXPECT_THROW(statistics_of(Samples{1, std::numeric_limits<double>::quiet_NaN()}),
               std::invalid_argument);
  EXPECT_THROW(statistics_of(Samples{std::numeric_limits<double>::infinity()}),
               std::invalid_argument);
  EXPECT_THROW(statistics_of(Samples{1, -std::numeric_limits<double>::infinity()}),
               std::invalid_argument);
}

TEST(SummarizeMapped, SummarisesMappedValues) {
  // 8 bytes moved in 1, 2 and 4 seconds: 8, 4 and 2 B/s.
  const Samples seconds{1, 2, 4};
  const Statistics r = statistics_of_mapped(seconds, [](double t) { return 8.0 / t; });
  EXPECT_DOUBLE_EQ(r.median, 4);
  EXPECT_DOUBLE_EQ(r.min, 2);
  EXPECT_DOUBLE_EQ(r.max, 8);
  EXPECT_DOUBLE_EQ(r.mean, 14.0 / 3.0);  // not 8 / mean(seconds)
}

// --- stopping rule ------------------------------------------------------------------------

Samples steady(std::size_t n) {
  return Samples(n, 1.0);
}

Samples noisy(std::size_t n) {
  Samples s;
  for (std::size_t i = 0; i < n; ++i)
    s.push_back(i % 2 == 0 ? 1.0 : 2.0);
  return s;
}

TEST(StoppingRule, FixedCountIgnoresEverythingElse) {
  StoppingRule rule;
  rule.fixed_samples = 5;
  EXPECT_TRUE(rule.should_continue(Samples{}, 0, 0));
  EXPECT_TRUE(rule.should_continue(noisy(4), 100, 100));
  EXPECT_FALSE(rule.should_continue(noisy(5), 0, 0));
  EXPECT_FALSE(rule.should_continue(steady(6), 0, 0));
}

TEST(StoppingRule, NeedsMinimumSamples) {
  const StoppingRule rule;  // min_samples 10, min_time 0.025
  EXPECT_TRUE(rule.should_continue(Samples{}, 0, 0));
  EXPECT_TRUE(rule.should_continue(steady(9), 1.0, 0.1));
  EXPECT_FALSE(rule.should_continue(steady(10), 1.0, 0.1));
}

TEST(StoppingRule, NeedsMinimumMeasuredTime) {
  const StoppingRule rule;
  EXPECT_TRUE(rule.should_continue(steady(10), 0.01, 0.1));
  EXPECT_TRUE(rule.should_continue(steady(100), 0.024, 0.1));
  EXPECT_FALSE(rule.should_continue(steady(10), 0.025, 0.1));
}

TEST(StoppingRule, ContinuesWhileNoisy) {
  StoppingRule rule;
  rule.max_time = 2.0;
  EXPECT_TRUE(rule.should_continue(noisy(10), 1.0, 0.5));
  EXPECT_TRUE(rule.should_continue(noisy(1000), 1.0, 1.9));
}

TEST(StoppingRule, NoiseAtTheLimitStops) {
  StoppingRule rule;
  rule.max_noise = 0;
  EXPECT_FALSE(rule.should_continue(steady(10), 1.0, 0.1));  // noise 0 is not above 0
  EXPECT_TRUE(rule.should_continue(noisy(10), 1.0, 0.1));
}

TEST(StoppingRule, Converged) {
  const StoppingRule rule;
  Samples s = steady(20);
  s[3] = 1.001;  // rel noise ~2e-4
  EXPECT_FALSE(rule.should_continue(s, 0.1, 0.2));
}

TEST(MedianUncertainty, IsRobustToAFewOutliersUnlikeStdevOverMean) {
  // 40 samples at 54-55 GB/s and 4 at half that (a slow episode): the median barely moves, so
  // its interval stays narrow, while stdev / mean is 25%.
  Samples s;
  for (int i = 0; i < 40; ++i)
    s.push_back(54.0 + (i % 10) * 0.1);
  for (int i = 0; i < 4; ++i)
    s.push_back(25.0);
  EXPECT_LT(median_uncertainty(s), 0.01);
  EXPECT_GT(statistics_of(s).rel_noise, 0.15);
  EXPECT_EQ(median_uncertainty(steady(7)), 0.0);
  // Ten samples or fewer: the interval is the whole range.
  EXPECT_DOUBLE_EQ(median_uncertainty(Samples{1.0, 2.0, 3.0}), (3.0 - 1.0) / (2 * 2.0));
}

TEST(StoppingRule, TimeCapWhileNoisy) {
  const StoppingRule rule;  // max_time 0.3 s: 2 s elapsed is past it
  EXPECT_FALSE(rule.should_continue(noisy(10), 1.0, 2.0));
}

TEST(StoppingRule, TimeCapWithTooFewSamples) {
  const StoppingRule rule;
  EXPECT_FALSE(rule.should_continue(steady(3), 0.01, 3.0));
}

TEST(StoppingRule, TimeCapWaitsForOneSample) {
  const StoppingRule rule;
  EXPECT_TRUE(rule.should_continue(Samples{}, 0, 10.0));
  EXPECT_FALSE(rule.should_continue(Samples{2.5}, 2.5, 10.0));
}

TEST(StoppingRule, SampleCap) {
  StoppingRule rule;
  rule.max_samples = 20;
  EXPECT_TRUE(rule.should_continue(noisy(19), 1.0, 0.1));
  EXPECT_FALSE(rule.should_continue(noisy(20), 1.0, 0.1));
  // The sample cap is reported before the time cap.
}

}  // namespace
}  // namespace gpuprobe
