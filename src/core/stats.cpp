// Statistics of timing samples and the adaptive rule that decides when to stop.
#include "gpuprobe/core/stats.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>

namespace gpuprobe {
namespace {

struct Moments {
  double mean = 0;
  double stdev = 0;
  double rel_noise = 0;
};

// Mean, sample standard deviation and coefficient of variation, in O(n) (no sorting), so the
// stopping rule can call it after every sample. Throws on empty or non-finite input.
Moments moments(std::span<const double> samples) {
  if (samples.empty()) throw std::invalid_argument("statistics_of: no samples");
  double sum = 0;
  for (std::size_t i = 0; i < samples.size(); ++i) {
    if (!std::isfinite(samples[i])) {
      throw std::invalid_argument(
          fmt::format("statistics_of: sample {} is not finite ({})", i, samples[i]));
    }
    sum += samples[i];
  }
  const auto n = static_cast<double>(samples.size());
  Moments m;
  m.mean = sum / n;
  if (samples.size() >= 2) {
    // Two passes: the squared deviations are taken from the mean, which avoids the
    // cancellation of sum(x^2) - n * mean^2 when the noise is small relative to the mean.
    double squares = 0;
    for (double s : samples)
      squares += (s - m.mean) * (s - m.mean);
    m.stdev = std::sqrt(squares / (n - 1));
  }
  if (m.mean != 0) m.rel_noise = m.stdev / std::fabs(m.mean);
  return m;
}

}  // namespace

Statistics statistics_of(std::span<const double> samples) {
  const Moments m = moments(samples);
  std::vector<double> sorted(samples.begin(), samples.end());
  std::sort(sorted.begin(), sorted.end());
  const std::size_t n = sorted.size();
  Statistics summary;
  summary.n = n;
  summary.min = sorted.front();
  summary.max = sorted.back();
  summary.median = n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  summary.mean = m.mean;
  summary.stdev = m.stdev;
  summary.rel_noise = m.rel_noise;
  return summary;
}

double median_uncertainty(std::span<const double> samples) {
  const Statistics s = statistics_of(samples);
  if (s.median == 0) return 0;
  std::vector<double> sorted(samples.begin(), samples.end());
  std::sort(sorted.begin(), sorted.end());
  const double n = static_cast<double>(sorted.size());
  const double reach = 0.98 * std::sqrt(n);  // 1.96 / 2 standard deviations of the rank
  const double lo_rank = std::max(1.0, std::floor(n / 2 - reach));
  const double hi_rank = std::min(n, std::ceil(1 + n / 2 + reach));
  const double lo = sorted[static_cast<std::size_t>(lo_rank) - 1];
  const double hi = sorted[static_cast<std::size_t>(hi_rank) - 1];
  return (hi - lo) / (2 * std::fabs(s.median));
}

bool StoppingRule::should_continue(std::span<const double> samples, double measured_seconds,
                                   double elapsed_seconds) const {
  return should_continue(samples, samples, measured_seconds, elapsed_seconds);
}

bool StoppingRule::should_continue(std::span<const double> round_samples,
                                   std::span<const double> all_samples, double measured_seconds,
                                   double elapsed_seconds) const {
  const std::size_t n = round_samples.size();
  if (fixed_samples) return n < *fixed_samples;
  if (n >= max_samples) return false;
  if (elapsed_seconds >= max_time && n >= 1) return false;
  if (n == 0 || n < min_samples || measured_seconds < min_time) return true;
  return median_uncertainty(all_samples) > max_noise;
}

StoppingRule StoppingRule::share(std::size_t rounds, std::size_t round) const {
  if (rounds <= 1) return *this;
  StoppingRule r = *this;
  const auto parts = static_cast<double>(rounds);
  if (fixed_samples)
    r.fixed_samples = *fixed_samples / rounds + (round < *fixed_samples % rounds ? 1 : 0);
  r.min_samples = (min_samples + rounds - 1) / rounds;
  r.min_time = min_time / parts;
  r.max_time = max_time / parts;
  r.max_samples = std::max<std::size_t>(1, max_samples / rounds);
  return r;
}

}  // namespace gpuprobe
