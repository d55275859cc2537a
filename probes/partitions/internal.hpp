// partitions' analysis internals (host-only): the rows read by name and the comparisons
// analysis.cpp derives and findings.cpp turns into findings.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analysis.hpp"
#include "gpuprobe/core/compare_classify.hpp"
#include "gpuprobe/core/finding_def.hpp"

namespace gpuprobe::partitions {

// One stride row, read by name.
struct StrideRow {
  Row* row = nullptr;
  std::string order;
  std::int64_t pad = 0, stride = 0;
  const Metric* bandwidth = nullptr;
  double streams = 0;
  double gt200_slowdown = 0;  // model
};

// One transpose row.
struct TransposeRow {
  Row* row = nullptr;
  std::string order;
  std::int64_t n = 0;
  const Metric* bandwidth = nullptr;
  double gt200_slowdown = 0, gt200_write = 0;  // model
};

// Two rows of the same kind compared: `b` against `a` (compare's rule: b / a, its change and
// the smallest change it could have called).
struct Pair {
  std::size_t a = 0, b = 0;  // indices into the rows
  ValueComparison cmp;
};

// What the analysis derived: the rows, each aligned stride against its padded companion (per
// order), scatter against row order at each (stride, pad), diagonal against row per side.
struct Derived {
  std::vector<StrideRow> strides;
  std::vector<TransposeRow> transposes;
  std::vector<Pair> padding;    // a: padded, b: aligned
  std::vector<Pair> orders;     // a: row, b: scatter
  std::vector<Pair> diagonals;  // a: row, b: diagonal (transposes)
  std::string counters;         // kPerSlice, kTotals or kNone
};
inline constexpr const char* kPerSlice = "per-slice";
inline constexpr const char* kTotals = "totals";
inline constexpr const char* kNone = "none";

// compare's band width for metrics without samples, as decide.hpp's order_of uses it.
inline constexpr double kNoiseK = 3.0;

void add_findings(ProbeResult& result, const Derived& d);
const FindingList& finding_list();

}  // namespace gpuprobe::partitions
