// peer's sweep (host-only): the pair sweep's points and the latency chain's arithmetic.
#include "sweep.hpp"

#include <bit>

#include "analysis.hpp"

namespace gpuprobe::peer {

std::vector<Point> pair_sweep(const std::vector<int>& devices,
                              const std::vector<std::string>& modes,
                              const std::vector<std::string>& directions,
                              const std::vector<std::uint64_t>& sizes) {
  std::vector<Point> points;
  for (const auto& [src, dst] : ordered_pairs(devices))
    for (const auto& mode : modes)
      for (const auto& dir : directions) {
        if (mode == "sm-latency" && dir == "bidir") continue;
        for (const auto bytes : sizes)
          points.push_back({src, dst, mode, dir, bytes});
      }
  return points;
}

int executing_gpu(const std::string& mode, int from, int to) {
  return mode == "sm-write" || mode == "ce-write" ? from : to;
}

std::uint64_t chase_nodes(std::uint64_t bytes) {
  const std::uint64_t slots = bytes / kChaseSlot;
  return slots == 0 ? 1 : std::bit_floor(slots);
}

std::uint64_t chase_end(std::uint64_t hops, std::uint64_t nodes) {
  std::uint64_t node = 0;
  for (std::uint64_t i = 0; i < hops; ++i)
    node = chase_next(node, nodes);
  return node;
}

}  // namespace gpuprobe::peer
