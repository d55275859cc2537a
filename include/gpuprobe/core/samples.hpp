// Timing samples of one measured operation, and the metrics (time, bandwidth) made from them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
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
// operation and for each lane, and the round each sample was taken in.
struct SampleSet {
  std::vector<double> seconds;
  // rounds[i]: the round sample i was taken in (0-based; see MeasureOptions::rounds). Same length
  // as `seconds`, or empty when every sample belongs to round 0.
  std::vector<std::uint32_t> rounds;
  std::vector<LaneSamples> lanes;
  std::vector<std::string> flags;  // "noisy", "gate-timeout", ...
  // Hardware counters from the counter pass that followed the timing (one repetition per
  // replay pass, metric by metric); nullopt when no counter pass ran. Goes into Row::counters.
  std::optional<std::vector<Quantity>> counters;

  double total_bytes() const;
  // Appends one sample taken in `round`: seconds per repetition for the operation and per lane.
  void add(std::uint32_t round, double seconds_per_rep, std::span<const double> lane_seconds);
};

// GB/s is 1e9 bytes per second throughout gpuprobe.
inline constexpr double kBytesPerGB = 1e9;

// With three rounds of samples or more, sets the metric's median to the median of its rounds'
// medians: each round counts as one share, however many samples its stopping rule took. A round
// that fell into a slow stretch is also a noisy one and samples longest, so the median of all
// samples would follow it (H100, overlap 16 streams: a round at 981 us with 15 samples, four at
// 846-853 us with 2 each: 978 us over all samples, 852 us over the rounds). The other
// statistics stay those of all samples.
void weigh_rounds_equally(Metric& metric);

// A metric over per-sample seconds mapped through `to_value` (seconds -> the metric's unit):
// statistics over every sample (the median over the rounds: weigh_rounds_equally), and the raw
// values grouped by the rounds of `samples`.
// `seconds` is samples.seconds or one lane's seconds (same indexing). Throws
// std::invalid_argument on no samples or non-finite values.
template <typename F>
Metric mapped_metric(const SampleSet& samples, std::span<const double> seconds, std::string name,
                     std::string unit, F to_value);

// "time" in s over the operation's samples.
Metric time_metric(const SampleSet& samples, const std::string& name = "time");
// "bandwidth" in GB/s: the operation's bytes (all lanes) / seconds for each sample, summarised.
Metric bandwidth_metric(const SampleSet& samples, const std::string& name = "bandwidth");
// "bandwidth_<lane name>" in GB/s: one lane's bytes over that lane's seconds.
Metric lane_bandwidth_metric(const SampleSet& samples, std::size_t lane);
// "time_<lane name>" in s: one lane's seconds (from the operation's common start to its end).
Metric lane_time_metric(const SampleSet& samples, std::size_t lane);

// Some of an operation's lanes (indices into samples.lanes) as an operation of their own: those
// lanes, and per sample the longest of them (the lanes start together); the operation's rounds
// and flags, no counters. One GPU's share of a run across GPUs, say.
SampleSet lanes_subset(const SampleSet& samples, std::span<const std::size_t> lanes);

// The row of one measured point: params, bandwidth and time, the sample flags and the counters.
Row measured_row(std::vector<Param> params, const SampleSet& samples);

// The spread between the medians of the rounds taken so far, relative to the median of all the
// samples (seconds): (largest round median - smallest) / median; 0 with fewer than two rounds.
// The harness stops a round's sampling early once the median is known better than half of it:
// more samples within a round cannot narrow what compare decides, which rests on the rounds.
double between_round_spread(const SampleSet& samples);

// The spread between the medians of a metric's rounds, relative to its median:
// (largest round median - smallest) / median. nullopt with fewer than two rounds of samples.
std::optional<double> round_spread(const Metric& metric);

}  // namespace gpuprobe

#include "gpuprobe/core/samples_inl.hpp"
