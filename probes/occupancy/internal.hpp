// occupancy's analysis internals (host-only): each op's curve of bandwidth against bytes in flight
// per SM, its plateau and knees (analysis.cpp), which findings.cpp turns into findings.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analysis.hpp"
#include "gpuprobe/core/counter_agreement.hpp"
#include "gpuprobe/core/finding_def.hpp"

namespace gpuprobe::occupancy {

struct Sample {  // one row, read by name
  Row* row = nullptr;
  int warps = 0, ilp = 0, width = 0;
  double in_flight = 0;         // bytes per SM
  double registers_per_sm = 0;  // registers per thread x resident threads
  const Metric* bandwidth = nullptr;
  double gbps = 0;  // its median
};

// Where a curve first reaches `target` GB/s: the sample with the fewest bytes in flight at or over
// it (`first`), the best of those with the most bytes below it (`below`, absent when none), the
// crossing between them (linear in log bytes against bandwidth; else first's bytes).
struct Knee {
  double target = 0;  // GB/s
  std::optional<std::size_t> first, below;
  std::optional<double> bytes;
};

// One op's samples by bytes in flight (ties in row order), the plateau (median of the medians of
// the samples alike to the best within noise) and the knees at kKneeLevels.
struct Curve {
  std::string op;
  double counted = 1;  // bytes counted per byte in flight: copy 2 (reads in flight, both counted)
  int ilp0 = 0, width0 = 0;  // the smallest ILP and width swept: the warps route's
  std::vector<Sample> samples;
  std::vector<std::size_t> plateau_set;
  double plateau = 0;       // GB/s
  std::vector<Knee> knees;  // one per kKneeLevels
};

// How a sample puts its bytes in flight against ilp0/width0: warps, ILP, width, ILP and width.
std::string route_of(const Sample& s, int ilp0, int width0);
Knee knee_of(const std::vector<Sample>& samples, double target);
// Of the samples reaching `target` GB/s: the fewest warps (then registers), fewest registers/SM.
struct Cheapest {
  std::optional<std::size_t> fewest_warps, fewest_registers;
};
Cheapest cheapest(const std::vector<Sample>& samples, double target);
// The op's predicted knee (bytes per SM) at a level: Little's law at the unloaded latency.
double predicted_knee(const Curve& c, double level, const RunFacts& facts);

void add_findings(ProbeResult& result, const std::vector<Curve>& curves, const RunFacts& facts);
const FindingList& finding_list();
extern const CounterAgreementMaker kCounterOccupancy;
extern const CounterAgreementMaker kCounterDram;

}  // namespace gpuprobe::occupancy
