// Timing samples of one measured operation, and the metrics (time, bandwidth) made from them.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "gpuprobe/core/result.hpp"
#include "gpuprobe/core/stats.hpp"

namespace gpuprobe {

// Samples of one lane (a stream of work inside an operation, e.g. the H2D half of a
// bidirectional copy). seconds[i] is the time per repetition in sample i.
struct LaneSamples {
  std::string name;
  double bytes = 0;  // bytes moved per repetition by this lane
  std::vector<double> seconds;
};

// What the runtime measured for one operation: per-repetition seconds for the whole
// operation and for each lane, how many repetitions each sample batched, and why it stopped.
struct SampleSet {
  std::vector<double> seconds;
  std::vector<LaneSamples> lanes;
  std::size_t reps_per_sample = 1;
  StopReason stop = StopReason::kConverged;
  std::vector<std::string> flags;  // "noisy", "gate-timeout", ...
  // Hardware counters from the counter pass that followed the timing (one repetition per
  // replay pass, metric by metric); nullopt when no counter pass ran. Goes into Row::counters.
  std::optional<std::vector<Quantity>> counters;

  double total_bytes() const;
};

// GB/s is 1e9 bytes per second throughout gpuprobe.
inline constexpr double kBytesPerGB = 1e9;

// "time" in s over the operation's samples.
Metric time_metric(const SampleSet& samples, const std::string& name = "time");
// "bandwidth" in GB/s: bytes / seconds for each sample, then summarised.
Metric bandwidth_metric(const std::vector<double>& seconds, double bytes,
                        const std::string& name = "bandwidth");

}  // namespace gpuprobe
