// Turning timing samples into the time and bandwidth metrics of a result row.
#include "gpuprobe/core/samples.hpp"

#include <algorithm>

namespace gpuprobe {

double SampleSet::total_bytes() const {
  double total = 0;
  for (const auto& lane : lanes)
    total += lane.bytes;
  return total;
}

void SampleSet::add(std::uint32_t round, double seconds_per_rep,
                    std::span<const double> lane_seconds) {
  if (rounds.size() < seconds.size()) rounds.resize(seconds.size(), 0);
  seconds.push_back(seconds_per_rep);
  rounds.push_back(round);
  for (std::size_t i = 0; i < lanes.size() && i < lane_seconds.size(); ++i)
    lanes[i].seconds.push_back(lane_seconds[i]);
}

Metric time_metric(const SampleSet& samples, const std::string& name) {
  return mapped_metric(samples, samples.seconds, name, "s", [](double s) { return s; });
}

Metric bandwidth_metric(const SampleSet& samples, const std::string& name) {
  const double bytes = samples.total_bytes();
  return mapped_metric(samples, samples.seconds, name, "GB/s",
                       [bytes](double s) { return bytes / s / kBytesPerGB; });
}

Metric lane_bandwidth_metric(const SampleSet& samples, std::size_t lane) {
  const LaneSamples& l = samples.lanes.at(lane);
  const double bytes = l.bytes;
  return mapped_metric(samples, l.seconds, "bandwidth_" + l.name, "GB/s",
                       [bytes](double s) { return bytes / s / kBytesPerGB; });
}

SampleSet lanes_subset(const SampleSet& samples, std::span<const std::size_t> lanes) {
  SampleSet out;
  out.rounds = samples.rounds;
  out.flags = samples.flags;
  for (const std::size_t lane : lanes)
    out.lanes.push_back(samples.lanes.at(lane));
  for (std::size_t i = 0; i < samples.seconds.size(); ++i) {
    double longest = 0;
    for (const LaneSamples& lane : out.lanes)
      longest = std::max(longest, lane.seconds.at(i));
    out.seconds.push_back(longest);
  }
  return out;
}

Metric lane_time_metric(const SampleSet& samples, std::size_t lane) {
  const LaneSamples& l = samples.lanes.at(lane);
  return mapped_metric(samples, l.seconds, "time_" + l.name, "s", [](double s) { return s; });
}

Row measured_row(std::vector<Param> params, const SampleSet& samples) {
  Row row;
  row.params = std::move(params);
  row.metrics.push_back(bandwidth_metric(samples));
  row.metrics.push_back(time_metric(samples));
  row.flags = samples.flags;
  row.counters = samples.counters;
  return row;
}

void weigh_rounds_equally(Metric& metric) {
  std::vector<double> medians;
  for (const auto& round : metric.samples) {
    if (!round.empty()) medians.push_back(statistics_of(round).median);
  }
  if (medians.size() >= 3) metric.stats.median = statistics_of(medians).median;
}

double between_round_spread(const SampleSet& samples) {
  if (samples.seconds.empty()) return 0;
  const Metric time = time_metric(samples);
  return round_spread(time).value_or(0);
}

std::optional<double> round_spread(const Metric& metric) {
  std::vector<double> medians;
  for (const auto& round : metric.samples) {
    if (!round.empty()) medians.push_back(statistics_of(round).median);
  }
  if (medians.size() < 2 || metric.stats.median == 0) return std::nullopt;
  const auto [lo, hi] = std::minmax_element(medians.begin(), medians.end());
  return (*hi - *lo) / metric.stats.median;
}

}  // namespace gpuprobe
