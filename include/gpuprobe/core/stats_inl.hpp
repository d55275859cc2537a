// Template definitions for stats.hpp (included from it; not for direct use).
#pragma once

#include <vector>

namespace gpuprobe {

template <typename F>
Statistics statistics_of_mapped(std::span<const double> samples, F f) {
  std::vector<double> mapped;
  mapped.reserve(samples.size());
  for (double s : samples)
    mapped.push_back(f(s));
  return statistics_of(mapped);
}

}  // namespace gpuprobe
