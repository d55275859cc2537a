// Turning timing samples into the time and bandwidth metrics of a result row.
#include "gpuprobe/core/samples.hpp"

namespace gpuprobe {

double SampleSet::total_bytes() const {
  double total = 0;
  for (const auto& lane : lanes)
    total += lane.bytes;
  return total;
}

Metric time_metric(const SampleSet& samples, const std::string& name) {
  return {name, "s", statistics_of(samples.seconds)};
}

Metric bandwidth_metric(const std::vector<double>& seconds, double bytes, const std::string& name) {
  return {name, "GB/s",
          statistics_of_mapped(seconds, [bytes](double s) { return bytes / s / kBytesPerGB; })};
}

}  // namespace gpuprobe
