// Unit tests of the cache model: the L1/shared peak (128 B/clk/SM x SMs x clock) and the DRAM peak
// (2 x memory clock x bus width), against hand computations for an H100 SXM.
#include "gpuprobe/models/cache_model.hpp"

#include <gtest/gtest.h>

namespace gpuprobe {
namespace {

TEST(CacheModel, L1PeakIs128BytesPerClockPerSm) {
  // 132 SMs x 128 B x 1980e6 /s = 33,454.08 GB/s.
  EXPECT_NEAR(models::l1_peak_gbps(132, 1980), 33454.08, 1e-6);
  EXPECT_EQ(models::l1_peak_gbps(0, 1980), 0);
  EXPECT_EQ(models::l1_peak_gbps(132, 0), 0);
}

TEST(CacheModel, DramPeakIsDoubleDataRateTimesTheBus) {
  // H100 SXM as the runtime reports it: 2,619,000 kHz, 5120 bits: 2 x 2.619e9 x 640 B = 3352.32.
  EXPECT_NEAR(models::dram_peak_gbps(2619000, 5120), 3352.32, 1e-6);
  EXPECT_EQ(models::dram_peak_gbps(0, 5120), 0);
  EXPECT_EQ(models::dram_peak_gbps(2619000, 0), 0);
}

}  // namespace
}  // namespace gpuprobe
