// transfer's analysis (host-only, tested in CI): measured rows -> latency/bandwidth fits, the
// fit beside every row, pinned/pageable ratios, findings (analysis.cpp); and its words (words.cpp).
#pragma once

#include <array>
#include <string>
#include <string_view>

#include "gpuprobe/core/glossary.hpp"
#include "gpuprobe/core/result.hpp"

namespace gpuprobe::transfer {

// The counters the probe collects (full CUPTI names): PCIe bytes, device-wide, over one
// repetition (one cudaMemcpyAsync per lane). kCounterMetrics lists them in the order asked for.
inline constexpr std::string_view kPcieRead = "pcie__read_bytes.sum";    // GPU read host memory
inline constexpr std::string_view kPcieWrite = "pcie__write_bytes.sum";  // GPU wrote host memory
inline constexpr std::array<std::string_view, 2> kCounterMetrics = {kPcieRead, kPcieWrite};

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
