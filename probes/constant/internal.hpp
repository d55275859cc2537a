// constant's analysis internals (host-only): the rows read by name, the chase series with their
// levels, and the finding builders analysis.cpp calls (findings.cpp).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "analysis.hpp"
#include "gpuprobe/core/counter_agreement.hpp"
#include "gpuprobe/core/finding_def.hpp"
#include "latency/analysis.hpp"

namespace gpuprobe::constant {

using models::LookupPath;

// A lookup row read by name (rate: its lookups/s metric).
struct Lookup {
  Row* row = nullptr;
  LookupPath path = LookupPath::kGlobal;
  int width = 0;
  int distinct = 0;
  std::uint64_t bytes = 0;
  const Metric* rate = nullptr;
};

// One path's chase rows in size order, ns per cycle of each, and the levels found in them.
struct ChaseSeries {
  LookupPath path = LookupPath::kGlobal;
  std::vector<latency::SeriesPoint> points;
  std::vector<double> ns_per_cycle;
  std::vector<latency::Level> levels;
};

const FindingList& finding_list();
CounterAgreementMaker requests_agreement();      // path requests per warp lookup
CounterAgreementMaker transactions_agreement();  // idc transactions per LDC / sectors per request

// The lookups' findings: broadcast against the most distinct addresses per (path, size) at the
// narrowest width, the winner at each (distinct, size), whether constant and texture beat plain
// loads (the textbook's advice) and where.
void add_lookup_findings(const std::vector<Lookup>& rows, std::vector<Finding>& out);
// One finding per level of each chase series.
void add_level_findings(const std::vector<ChaseSeries>& series, std::vector<Finding>& out);
void add_notes(const RunFacts& facts, std::vector<Finding>& out);

}  // namespace gpuprobe::constant
