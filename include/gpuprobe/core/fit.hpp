// The latency/bandwidth model t = latency + bytes / bandwidth, fitted to a size sweep.
#pragma once

#include <optional>
#include <span>
#include <string>

namespace gpuprobe {

struct SizeTime {
  double bytes;
  double seconds;
};

struct LatencyBandwidthFit {
  double latency_s = 0;             // alpha: fixed cost per operation, seconds
  double bandwidth_Bps = 0;         // 1 / beta: asymptotic bandwidth, bytes per second
  double half_bandwidth_bytes = 0;  // n_1/2 = alpha * bandwidth: size reaching half of it
  double rms_rel_residual = 0;      // sqrt(mean(((model - t) / t)^2)) over the points
  std::size_t points = 0;
};

// Weighted least squares fit of t = a + b * bytes minimising relative residuals
// ((a + b x - t) / t), so small and large transfers count alike. Needs at least two distinct
// sizes and positive times; returns nullopt (with *why set, if why is not null) when the fit
// is degenerate (fewer than two sizes, a non-positive time, non-positive slope). If the fitted
// latency would be below zero, it is clamped to 0 and the bandwidth refitted through the
// origin; that result is returned. *why is only written when nullopt is returned.
std::optional<LatencyBandwidthFit> fit_latency_bandwidth(std::span<const SizeTime> points,
                                                         std::string* why = nullptr);

}  // namespace gpuprobe
