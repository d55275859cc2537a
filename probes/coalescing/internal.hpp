// coalescing's analysis internals (host-only): what analysis.cpp and findings.cpp share, the
// measured rows read by name, their offset classes, and the finding builders.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "analysis.hpp"
#include "gpuprobe/core/counter_agreement.hpp"
#include "gpuprobe/core/finding_def.hpp"

namespace gpuprobe::coalescing {

// Measured / DRAM model below this: the finding says the model no longer explains the loss.
inline constexpr double kModelShortfall = 0.9;
inline constexpr double kInf = std::numeric_limits<double>::infinity();

// A measured row, read by name.
struct Measured {
  Row* row;
  CopyPattern pattern;
  int width;
  std::uint64_t param;
  const Metric* bandwidth;
  double median_gbps;
  models::CopyPrediction model;
  std::optional<double> working_set_over_l2;
  std::optional<double> relative;  // nullopt: no baseline row of the same pattern and width
};

// Useful bytes one warp moves: 32 elements read and 32 written.
inline double useful_bytes_per_warp(int width) {
  return 2.0 * models::kWarpLanes * width;
}

// DRAM bytes per second the measurement implies if the DRAM model's traffic is right.
inline double implied_dram_gbps(const Measured& m) {
  return m.median_gbps * m.model.dram_bytes_per_warp / useful_bytes_per_warp(m.width);
}

template <typename F>
double mean_of(const std::vector<const Measured*>& v, F f) {
  double sum = 0;
  for (const auto* m : v)
    sum += f(*m);
  return sum / static_cast<double>(v.size());
}

// A point's measured relative bandwidth (0 without a baseline), and the two models'.
inline double rel(const Measured& m) {
  return m.relative.value_or(0);
}
inline double model_rel(const Measured& m) {
  return m.model.predicted_relative_bandwidth;
}
inline double dram_rel(const Measured& m) {
  return m.model.predicted_relative_bandwidth_dram;
}

// Pattern, width and offset|stride of a row, from its params.
struct Key {
  CopyPattern pattern;
  int width;
  std::uint64_t param;
};
Key row_key(const Row& row);
Param width_param(int width);

// Non-zero offsets of one width that touch the same sectors and lines per warp load.
struct OffsetClass {
  double sectors = 0;
  double lines = 0;
  std::vector<const Measured*> members;
};

// The offsets of one width grouped by the (sectors, lines) of their warp loads, beside offset
// 0's (the baseline's) sectors and lines.
struct OffsetClasses {
  std::map<std::pair<double, double>, OffsetClass> classes;  // non-zero offsets only
  const Measured* zero = nullptr;                            // offset 0, when measured
  double bs = 0;                                             // sectors of offset 0
  double bl = 0;                                             // lines of offset 0
};

// Each offset class's measured mean, and the measured cost of one more sector (same lines) or
// line (same sectors). `c` must hold a class.
void offset_findings(int w, OffsetClasses c, int fetch, std::vector<Finding>& out);
// Headline strides of one width beside both models, and where the measurement leaves the
// DRAM model.
void stride_findings(int w, std::vector<const Measured*> group, int fetch,
                     std::vector<Finding>& out);
// The warning that a (pattern, width) has no baseline row.
Finding no_baseline_warning(CopyPattern pattern, int w);
// The counter agreements' findings.
extern const CounterAgreementMaker kCounterLoadSectors;
extern const CounterAgreementMaker kCounterStoreSectors;
extern const CounterAgreementMaker kCounterL2Sectors;
extern const CounterAgreementMaker kCounterDramRead;
extern const CounterAgreementMaker kCounterDramWrite;
// The worst and best points, and the DRAM traffic each point implies (none without rows).
void extreme_findings(const std::vector<Measured>& measured, const RunFacts& facts,
                      std::vector<Finding>& out);
// The notes: the sizing (from what the probe decided) and the model's fetch block, "offset 0 was
// not asked for" (from the rows' `baseline` flags), what the model and implied_dram_bandwidth mean.
void note_findings(const ProbeResult& result, const RunFacts& facts, std::optional<double> min_ws,
                   std::vector<Finding>& out);

}  // namespace gpuprobe::coalescing
