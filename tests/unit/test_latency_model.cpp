// Unit tests of the latency model (element offsets, the working-set ladder, the L1 capacity a
// carve-out leaves) and of the probe's sweep (points per carve-out and stride, traces), against
// cases computed by hand.
#include "gpuprobe/models/latency_model.hpp"

#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "gpuprobe/core/axes.hpp"
#include "latency/sweep.hpp"

namespace gpuprobe {
namespace {

constexpr std::uint64_t kKiB = 1024;
constexpr std::uint64_t kMiB = kKiB * kKiB;

TEST(LatencyModel, SmallStridesAreDense) {
  EXPECT_EQ(models::element_offset(0, 32), 0u);
  EXPECT_EQ(models::element_offset(5, 32), 160u);
  EXPECT_EQ(models::element_offset(3, 4096), 3u * 4096);
}

TEST(LatencyModel, PageStridesSpreadTheLineInsideTheirPage) {
  const std::uint64_t stride = 2 * kMiB;
  std::set<std::uint64_t> in_page;
  for (std::uint64_t i = 0; i < 512; ++i) {
    const std::uint64_t off = models::element_offset(i, stride);
    ASSERT_GE(off, i * stride);
    ASSERT_LT(off + 8, (i + 1) * stride);
    ASSERT_EQ(off % models::kChaseLineBytes, 0u);
    in_page.insert(off - i * stride);
  }
  // 512 elements over 16384 lines of a page: nearly all at different offsets.
  EXPECT_GT(in_page.size(), 480u);
}

TEST(LatencyModel, LadderIsGeometricAndRoundedToTheStride) {
  // 1024 x 2^(k/2), rounded down to 32: 1448 -> 1440, 2896 -> 2880, 5792 stays.
  const std::vector<std::uint64_t> want = {1024, 1440, 2048, 2880, 4096, 5792, 8192};
  EXPECT_EQ(models::size_ladder(1024, 8192, 2, 32), want);
}

TEST(LatencyModel, LadderEndsAtTheLargestWholeStrideOnce) {
  // 1024, 2048, 4096, then 5000 rounded down to 256: 4864.
  const std::vector<std::uint64_t> want = {1024, 2048, 4096, 4864};
  EXPECT_EQ(models::size_ladder(1024, 5000, 1, 256), want);
  // 5000 rounded down to 1024 is 4096, already there; the floor is two elements (2048).
  EXPECT_EQ(models::size_ladder(1024, 5000, 1, 1024), (std::vector<std::uint64_t>{2048, 4096}));
  // At least two elements: a 64-byte floor for a 32-byte stride.
  EXPECT_EQ(models::size_ladder(8, 64, 1, 32), std::vector<std::uint64_t>{64});
  EXPECT_TRUE(models::size_ladder(8, 32, 1, 32).empty());
}

TEST(LatencyModel, HopperL1IsWhatTheCarveoutLeaves) {
  const auto s = models::l1_storage(9, 0);
  ASSERT_TRUE(s);
  const std::uint64_t max_shared = 228 * kKiB;
  EXPECT_EQ(models::l1_capacity(*s, 0, max_shared), 256 * kKiB);
  EXPECT_EQ(models::l1_capacity(*s, 100, max_shared), 28 * kKiB);
  // 50 % of 228 KiB = 114 KiB: the driver takes the 132 KiB configuration.
  EXPECT_EQ(models::shared_for_carveout(*s, 50, max_shared), 132 * kKiB);
  EXPECT_EQ(models::l1_capacity(*s, 50, max_shared), 124 * kKiB);
}

// A page chase holds one line per page: 8 GiB of 2-MiB pages is 512 KiB of cache, far under an
// H100's 2 x 50 MiB, so it keeps its warm read; a 512 MiB sector chase is flushed first. The
// first H100 run keyed this on the span and sent the page chases beyond 16 GiB to DRAM.
TEST(LatencyModel, FlushFollowsTheFootprintNotTheSpan) {
  const std::uint64_t l2 = 50 * kMiB;
  EXPECT_EQ(latency::footprint_bytes(4096, 2 * kMiB), 512 * kKiB);
  EXPECT_EQ(latency::footprint_bytes(1000, 32), 32000u);
  EXPECT_FALSE(latency::flushed_first(16384, 2 * kMiB, l2));
  EXPECT_TRUE(latency::flushed_first(512 * kMiB / 32, 32, l2));
  EXPECT_FALSE(latency::flushed_first(64 * kMiB / 32, 32, l2));
  EXPECT_FALSE(latency::flushed_first(512 * kMiB / 32, 32, 0));
}

TEST(LatencyModel, UnlistedArchitectureHasNoModel) {
  EXPECT_FALSE(models::l1_storage(12, 0));
  EXPECT_TRUE(models::l1_storage(8, 0));
}

AxisValues values_of(std::vector<std::uint64_t> strides, std::vector<std::uint64_t> carveouts,
                     std::uint64_t max_size, std::uint64_t tlb_max,
                     std::vector<std::uint64_t> trace) {
  AxisValues v;
  v.values["stride"] = {AxisKind::kList, "", true, std::move(strides), {}, false};
  v.values["carveout"] = {AxisKind::kList, "", true, std::move(carveouts), {}, false};
  v.values["max-size"] = {AxisKind::kNumber, "", true, {max_size}, {}, false};
  v.values["tlb-max"] = {AxisKind::kNumber, "", true, {tlb_max}, {}, false};
  v.values["per-octave"] = {AxisKind::kNumber, "", true, {1}, {}, false};
  v.values["trace"] = {AxisKind::kList, "", true, std::move(trace), {}, false};
  return v;
}

TEST(LatencySweep, PointsPerCarveoutAndStrideThenTraces) {
  auto pts = latency::points(values_of({32, 2 * kMiB}, {0, 50}, 4 * kKiB, 64 * kMiB, {0, 75}));
  latency::size_traces(pts, 40 * kMiB);
  std::vector<std::tuple<std::string, std::uint64_t, std::uint64_t, std::uint64_t>> got;
  for (const auto& p : pts)
    got.emplace_back(p.mode, p.stride, p.carveout, p.bytes);
  const decltype(got) want = {{"chase", 32, 0, 1024},
                              {"chase", 32, 0, 2048},
                              {"chase", 32, 0, 4096},
                              {"chase", 2 * kMiB, 0, 32 * kMiB},
                              {"chase", 2 * kMiB, 0, 64 * kMiB},
                              {"chase", 32, 50, 1024},
                              {"chase", 32, 50, 2048},
                              {"chase", 32, 50, 4096},
                              {"trace", 32, 0, 30 * kMiB}};
  EXPECT_EQ(got, want);
  EXPECT_EQ(pts.back().l2_pct, 75u);
}

TEST(LatencySweep, LaterCarveoutsStopAtOneMebibyte) {
  const auto pts = latency::points(values_of({128}, {0, 100}, 8 * kMiB, kMiB, {}));
  std::uint64_t largest_first = 0, largest_later = 0;
  for (const auto& p : pts)
    (p.carveout == 0 ? largest_first : largest_later) =
        std::max(p.carveout == 0 ? largest_first : largest_later, p.bytes);
  EXPECT_EQ(largest_first, 8 * kMiB);
  EXPECT_EQ(largest_later, 1 * kMiB);
}

TEST(LatencySweep, PlannedTracesHaveNoBytesYet) {
  const auto pts = latency::points(values_of({32}, {0}, 4 * kKiB, kMiB, {25}));
  ASSERT_EQ(pts.back().mode, latency::kTrace);
  const auto params = latency::row_params(pts.back());
  EXPECT_FALSE(find_param(params, latency::kBytes));
  EXPECT_TRUE(find_param(params, latency::kL2Pct));
}

// A sized trace keeps its planned params in order and adds its bytes after them (the sweep's
// rows must begin with their planned params); chase points are left as they are.
TEST(LatencySweep, SizedTracesAddTheirBytesAfterThePlannedParams) {
  const auto planned = latency::points(values_of({32}, {0}, 4 * kKiB, kMiB, {25}));
  auto sized = planned;
  latency::size_traces(sized, 50 * kMiB);
  ASSERT_EQ(sized.size(), planned.size());
  for (std::size_t i = 0; i + 1 < sized.size(); ++i)
    EXPECT_EQ(sized[i].bytes, planned[i].bytes);
  EXPECT_EQ(sized.back().bytes, 50 * kMiB / 4 / 32 * 32);
  const auto before = latency::row_params(planned.back());
  const auto after = latency::row_params(sized.back());
  ASSERT_EQ(after.size(), before.size() + 1);
  for (std::size_t k = 0; k < before.size(); ++k)
    EXPECT_EQ(after[k].key, before[k].key);
  EXPECT_EQ(after.back().key, latency::kBytes);
}

}  // namespace
}  // namespace gpuprobe
