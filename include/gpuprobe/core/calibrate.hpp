// Sizing a workload to a target time, for a time that grows linearly with a count (a kernel's
// loop iterations): a doubling search, an interpolation, then rescaling at the count found.
// Host-only (header-only): the caller's `time` runs and times the workload.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>

namespace gpuprobe {

struct LinearCalibration {
  std::uint32_t first = 64;      // the first count timed
  std::uint32_t max = 1u << 22;  // counts stay within [1, max]
  int refinements = 3;           // rescalings at the count found, at most
  double tolerance = 0.02;       // rescaling stops once the time is this close to the target
};

// The count whose time(count) matches `target` seconds. Counts double from `first` until one
// lasts at least `target` or reaches `max`; the count is interpolated between the last two (the
// first scaled down when it already lasts long enough; the largest timed when the time does not
// grow), then, unless the search reached `max`, rescaled by target / time(count) until within
// `tolerance`. Always in [1, max].
inline std::uint32_t calibrate_linear(const std::function<double(std::uint32_t)>& time,
                                      double target, const LinearCalibration& c = {}) {
  std::uint32_t low = 0, high = std::min(c.first, c.max);
  double t_low = 0, t_high = time(high);
  while (t_high < target && high < c.max) {
    low = high;
    t_low = t_high;
    high = std::min(2 * high, c.max);
    t_high = time(high);
  }
  double count = high;  // the time does not grow with the count: the largest timed
  if (low == 0) count = high * target / t_high;  // the first count already lasts long enough
  if (low > 0 && t_high > t_low) count = low + (target - t_low) * (high - low) / (t_high - t_low);
  const auto clamped = [&c](double n) {
    return static_cast<std::uint32_t>(std::clamp(std::round(n), 1.0, static_cast<double>(c.max)));
  };
  for (int i = 0; i < c.refinements && high < c.max; ++i) {
    const double t = time(clamped(count));
    if (std::fabs(t / target - 1) <= c.tolerance) break;
    count *= target / t;
  }
  return clamped(count);
}

}  // namespace gpuprobe
