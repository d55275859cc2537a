// transfer's analysis (host-only, tested in CI): measured rows -> latency/bandwidth fits, the
// fit beside every row, pinned/pageable ratios, findings (analysis.cpp); and its words (words.cpp).
#pragma once

#include <string>

#include "gpuprobe/core/glossary.hpp"
#include "gpuprobe/core/pcie_counters.hpp"
#include "gpuprobe/core/result.hpp"

namespace gpuprobe::transfer {

// The counters it collects: the PCIe bytes of one repetition (one cudaMemcpyAsync per lane),
// read and write.
inline constexpr auto kCounterMetrics = kPcieCounters;

// The PCIe link as the device reports it (0 when unknown).
struct Link {
  double gts_per_lane = 0;
  int width = 0;
};

// Reads the measured rows of `result` (params memory, direction, bytes; metrics bandwidth and
// time, per row) and adds: the fit's prediction to each row's model, one summary row per
// (memory, direction) with the fit, the ratio of each memory kind to pageable at the largest
// size, the findings, and the link condition.
void analyse(ProbeResult& result, const Link& link);

// The findings' sentences and the columns' short headers.
void add_words(Glossary& glossary);

}  // namespace gpuprobe::transfer
