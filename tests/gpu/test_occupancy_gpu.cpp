// GPU tests of the occupancy probe: every read sum, written and copied word checked (the run is
// ok), the residency set is the one asked for (blocks per SM, and the achieved occupancy where
// counters ran), more bytes in flight never slow a read down beyond noise along the warps route,
// the unloaded latency is measured, and the knee and route findings are there.
#include <gtest/gtest.h>

#include <string>

#include "gpu_test_support.hpp"
#include "gpuprobe/core/counter_agreement.hpp"
#include "registry.hpp"

namespace gpuprobe {
namespace {

const Row* at(const ProbeResult& r, const char* op, const char* warps, const char* ilp,
              const char* width) {
  return testing::find_row(r, {{"op", op}, {"warps", warps}, {"ilp", ilp}, {"width", width}});
}

TEST(OccupancyGpu, ResidencyIsAsAskedAndBytesInFlightBuyBandwidth) {
  GP_REQUIRE_GPU();
  auto probe = make_occupancy_probe();
  const ProbeResult r =
      testing::run_probe(*probe, {"--op", "read,write,copy", "--warps", "2,16,64", "--at-warps",
                                  "8", "--ilp", "1,8", "--width", "4,16", "--bytes", "512MiB"});
  ASSERT_EQ(r.status, Status::kOk) << r.reason;
  for (const char* op : {"read", "write", "copy"}) {
    SCOPED_TRACE(op);
    const Row* few = at(r, op, "2", "1", "4");
    const Row* many = at(r, op, "64", "1", "4");
    const Row* deep = at(r, op, "8", "8", "16");
    ASSERT_NE(few, nullptr);
    ASSERT_NE(many, nullptr);
    ASSERT_NE(deep, nullptr);
    EXPECT_EQ(testing::derived_of(*few, "blocks_per_sm"), 1.0);  // one block of 2 warps
    EXPECT_EQ(testing::derived_of(*many, "blocks_per_sm"), 16.0);
    EXPECT_EQ(testing::derived_of(*deep, "bytes_in_flight"), 8.0 * 32 * 8 * 16);
    // 32x the bytes in flight: far more bandwidth than the noise could give for loads. Stores are
    // posted (no thread waits for them), so 2 warps/SM already write at 1.95 of the 3 TB/s an H100
    // writes at all (2026-11-27): for writes, more warps must only not slow them down.
    const double gained =
        testing::median_of(*many, "bandwidth") / testing::median_of(*few, "bandwidth");
    if (std::string(op) == "write")
      EXPECT_GT(gained, 0.9);
    else
      EXPECT_GT(gained, 4.0);
    // 16 warps: four blocks, held to four by dynamic shared memory.
    const Row* mid = at(r, op, "16", "1", "4");
    ASSERT_NE(mid, nullptr);
    EXPECT_EQ(testing::derived_of(*mid, "blocks_per_sm"), 4.0);
    if (testing::counters_collected(r)) {
      // the residency asked for is the residency got: at 2 warps (one block per SM) and at 16
      // (H100 and H200: 24.5-24.9 % against 25 %)
      for (const Row* row : {few, mid}) {
        ASSERT_TRUE(row->counters);
        const auto achieved =
            counter_value(*row, "sm__warps_active.avg.pct_of_peak_sustained_active");
        ASSERT_TRUE(achieved.has_value());
        EXPECT_NEAR(*achieved, testing::derived_of(*row, "occupancy"), 1.5);
      }
    }
  }
  int knees = 0, routes = 0, latency = 0;
  for (const auto& f : r.findings) {
    knees += f.id == "occupancy_knee";
    routes += f.id == "occupancy_best_route";
    latency += f.id == "occupancy_latency";
  }
  EXPECT_EQ(knees, 6);  // 3 ops x 90 % and 95 %
  EXPECT_EQ(routes, 3);
  EXPECT_EQ(latency, 1);
}

}  // namespace
}  // namespace gpuprobe
