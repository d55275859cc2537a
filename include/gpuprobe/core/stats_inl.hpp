// Template definitions for stats.hpp (included from it; not for direct use).
#pragma once

#include <vector>

namespace gpuprobe {

template <typename F>
Summary summarize_mapped(std::span<const double> samples, F f) {
  std::vector<double> mapped;
  mapped.reserve(samples.size());
  for (double s : samples)
    mapped.push_back(f(s));
  return summarize(mapped);
}

}  // namespace gpuprobe
