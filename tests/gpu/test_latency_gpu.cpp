// GPU tests of the latency probe: every chase launch ends on the element the permutation says,
// L1 is faster than L2 by a wide margin, the counters name L1 for a small set and not for a large
// one, a trace row keeps its per-access times, and the page series runs.
#include <gtest/gtest.h>

#include <string>

#include "gpu_test_support.hpp"
#include "registry.hpp"

namespace gpuprobe {
namespace {

const Row* chase_at(const ProbeResult& r, const std::string& stride, const std::string& bytes) {
  return testing::find_row(r, {{"mode", "chase"}, {"stride", stride}, {"bytes", bytes}});
}

TEST(LatencyGpu, L1FasterThanL2AndCountersSayWhich) {
  GP_REQUIRE_GPU();
  auto probe = make_latency_probe();
  const ProbeResult r =
      testing::run_probe(*probe, {"--stride", "32", "--max-size", "8MiB", "--per-octave", "1",
                                  "--steps", "2048", "--trace", "25"});
  ASSERT_EQ(r.status, Status::kOk) << r.reason;
  const Row* small = chase_at(r, "32", "4096");
  const Row* large = chase_at(r, "32", "8388608");
  ASSERT_NE(small, nullptr);
  ASSERT_NE(large, nullptr);
  // Any GPU with an L1: an L1 hit is several times faster than an L2 hit (H100: 33 vs 276).
  EXPECT_GT(testing::median_of(*large, "latency"), 3 * testing::median_of(*small, "latency"));
  EXPECT_GT(testing::derived_of(*small, "clock_mhz"), 100.0);
  if (testing::counters_collected(r)) {
    ASSERT_TRUE(small->counters);
    ASSERT_TRUE(large->counters);
    EXPECT_GT(testing::derived_of(*small, "l1_hit"), 0.5);
    EXPECT_LT(testing::derived_of(*large, "l1_hit"), 0.2);
  }
  const Row* trace = testing::find_row(r, {{"mode", "trace"}});
  ASSERT_NE(trace, nullptr);
  EXPECT_GT(testing::derived_of(*trace, "p50_cycles"), 0.0);
  bool level = false;
  for (const auto& f : r.findings)
    level = level || f.id == "latency_level";
  EXPECT_TRUE(level);
}

TEST(LatencyGpu, PageSeriesAndCarveoutsRun) {
  GP_REQUIRE_GPU();
  auto probe = make_latency_probe();
  const ProbeResult r = testing::run_probe(
      *probe,
      {"--stride", "128,2MiB", "--carveout", "0,100", "--max-size", "512KiB", "--tlb-max", "256MiB",
       "--per-octave", "1", "--steps", "1024", "--trace", "0"},
      3, false);
  ASSERT_EQ(r.status, Status::kOk) << r.reason;
  EXPECT_NE(chase_at(r, "2097152", "268435456"), nullptr);
  // A 100 % carve-out leaves the L1 28 KiB on Hopper: 128 KiB, an L1 hit with 0 % (H100: 33
  // cycles), goes to the L2 (about 276): the carve-out asked for is the one the chase ran with.
  const Row* c0 = testing::find_row(
      r, {{"mode", "chase"}, {"stride", "128"}, {"carveout", "0"}, {"bytes", "131072"}});
  const Row* c100 = testing::find_row(
      r, {{"mode", "chase"}, {"stride", "128"}, {"carveout", "100"}, {"bytes", "131072"}});
  ASSERT_NE(c0, nullptr);
  ASSERT_NE(c100, nullptr);
  EXPECT_GT(testing::median_of(*c100, "latency"), 3 * testing::median_of(*c0, "latency"));
}

}  // namespace
}  // namespace gpuprobe
