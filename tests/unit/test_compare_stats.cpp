// Unit tests for compare's statistics: the hierarchical bootstrap of a B/A ratio of medians.
#include "gpuprobe/core/compare_stats.hpp"

#include <cmath>
#include <vector>

#include <gtest/gtest.h>

namespace gpuprobe {
namespace {

// `rounds` rounds of `per_round` values: `center` x (1 + spread x a fixed zig-zag in [-1, 1]).
SampleRounds tight(double center, double spread, std::size_t rounds = 5,
                   std::size_t per_round = 10) {
  SampleRounds out(rounds);
  for (std::size_t r = 0; r < rounds; ++r) {
    for (std::size_t i = 0; i < per_round; ++i) {
      const double z = static_cast<double>((r * per_round + i) * 7 % 11) / 5.0 - 1.0;
      out[r].push_back(center * (1.0 + spread * z));
    }
  }
  return out;
}

TEST(PooledMedian, EveryRoundTogether) {
  EXPECT_DOUBLE_EQ(*pooled_median({{3, 1}, {2}}), 2);
  EXPECT_DOUBLE_EQ(*pooled_median({{4, 1}, {}, {2, 3}}), 2.5);  // even: mean of the middle two
  EXPECT_FALSE(pooled_median({{}, {}}).has_value());
}

TEST(BootstrapRatio, ConstantSidesGiveAPointInterval) {
  const auto r = bootstrap_ratio({{1, 1}, {1}}, {{2, 2, 2}});
  ASSERT_TRUE(r.has_value());
  EXPECT_DOUBLE_EQ(r->a_median, 1);
  EXPECT_DOUBLE_EQ(r->b_median, 2);
  EXPECT_DOUBLE_EQ(r->ratio, 2);
  EXPECT_DOUBLE_EQ(r->low, 2);
  EXPECT_DOUBLE_EQ(r->high, 2);
}

TEST(BootstrapRatio, HandCheckedThreeSamples) {
  // B = {1, 1, 2} in one round: a resample's median is 2 when at least two of its three draws
  // are the 2, with probability 3 (1/3)^2 (2/3) + (1/3)^3 = 7/27 = 0.26; else 1. So the 2.5th
  // percentile of the ratios is 1, the 97.5th is 2, and the ratio of medians is 1.
  const auto r = bootstrap_ratio({{1, 1, 1}}, {{1, 1, 2}});
  ASSERT_TRUE(r.has_value());
  EXPECT_DOUBLE_EQ(r->ratio, 1);
  EXPECT_DOUBLE_EQ(r->low, 1);
  EXPECT_DOUBLE_EQ(r->high, 2);
}

TEST(BootstrapRatio, IdenticalSamplesGiveAnIntervalAroundOne) {
  const SampleRounds a = tight(50, 0.01);
  const auto r = bootstrap_ratio(a, a);
  ASSERT_TRUE(r.has_value());
  EXPECT_DOUBLE_EQ(r->ratio, 1);
  EXPECT_LE(r->low, 1.0);
  EXPECT_GE(r->high, 1.0);
  EXPECT_GT(r->low, 0.99);  // +-1% samples: the median is known far better than that
  EXPECT_LT(r->high, 1.01);
}

TEST(BootstrapRatio, CleanShiftIsInsideATightInterval) {
  const auto r = bootstrap_ratio(tight(50, 0.005), tight(45, 0.005));
  ASSERT_TRUE(r.has_value());
  EXPECT_NEAR(r->ratio, 0.9, 1e-12);
  EXPECT_GT(r->low, 0.89);
  EXPECT_LT(r->high, 0.91);
  EXPECT_LE(r->low, r->ratio);
  EXPECT_GE(r->high, r->ratio);
}

TEST(BootstrapRatio, OneRoundPerSideResamplesSamples) {
  const auto r = bootstrap_ratio(tight(50, 0.05, 1, 40), tight(50, 0.05, 1, 40));
  ASSERT_TRUE(r.has_value());
  EXPECT_LT(r->low, 1.0);
  EXPECT_GT(r->high, 1.0);
  EXPECT_LT(r->high - r->low, 0.1);
}

TEST(BootstrapRatio, RoundsAreResampledAsUnits) {
  // Round 2 of B ran in a slow episode: every sample of it at 0.6x. Pooled as five rounds the
  // interval must allow for a resample with that round drawn twice (or not at all); the same
  // values as one round of 50 independent samples give a much narrower interval.
  SampleRounds b = tight(50, 0.01);
  for (double& v : b[2])
    v *= 0.6;
  SampleRounds flat(1);
  for (const auto& round : b)
    flat[0].insert(flat[0].end(), round.begin(), round.end());
  const SampleRounds a = tight(50, 0.01);
  const auto rounds = bootstrap_ratio(a, b);
  const auto samples = bootstrap_ratio(a, flat);
  ASSERT_TRUE(rounds && samples);
  EXPECT_DOUBLE_EQ(rounds->ratio, samples->ratio);
  EXPECT_GT(rounds->high - rounds->low, 2 * (samples->high - samples->low))
      << "rounds [" << rounds->low << ", " << rounds->high << "], flat [" << samples->low << ", "
      << samples->high << "]";
}

// The interval of IsDeterministicAndPinned's samples, as this build computes it.
constexpr double kPinnedLow = 0.93429680692175932;
constexpr double kPinnedHigh = 0.98522632686792755;

TEST(BootstrapRatio, IsDeterministicAndPinned) {
  const SampleRounds a = tight(50, 0.03);
  const SampleRounds b = tight(48, 0.04, 4, 7);
  const auto first = bootstrap_ratio(a, b);
  const auto again = bootstrap_ratio(a, b);
  ASSERT_TRUE(first && again);
  EXPECT_EQ(first->low, again->low);
  EXPECT_EQ(first->high, again->high);
  // Pinned: the fixed seed and the draws (21-bit slices of std::mt19937_64, multiply-shift)
  // give these on every platform. A change here changes every comparison's interval.
  EXPECT_DOUBLE_EQ(first->low, kPinnedLow);
  EXPECT_DOUBLE_EQ(first->high, kPinnedHigh);
  // Another seed gives another (close) interval.
  BootstrapOptions other;
  other.seed = 7;
  const auto seeded = bootstrap_ratio(a, b, other);
  ASSERT_TRUE(seeded.has_value());
  EXPECT_TRUE(seeded->low != first->low || seeded->high != first->high);
  EXPECT_NEAR(seeded->low, first->low, 0.01);
}

// The run-level term: a side whose rounds sit at different levels (one 10% up, one 10% down)
// may land anywhere among them in another run, so even a file against itself gets an interval
// as wide as that spread; rounds that agree keep it narrow; pooling runs narrows it.
TEST(BootstrapRatio, RoundsAtDifferentLevelsWidenTheIntervalAsARunWould) {
  const SampleRounds levels = {
      {50, 50.1, 49.9}, {50, 50.2, 49.8}, {55, 55.1, 54.9}, {45, 45.2, 44.8}, {50, 50, 50}};
  const SampleRounds flat = {
      {50, 50.1, 49.9}, {50, 50.2, 49.8}, {50, 50.1, 49.9}, {50, 50.2, 49.8}, {50, 50, 50}};
  const auto wide = bootstrap_ratio(levels, levels);
  const auto narrow = bootstrap_ratio(flat, flat);
  ASSERT_TRUE(wide && narrow);
  EXPECT_LT(wide->low, 0.9);
  EXPECT_GT(wide->high, 1.1);
  EXPECT_GT(narrow->low, 0.99);
  EXPECT_LT(narrow->high, 1.01);
  BootstrapOptions pooled;
  pooled.a_runs = pooled.b_runs = 4;
  const auto four = bootstrap_ratio(levels, levels, pooled);
  ASSERT_TRUE(four.has_value());
  EXPECT_GT(four->low, wide->low);  // the mean of four runs' levels varies less than one's
  EXPECT_LT(four->high, wide->high);
  EXPECT_LT(four->low, 0.95);  // but it still varies
}

TEST(BootstrapRatios, ManyAtOnceEqualOneByOneOnAnyThreadCount) {
  std::vector<SampleRounds> as, bs;
  for (std::size_t i = 0; i < 40; ++i) {
    as.push_back(tight(50, 0.02, 3 + i % 3, 5 + i % 4));
    bs.push_back(tight(50 + static_cast<double>(i % 5), 0.03, 3 + i % 2, 5 + i % 3));
  }
  std::vector<RatioTask> tasks;
  for (std::size_t i = 0; i < as.size(); ++i)
    tasks.push_back({&as[i], &bs[i]});
  for (std::size_t threads : {1u, 2u, 3u}) {
    BootstrapOptions options;
    options.threads = threads;
    const auto all = bootstrap_ratios(tasks, options);
    ASSERT_EQ(all.size(), tasks.size());
    for (std::size_t i = 0; i < tasks.size(); ++i) {
      const auto one = bootstrap_ratio(as[i], bs[i]);
      ASSERT_TRUE(all[i] && one) << i;
      EXPECT_EQ(all[i]->low, one->low) << i << " threads " << threads;
      EXPECT_EQ(all[i]->high, one->high) << i << " threads " << threads;
    }
  }
}

TEST(BootstrapRatio, NoRatioWithoutUsableSamples) {
  EXPECT_FALSE(bootstrap_ratio({}, {{1}}).has_value());
  EXPECT_FALSE(bootstrap_ratio({{}, {}}, {{1}}).has_value());
  EXPECT_FALSE(bootstrap_ratio({{1}}, {}).has_value());
  EXPECT_FALSE(bootstrap_ratio({{0, 1}}, {{1}}).has_value());  // A's median could be 0
  EXPECT_FALSE(bootstrap_ratio({{1}}, {{-1}}).has_value());
  EXPECT_FALSE(bootstrap_ratio({{1}}, {{NAN}}).has_value());
  EXPECT_TRUE(bootstrap_ratio({{1}}, {{0}}).has_value());  // B may be 0: ratio 0
  const auto empty_round = bootstrap_ratio({{}, {2}, {}}, {{4}, {}});
  ASSERT_TRUE(empty_round.has_value());
  EXPECT_DOUBLE_EQ(empty_round->ratio, 2);
}

}  // namespace
}  // namespace gpuprobe
