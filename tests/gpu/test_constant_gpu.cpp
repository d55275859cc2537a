// GPU tests of the constant probe: every lookup and chase verified, the constant path serialises
// divergent addresses (far slower at 32 than at one), a chase past L1 is slower than one in it,
// the counters see texture fetches in the texture pipe and plain loads in the LSU pipe, and the
// winner and textbook findings are made.
#include <gtest/gtest.h>

#include <string>

#include "gpu_test_support.hpp"
#include "registry.hpp"

namespace gpuprobe {
namespace {

const Row* lookup_at(const ProbeResult& r, const char* path, const char* distinct,
                     const char* bytes) {
  return testing::find_row(r, {{"mode", "lookup"},
                               {"path", path},
                               {"width", "4"},
                               {"distinct", distinct},
                               {"bytes", bytes}});
}

const Row* chase_at(const ProbeResult& r, const char* path, const char* bytes) {
  return testing::find_row(r, {{"mode", "chase"}, {"path", path}, {"bytes", bytes}});
}

bool has_finding(const ProbeResult& r, const std::string& id) {
  for (const auto& f : r.findings)
    if (f.id == id) return true;
  return false;
}

TEST(ConstantGpu, BroadcastDivergenceLatencyAndCounters) {
  GP_REQUIRE_GPU();
  auto probe = make_constant_probe();
  const ProbeResult r =
      testing::run_probe(*probe, {"--width", "4", "--distinct", "1,32", "--sizes", "4KiB,16MiB",
                                  "--chase-max", "4MiB", "--per-octave", "1", "--steps", "1024"});
  ASSERT_EQ(r.status, Status::kOk) << r.reason;
  const Row* c1 = lookup_at(r, "constant", "1", "4096");
  const Row* c32 = lookup_at(r, "constant", "32", "4096");
  ASSERT_NE(c1, nullptr);
  ASSERT_NE(c32, nullptr);
  EXPECT_EQ(lookup_at(r, "constant", "1", "16777216"), nullptr);  // constant stops at 64 KiB
  // Any GPU serialises a warp's distinct constant addresses (the model: 32x); 4x is far inside.
  EXPECT_GT(testing::median_of(*c1, "lookups"), 4 * testing::median_of(*c32, "lookups"));
  // A chase through L2 is several times an L1 hit's latency (H100: ~270 against ~35 cycles).
  const Row* small = chase_at(r, "global", "4096");
  const Row* large = chase_at(r, "global", "4194304");
  ASSERT_NE(small, nullptr);
  ASSERT_NE(large, nullptr);
  EXPECT_GT(testing::median_of(*large, "latency"), 3 * testing::median_of(*small, "latency"));
  EXPECT_GT(testing::median_of(*small, "latency_time"), 0.0);
  const Row* tex = lookup_at(r, "texture", "1", "4096");
  const Row* global = lookup_at(r, "global", "1", "4096");
  ASSERT_NE(tex, nullptr);
  ASSERT_NE(global, nullptr);
  if (testing::counters_collected(r)) {
    ASSERT_TRUE(tex->counters);
    ASSERT_TRUE(global->counters);
    EXPECT_GT(testing::derived_of(*tex, "sectors_per_lookup_counter"), 0.5);
    EXPECT_GT(testing::derived_of(*global, "requests_per_lookup_counter"), 0.5);
  }
  EXPECT_TRUE(has_finding(r, "constant_winner"));
  EXPECT_TRUE(has_finding(r, "constant_textbook"));
  EXPECT_TRUE(has_finding(r, "constant_latency_level"));
  EXPECT_TRUE(has_finding(r, "constant_sizing"));
}

}  // namespace
}  // namespace gpuprobe
