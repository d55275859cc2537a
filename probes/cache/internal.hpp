// cache's analysis internals (host-only): the curves analysis.cpp derives and findings.cpp turns
// into findings.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analysis.hpp"
#include "gpuprobe/core/finding_def.hpp"

namespace gpuprobe::cache {

// The share of the L2 a working set stays resident in: Hopper's L2 is two partitions, and the
// H100's measured knees fall at 42-58 MiB of its 50 MiB (docs/probes/cache.md); a plateau that
// starts beyond 3/4 of the L2 is DRAM's.
inline constexpr double kL2Resident = 0.75;

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

// The level a plateau's sizes put it at, from its smallest core size (the level that size is
// served from holds the rest of the plateau too): shared for shared memory; sm reads and copies:
// L1 when it is below the SM's L1 capacity, else L2; sm writes (write-through, each SM a set of
// its own): L2 when SMs x it is below kL2Resident of the L2 size, else DRAM; device: L2 when it is
// below kL2Resident of the L2 size, else DRAM.
std::string size_level(const std::string& scope, const std::string& op, double from_bytes,
                       double to_bytes, const RunFacts& facts);
// The level the counters say served the bytes: DRAM when DRAM moved at least half the bytes the
// kernel did, else L1 when at least half the global load sectors hit L1, else L2.
std::string counter_level(std::optional<double> l1_hit, std::optional<double> dram_per_byte);

void add_findings(ProbeResult& result, const std::vector<Curve>& curves, const RunFacts& facts);
const FindingList& finding_list();

}  // namespace gpuprobe::cache
