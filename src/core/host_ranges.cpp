// Large host-buffer passes split over host threads: contiguous ranges, this thread among them.
#include "gpuprobe/core/host_ranges.hpp"

#include <algorithm>
#include <system_error>
#include <thread>
#include <vector>

namespace gpuprobe {

std::size_t range_threads(std::uint64_t n, std::uint64_t min_per_thread, std::size_t max_threads) {
  const std::uint64_t per = std::max<std::uint64_t>(min_per_thread, 1);
  const std::uint64_t want = std::max<std::uint64_t>(n / per, 1);
  return static_cast<std::size_t>(
      std::min<std::uint64_t>(want, std::max<std::size_t>(max_threads, 1)));
}

void for_each_range(std::uint64_t n, std::uint64_t min_per_thread, std::size_t max_threads,
                    const std::function<void(std::uint64_t, std::uint64_t)>& body) {
  const std::size_t parts = range_threads(n, min_per_thread, max_threads);
  const std::uint64_t step = (n + parts - 1) / parts;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> left;  // ranges no thread took
  {
    std::vector<std::jthread> threads;  // joined at the end of this scope
    for (std::size_t p = 1; p < parts; ++p) {
      const std::uint64_t begin = std::min(n, p * step), end = std::min(n, begin + step);
      if (begin >= end) continue;
      try {
        threads.emplace_back([&body, begin, end] { body(begin, end); });
      } catch (const std::system_error&) {
        left.emplace_back(begin, end);
      }
    }
    if (n > 0) body(0, std::min(n, step));
    for (const auto& [begin, end] : left)
      body(begin, end);
  }
}

std::size_t buffer_threads() {
  const unsigned cores = std::thread::hardware_concurrency();
  return std::clamp<std::size_t>(cores, 1, kMaxBufferThreads);
}

}  // namespace gpuprobe
