// Unit tests for the weighted latency/bandwidth fit of a size sweep.
#include "gpuprobe/core/fit.hpp"

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace gpuprobe {
namespace {

constexpr double kLatency = 5e-6;    // seconds
constexpr double kBandwidth = 50e9;  // bytes per second
constexpr double kSlope = 1 / kBandwidth;

// Sizes 4 KiB, 8 KiB, ..., 256 MiB (17 points), timed by the exact model times (1 + noise_i).
std::vector<SizeTime> sweep(double relative_noise = 0) {
  std::vector<SizeTime> points;
  int i = 0;
  for (double bytes = 4096; bytes <= 256.0 * 1024 * 1024; bytes *= 2, ++i) {
    // Deterministic perturbation in {+1, -1, -1, +1, ...} times relative_noise.
    const double sign = (i % 4 == 0 || i % 4 == 3) ? 1.0 : -1.0;
    points.push_back({bytes, (kLatency + kSlope * bytes) * (1 + sign * relative_noise)});
  }
  return points;
}

TEST(FitLatencyBandwidth, RecoversNoiseFreeModel) {
  const std::vector<SizeTime> points = sweep();
  ASSERT_EQ(points.size(), 17u);
  std::string why;
  const auto fit = fit_latency_bandwidth(points, &why);
  ASSERT_TRUE(fit.has_value()) << why;
  EXPECT_NEAR(fit->latency_s, kLatency, kLatency * 1e-9);
  EXPECT_NEAR(fit->bandwidth_Bps, kBandwidth, kBandwidth * 1e-9);
  EXPECT_NEAR(fit->half_bandwidth_bytes, kLatency * kBandwidth, 250000 * 1e-9);
  EXPECT_NEAR(fit->half_bandwidth_bytes, 250000, 1e-3);
  EXPECT_LT(fit->rms_rel_residual, 1e-12);
  EXPECT_EQ(fit->points, 17u);
}

TEST(FitLatencyBandwidth, HalfBandwidthSizeIsLatencyTimesBandwidth) {
  const auto fit = fit_latency_bandwidth(sweep(0.01));
  ASSERT_TRUE(fit.has_value());
  // The sweep's true model reaches half its bandwidth at latency x bandwidth = 250,000 B; the fit
  // of 1%-perturbed times puts n_1/2 there within its 2% on each of the two.
  EXPECT_NEAR(fit->half_bandwidth_bytes, kLatency * kBandwidth, kLatency * kBandwidth * 0.04);
  // At the fitted n_1/2 the true model moves bytes at half its asymptotic bandwidth.
  const double n = fit->half_bandwidth_bytes;
  EXPECT_NEAR(n / (kLatency + kSlope * n), kBandwidth / 2, kBandwidth / 2 * 0.03);
}

TEST(FitLatencyBandwidth, RecoversPerturbedModelWithinTwoPercent) {
  const auto fit = fit_latency_bandwidth(sweep(0.01));
  ASSERT_TRUE(fit.has_value());
  EXPECT_NEAR(fit->latency_s, kLatency, kLatency * 0.02);
  EXPECT_NEAR(fit->bandwidth_Bps, kBandwidth, kBandwidth * 0.02);
  // Every point is 1% off the true model, so the best fit's rms residual is near, at most, 1%.
  EXPECT_GT(fit->rms_rel_residual, 0.001);
  EXPECT_LE(fit->rms_rel_residual, 0.0100001);
  EXPECT_EQ(fit->points, 17u);
}

TEST(FitLatencyBandwidth, ResidualMatchesDefinition) {
  const std::vector<SizeTime> points = sweep(0.01);
  const auto fit = fit_latency_bandwidth(points);
  ASSERT_TRUE(fit.has_value());
  double sum = 0;
  for (const SizeTime& p : points) {
    const double model = fit->latency_s + p.bytes / fit->bandwidth_Bps;
    sum += ((model - p.seconds) / p.seconds) * ((model - p.seconds) / p.seconds);
  }
  EXPECT_NEAR(fit->rms_rel_residual, std::sqrt(sum / 17), 1e-12);
}

TEST(FitLatencyBandwidth, WeightsMakeSmallSizesCount) {
  // An unweighted fit would be dominated by the large sizes and miss the latency entirely;
  // a 1% error at the largest size must not swamp a 5 us latency.
  std::vector<SizeTime> points = sweep();
  points.back().seconds *= 1.01;
  const auto fit = fit_latency_bandwidth(points);
  ASSERT_TRUE(fit.has_value());
  EXPECT_NEAR(fit->latency_s, kLatency, kLatency * 0.02);
}

TEST(FitLatencyBandwidth, OneSizeIsDegenerate) {
  const std::vector<SizeTime> points{{4096, 1e-5}, {4096, 1.1e-5}, {4096, 0.9e-5}};
  std::string why;
  EXPECT_FALSE(fit_latency_bandwidth(points, &why).has_value());
  EXPECT_NE(why.find("two distinct sizes"), std::string::npos) << why;
  EXPECT_FALSE(fit_latency_bandwidth(std::vector<SizeTime>{{4096, 1e-5}}).has_value());
}

TEST(FitLatencyBandwidth, EmptyIsDegenerate) {
  std::string why;
  EXPECT_FALSE(fit_latency_bandwidth(std::vector<SizeTime>{}, &why).has_value());
  EXPECT_FALSE(why.empty());
}

TEST(FitLatencyBandwidth, DecreasingTimeHasNoBandwidth) {
  const std::vector<SizeTime> points{{4096, 4e-5}, {65536, 3e-5}, {1048576, 2e-5}};
  std::string why;
  EXPECT_FALSE(fit_latency_bandwidth(points, &why).has_value());
  EXPECT_NE(why.find("slope"), std::string::npos) << why;
}

TEST(FitLatencyBandwidth, RejectsNonPositiveTimes) {
  std::string why;
  EXPECT_FALSE(
      fit_latency_bandwidth(std::vector<SizeTime>{{4096, 1e-5}, {8192, 0}}, &why).has_value());
  EXPECT_NE(why.find("not positive"), std::string::npos) << why;
  EXPECT_FALSE(
      fit_latency_bandwidth(std::vector<SizeTime>{{4096, 1e-5}, {8192, -1e-5}}).has_value());
}

TEST(FitLatencyBandwidth, NegativeLatencyIsClampedAndRefitted) {
  // t = -0.1 us + x / 50 GB/s: the straight-line fit has a negative intercept.
  std::vector<SizeTime> points;
  for (double bytes = 65536; bytes <= 64.0 * 1024 * 1024; bytes *= 4) {
    points.push_back({bytes, -1e-7 + bytes / kBandwidth});
  }
  std::string why;
  const auto fit = fit_latency_bandwidth(points, &why);
  ASSERT_TRUE(fit.has_value()) << why;
  EXPECT_EQ(fit->latency_s, 0);
  EXPECT_EQ(fit->half_bandwidth_bytes, 0);
  // Through-origin weighted fit: b = sum(w x t) / sum(w x^2), w = 1 / t^2.
  double sxt = 0;
  double sxx = 0;
  for (const SizeTime& p : points) {
    const double w = 1 / (p.seconds * p.seconds);
    sxt += w * p.bytes * p.seconds;
    sxx += w * p.bytes * p.bytes;
  }
  EXPECT_NEAR(fit->bandwidth_Bps, sxx / sxt, fit->bandwidth_Bps * 1e-12);
  EXPECT_GT(fit->bandwidth_Bps, kBandwidth);  // the refit slope is shallower than 1 / 50 GB/s
  EXPECT_EQ(fit->points, points.size());
}

TEST(FitLatencyBandwidth, WhyIsOptional) {
  EXPECT_FALSE(fit_latency_bandwidth(std::vector<SizeTime>{{1, 1}}, nullptr).has_value());
}

}  // namespace
}  // namespace gpuprobe
