// What overlap's analysis and findings share: one (memory, workload) pipeline and its rows.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "gpuprobe/core/finding_def.hpp"
#include "gpuprobe/core/result.hpp"
#include "gpuprobe/models/overlap_model.hpp"

namespace gpuprobe::overlap {

// The model's tolerance for the staged runs (acceptance of the probe: within 15 %), the margin
// that names the smallest stream count "as good as the best", and the one for "differ".
inline constexpr double kModelTolerance = 0.15;
inline constexpr double kNearBest = 0.05;
inline constexpr double kDiffer = 0.05;
// The stream counts the model is held to; beyond them departures are reported, not judged.
inline constexpr std::size_t kModelRangeLow = 2;
inline constexpr std::size_t kModelRangeHigh = 16;

// One staged (or sequential) row with what the analysis derived for it.
struct Staged {
  Row* row = nullptr;
  std::string order;  // "" for the sequential row
  std::size_t streams = 1;
  double time = 0;        // median, s
  double concurrent = 0;  // concurrent-rate model, s
  double speedup = 0;     // sequential / this (medians)
  double speedup_low = 0;
  double speedup_high = 0;
};

// One pipeline: a memory kind and a workload, its stage times and runs.
struct Pipeline {
  std::string memory;
  std::string workload;
  models::StageTimes solo;
  models::StageTimes both;  // copies measured at once (kernel as solo)
  models::ChunkCosts costs;
  double sequential = 0;       // measured median, s
  std::vector<Staged> staged;  // sequential first, then the staged rows in row order
};

// Adds the findings of every pipeline, the copies' concurrency and the engines to the result.
void add_findings(ProbeResult& result, const std::vector<Pipeline>& pipelines);
// One note per stream of the timeline summary rows, when there are any.
void add_timeline_findings(ProbeResult& result);

}  // namespace gpuprobe::overlap
