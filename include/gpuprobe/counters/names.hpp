// Metric-name text helpers with no CUPTI: splitting names, edit distance, nearest names.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace gpuprobe::counters {

// A metric name split into its base metric and the rollup/submetric suffix, e.g.
// "dram__bytes_read.sum.per_second" -> {"dram__bytes_read", ".sum.per_second"}. Base names
// may carry a dotted prefix ("PCI.TriageCompute.pcie__read_bytes"): the suffix starts at the
// first '.' after the "__" that separates unit and counter. suffix is empty when there is none.
struct MetricNameParts {
  std::string base;
  std::string suffix;
};
MetricNameParts split_metric_name(std::string_view name);

// Levenshtein distance (insertions, deletions, substitutions each cost 1).
std::size_t edit_distance(std::string_view a, std::string_view b);

// Up to `count` candidates nearest to `wanted` by edit distance (ties: shorter first, then
// alphabetical). Candidates sharing no prefix and farther than half of `wanted`'s length are
// left out, so nonsense input gets no suggestion rather than a random one.
std::vector<std::string> nearest_names(std::string_view wanted,
                                       const std::vector<std::string>& candidates,
                                       std::size_t count = 3);

// DRAM bytes written, and the prefix of its value in an operation's write-back range (the DRAM
// writes of the lines the operation left dirty in the L2; runtime::Operation::count_write_back).
inline constexpr std::string_view kDramWriteBytes = "dram__bytes_write.sum";
inline constexpr std::string_view kWriteBackPrefix = "write_back.";

// The longest counter range name a session accepts. On the H100 (CUDA 13.0, driver 580) ranges
// whose names had 61 characters or more came back missing from the counter data (54 were kept),
// and a sweep with 64-character names crashed inside CUPTI: 48 leaves a margin.
inline constexpr std::size_t kMaxRangeNameLength = 48;

// A range's name: "<index> <label>" ("point" for an empty label), '/' (CUPTI's separator)
// replaced by '-', cut to kMaxRangeNameLength; the index in front keeps it unique.
std::string range_name(std::size_t index, std::string_view label);

// True for hardware units whose counters are device-wide (PCIe, NVLink, chip-to-chip) and so
// need a configuration of their own ("pcie", "nvlrx", "nvltx", "ctc").
bool is_device_scope_unit(std::string_view hw_unit);

}  // namespace gpuprobe::counters
