// peer's sweep (host-only): the pair sweep's and the patterns' points, and where their copies go.
#include "sweep.hpp"

#include <algorithm>

#include "analysis.hpp"

namespace gpuprobe::peer {
namespace {

// The GPUs that have a pair: each device once, in list order; none for fewer than two.
std::vector<int> paired_gpus(const std::vector<int>& devices) {
  std::vector<int> out;
  for (const auto& [from, to] : ordered_pairs(devices))
    if (std::find(out.begin(), out.end(), from) == out.end()) out.push_back(from);
  return out;
}

}  // namespace

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

std::vector<PatternPoint> pattern_sweep(const std::vector<int>& devices,
                                        const std::vector<std::string>& patterns,
                                        const std::vector<std::string>& modes,
                                        const std::vector<std::uint64_t>& sizes) {
  std::vector<PatternPoint> points;
  const auto pairs = ordered_pairs(devices);
  for (const auto& pattern : patterns) {
    if (pattern == "pairs") continue;
    const std::vector<int> ones = pattern == "all-to-all" ? std::vector{-1} : paired_gpus(devices);
    for (const int one : ones)
      for (const auto& mode : modes) {
        if (mode != "ce" && mode != "ce-write") continue;
        for (const auto bytes : sizes) {
          PatternPoint p{pattern, one, mode, bytes, {}};
          for (const auto& [from, to] : pairs)
            if (one < 0 || (pattern == "all-to-one" ? to : from) == one)
              p.copies.emplace_back(from, to);
          points.push_back(std::move(p));
        }
      }
  }
  return points;
}

std::vector<int> reported_gpus(const PatternPoint& p, const std::vector<int>& devices) {
  return p.gpu >= 0 ? std::vector{p.gpu} : paired_gpus(devices);
}

std::vector<std::size_t> copies_of(const PatternPoint& p, int gpu) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < p.copies.size(); ++i)
    if ((p.pattern == "one-to-all" ? p.copies[i].first : p.copies[i].second) == gpu)
      out.push_back(i);
  return out;
}

std::size_t inbox_slot(const std::vector<int>& devices, int from, int to) {
  std::size_t slot = 0;
  for (const auto& [a, b] : ordered_pairs(devices)) {
    if (b != to) continue;
    if (a == from) return slot;
    ++slot;
  }
  return slot;
}

}  // namespace gpuprobe::peer
