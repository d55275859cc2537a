// The l2-persist model: persisting fraction, over-commit, expected hot hit share, sweep sizes.
#include "gpuprobe/models/l2_persist_model.hpp"

#include <algorithm>

namespace gpuprobe::models {

PersistPrediction predict_persisting(std::uint64_t set_aside, double hit_ratio,
                                     std::uint64_t window, std::uint64_t hot) {
  PersistPrediction p;
  const double tagged = std::clamp(hit_ratio, 0.0, 1.0) * static_cast<double>(window);
  const auto aside = static_cast<double>(set_aside);
  p.persisting_fraction = tagged > 0 ? std::min(1.0, aside / tagged) : 1.0;
  p.overcommit = tagged > aside;
  p.hot_hit_share = hot > 0 ? std::min(tagged, aside) / static_cast<double>(hot) : 0.0;
  return p;
}

double tuned_hit_ratio(std::uint64_t set_aside, std::uint64_t window) {
  if (window == 0) return 1.0;
  return std::clamp(static_cast<double>(set_aside) / static_cast<double>(window), 0.0, 1.0);
}

std::uint64_t percent_of(std::uint64_t percent, std::uint64_t max_bytes, std::uint64_t quantum) {
  const std::uint64_t bytes = max_bytes / 100 * percent + max_bytes % 100 * percent / 100;
  return bytes / quantum * quantum;
}

std::uint64_t window_bytes(std::uint64_t hot, std::uint64_t max_window) {
  return max_window > 0 ? std::min(hot, max_window) : hot;
}

}  // namespace gpuprobe::models
