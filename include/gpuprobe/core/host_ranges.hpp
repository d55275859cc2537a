// Large host-buffer passes (pattern fills, poisoning, word checks) split over host threads.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "gpuprobe/core/mismatches.hpp"

namespace gpuprobe {

// How many threads split [0, n): one per `min_per_thread` items, at most `max_threads`, at least
// one.
std::size_t range_threads(std::uint64_t n, std::uint64_t min_per_thread, std::size_t max_threads);

// Runs body(begin, end) over contiguous ranges covering [0, n) exactly once, on
// range_threads(n, min_per_thread, max_threads) threads (this one among them). A thread that
// cannot be started leaves its ranges to this thread. `body` must not throw.
void for_each_range(std::uint64_t n, std::uint64_t min_per_thread, std::size_t max_threads,
                    const std::function<void(std::uint64_t, std::uint64_t)>& body);

// The host threads a buffer pass uses: the machine's cores, at most 8 (more buys nothing against
// one socket's memory bandwidth), and 4 Mi words (16 MiB) per thread at least.
inline constexpr std::size_t kMaxBufferThreads = 8;
inline constexpr std::uint64_t kWordsPerBufferThread = std::uint64_t{1} << 22;
std::size_t buffer_threads();

// find_mismatches over [0, n), split as for_each_range splits it: the same count and first index.
template <typename Wrong>
Mismatches find_mismatches_split(std::uint64_t n, std::uint64_t min_per_thread,
                                 std::size_t max_threads, Wrong wrong) {
  const std::size_t parts = range_threads(n, min_per_thread, max_threads);
  std::vector<Mismatches> found(parts);
  const std::uint64_t step = parts == 0 ? n : (n + parts - 1) / parts;
  for_each_range(n, min_per_thread, max_threads, [&](std::uint64_t begin, std::uint64_t end) {
    const Mismatches m =
        find_mismatches(end - begin, [&](std::uint64_t i) { return wrong(begin + i); });
    found[step == 0 ? 0 : begin / step] = {m.count, begin + m.first};
  });
  Mismatches all;
  for (const Mismatches& m : found) {
    if (m.count == 0) continue;
    if (all.count == 0 || m.first < all.first) all.first = m.first;
    all.count += m.count;
  }
  return all;
}

}  // namespace gpuprobe
