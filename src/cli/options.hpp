// Global command-line options shared by every subcommand, and the stopping rule they make.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gpuprobe/core/stats.hpp"

namespace gpuprobe::cli {

struct GlobalOptions {
  std::string device = "0";
  std::string json_path, csv_path, md_path;
  std::optional<std::size_t> samples;
  std::optional<double> min_time;
  std::optional<std::string> max_noise;
  std::optional<double> max_time;
  std::optional<std::size_t> rounds;  // --rounds N
  std::optional<std::uint64_t> seed;  // --seed N: the round shuffles' seed
  bool quiet = false;
  bool no_color = false;
  bool wide = false;  // full column names, no legends, no wrapping
  bool plan = false;
  bool counters = true;                     // --counters / --no-counters
  std::vector<std::string> metrics;         // --metrics a,b,c: more counters for every probe
  std::optional<std::string> list_metrics;  // --list-metrics [FILTER]: "" lists everything
  std::vector<std::string> expect;          // --expect EXPR (repeatable)
  std::vector<std::string> expect_files;    // --expect-file FILE (repeatable)
};

// The stopping rule from the flags (defaults are the probe defaults or `all`'s quick ones).
// Throws UsageError for a bad --max-noise ("2%" or "0.02").
StoppingRule stopping_rule(const GlobalOptions& options, bool quick);

// Rounds per batch when --rounds is not given (docs/method.md says why five).
inline constexpr std::size_t kDefaultRounds = 5;

}  // namespace gpuprobe::cli
