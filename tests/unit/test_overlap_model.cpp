// Unit tests of the overlap pipeline model against cases computed by hand.
#include "gpuprobe/models/overlap_model.hpp"

#include <gtest/gtest.h>

namespace gpuprobe::models {
namespace {

constexpr StageTimes kBalanced{3.0, 3.0, 3.0};
constexpr StageTimes kUneven{2.0, 5.0, 1.0};  // kernel-bound: sum 8, max 5

TEST(OverlapModel, OneChunkIsSequential) {
  EXPECT_DOUBLE_EQ(sequential_time(kUneven), 8.0);
  EXPECT_DOUBLE_EQ(pipeline_time(kUneven, 1), 8.0);
  EXPECT_DOUBLE_EQ(concurrent_pipeline_time(kUneven, {4.0, 5.0, 2.0}, 1), 8.0);
  EXPECT_DOUBLE_EQ(guide_time(kUneven, 1), 8.0);
}

TEST(OverlapModel, PipelineByHand) {
  // n = 4, balanced: per chunk 0.75 each; 3 * 0.75 + 3 * 0.75 = 4.5 = max + (sum - max)/4.
  EXPECT_DOUBLE_EQ(pipeline_time(kBalanced, 4), 4.5);
  // n = 2, uneven: chunks 1, 2.5, 0.5 -> 4 + 1 * 2.5 = 6.5 = 5 + 3/2.
  EXPECT_DOUBLE_EQ(pipeline_time(kUneven, 2), 6.5);
  // Large n approaches the longest stage.
  EXPECT_NEAR(pipeline_time(kUneven, 1000000), 5.0, 1e-5);
  EXPECT_DOUBLE_EQ(ideal_time(kUneven), 5.0);
}

TEST(OverlapModel, ChunkCostsAddPerChunk) {
  // n = 4, balanced, 0.1 s per chunk on the kernel only: chunks 0.75, 0.85, 0.75;
  // sum 2.35 + 3 * 0.85 = 4.9.
  EXPECT_DOUBLE_EQ(pipeline_time(kBalanced, 4, {0.0, 0.1, 0.0}), 4.9);
  // The cost from a chunked run: 10 s whole, 10.9 s as 10 chunks -> 0.1 s per extra chunk.
  EXPECT_DOUBLE_EQ(chunk_cost(10.0, 10.9, 10), 0.9 / 9);
  EXPECT_DOUBLE_EQ(chunk_cost(10.0, 12.0, 1), 0.0);
}

TEST(OverlapModel, ConcurrentRatesInTheMiddleSlots) {
  // Copies 1.5x slower at once: both = {4.5, 3, 4.5}. n = 4: solo chunks 0.75 each ->
  // sum 2.25 + max 0.75, plus (4 - 2) middle slots at max(1.125, 0.75, 1.125) = 2.25 -> 5.25.
  const StageTimes both{4.5, 3.0, 4.5};
  EXPECT_DOUBLE_EQ(concurrent_pipeline_time(kBalanced, both, 4), 5.25);
  // n = 2 has no slot with both copies busy: it is the solo pipeline.
  EXPECT_DOUBLE_EQ(concurrent_pipeline_time(kBalanced, both, 2), pipeline_time(kBalanced, 2));
  // With equal rates it is the solo pipeline for any n.
  EXPECT_DOUBLE_EQ(concurrent_pipeline_time(kUneven, kUneven, 8), pipeline_time(kUneven, 8));
  // Large n approaches the slowest stage at concurrent rates.
  EXPECT_NEAR(concurrent_pipeline_time(kBalanced, both, 1000000), 4.5, 1e-4);
}

TEST(OverlapModel, GuideFormula) {
  // tE = 5 > tT = 3: 5 + 3/4.
  EXPECT_DOUBLE_EQ(guide_time(kUneven, 4), 5.75);
  // tT = 6 > tE = 3: 6 + 3/3.
  EXPECT_DOUBLE_EQ(guide_time(kBalanced, 3), 7.0);
}

TEST(OverlapModel, Efficiency) {
  EXPECT_DOUBLE_EQ(overlap_efficiency(9.0, 3.0, 3.0), 1.0);
  EXPECT_DOUBLE_EQ(overlap_efficiency(9.0, 9.0, 3.0), 0.0);
  EXPECT_DOUBLE_EQ(overlap_efficiency(9.0, 6.0, 3.0), 0.5);
  EXPECT_LT(overlap_efficiency(9.0, 10.0, 3.0), 0.0);
  EXPECT_DOUBLE_EQ(overlap_efficiency(3.0, 3.0, 3.0), 0.0);  // nothing to save
}

}  // namespace
}  // namespace gpuprobe::models
