// GPU tests of the cache probe: every point verified (read sums, written and copied rings), an
// sm read that fits the L1 beats one four times the L1 beyond noise and its counters say L1,
// and a device read far past the L2 is served by DRAM by its counters.
#include <gtest/gtest.h>

#include <string>

#include "gpu_test_support.hpp"
#include "gpuprobe/core/compare_stats.hpp"
#include "registry.hpp"

namespace gpuprobe {
namespace {

std::unique_ptr<Probe> cache_probe() {
  for (auto& p : make_probes())
    if (p->name() == "cache") return std::move(p);
  return nullptr;
}

TEST(CacheGpu, EveryOpVerifiesAndTheL1BeatsWhatLiesBeyondIt) {
  GP_REQUIRE_GPU();
  auto probe = cache_probe();
  ASSERT_NE(probe, nullptr);
  runtime::MeasureOptions options;
  options.rule.fixed_samples = 10;
  options.rounds = 2;
  const ProbeResult r =
      testing::run_probe(*probe,
                         {"--scope", "shared,sm,device", "--shared-sizes", "64KiB", "--sm-sizes",
                          "64KiB,1MiB", "--device-sizes", "4MiB,512MiB"},
                         options, true);
  // ok: every read sum, written ring and copied ring of every point was checked and matched.
  ASSERT_EQ(r.status, Status::kOk) << r.reason;
  const Row* fits =
      testing::find_row(r, {{"scope", "sm"}, {"op", "read"}, {"working_set_bytes", "65536"}});
  const Row* beyond =
      testing::find_row(r, {{"scope", "sm"}, {"op", "read"}, {"working_set_bytes", "1048576"}});
  ASSERT_NE(fits, nullptr);
  ASSERT_NE(beyond, nullptr);
  // The L1-resident read is faster than the one four times the L1, beyond the noise both rows
  // measured: the whole 95% interval of their time ratio lies below 1.
  const auto ratio =
      bootstrap_ratio(find_metric(*beyond, "time")->samples, find_metric(*fits, "time")->samples);
  ASSERT_TRUE(ratio);
  EXPECT_LT(ratio->high, 1.0);
  const bool counted = testing::counters_collected(r);
  if (counted) {
    ASSERT_TRUE(fits->counters);
    ASSERT_TRUE(beyond->counters);
    EXPECT_GT(testing::derived_of(*fits, "l1_hit_rate"), 0.5);
    EXPECT_LT(testing::derived_of(*beyond, "l1_hit_rate"), 0.5);
  }
  const Row* dram = testing::find_row(
      r, {{"scope", "device"}, {"op", "read"}, {"working_set_bytes", "536870912"}});
  ASSERT_NE(dram, nullptr);
  if (counted) {
    ASSERT_TRUE(dram->counters);
    EXPECT_GT(testing::derived_of(*dram, "dram_bytes_per_byte"), 0.5);
  }
}

}  // namespace
}  // namespace gpuprobe
