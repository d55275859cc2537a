// compare's statistics: the B/A ratio of two metrics' medians and its 95% confidence interval by
// a hierarchical bootstrap over rounds and samples (host-only, deterministic).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace gpuprobe {

// A metric's samples grouped by measurement round (Metric::samples): rounds[r] holds round r's
// values.
using SampleRounds = std::vector<std::vector<double>>;

// The bootstrap's fixed seed: compare's output depends on its inputs only, on every machine and
// standard library (a std::mt19937_64 is fully specified; indices are drawn from it by
// multiply-shift on 21-bit slices of its output, not by a library distribution).
inline constexpr std::uint64_t kBootstrapSeed = 0x67707072'6f626531ull;  // "gpprobe1"
inline constexpr std::size_t kBootstrapResamples = 2000;
inline constexpr double kIntervalLevel = 0.95;
// A side that pools several runs and at least this many rounds (13 runs of 5 rounds) is
// resampled by its rounds' medians, one value a round (see bootstrap_ratio): the cost of pooling
// many runs grows with their rounds, not with their samples.
inline constexpr std::size_t kRoundMediansFrom = 64;

struct BootstrapOptions {
  std::size_t resamples = kBootstrapResamples;
  std::uint64_t seed = kBootstrapSeed;
  double level = kIntervalLevel;  // central interval: percentiles (1 - level)/2 and (1 + level)/2
  // Threads for bootstrap_ratios (0: the machine's cores, at most 8). The results do not depend
  // on it.
  std::size_t threads = 0;
  // Runs (files) pooled on each side: the size of the run-level term (see bootstrap_ratio).
  std::size_t a_runs = 1;
  std::size_t b_runs = 1;
  // compare's interval: the run-level deviations centred on their mean, and the percentile
  // interval placed at the point ratio (ratio x [q_low / q_50, q_high / q_50]), so that
  // low <= ratio <= high always (see bootstrap_ratio). Off: the plain percentile interval the
  // probes' own decisions (decide.hpp, overlap's speed-up) were made and recorded with.
  bool centred = false;
};

// B against A for one metric.
struct RatioInterval {
  double a_median = 0;  // median of all of A's samples (every round pooled)
  double b_median = 0;
  double ratio = 0;  // b_median / a_median
  double low = 0;    // the interval of the ratio: percentiles of the resampled ratios
  double high = 0;
};

// The ratio of medians and its interval. Each resample draws, for each side, as many rounds as
// the side has, with replacement, then within each drawn round as many samples as it holds, with
// replacement, and takes the median of everything drawn; the resample's ratio is B's median over
// A's. Rounds are drawn as units because slow episodes are correlated within a round; a side
// with one round resamples its samples only. Empty rounds are ignored. A side that pools several
// runs and many rounds (kRoundMediansFrom) draws its rounds' medians instead, one value a round,
// and takes the median of those drawn: as wide as its rounds disagree, at the cost of its rounds,
// not its samples. The run-level term: a run's rounds span a few seconds, but the machine's level
// moves over seconds to minutes (docs/method.md: pageable copies 30% apart between runs minutes
// apart, each run consistent with itself), so the rounds of one run underestimate how far another
// run of the same build may land. Each resample therefore also moves each side's median by a level
// drawn from that side's own rounds: the mean, over the side's runs, of the log-deviation of a
// round median (drawn uniformly) from the pooled median (with options.centred: centred on the mean
// of those deviations). A run is thus taken as one more draw from the spread its rounds show, and
// pooling n runs shrinks the term as the mean of n draws. Stable metrics (rounds within 1%) are
// barely widened; volatile ones become inconclusive rather than falsely slower. A side with one
// round has no term. The interval is taken from the sorted resampled ratios by linear interpolation
// between order statistics; with options.centred, relative to their median and placed at the point
// ratio (ratio x [q_low / q_50, q_high / q_50]), so that low <= ratio <= high always. Every call
// starts from options.seed, so the same samples always give the same interval, whatever else is
// compared. nullopt when a side has no samples, a sample is not finite, A has a sample <= 0 or B a
// sample < 0 (no ratio can be formed from every resample).
std::optional<RatioInterval> bootstrap_ratio(const SampleRounds& a, const SampleRounds& b,
                                             const BootstrapOptions& options = {});

// Many metrics at once, each exactly as bootstrap_ratio would give it, spread over threads.
// The draws depend only on the sizes of the two sides' rounds, so metrics of the same shape (a
// row's bandwidth and time) share them: consecutive tasks of one shape are drawn once.
struct RatioTask {
  const SampleRounds* a = nullptr;
  const SampleRounds* b = nullptr;
  // Runs pooled into each side's samples of this metric (0: options.a_runs / b_runs). A row
  // that only some of a side's files hold counts only those.
  std::size_t a_runs = 0;
  std::size_t b_runs = 0;
};
std::vector<std::optional<RatioInterval>> bootstrap_ratios(std::span<const RatioTask> tasks,
                                                           const BootstrapOptions& options = {});

// The median of every value of every round (the mean of the two middle values for an even
// count, as statistics_of); nullopt when there are none.
std::optional<double> pooled_median(const SampleRounds& rounds);

}  // namespace gpuprobe
