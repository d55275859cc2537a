// Unit tests of the local model: the kernels' reference outputs against values an independent
// implementation (Python, in the comments) computed, the spill traffic, footprint, waves and the
// cost bounds against hand computations.
#include "gpuprobe/models/local_model.hpp"

#include <gtest/gtest.h>

namespace gpuprobe {
namespace {

TEST(LocalModel, MixerAndUpdateAreTheDocumentedArithmetic) {
  EXPECT_EQ(models::local_mix(0), 0u);
  EXPECT_EQ(models::local_mix(1), 0x688990c0u);  // python: the same five steps mod 2^32
  EXPECT_EQ(models::compute_update(2, 3), 2u * 1664525u + 3u);
  EXPECT_EQ(models::compute_update(0xFFFFFFFFu, 0), 0u - 1664525u);  // wraps mod 2^32
  EXPECT_EQ(models::local_start(7, 2, 5, 64), models::local_mix(7 + 2 * 64 + 5));
}

TEST(LocalModel, ComputeReferenceMatchesAnIndependentImplementation) {
  // python: a = [mix(seed + lane*64 + k)]; steps x (a[k] = a[k]*1664525 + a[(k+1)%64], k in
  // order); xor of (a[k] + k), all mod 2^32.
  EXPECT_EQ(models::compute_expected(0x10CA1, 5, 3), 0x84529b92u);
  EXPECT_EQ(models::compute_expected(7, 0, 0), 0xa717547fu);
  EXPECT_NE(models::compute_expected(7, 0, 1), models::compute_expected(7, 0, 0));
}

TEST(LocalModel, MemoryReferenceIsTheFoldFromTheEndLine) {
  EXPECT_EQ(models::memory_fold(0x10CA1, 9), 0x008faded);  // python: Horner, base 31
  EXPECT_EQ(models::memory_expected(0, 0x1234), 0x1234u);  // e x 31^96 + fold
  EXPECT_EQ(models::memory_expected(1, 0), 0x2fb73401u);   // 31^96 mod 2^32
  EXPECT_EQ(models::memory_expected(12345, models::memory_fold(0x10CA1, 9)), 0xfa1a7226u);
  // The closed form equals folding from s = e directly.
  std::uint32_t s = 77;
  for (int k = 0; k < models::kMemoryValues; ++k)
    s = s * 31u + models::local_start(3, 4, k, models::kMemoryValues);
  EXPECT_EQ(models::memory_expected(77, models::memory_fold(3, 4)), s);
}

TEST(LocalModel, ChaseStartsSpreadOverTheLines) {
  EXPECT_EQ(models::chase_start(0, 1024), 0u);
  EXPECT_EQ(models::chase_start(1, 1024), 2654435761u % 1024);
  EXPECT_EQ(models::chase_start(123456, 4096), 3648u);  // 123456 x 2654435761 mod 4096
}

TEST(LocalModel, SpillTrafficIsFrameTimesThreadsTimesTouchesInSectors) {
  const models::SpillTraffic t = models::spill_traffic(80, 1000, 256);
  EXPECT_DOUBLE_EQ(t.bytes_per_thread, 80.0 * 256);
  EXPECT_DOUBLE_EQ(t.load_sectors, 80.0 * 256 * 1000 / 32);
  EXPECT_DOUBLE_EQ(t.store_sectors, t.load_sectors);
  EXPECT_DOUBLE_EQ(models::spill_traffic(0, 1000, 256).load_sectors, 0);
}

TEST(LocalModel, FootprintWavesAndCosts) {
  EXPECT_DOUBLE_EQ(models::spill_footprint(80, 4, 256), 80.0 * 4 * 256);
  EXPECT_DOUBLE_EQ(models::launch_waves(132 * 24, 3, 132), 8);
  EXPECT_DOUBLE_EQ(models::launch_waves(132 * 24, 5, 132), 5);  // 4.8 rounded up
  EXPECT_DOUBLE_EQ(models::launch_waves(132 * 24, 0, 132), 0);
  EXPECT_DOUBLE_EQ(models::chase_seconds(12, 1024, 300e-9), 12 * 1024 * 300e-9);
  const models::SpillTraffic t = models::spill_traffic(100, 10, 2);  // 200 B each way
  EXPECT_DOUBLE_EQ(models::spill_bandwidth_seconds(t, 10, 4000), 2.0 * 200 * 10 / 4000);
  EXPECT_DOUBLE_EQ(models::spill_bandwidth_seconds(t, 10, 0), 0);
  EXPECT_DOUBLE_EQ(models::spill_latency_seconds(256, 3, 40e-9), 256 * 3 * 40e-9);
}

}  // namespace
}  // namespace gpuprobe
