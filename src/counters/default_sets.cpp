// The companions every counter pass collects, appended to a probe's own metric set.
#include "gpuprobe/counters/default_sets.hpp"

#include <algorithm>

namespace gpuprobe::counters::defaults {

std::vector<std::string> with_companions(std::vector<std::string> metrics) {
  for (const auto companion : kCompanions)
    if (std::find(metrics.begin(), metrics.end(), companion) == metrics.end())
      metrics.emplace_back(companion);
  return metrics;
}

}  // namespace gpuprobe::counters::defaults
