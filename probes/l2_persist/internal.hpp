// l2-persist's analysis internals (host-only): what analysis.cpp and findings.cpp share, the
// measured rows read by name and the finding builders.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis.hpp"
#include "gpuprobe/core/counter_agreement.hpp"
#include "gpuprobe/core/finding_def.hpp"

namespace gpuprobe::l2_persist {

// A measured row, read by name, with what the analysis derived for it.
struct Point {
  Row* row = nullptr;
  std::string workload;
  std::string window;
  std::uint64_t set_aside = 0;
  std::uint64_t hot = 0;
  std::optional<double> hit_ratio;  // nullopt: no window
  bool tuned = false;
  std::optional<double> hot_time;  // s
  std::optional<double> speedup;   // baseline hot_time / hot_time
  std::optional<double> speedup_low;
  std::optional<double> speedup_high;
  // Counters, over the hot kernels (phases) or the kernel (bpg): share of reads L2 served (1 -
  // DRAM read bytes / bytes read), share that hit the first L2 slice asked, DRAM bytes per kernel.
  std::optional<double> hit_share;
  std::optional<double> near_hit_share;
  std::optional<double> dram_bytes;
  std::optional<double> loop_speedup;  // phases: baseline repetition / this repetition
};

// The verdicts of the sweep (effect per hot size, best setting, over-commit, tuned hitRatio,
// the after-sweep check) from the derived points, and the note on the method.
void sweep_findings(const std::vector<Point>& points, const RunFacts& facts,
                    std::vector<Finding>& out);

// The counter agreements' findings.
extern const CounterAgreementMaker kCounterHotHits;
extern const CounterAgreementMaker kCounterHotReads;

}  // namespace gpuprobe::l2_persist
