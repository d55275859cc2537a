// Unit tests for rounds: how many a batch runs, each round's share of the stopping rule, and the
// seeded order of points in each round.
#include "gpuprobe/core/rounds.hpp"

#include <algorithm>
#include <numeric>
#include <set>

#include <gtest/gtest.h>

namespace gpuprobe {
namespace {

TEST(EffectiveRounds, AtLeastOneAndNoMoreThanAFixedCount) {
  StoppingRule adaptive;
  EXPECT_EQ(effective_rounds(0, adaptive), 1u);
  EXPECT_EQ(effective_rounds(5, adaptive), 5u);
  StoppingRule fixed;
  fixed.fixed_samples = 3;
  EXPECT_EQ(effective_rounds(5, fixed), 3u);  // every round takes at least one sample
  fixed.fixed_samples = 20;
  EXPECT_EQ(effective_rounds(5, fixed), 5u);
}

TEST(RuleShare, FixedCountIsSplitExactly) {
  StoppingRule rule;
  rule.fixed_samples = 12;
  std::size_t total = 0;
  for (std::size_t r = 0; r < 5; ++r) {
    const std::size_t n = *rule.share(5, r).fixed_samples;
    EXPECT_TRUE(n == 2 || n == 3) << n;
    total += n;
  }
  EXPECT_EQ(total, 12u);                           // --samples stays exact
  EXPECT_EQ(*rule.share(5, 0).fixed_samples, 3u);  // earlier rounds take the remainder
  EXPECT_EQ(*rule.share(5, 4).fixed_samples, 2u);
}

TEST(RuleShare, AdaptiveBudgetsAreDivided) {
  StoppingRule rule;
  rule.min_samples = 10;
  rule.min_time = 0.05;
  rule.max_time = 0.5;
  const StoppingRule s = rule.share(4, 1);
  EXPECT_EQ(s.min_samples, 3u);  // rounded up: 4 rounds take at least the 10
  EXPECT_DOUBLE_EQ(s.min_time, 0.0125);
  EXPECT_DOUBLE_EQ(s.max_time, 0.125);
  EXPECT_DOUBLE_EQ(s.max_noise, rule.max_noise);
  EXPECT_EQ(rule.share(1, 0).max_time, rule.max_time);
}

TEST(RuleShare, NoiseTestUsesEverySampleSoFar) {
  StoppingRule rule;
  rule.min_samples = 2;
  rule.min_time = 0;
  const std::vector<double> round = {1.0, 1.0, 1.0};
  std::vector<double> all(40, 1.0);
  EXPECT_FALSE(rule.should_continue(round, all, 1.0, 0.0));  // all agree: converged
  for (std::size_t i = 0; i < all.size(); i += 2)
    all[i] = 2.0;  // earlier rounds split between 1 and 2: the median is not known
  EXPECT_TRUE(rule.should_continue(round, all, 1.0, 0.0));
}

TEST(RoundOrder, IsAPermutation) {
  for (std::size_t n : {0u, 1u, 2u, 7u, 100u}) {
    auto order = round_order(n, 42, 0, 3);
    ASSERT_EQ(order.size(), n);
    std::sort(order.begin(), order.end());
    for (std::size_t i = 0; i < n; ++i)
      EXPECT_EQ(order[i], i);
  }
}

TEST(RoundOrder, TheSeedReproducesIt) {
  // Pinned values: the order must not depend on the standard library (own Fisher-Yates over
  // mt19937_64), so a seed recorded on one machine replays on another. Worked out outside the
  // code: a Python MT19937-64 (checked against the standard's 10000th output for seed 5489),
  // seeded and shuffled as rounds.hpp says.
  EXPECT_EQ(round_order(6, 1, 0, 0), (std::vector<std::size_t>{2, 1, 4, 5, 3, 0}));
  EXPECT_EQ(round_order(30, 7, 2, 1),
            (std::vector<std::size_t>{14, 11, 24, 0,  26, 23, 13, 3, 12, 22, 28, 5,  25, 16, 1,
                                      20, 10, 18, 27, 4,  15, 29, 6, 19, 8,  9,  21, 17, 2,  7}));
}

TEST(RoundOrder, DiffersBetweenRoundsBatchesAndSeeds) {
  const auto base = round_order(30, 7, 0, 0);
  std::set<std::vector<std::size_t>> seen{base};
  for (std::size_t round = 1; round < 5; ++round)
    seen.insert(round_order(30, 7, 0, round));
  seen.insert(round_order(30, 7, 1, 0));
  seen.insert(round_order(30, 8, 0, 0));
  EXPECT_EQ(seen.size(), 7u);  // 30! orders: a repeat would mean the inputs are ignored
}

TEST(RoundOrder, EveryPointLeadsSometimes) {
  // Over many rounds each of 4 points comes first about a quarter of the time: no point is
  // always measured at the start (or the end) of a round.
  std::vector<int> first(4, 0);
  for (std::size_t round = 0; round < 400; ++round)
    ++first[round_order(4, 99, 0, round).front()];
  for (int count : first)
    EXPECT_GT(count, 60) << "a point led " << count << " of 400 rounds";
}

TEST(FreshSeed, FitsADouble) {
  for (int i = 0; i < 8; ++i)
    EXPECT_LE(fresh_seed(), kMaxSeed);
}

}  // namespace
}  // namespace gpuprobe
