// Statistics over timing samples and the rule that decides when to stop sampling.
#pragma once

#include <cstddef>
#include <optional>
#include <span>

namespace gpuprobe {

// Statistics of a sample set. rel_noise is stdev / mean (coefficient of variation);
// it is 0 for a single sample.
struct Statistics {
  double median = 0;
  double min = 0;
  double max = 0;
  double mean = 0;
  double stdev = 0;  // sample standard deviation (n - 1); 0 when n < 2
  double rel_noise = 0;
  std::size_t n = 0;
};

// Summarises samples. Throws std::invalid_argument on an empty span or non-finite values.
Statistics statistics_of(std::span<const double> samples);

// Maps every sample through f (e.g. seconds -> GB/s) and summarises the result.
// f must be monotonic; the summary is computed on the mapped values, not mapped afterwards.
template <typename F>
Statistics statistics_of_mapped(std::span<const double> samples, F f);

// How well the median of the samples is known: half the width of its distribution-free 95%
// confidence interval (the order statistics at ranks n/2 -/+ 0.98 sqrt(n), clamped to the
// sample), relative to the median. Robust to a few outliers, unlike stdev / mean: a stretch of
// slow samples widens it only when it moves the middle of the sample. 0 for identical samples,
// the whole relative range for ten samples or fewer. Throws like statistics_of.
double median_uncertainty(std::span<const double> samples);

// When to stop taking samples. Either a fixed count (deterministic, for CI) or adaptive:
// stop once there are at least min_samples, at least min_time seconds were spent measuring
// and the median is known to within max_noise (median_uncertainty); stop anyway once max_time
// has passed (the result is then flagged noisy).
struct StoppingRule {
  std::optional<std::size_t> fixed_samples;
  std::size_t min_samples = 10;
  double min_time = 0.025;  // seconds of measured time
  double max_noise = 0.01;  // relative half-width of the median's 95% interval
  double max_time = 0.3;    // seconds of wall time, cap per measurement
  std::size_t max_samples = 10000;

  // Decides whether sampling should continue, given the samples so far, the measured time
  // spent and the wall time elapsed for this measurement.
  bool should_continue(std::span<const double> samples, double measured_seconds,
                       double elapsed_seconds) const;
  // The same for one round of a measurement taken in rounds: counts, times and caps apply to
  // this round's samples, the noise test to all samples so far (every round).
  bool should_continue(std::span<const double> round_samples, std::span<const double> all_samples,
                       double measured_seconds, double elapsed_seconds) const;
  // This rule's share for round `round` of `rounds` (0-based): a fixed count split as evenly as
  // possible (earlier rounds take the remainder, so a round may get none), minimum samples
  // rounded up, times and the sample cap divided; the noise bound unchanged.
  StoppingRule share(std::size_t rounds, std::size_t round) const;
};

}  // namespace gpuprobe

#include "gpuprobe/core/stats_inl.hpp"
