// Host-buffer passes split over threads: every index once, mismatches as one thread finds them.
#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <vector>

#include "gpuprobe/core/host_ranges.hpp"

namespace gpuprobe {
namespace {

TEST(HostRanges, ThreadsFollowTheWorkAndTheCap) {
  EXPECT_EQ(range_threads(0, 100, 8), 1u);
  EXPECT_EQ(range_threads(99, 100, 8), 1u);
  EXPECT_EQ(range_threads(250, 100, 8), 2u);
  EXPECT_EQ(range_threads(100000, 100, 8), 8u);
  EXPECT_EQ(range_threads(100000, 100, 0), 1u);
  EXPECT_EQ(range_threads(100000, 0, 3), 3u);
}

TEST(HostRanges, EveryIndexIsVisitedOnce) {
  for (const std::uint64_t n : {0ull, 1ull, 7ull, 100ull, 1001ull, 4099ull}) {
    for (const std::size_t threads : {1u, 2u, 3u, 8u}) {
      std::vector<std::atomic<int>> seen(n);
      for_each_range(n, 10, threads, [&](std::uint64_t begin, std::uint64_t end) {
        for (std::uint64_t i = begin; i < end; ++i)
          seen[i].fetch_add(1);
      });
      for (std::uint64_t i = 0; i < n; ++i)
        ASSERT_EQ(seen[i].load(), 1) << "n " << n << ", threads " << threads << ", index " << i;
    }
  }
}

TEST(HostRanges, SplitMismatchesMatchOneThread) {
  const std::uint64_t n = 10007;
  // Wrong words at both ends, either side of the split points, and inside.
  const std::set<std::uint64_t> wrong = {0, 1, 2501, 2502, 5003, 9999, 10006};
  const auto is_wrong = [&](std::uint64_t i) { return wrong.count(i) > 0; };
  const Mismatches one = find_mismatches(n, is_wrong);
  EXPECT_EQ(one.count, 7u);
  EXPECT_EQ(one.first, 0u);
  for (const std::size_t threads : {1u, 2u, 4u, 8u}) {
    const Mismatches split = find_mismatches_split(n, 100, threads, is_wrong);
    EXPECT_EQ(split.count, 7u) << threads << " threads";
    EXPECT_EQ(split.first, 0u) << threads << " threads";
  }
  // Only the last part wrong: the first index is that part's, offset by where it starts.
  const Mismatches tail =
      find_mismatches_split(n, 100, 4, [&](std::uint64_t i) { return i == n - 1; });
  EXPECT_EQ(tail.count, 1u);
  EXPECT_EQ(tail.first, n - 1);
  const Mismatches none = find_mismatches_split(n, 100, 4, [](std::uint64_t) { return false; });
  EXPECT_EQ(none.count, 0u);
}

}  // namespace
}  // namespace gpuprobe
