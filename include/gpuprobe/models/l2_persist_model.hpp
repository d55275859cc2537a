// The l2-persist model: how much of a hot region an access-policy window can keep in the
// persisting set-aside, and the sweep's sizes clamped to what the device allows.
#pragma once

#include <cstdint>
#include <optional>

namespace gpuprobe::models {

// What the window and set-aside predict for one hot region.
struct PersistPrediction {
  // Share of the lines the window tags persisting that fit in the set-aside:
  // min(1, set_aside / (hit_ratio x window)); 1 when nothing is tagged (hit_ratio x window 0).
  double persisting_fraction = 0;
  // hit_ratio x window > set_aside: the window tags more than the set-aside holds, so persisting
  // lines evict each other.
  bool overcommit = false;
  // Share of the hot region's reads expected to hit L2 once it is warm (after one pass under the
  // window): the persisting-tagged lines that fit, over the whole region:
  // min(hit_ratio x window, set_aside) / hot. 0 without a set-aside.
  double hot_hit_share = 0;
};

// set_aside, window and hot in bytes (window <= hot: the window covers the hot region's start);
// hit_ratio in [0, 1].
PersistPrediction predict_persisting(std::uint64_t set_aside, double hit_ratio,
                                     std::uint64_t window, std::uint64_t hot);

// The tuned hitRatio of the Best Practices Guide: set_aside / window, clamped to [0, 1]; 1 for an
// empty window.
double tuned_hit_ratio(std::uint64_t set_aside, std::uint64_t window);

// `percent` % of `max_bytes`, rounded down to a multiple of `quantum` (> 0).
std::uint64_t percent_of(std::uint64_t percent, std::uint64_t max_bytes, std::uint64_t quantum);

// The window over a hot region: the region, clamped to the device's maximum window.
std::uint64_t window_bytes(std::uint64_t hot, std::uint64_t max_window);

}  // namespace gpuprobe::models
