// Unit tests of the occupancy model: the launch shape of a warp count, the bytes in flight, where
// each access falls (every vector of a step exactly once), whole steps, and Little's law both ways
// against hand computations.
#include "gpuprobe/models/occupancy_model.hpp"

#include <gtest/gtest.h>

#include <set>

namespace gpuprobe {
namespace {

TEST(OccupancyModel, BlockShapeMakesTheWarpsOfBlocksOfUpToFourWarps) {
  EXPECT_EQ(models::block_shape(1).block_threads, 32);
  EXPECT_EQ(models::block_shape(1).blocks_per_sm, 1);
  EXPECT_EQ(models::block_shape(3).block_threads, 32);  // gcd(3, 4) = 1
  EXPECT_EQ(models::block_shape(3).blocks_per_sm, 3);
  EXPECT_EQ(models::block_shape(6).block_threads, 64);
  EXPECT_EQ(models::block_shape(6).blocks_per_sm, 3);
  EXPECT_EQ(models::block_shape(64).block_threads, 128);
  EXPECT_EQ(models::block_shape(64).blocks_per_sm, 16);
  EXPECT_TRUE(models::shape_fits(32));   // 8 blocks of 4 warps
  EXPECT_TRUE(models::shape_fits(31));   // 31 blocks of 1 warp
  EXPECT_FALSE(models::shape_fits(33));  // 33 blocks of 1 warp: over 32 per SM
  EXPECT_FALSE(models::shape_fits(0));
}

TEST(OccupancyModel, BytesInFlightAreWarpsTimesThreadsTimesIlpTimesWidth) {
  EXPECT_EQ(models::bytes_in_flight(64, 1, 4), 8192u);
  EXPECT_EQ(models::bytes_in_flight(8, 8, 16), 8u * 32 * 8 * 16);
}

TEST(OccupancyModel, EveryVectorOfAStepIsTouchedOnceAndWarpsAreCoalesced) {
  const std::uint32_t blocks = 3, threads = 64;
  const int ilp = 4;
  std::set<std::uint64_t> seen;
  for (std::uint64_t s = 0; s < 2; ++s)
    for (std::uint32_t b = 0; b < blocks; ++b)
      for (int j = 0; j < ilp; ++j)
        for (std::uint32_t t = 0; t < threads; ++t)
          EXPECT_TRUE(seen.insert(models::stream_vector(s, j, b, t, threads, blocks, ilp)).second);
  EXPECT_EQ(seen.size(), 2u * blocks * threads * ilp);
  EXPECT_EQ(*seen.rbegin(), 2u * blocks * threads * ilp - 1);  // no gap: 0 .. n-1
  // Lane t + 1 of a warp reads the vector after lane t's; access j + 1 is a block apart.
  EXPECT_EQ(models::stream_vector(1, 2, 1, 5, threads, blocks, ilp),
            1u * blocks * threads * ilp + 1u * threads * ilp + 2u * threads + 5);
}

TEST(OccupancyModel, WrittenWordsAreNeverThePoison) {
  EXPECT_EQ(models::occupancy_written(0, 0x80000001u), 0x80000001u);
  EXPECT_EQ(models::occupancy_written(5, 0x80000000u), 0x80000005u);
  EXPECT_NE(models::occupancy_written((1ull << 31) - 1, 0x80000000u), 0u);
}

TEST(OccupancyModel, StepsAreWholeStepsOfTheGrid) {
  // 1 GiB over 132 x 2048 threads x 1 x 4 B: 1 MiB... per step 1081344 B -> 992 whole steps.
  EXPECT_EQ(models::stream_steps(1ull << 30, 132 * 2048, 1, 4), 992u);
  EXPECT_EQ(models::stream_steps(100, 10, 1, 16), 0u);
  EXPECT_EQ(models::stream_steps(100, 0, 1, 16), 0u);
}

TEST(OccupancyModel, LittlesLawBothWays) {
  // 8 KiB per SM x 132 SMs / 340 ns = 3.18 TB/s, under a 3.0 TB/s plateau: the plateau.
  EXPECT_DOUBLE_EQ(models::little_bandwidth(8192, 132, 340e-9, 3.0e12, 1), 3.0e12);
  EXPECT_NEAR(models::little_bandwidth(4096, 132, 340e-9, 3.0e12, 1), 4096.0 * 132 / 340e-9, 1);
  EXPECT_NEAR(models::little_bandwidth(4096, 132, 340e-9, 9e12, 2), 2 * 4096.0 * 132 / 340e-9, 1);
  EXPECT_DOUBLE_EQ(models::little_bandwidth(1, 132, 0, 3.0e12, 1), 3.0e12);  // no latency
  // 95% of 3.0 TB/s x 340 ns / 132 SMs = 7340.9 B per SM; a copy (2 counted) half of it.
  EXPECT_NEAR(models::knee_bytes(0.95, 3.0e12, 340e-9, 132, 1), 7340.909, 1e-3);
  EXPECT_NEAR(models::knee_bytes(0.95, 3.0e12, 340e-9, 132, 2), 3670.4545, 1e-3);
  EXPECT_EQ(models::knee_bytes(0.9, 3.0e12, 340e-9, 0, 1), 0);
  // Backwards: 16 KiB per SM sustaining 3.0 TB/s means 720.9 ns.
  EXPECT_NEAR(models::implied_latency(16384, 132, 3.0e12, 1), 720.896e-9, 1e-12);
  EXPECT_EQ(models::implied_latency(16384, 132, 0, 1), 0);
}

}  // namespace
}  // namespace gpuprobe
