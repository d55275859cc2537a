// Comparing two runs: rows matched by probe, device pairing and params; B/A and a verdict per
// metric.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "gpuprobe/core/result.hpp"

namespace gpuprobe {

// The relative noise band never goes below this (0.5%): two medians closer than that are
// "same" even when both runs were perfectly quiet.
inline constexpr double kCompareNoiseFloor = 0.005;

// A device in file A compared with a device in file B (`--devices 0:1`).
struct DevicePair {
  int a = 0;
  int b = 0;
  bool operator==(const DevicePair&) const = default;
};

struct CompareOptions {
  // Metrics to compare; empty: every metric present in both rows of a matched pair.
  std::vector<std::string> metrics;
  // Percent; a "slower" comparison beyond it is a regression (flagged, and the CLI exits 4).
  // nullopt: no check; nothing is called a regression.
  std::optional<double> fail_on_regression;
  double noise_k = 3;  // noise band = K x the larger relative noise of the two medians
  // Explicit pairs; empty: device i in A is compared with device i in B.
  std::vector<DevicePair> devices;
  // How the two inputs are named in notes and the method line (file names).
  std::string a_name = "A";
  std::string b_name = "B";
};

// Which way is better for a metric, from its unit: "s" (time) lower is better; units with
// "/s" (bandwidth, rates) higher is better; anything else has no direction.
enum class Direction { kLowerIsBetter, kHigherIsBetter, kNone };
Direction metric_direction(const std::string& unit);

// kUndefined: the ratio cannot be formed (A's median is zero, negative or not finite).
enum class Verdict { kSame, kFaster, kSlower, kHigher, kLower, kUndefined };
const char* verdict_name(Verdict verdict) noexcept;  // "same", "faster", ..., "n/a"

// One metric of one matched row, A against B.
struct MetricComparison {
  double a = 0;                 // A's median
  double b = 0;                 // B's median
  std::optional<double> ratio;  // b / a
  double band = 0;              // relative noise band used: max(floor, K x max(rel_noise))
  Verdict verdict = Verdict::kUndefined;
  bool regression = false;  // slower, and |ratio - 1| beyond the threshold
};

// Classifies B against A. threshold_pct: a slower result whose |ratio - 1| exceeds it (in
// percent) is a regression; nullopt: none is.
MetricComparison compare_metric(const Metric& a, const Metric& b, double noise_k,
                                std::optional<double> threshold_pct);

// A comparison worth reporting on its own (a regression, or an improvement).
struct RowChange {
  std::string probe;
  DevicePair devices;
  std::string params;  // "memory=pinned direction=h2d bytes=67108864"
  std::string metric;
  std::string unit;
  MetricComparison comparison;
};

struct CompareOutcome {
  // One result per (probe, device pair, metric) named "compare <probe>", then one result
  // "compare" carrying the summary per probe, the verdict lines and the notes.
  RunReport report;
  std::size_t matched_rows = 0;
  std::size_t comparisons = 0;  // matched rows x compared metrics
  std::size_t unmatched_a = 0;  // rows only in A (among the compared device pairs)
  std::size_t unmatched_b = 0;
  std::size_t same = 0, faster = 0, slower = 0, higher = 0, lower = 0, undefined = 0;
  std::optional<double> threshold_pct;  // --fail-on-regression
  // Regressions beyond the threshold, worst first (empty without a threshold).
  std::vector<RowChange> regressions;
  std::vector<RowChange> slowdowns;     // every "slower" comparison, worst first
  std::vector<RowChange> improvements;  // every "faster" comparison, best first
};

// Compares B with A. Throws UsageError when a device pair names a GPU a file has no results
// for, when a requested metric appears in no matched row, and when no row matches at all.
CompareOutcome compare_reports(const RunReport& a, const RunReport& b,
                               const CompareOptions& options);

// The one stderr line for a failed check:
// "N regression(s) beyond X%: worst <probe> <params> <metric> <ratio>".
std::string regression_summary(const CompareOutcome& outcome);

// Parses "--devices" text: "0:1" or a list "0:1,2:3". Throws UsageError quoting the text.
std::vector<DevicePair> parse_device_pairs(const std::string& text);

// Parses a percentage for --fail-on-regression: "5", "5%", "2.5". Throws UsageError for
// negative, non-finite or non-numeric text.
double parse_percent(const std::string& flag, const std::string& text);

}  // namespace gpuprobe
