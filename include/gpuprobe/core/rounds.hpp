// Rounds of a measurement: how many a batch of points runs, and each round's order of points.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "gpuprobe/core/stats.hpp"

namespace gpuprobe {

// The rounds a batch really runs: `rounds` (at least 1), but no more than a fixed sample count,
// so that every round takes at least one sample of every point.
std::size_t effective_rounds(std::size_t rounds, const StoppingRule& rule);

// The order in which round `round` of batch `batch` visits its `points` points: a permutation
// of 0..points-1 shuffled (Fisher-Yates over a 64-bit Mersenne twister, both fully specified,
// so a recorded seed gives the same order with any compiler) from seed, batch and round.
std::vector<std::size_t> round_order(std::size_t points, std::uint64_t seed, std::uint64_t batch,
                                     std::size_t round);

// Seeds are recorded in a result's conditions, which hold doubles: they stay below 2^53.
inline constexpr std::uint64_t kMaxSeed = (std::uint64_t{1} << 53) - 1;
// A seed for the shuffles when the user gave none: from the system's random device.
std::uint64_t fresh_seed();

}  // namespace gpuprobe
