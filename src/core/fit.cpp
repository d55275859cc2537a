// Fits the latency/bandwidth model t = latency + bytes / bandwidth to a size sweep.
#include "gpuprobe/core/fit.hpp"

#include <cmath>
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <utility>

#include <fmt/format.h>

namespace gpuprobe {
namespace {

std::optional<LatencyBandwidthFit> fail(std::string* why, std::string reason) {
  if (why != nullptr) *why = std::move(reason);
  return std::nullopt;
}

}  // namespace

std::optional<LatencyBandwidthFit> fit_latency_bandwidth(std::span<const SizeTime> points,
                                                         std::string* why) {
  if (points.empty()) return fail(why, "no points to fit");
  bool distinct = false;
  for (const SizeTime& p : points) {
    if (!std::isfinite(p.bytes) || p.bytes < 0) {
      return fail(why, fmt::format("size {} bytes is not a valid size", p.bytes));
    }
    if (!std::isfinite(p.seconds) || p.seconds <= 0) {
      return fail(why, fmt::format("time {} s at {} bytes is not positive", p.seconds, p.bytes));
    }
    if (p.bytes != points.front().bytes) distinct = true;
  }
  if (!distinct) {
    return fail(why, "need at least two distinct sizes to fit latency and bandwidth");
  }

  // Weighted least squares with w = 1 / t^2, so each residual counts relative to its time.
  // Centred form (weighted means first) keeps the sums well conditioned for sizes ~1e9.
  double sw = 0;
  double swx = 0;
  double swt = 0;
  for (const SizeTime& p : points) {
    const double w = 1.0 / (p.seconds * p.seconds);
    sw += w;
    swx += w * p.bytes;
    swt += w * p.seconds;
  }
  const double x_mean = swx / sw;
  const double t_mean = swt / sw;
  double sxx = 0;
  double sxt = 0;
  for (const SizeTime& p : points) {
    const double w = 1.0 / (p.seconds * p.seconds);
    const double dx = p.bytes - x_mean;
    sxx += w * dx * dx;
    sxt += w * dx * (p.seconds - t_mean);
  }
  if (!(sxx > 0)) {
    return fail(why, "need at least two distinct sizes to fit latency and bandwidth");
  }
  double b = sxt / sxx;
  double a = t_mean - b * x_mean;
  if (!(b > 0) || !std::isfinite(b)) {
    return fail(why, "time does not grow with size (non-positive slope); no bandwidth to fit");
  }
  if (a < 0) {
    // A negative latency is unphysical: pin it at zero and refit the slope through the origin.
    double swxt = 0;
    double swxx = 0;
    for (const SizeTime& p : points) {
      const double w = 1.0 / (p.seconds * p.seconds);
      swxt += w * p.bytes * p.seconds;
      swxx += w * p.bytes * p.bytes;
    }
    a = 0;
    b = swxt / swxx;
    if (!(b > 0) || !std::isfinite(b)) {
      return fail(why, "time does not grow with size (non-positive slope); no bandwidth to fit");
    }
  }

  double sum_sq = 0;
  for (const SizeTime& p : points) {
    const double rel = (a + b * p.bytes - p.seconds) / p.seconds;
    sum_sq += rel * rel;
  }
  LatencyBandwidthFit fit;
  fit.latency_s = a;
  fit.bandwidth_Bps = 1.0 / b;
  fit.half_bandwidth_bytes = a / b;
  fit.rms_rel_residual = std::sqrt(sum_sq / static_cast<double>(points.size()));
  fit.points = points.size();
  return fit;
}

}  // namespace gpuprobe
