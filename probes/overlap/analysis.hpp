// overlap's analysis (host-only, tested in CI): measured rows -> stage times, the pipeline
// models beside every sequential and staged row, speed-ups with intervals, efficiencies, summary
// and findings (analysis.cpp, findings.cpp); its words in findings.cpp.
#pragma once

#include "gpuprobe/core/glossary.hpp"
#include "gpuprobe/core/pcie_counters.hpp"
#include "gpuprobe/core/result.hpp"

namespace gpuprobe::overlap {

// The counters it collects: the PCIe bytes of one repetition, read (H2D) and write (D2H).
inline constexpr auto kCounterMetrics = kPcieCounters;

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
