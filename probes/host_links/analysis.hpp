// host-links' analysis (host-only, tested in CI): a concurrent operation's samples split per GPU,
// and measured rows -> each GPU's slowdown under contention, the aggregate, a host link slower
// than its siblings', as findings; and its words.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gpuprobe/core/glossary.hpp"
#include "gpuprobe/core/result.hpp"
#include "gpuprobe/core/samples.hpp"

namespace gpuprobe::host_links {

// The name of GPU `gpu`'s lane in `direction` ("h2d", "d2h") of an operation that spans GPUs:
// "gpu3 h2d".
std::string lane_name(int gpu, const std::string& direction);

// One GPU's share of an operation whose lanes are named by lane_name: its lanes (renamed to the
// bare direction, "h2d"), and per sample its longest lane as its time (each lane is timed on its
// own GPU from that GPU's start). The rounds and flags stay; no counters. Throws
// std::invalid_argument when the operation has no lane of that GPU.
SampleSet gpu_samples(const SampleSet& all, int gpu);

// The fixed margin below which two GPUs' solo bandwidths count as alike even without noise:
// compare's default "same" margin.
inline constexpr double kAlikeWithin = 0.02;

// Reads the measured rows (params gpu (an integer, or "all" for the aggregate), direction, bytes,
// mode "solo" or "concurrent"; metric bandwidth; model raw_limit) and adds:
// - on each concurrent row: derived solo_bandwidth, slowdown (solo / concurrent bandwidth, x),
//   loss (1 - concurrent / solo, %); on the aggregate row solo_sum (the solo bandwidths summed)
//   and loss against it; on every row fraction_of_raw where the model has a raw limit;
// - per (direction, bytes) with two GPUs or more: host_links_slow_link for each GPU whose solo
//   bandwidth lies below the median of the others' by more than the margin (the others' range,
//   3x the larger relative noise, kAlikeWithin), else host_links_links_alike;
//   host_links_concurrent_loss with the aggregate, the sum of solos, the loss, and each GPU's loss;
// - host_links_one_gpu (a note) when only one GPU was measured.
void analyse(ProbeResult& result);

// The solo medians of `others` and the verdict on `bandwidth` against them (exposed for tests).
struct SlowLinkDecision {
  bool slow = false;
  double others_median = 0;
  double margin = 0;  // GB/s below others_median that still counts as alike
};
// `noise`: the relative noise (stdev / mean) of the GPU's own metric; `others_noise` the largest
// of the others'. Needs at least one other value.
SlowLinkDecision decide_slow_link(double bandwidth, double noise, const std::vector<double>& others,
                                  double others_noise);

// The findings' sentences and the columns' short headers.
void add_words(Glossary& glossary);

}  // namespace gpuprobe::host_links
