// Tests of the minimal probe of docs/writing-a-probe.md (minimal_probe.cpp): its plan without a
// GPU; on a GPU, verified rows whose times grow with the size and the phrased peak finding.
#include <gtest/gtest.h>

#include <memory>

#include "gpu_test_support.hpp"

namespace gpuprobe::testing {

std::unique_ptr<Probe> make_minimal_probe();

namespace {

TEST(MinimalProbe, PlansOneRowPerSizeWithoutAGpu) {
  const auto probe = make_minimal_probe();
  AxisInput input;
  input.text["sizes"] = "1MiB,16MiB";
  const AxisValues values = resolve_axes(probe->axes(), input, /*quick=*/false);
  const ProbeResult plan = probe->plan(values);
  EXPECT_EQ(plan.probe, "d2d");
  EXPECT_NE(plan.method.find("verified"), std::string::npos);
  ASSERT_EQ(plan.rows.size(), 2u);
  EXPECT_EQ(int_param_of(plan.rows[1], "bytes"), std::int64_t{1} << 24);
  EXPECT_TRUE(plan.rows[1].metrics.empty());
}

TEST(MinimalProbeGpu, CopiesAreVerifiedAndTheLargerOneTakesLonger) {
  GP_REQUIRE_GPU();
  const auto probe = make_minimal_probe();
  const ProbeResult r = run_probe(*probe, {"--sizes", "4MiB,64MiB"});
  ASSERT_EQ(r.status, Status::kOk) << r.reason;  // a wrong copy fails the probe
  const Row* small = find_row(r, {{"bytes", "4194304"}});
  const Row* large = find_row(r, {{"bytes", "67108864"}});
  ASSERT_NE(small, nullptr);
  ASSERT_NE(large, nullptr);
  // 16x the bytes: the time of each is measured on its own samples; even with a fixed cost per
  // copy the larger one takes well over 4x as long on any GPU with > 1 GB/s.
  EXPECT_GT(median_of(*large, "time"), 4 * median_of(*small, "time"));
  const Finding* peak = find_finding(r, "d2d_peak");
  ASSERT_NE(peak, nullptr);
  EXPECT_EQ(peak->text.rfind("device-to-device copies peak at ", 0), 0u) << peak->text;
}

}  // namespace
}  // namespace gpuprobe::testing
