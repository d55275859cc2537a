// GPU tests of the coalescing probe: data verified, aligned >= misaligned, strides collapse,
// findings with their values.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>

#include "gpu_test_support.hpp"
#include "registry.hpp"

namespace gpuprobe {
namespace {

double median_bandwidth(const Row& row) {
  return testing::median_of(row, "bandwidth");
}

double noise(const Row& row) {
  return testing::noise_of(row, "bandwidth");
}

double model(const Row& row, const char* name) {
  return testing::model_of(row, name);
}

double relative(const Row& row) {
  return testing::derived_of(row, "relative_bandwidth");
}

TEST(CoalescingGpu, AlignedOffsetIsNoSlowerThanMisaligned) {
  GP_REQUIRE_GPU();
  auto probe = make_coalescing_probe();
  const ProbeResult r =
      testing::run_probe(*probe, {"--pattern", "offset", "--offsets", "0,1,8", "--widths", "4"});
  // ok implies every row's output was checked element by element and matched.
  ASSERT_EQ(r.status, Status::kOk) << r.reason;
  ASSERT_EQ(r.rows.size(), 3u);
  const Row* aligned = testing::find_row(r, {{"pattern", "offset"}, {"offset", "0"}});
  const Row* misaligned = testing::find_row(r, {{"pattern", "offset"}, {"offset", "1"}});
  ASSERT_NE(aligned, nullptr);
  ASSERT_NE(misaligned, nullptr);
  const double bw0 = median_bandwidth(*aligned);
  const double bw1 = median_bandwidth(*misaligned);
  // Any GPU copies a multi-L2-sized buffer at well over 10 GB/s and under 20 TB/s.
  EXPECT_GT(bw0, 10.0);
  EXPECT_LT(bw0, 20000.0);
  // Offset 0 is no slower than offset 1 beyond the noise (3 sigma, at least 2 %).
  const double margin = std::max(0.02, 3 * std::max(noise(*aligned), noise(*misaligned)));
  EXPECT_GE(bw0, bw1 * (1 - margin)) << "offset 0 " << bw0 << " GB/s, offset 1 " << bw1;
  // The misaligned row's relative bandwidth is its bandwidth over the aligned row's.
  EXPECT_NEAR(relative(*misaligned), bw1 / bw0, 1e-9);
  // The model rows: 4 sectors / 1 line aligned, 5 / 2 misaligned, 4 / 2 at offset 8 (32 B).
  const Row* eight = testing::find_row(r, {{"pattern", "offset"}, {"offset", "8"}});
  ASSERT_NE(eight, nullptr);
  EXPECT_DOUBLE_EQ(model(*aligned, "sectors_per_request"), 4.0);
  EXPECT_DOUBLE_EQ(model(*aligned, "lines_per_request"), 1.0);
  EXPECT_DOUBLE_EQ(model(*misaligned, "sectors_per_request"), 5.0);
  EXPECT_DOUBLE_EQ(model(*misaligned, "lines_per_request"), 2.0);
  EXPECT_DOUBLE_EQ(model(*eight, "sectors_per_request"), 4.0);
  EXPECT_DOUBLE_EQ(model(*eight, "lines_per_request"), 2.0);
  // Aligned unit stride: the DRAM model moves exactly the useful bytes, so the implied DRAM
  // rate is the measured bandwidth.
  const Quantity* implied = find_quantity(aligned->derived, "implied_dram_bandwidth");
  ASSERT_NE(implied, nullptr);
  EXPECT_NEAR(implied->value.value_or(0), bw0, 1e-9 * bw0);
}

TEST(CoalescingGpu, StrideThirtyTwoIsMuchSlowerThanUnitStride) {
  GP_REQUIRE_GPU();
  auto probe = make_coalescing_probe();
  const ProbeResult r =
      testing::run_probe(*probe, {"--pattern", "stride", "--strides", "1,32", "--widths", "4"});
  ASSERT_EQ(r.status, Status::kOk) << r.reason;
  ASSERT_EQ(r.rows.size(), 2u);
  const Row* unit = testing::find_row(r, {{"stride", "1"}});
  const Row* wide = testing::find_row(r, {{"stride", "32"}});
  ASSERT_NE(unit, nullptr);
  ASSERT_NE(wide, nullptr);
  // 32 sectors per request instead of 4: the model says 0.22x; demand at least 2x slower.
  EXPECT_LT(median_bandwidth(*wide), 0.5 * median_bandwidth(*unit));
  EXPECT_LT(relative(*wide), 0.5) << "stride 32 " << median_bandwidth(*wide) << " GB/s, stride 1 "
                                  << median_bandwidth(*unit);
  EXPECT_NEAR(relative(*wide), median_bandwidth(*wide) / median_bandwidth(*unit), 1e-9);
  // The DRAM model uses the fetch block the run reports: 128 B apart, one G-byte block per
  // element -> (128 + 128) / (32 G + 128).
  const Quantity* fetch = find_quantity(r.conditions, "model_fetch_bytes");
  ASSERT_NE(fetch, nullptr);
  const double g = fetch->value.value_or(0);
  EXPECT_TRUE(g == 32 || g == 64 || g == 128) << g;
  EXPECT_DOUBLE_EQ(model(*wide, "predicted_relative_bandwidth_dram"), 256.0 / (32 * g + 128));
}

// The counter pass after timing: l1tex counts 4 sectors per warp request at stride 1 and 32 at
// stride 32 (4-byte elements 128 B apart), as the model says; DRAM bytes per useful byte are
// reported beside the DRAM model. Skipped (visibly) where the GPU refuses counters.
TEST(CoalescingGpu, CounterPassCountsSectorsPerRequest) {
  GP_REQUIRE_GPU();
  auto probe = make_coalescing_probe();
  const ProbeResult r =
      testing::run_probe(*probe, {"--pattern", "stride", "--strides", "1,32", "--widths", "4"}, 3);
  ASSERT_EQ(r.status, Status::kOk) << r.reason;
  ASSERT_TRUE(r.counter_status);
  if (r.counter_status->state == CounterState::kRefused)
    GTEST_SKIP() << "counters refused here: " << r.counter_status->reason;
  ASSERT_EQ(r.counter_status->state, CounterState::kCollected);
  EXPECT_GE(r.counter_status->passes, 1u);
  for (const auto& [stride, sectors] : {std::pair{"1", 4.0}, {"32", 32.0}}) {
    const Row* row = testing::find_row(r, {{"stride", stride}});
    ASSERT_NE(row, nullptr);
    ASSERT_TRUE(row->counters) << stride;
    const Quantity* measured = find_quantity(row->derived, "sectors_per_request_counter");
    ASSERT_NE(measured, nullptr);
    EXPECT_NEAR(measured->value.value_or(0), sectors, 0.05 * sectors) << "stride " << stride;
    const Quantity* dram = find_quantity(row->derived, "dram_read_bytes_per_useful_byte_counter");
    ASSERT_NE(dram, nullptr);
    EXPECT_GT(dram->value.value_or(0), 0.5) << "stride " << stride;
  }
  EXPECT_NE(find_quantity(r.conditions, "counter_sm_clock_min"), nullptr);
}

// The counter pass counts a launch's own DRAM writes: the L2 is left clean before its range and
// what it leaves dirty is counted after it, so the writes equal the bytes the kernel stores
// (N x width, unit-stride) within 2% -- without the write-back term they fell 3% short (ncu,
// --cache-control all) or, with the previous work's dirty lines written back inside the range,
// 1-3% over on these rows. And L1 sends L2 the model's sectors less the L1 hits, within 2%, at
// misaligned offsets where neighbouring warps share a sector.
TEST(CoalescingGpu, CounterPassCountsTheLaunchsOwnDramWritesAndWhatL1SendsOn) {
  GP_REQUIRE_GPU();
  auto probe = make_coalescing_probe();
  const ProbeResult r = testing::run_probe(
      *probe, {"--pattern", "offset", "--offsets", "0,1,8", "--widths", "4,16"}, 3);
  ASSERT_EQ(r.status, Status::kOk) << r.reason;
  ASSERT_TRUE(r.counter_status);
  if (r.counter_status->state == CounterState::kRefused)
    GTEST_SKIP() << "counters refused here: " << r.counter_status->reason;
  ASSERT_EQ(r.rows.size(), 6u);
  for (const auto& row : r.rows) {
    ASSERT_TRUE(row.counters);
    const double written = testing::derived_of(row, "dram_write_bytes_per_useful_byte_counter");
    EXPECT_NEAR(written, testing::model_of(row, "dram_write_bytes_per_useful_byte"), 0.02)
        << scalar_text(row.params[1].value);
    EXPECT_NEAR(testing::derived_of(row, "l2_sectors_per_request_counter_vs_model"), 1.0, 0.02)
        << scalar_text(row.params[1].value);
  }
  // Offset 1, 4 B: the boundary sector hits in L1 for some requests, so L2 sees fewer than 5.
  const Row* o1 = testing::find_row(r, {{"offset", "1"}, {"element_bytes", "4"}});
  ASSERT_NE(o1, nullptr);
  EXPECT_GT(testing::derived_of(*o1, "l1_hit_sectors_per_request_counter"), 0.05);
}

TEST(CoalescingGpu, NoCountersLeavesTimingOnly) {
  GP_REQUIRE_GPU();
  auto probe = make_coalescing_probe();
  const ProbeResult r = testing::run_probe(
      *probe, {"--pattern", "stride", "--strides", "1,32", "--widths", "4"}, 3, false);
  ASSERT_EQ(r.status, Status::kOk) << r.reason;
  ASSERT_TRUE(r.counter_status);
  EXPECT_EQ(r.counter_status->state, CounterState::kOff);
  ASSERT_EQ(r.rows.size(), 2u);  // strides 1 and 32, timed
  for (const auto& row : r.rows) {
    EXPECT_GT(testing::median_of(row, "bandwidth"), 0.0);
    EXPECT_FALSE(row.counters);
    EXPECT_EQ(find_quantity(row.derived, "sectors_per_request_counter"), nullptr);
  }
}

TEST(CoalescingGpu, EveryWidthVerifiesAndBaselinesAreAdded) {
  GP_REQUIRE_GPU();
  auto probe = make_coalescing_probe();
  const ProbeResult r =
      testing::run_probe(*probe, {"--offsets", "1", "--strides", "2", "--widths", "4,8,16"}, 3);
  ASSERT_EQ(r.status, Status::kOk) << r.reason;
  // Per pattern and width: the requested point plus its unrequested baseline.
  ASSERT_EQ(r.rows.size(), 2u * 3u * 2u);
  for (const char* w : {"4", "8", "16"}) {
    const Row* base = testing::find_row(r, {{"offset", "0"}, {"element_bytes", w}});
    const Row* stride1 = testing::find_row(r, {{"stride", "1"}, {"element_bytes", w}});
    const Row* stride2 = testing::find_row(r, {{"stride", "2"}, {"element_bytes", w}});
    ASSERT_NE(base, nullptr) << w;
    ASSERT_NE(stride1, nullptr) << w;
    ASSERT_NE(stride2, nullptr) << w;
    EXPECT_NE(std::find(base->flags.begin(), base->flags.end(), "baseline"), base->flags.end());
    // Half of every loaded sector is wasted at stride 2: clearly slower than stride 1.
    EXPECT_LT(relative(*stride2), 0.95) << w << " B: stride 2 " << median_bandwidth(*stride2)
                                        << " GB/s, stride 1 " << median_bandwidth(*stride1);
    const Quantity* ws = find_quantity(stride2->derived, "working_set_over_l2");
    ASSERT_NE(ws, nullptr);
    EXPECT_GE(ws->value.value_or(0), 4.0) << w;
  }
  EXPECT_NE(find_quantity(r.conditions, "working_set_over_l2"), nullptr);
  // Findings as data, every one phrased: per width two offset classes (offset 1, and offset 0
  // standing for its own) and a stride curve (stride 2), the worst/best pair, the implied DRAM
  // range, the sizing at 8x L2, and the baselines that were added.
  for (const auto& f : r.findings)
    EXPECT_FALSE(f.text.empty()) << f.id;
  for (const auto& [id, want] :
       {std::pair{"coalescing_offset_class", 6}, std::pair{"coalescing_strides", 3}}) {
    int count = 0;
    for (const auto& f : r.findings)
      count += f.id == id;
    EXPECT_EQ(count, want) << id;
  }
  // The worst/best pair names the rows it was taken from: their medians are its values.
  const Finding* worst_best = find_finding(r, "coalescing_worst_best");
  ASSERT_NE(worst_best, nullptr);
  double lowest = 1e300, highest = 0;
  for (const auto& row : r.rows) {
    lowest = std::min(lowest, median_bandwidth(row));
    highest = std::max(highest, median_bandwidth(row));
  }
  EXPECT_DOUBLE_EQ(value_of(*worst_best, "worst_bandwidth"), lowest) << worst_best->text;
  EXPECT_DOUBLE_EQ(value_of(*worst_best, "best_bandwidth"), highest) << worst_best->text;
  EXPECT_NE(find_finding(r, "coalescing_implied_dram"), nullptr);
  const Finding* sizing = find_finding(r, "coalescing_sizing");
  ASSERT_NE(sizing, nullptr);
  EXPECT_EQ(value_of(*sizing, "l2_multiple"), 8.0) << sizing->text;
  EXPECT_NE(find_finding(r, "coalescing_baseline_added"), nullptr);
}

TEST(CoalescingGpu, L2MultipleSizesTheCopy) {
  GP_REQUIRE_GPU();
  auto probe = make_coalescing_probe();
  const ProbeResult r = testing::run_probe(
      *probe, {"--pattern", "offset", "--offsets", "0", "--widths", "4", "--l2-multiple", "2"}, 3);
  ASSERT_EQ(r.status, Status::kOk) << r.reason;
  ASSERT_EQ(r.rows.size(), 1u);
  // N x 4 B >= 2x L2 per direction, in + out: the working set is about 4x L2.
  const Quantity* ws = find_quantity(r.rows[0].derived, "working_set_over_l2");
  ASSERT_NE(ws, nullptr);
  EXPECT_NEAR(ws->value.value_or(0), 4.0, 0.01);
  const Param* echoed = find_param(r.params, "l2-multiple");
  ASSERT_NE(echoed, nullptr);
  EXPECT_EQ(scalar_text(echoed->value), "2");
}

}  // namespace
}  // namespace gpuprobe
