// overlap's analysis (host-only, tested in CI): measured rows -> stage times, the pipeline
// models beside every sequential and staged row, speed-ups with intervals, efficiencies, summary
// and findings (analysis.cpp, findings.cpp); its words in findings.cpp.
#pragma once

#include <array>
#include <string_view>

#include "gpuprobe/core/glossary.hpp"
#include "gpuprobe/core/result.hpp"

namespace gpuprobe::overlap {

// PCIe bytes during one repetition (device-wide): read = the GPU read host memory (H2D),
// write = the GPU wrote host memory (D2H).
inline constexpr std::string_view kPcieRead = "pcie__read_bytes.sum";
inline constexpr std::string_view kPcieWrite = "pcie__write_bytes.sum";
inline constexpr std::array<std::string_view, 2> kCounterMetrics = {kPcieRead, kPcieWrite};

// Reads the measured rows (params memory, workload, run, order, streams, chunks; metric time,
// and time_h2d/time_d2h of the h2d+d2h rows) and adds: per sequential and staged row the model
// times and its speed-up over sequential with its interval, overlap efficiency and time over
// the concurrent-rate model; one summary row of stage times per (memory, workload); the
// findings. With `timeline_text`, one note per stream of the recorded timeline (summary rows
// with a `chunk` param), drawn as text.
void analyse(ProbeResult& result, bool timeline_text);

// The findings' sentences and the columns' short headers.
void add_words(Glossary& glossary);

}  // namespace gpuprobe::overlap
