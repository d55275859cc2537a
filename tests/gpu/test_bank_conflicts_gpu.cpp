// GPU tests of the bank-conflicts probe: transposes verified, padding and strides shaped right.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "gpu_test_support.hpp"
#include "registry.hpp"

namespace gpuprobe {
namespace {

double median(const Row& row, const char* metric) {
  const Metric* m = find_metric(row, metric);
  EXPECT_NE(m, nullptr) << metric;
  return m ? m->stats.median : 0;
}

double noise(const Row& row, const char* metric) {
  const Metric* m = find_metric(row, metric);
  return m ? m->stats.rel_noise : 0;
}

TEST(BankConflictsGpu, LadderVerifiedAndPaddingBeatsTiled) {
  GP_REQUIRE_GPU();
  auto probe = make_bank_conflicts_probe();
  const ProbeResult r = testing::run_probe(*probe, {"--ladder", "--size", "4096"});
  // Status ok means every transpose matched the reference element for element.
  ASSERT_EQ(r.status, Status::kOk) << r.reason;
  ASSERT_EQ(r.rows.size(), 5u);
  for (const char* k : {"copy", "naive", "tiled", "padded", "swizzled"}) {
    const Row* row = testing::find_row(r, {{"kernel", k}, {"size", "4096"}});
    ASSERT_NE(row, nullptr) << k;
    EXPECT_GT(median(*row, "bandwidth"), 10.0) << k;
    // Bandwidth and time agree: 2 * N * N * 4 bytes per launch.
    EXPECT_NEAR(median(*row, "time"), 2.0 * 4096 * 4096 * 4 / (median(*row, "bandwidth") * 1e9),
                0.05 * median(*row, "time"))
        << k;
  }
  const Row* tiled = testing::find_row(r, {{"kernel", "tiled"}});
  const Row* padded = testing::find_row(r, {{"kernel", "padded"}});
  const Row* copy = testing::find_row(r, {{"kernel", "copy"}});
  ASSERT_TRUE(tiled && padded && copy);
  // Padded beats tiled beyond the noise of both (with a 3% floor).
  const double band =
      std::max(0.03, 3 * std::hypot(noise(*tiled, "bandwidth"), noise(*padded, "bandwidth")));
  EXPECT_GT(median(*padded, "bandwidth"), median(*tiled, "bandwidth") * (1 + band));
  // The model beside the rows: 32-way for the plain tile, 1 for padding, null for copy.
  EXPECT_EQ(find_quantity(tiled->model, "conflict_ways")->value, 32.0);
  EXPECT_EQ(find_quantity(padded->model, "conflict_ways")->value, 1.0);
  EXPECT_FALSE(find_quantity(copy->model, "conflict_ways")->value.has_value());
  EXPECT_NEAR(*find_quantity(copy->derived, "relative_to_copy")->value, 1.0, 1e-12);
  EXPECT_FALSE(r.verdict.empty());
}

TEST(BankConflictsGpu, StrideTwoLoadsSlowerThanStrideOne) {
  GP_REQUIRE_GPU();
  auto probe = make_bank_conflicts_probe();
  const ProbeResult r = testing::run_probe(
      *probe, {"--strides", "0,1,2,32", "--widths", "4,16", "--ops", "load,store"});
  // Status ok means every thread's sum of loaded words / read-back of stored words was right.
  ASSERT_EQ(r.status, Status::kOk) << r.reason;
  ASSERT_EQ(r.rows.size(), 4u * 2u * 2u);
  const Row* s1 = testing::find_row(r, {{"op", "load"}, {"element_bytes", "4"}, {"stride", "1"}});
  const Row* s2 = testing::find_row(r, {{"op", "load"}, {"element_bytes", "4"}, {"stride", "2"}});
  const Row* s32 = testing::find_row(r, {{"op", "load"}, {"element_bytes", "4"}, {"stride", "32"}});
  ASSERT_TRUE(s1 && s2 && s32);
  const double band = std::max(0.03, 3 * std::hypot(noise(*s1, "time"), noise(*s2, "time")));
  EXPECT_GT(median(*s2, "time"), median(*s1, "time") * (1 + band));
  // A 32-way conflict is far slower than a 2-way one, whatever the exact hardware factor.
  EXPECT_GT(median(*s32, "time"), 4 * median(*s2, "time"));
  EXPECT_EQ(find_quantity(s32->model, "conflict_ways")->value, 32.0);
  ASSERT_TRUE(find_quantity(s2->derived, "slowdown")->value.has_value());
  EXPECT_GT(*find_quantity(s2->derived, "slowdown")->value, 1.0);
  // Stores: stride 32 is also slower than stride 1.
  const Row* st1 = testing::find_row(r, {{"op", "store"}, {"element_bytes", "4"}, {"stride", "1"}});
  const Row* st32 =
      testing::find_row(r, {{"op", "store"}, {"element_bytes", "4"}, {"stride", "32"}});
  ASSERT_TRUE(st1 && st32);
  EXPECT_GT(median(*st32, "time"), 4 * median(*st1, "time"));
  // The model is evaluated per op: a 16-byte broadcast load has 16-lane phases (2 wavefronts,
  // as measured on sm_90), a 16-byte broadcast store 8-lane phases (4 wavefronts).
  const Row* lb16 =
      testing::find_row(r, {{"op", "load"}, {"element_bytes", "16"}, {"stride", "0"}});
  const Row* sb16 =
      testing::find_row(r, {{"op", "store"}, {"element_bytes", "16"}, {"stride", "0"}});
  ASSERT_TRUE(lb16 && sb16);
  EXPECT_EQ(find_quantity(lb16->model, "wavefronts_per_request")->value, 2.0);
  EXPECT_EQ(find_quantity(sb16->model, "wavefronts_per_request")->value, 4.0);
}

}  // namespace
}  // namespace gpuprobe
