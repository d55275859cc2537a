// Template definitions for samples.hpp (included from it; not for direct use).
#pragma once

#include <stdexcept>
#include <utility>

namespace gpuprobe {

template <typename F>
Metric mapped_metric(const SampleSet& samples, std::span<const double> seconds, std::string name,
                     std::string unit, F to_value) {
  if (!samples.rounds.empty() && samples.rounds.size() != seconds.size())
    throw std::invalid_argument("mapped_metric: rounds and seconds differ in length");
  Metric m{std::move(name), std::move(unit), {}, {}};
  std::vector<double> all;
  all.reserve(seconds.size());
  for (std::size_t i = 0; i < seconds.size(); ++i) {
    const double value = to_value(seconds[i]);
    const std::size_t round = samples.rounds.empty() ? 0 : samples.rounds[i];
    if (m.samples.size() <= round) m.samples.resize(round + 1);
    m.samples[round].push_back(value);
    all.push_back(value);
  }
  m.stats = statistics_of(all);
  weigh_rounds_equally(m);
  return m;
}

}  // namespace gpuprobe
