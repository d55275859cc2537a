// latency's analysis internals (host-only): what analysis.cpp and findings.cpp share, the chase
// rows read by name, the series they form and the finding builders.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "analysis.hpp"
#include "gpuprobe/core/finding_def.hpp"

namespace gpuprobe::latency {

// What the counters can say served a plateau (served_by).
inline constexpr const char* kServedL1 = "L1";
inline constexpr const char* kServedL2 = "L2";
inline constexpr const char* kServedDram = "DRAM";
inline constexpr const char* kNotCollected = "no counters";
// The hierarchy's order of those, fastest first (-1 for kNotCollected).
int served_rank(const std::string& level);

// A chase row read by name.
struct ChaseRow {
  Row* row = nullptr;
  std::uint64_t stride = 0;
  std::uint64_t carveout = 0;
  std::uint64_t bytes = 0;
  double cycles = 0;
  std::optional<double> clock_mhz;
  std::optional<Served> served;
};

// The chase rows of one (stride, carve-out), in working-set order, and the levels found in them.
struct Series {
  std::uint64_t stride = 0;
  std::uint64_t carveout = 0;
  std::vector<const ChaseRow*> rows;
  std::vector<Level> levels;
  bool pages() const { return stride >= kPageStrideFrom; }
};

// Reads the chase rows and adds the counters' per-access values to them (derived).
std::vector<ChaseRow> read_chase_rows(ProbeResult& result, const RunFacts& facts);
std::vector<Series> make_series(const std::vector<ChaseRow>& rows);
// The run's SM clock: the median of the rows' clocks (MHz); 0 when no row has one.
double run_clock(const std::vector<ChaseRow>& rows);

// The findings (findings.cpp).
const FindingList& finding_list();
void add_series_findings(const std::vector<Series>& series, const RunFacts& facts, double clock,
                         std::vector<Finding>& out);
void add_trace_findings(const ProbeResult& result, double clock, std::vector<Finding>& out);

}  // namespace gpuprobe::latency
