// Rounds of a measurement: the effective count and the seeded order of points in each round.
#include "gpuprobe/core/rounds.hpp"

#include <algorithm>
#include <numeric>
#include <random>

namespace gpuprobe {
namespace {

// SplitMix64's finaliser: spreads nearby inputs (batch 0, 1, 2 ...) over the whole state.
std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

}  // namespace

std::size_t effective_rounds(std::size_t rounds, const StoppingRule& rule) {
  std::size_t r = std::max<std::size_t>(rounds, 1);
  if (rule.fixed_samples) r = std::max<std::size_t>(1, std::min(r, *rule.fixed_samples));
  return r;
}

std::vector<std::size_t> round_order(std::size_t points, std::uint64_t seed, std::uint64_t batch,
                                     std::size_t round) {
  std::vector<std::size_t> order(points);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::mt19937_64 rng(
      mix(mix(seed) ^ mix(batch + 1) ^ mix(static_cast<std::uint64_t>(round) << 32)));
  for (std::size_t i = points; i > 1; --i) {
    const auto j = static_cast<std::size_t>(rng() % i);
    std::swap(order[i - 1], order[j]);
  }
  return order;
}

std::uint64_t fresh_seed() {
  std::random_device device;
  return ((static_cast<std::uint64_t>(device()) << 32) ^ device()) & kMaxSeed;
}

}  // namespace gpuprobe
