// cache's analysis internals (host-only): the curves analysis.cpp derives and findings.cpp turns
// into findings.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analysis.hpp"
#include "gpuprobe/core/finding_def.hpp"

namespace gpuprobe::cache {

// A plateau with its level: named from its sizes (`level`) and, with counters, from where its
// bytes came (`counter_level`, "" without counters).
struct Level {
  Plateau plateau;
  double from_bytes = 0;
  double to_bytes = 0;
  std::string level;          // shared, L1, L2, DRAM (a repeated name gets "#2")
  std::string counter_level;  // L1, L2, DRAM; "" without counters
  std::optional<double> l1_hit, l2_hit, dram_per_byte;  // means over the core sizes
  std::optional<double> model_gbps;                     // the peak beside it, where one applies
};

struct Knee {
  std::string from, to;  // the levels on either side
  double bytes = 0;
  double from_gbps = 0, to_gbps = 0;
};

// One (scope, op) curve, sorted by size.
struct Curve {
  std::string scope, op;
  std::vector<Row*> rows;
  std::vector<CurvePoint> points;
  std::vector<Level> levels;
  std::vector<Knee> knees;
};

// The level a plateau's sizes put it at: shared for shared memory; sm reads and copies: L1 while
// the largest core size fits the SM's L1 capacity, else L2; sm writes (write-through, each SM a
// set of its own): L2 while SMs x the smallest core size is below the L2 size, else DRAM; device:
// L2 while the smallest core size is below the L2 size, else DRAM.
std::string size_level(const std::string& scope, const std::string& op, double from_bytes,
                       double to_bytes, const RunFacts& facts);
// The level the counters say served the bytes: DRAM when DRAM moved at least half the bytes the
// kernel did, else L1 when at least half the global load sectors hit L1, else L2.
std::string counter_level(std::optional<double> l1_hit, std::optional<double> dram_per_byte);

void add_findings(ProbeResult& result, const std::vector<Curve>& curves, const RunFacts& facts);
const FindingList& finding_list();

}  // namespace gpuprobe::cache
