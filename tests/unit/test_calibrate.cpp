// Unit tests for calibrate_linear: the count whose time matches a target, for times that grow
// linearly, affinely, not at all, or too fast for the smallest count.
#include "gpuprobe/core/calibrate.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace gpuprobe {
namespace {

// A time function that records the counts it was asked for.
struct Timed {
  double fixed = 0;      // s
  double per_count = 0;  // s
  std::vector<std::uint32_t> asked;
  double operator()(std::uint32_t n) {
    asked.push_back(n);
    return fixed + per_count * n;
  }
};

TEST(CalibrateLinear, ALinearTimeIsMatchedByInterpolationAndConfirmedOnce) {
  Timed t{0, 1e-6, {}};
  EXPECT_EQ(calibrate_linear(std::ref(t), 1e-3), 1000u);
  // 64 to 1024 by doubling, then the interpolated count, within tolerance at once.
  EXPECT_EQ(t.asked, (std::vector<std::uint32_t>{64, 128, 256, 512, 1024, 1000}));
}

TEST(CalibrateLinear, AFixedCostIsInterpolatedAway) {
  Timed t{1e-4, 1e-6, {}};
  EXPECT_EQ(calibrate_linear(std::ref(t), 1e-3), 900u);
}

TEST(CalibrateLinear, AFirstCountTooLongIsScaledDown) {
  Timed t{0, 1e-3, {}};
  EXPECT_EQ(calibrate_linear(std::ref(t), 1e-2), 10u);
  EXPECT_EQ(t.asked, (std::vector<std::uint32_t>{64, 10}));
}

TEST(CalibrateLinear, ATimeThatDoesNotGrowGivesTheLargestCountWithoutRescaling) {
  Timed t{1e-6, 0, {}};
  LinearCalibration c;
  c.max = 4096;
  EXPECT_EQ(calibrate_linear(std::ref(t), 1.0, c), 4096u);
  EXPECT_EQ(t.asked.back(), 4096u);
  EXPECT_EQ(t.asked.size(), 7u);  // 64 .. 4096, no rescaling at the cap
}

TEST(CalibrateLinear, TheCountNeverFallsBelowOneAndRescalingStopsAfterItsLimit) {
  Timed t{0, 1.0, {}};
  EXPECT_EQ(calibrate_linear(std::ref(t), 1e-3), 1u);
  EXPECT_EQ(t.asked, (std::vector<std::uint32_t>{64, 1, 1, 1}));  // three rescalings at most
}

TEST(CalibrateLinear, RescalingCorrectsAnInterpolationTheTimeDoesNotFollow) {
  // A time that grows faster than linearly: the interpolated count falls short, and rescaling
  // brings the time within a few percent of the target.
  std::vector<std::uint32_t> asked;
  const auto time = [&asked](std::uint32_t n) {
    asked.push_back(n);
    return 1e-6 * n + 1e-9 * n * n;
  };
  const std::uint32_t n = calibrate_linear(time, 3e-3);
  EXPECT_NEAR((1e-6 * n + 1e-9 * n * n) / 3e-3, 1.0, 0.05);
  EXPECT_EQ(asked.size(), 6u + 3u);  // 64 .. 2048, then every rescaling
}

}  // namespace
}  // namespace gpuprobe
