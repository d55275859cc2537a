// Unit tests for `gpuprobe fleet`'s statistics: the fleet median and robust spread per row, values
// beyond the fleet, and the share rule that makes a GPU an outlier.
#include "gpuprobe/core/fleet.hpp"

#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace gpuprobe {
namespace {

// A member whose transfer rows (bytes = 1..rows) have bandwidth medians `values[i]`, measured on
// a GPU of `model` with `uuid` (none: each file a GPU of its own).
FleetMember member(const std::string& host, const std::vector<double>& values,
                   const std::string& model = "Test GPU", const std::string& uuid = "") {
  FleetMember m;
  m.file = host + ".json";
  m.report.host.hostname = host;
  DeviceInfo d;
  d.index = 0;
  d.name = model;
  d.uuid = uuid;
  m.report.devices.push_back(d);
  ProbeResult r;
  r.probe = "transfer";
  r.device = 0;
  r.status = Status::kOk;
  for (std::size_t i = 0; i < values.size(); ++i) {
    Row row;
    row.params = {{"bytes", static_cast<std::int64_t>(i + 1), "B"}};
    Metric bw{"bandwidth", "GB/s", {}, {}};
    bw.stats.median = values[i];
    row.metrics.push_back(bw);
    Metric t{"time", "s", {}, {}};
    t.stats.median = 1 / values[i];
    row.metrics.push_back(t);
    r.rows.push_back(row);
  }
  m.report.results.push_back(r);
  return m;
}

double derived(const Row& row, const std::string& name) {
  return *find_quantity(row.derived, name)->value;
}

std::vector<const Finding*> with_id(const RunReport& r, const std::string& id) {
  std::vector<const Finding*> out;
  for (const auto& res : r.results)
    for (const auto& f : res.findings)
      if (f.id == id) out.push_back(&f);
  return out;
}

TEST(Fleet, MedianAndRobustSpreadPerRow) {
  // Row 1: 100, 101, 99, 102, 98 -> median 100, |dev| 0,1,1,2,2 -> MAD 1, spread 1.4826%.
  std::vector<FleetMember> fleet;
  for (double v : {100.0, 101.0, 99.0, 102.0, 98.0})
    fleet.push_back(member("n" + std::to_string(fleet.size()), {v}));
  const RunReport r = fleet_report(fleet, {});
  ASSERT_EQ(r.results.size(), 1u);
  ASSERT_EQ(r.results[0].rows.size(), 1u);  // bandwidth only: time is left out by default
  const Row& row = r.results[0].rows[0];
  EXPECT_DOUBLE_EQ(derived(row, "fleet_median"), 100);
  EXPECT_NEAR(derived(row, "spread"), 1.4826, 1e-12);
  EXPECT_DOUBLE_EQ(derived(row, "fleet_min"), 98);
  EXPECT_DOUBLE_EQ(derived(row, "fleet_max"), 102);
  EXPECT_DOUBLE_EQ(derived(row, "members"), 5);
  EXPECT_EQ(scalar_text(find_param(row.params, "metric")->value), "bandwidth");
  EXPECT_TRUE(with_id(r, "fleet_outlier").empty());
  EXPECT_EQ(fleet_outlier_count(r), 0u);
}

TEST(Fleet, AGpuSlowOnMostRowsIsAnOutlierNamedByHost) {
  std::vector<FleetMember> fleet;
  for (int i = 0; i < 9; ++i) {
    const double jitter = 1 + 0.002 * (i % 3 - 1);
    fleet.push_back(member("node-" + std::to_string(i), {100 * jitter, 50 * jitter, 10 * jitter}));
  }
  fleet.push_back(member("slow", {50, 25, 10}));  // half on two of three rows
  const RunReport r = fleet_report(fleet, {});
  const auto outliers = with_id(r, "fleet_outlier");
  ASSERT_EQ(outliers.size(), 1u);
  EXPECT_EQ(param_text_of(*outliers[0], "host"), "slow");
  EXPECT_EQ(value_of(*outliers[0], "values_beyond"), 2);
  EXPECT_EQ(value_of(*outliers[0], "values"), 3);
  EXPECT_NEAR(value_of(*outliers[0], "median_deviation"), -50, 1e-9);
  EXPECT_EQ(with_id(r, "fleet_beyond").size(), 2u);
  EXPECT_EQ(fleet_outlier_count(r), 1u);
  EXPECT_EQ(derived(r.results[0].rows[0], "beyond"), 1);
}

TEST(Fleet, SporadicValuesBeyondTheFleetDoNotMakeAnOutlier) {
  // One value of twenty beyond the fleet (5% <= 10%): a note, not an outlier GPU.
  std::vector<FleetMember> fleet;
  for (int i = 0; i < 8; ++i)
    fleet.push_back(member("node-" + std::to_string(i), std::vector<double>(20, 100.0 + i % 2)));
  std::vector<double> odd(20, 100.0);
  odd[7] = 80;
  fleet.push_back(member("odd", odd));
  const RunReport r = fleet_report(fleet, {});
  EXPECT_EQ(with_id(r, "fleet_beyond").size(), 1u);
  EXPECT_TRUE(with_id(r, "fleet_outlier").empty());
  FleetOptions strict;
  strict.max_outlier_share = 0.01;
  EXPECT_EQ(fleet_outlier_count(fleet_report(fleet, strict)), 1u);
}

TEST(Fleet, SmallDeviationsAndSmallFleetsAreNotJudged) {
  // 2% off a perfectly uniform fleet: infinitely many sigmas, but under the 3% floor.
  std::vector<FleetMember> fleet;
  for (int i = 0; i < 6; ++i)
    fleet.push_back(member("n" + std::to_string(i), {100}));
  fleet.push_back(member("x", {98}));
  EXPECT_TRUE(with_id(fleet_report(fleet, {}), "fleet_beyond").empty());
  // Two members: shown, never judged. Their z is 1/1.4826 whatever the values, so a k below it
  // leaves only the member count to hold them back; three members with the same gap are judged.
  FleetOptions low_k;
  low_k.k = 0.5;
  const RunReport two = fleet_report({member("a", {100}), member("b", {10})}, low_k);
  EXPECT_TRUE(with_id(two, "fleet_beyond").empty());
  EXPECT_EQ(derived(two.results[0].rows[0], "members"), 2);
  const RunReport three =
      fleet_report({member("a", {100}), member("b", {100}), member("c", {10})}, low_k);
  EXPECT_EQ(with_id(three, "fleet_beyond").size(), 1u);
}

TEST(Fleet, MissingResultsAreNotedAndEveryFindingIsPhrased) {
  std::vector<FleetMember> fleet;
  for (int i = 0; i < 4; ++i)
    fleet.push_back(member("n" + std::to_string(i), {100}));
  fleet.back().report.results[0].status = Status::kFailed;
  FleetOptions both;
  both.value_names = {"bandwidth", "time"};
  const RunReport r = fleet_report(fleet, both);
  EXPECT_EQ(r.results[0].rows.size(), 2u);
  const auto incomplete = with_id(r, "fleet_incomplete");
  ASSERT_EQ(incomplete.size(), 1u);
  EXPECT_EQ(value_of(*incomplete[0], "results"), 3);
  for (const auto& res : r.results)
    for (const auto& f : res.findings)
      EXPECT_FALSE(f.text.empty()) << f.id;
}

const Finding* summary(const RunReport& r) {
  const auto found = with_id(r, "fleet_summary");
  return found.empty() ? nullptr : found[0];
}

TEST(Fleet, MembersAreGroupedByModelAndJudgedWithinIt) {
  // Five GPUs of model A near 100 GB/s, five of model B near 140, one A GPU at 80: pooled, the
  // fleet median is ~120 and nobody is 4 sigmas out; within A, the slow one is.
  std::vector<FleetMember> fleet;
  for (int i = 0; i < 5; ++i) {
    const double jitter = 1 + 0.002 * (i % 3 - 1);
    fleet.push_back(
        member("a" + std::to_string(i), {100 * jitter}, "GPU A", "GPU-a" + std::to_string(i)));
    fleet.push_back(
        member("b" + std::to_string(i), {140 * jitter}, "GPU B", "GPU-b" + std::to_string(i)));
  }
  fleet.push_back(member("slow", {80}, "GPU A", "GPU-slow"));
  const RunReport r = fleet_report(fleet, {});
  ASSERT_EQ(r.results.size(), 2u);  // transfer of GPU A, transfer of GPU B
  EXPECT_EQ(scalar_text(find_param(r.results[0].params, "gpu")->value), "GPU A");
  EXPECT_EQ(scalar_text(find_param(r.results[1].params, "gpu")->value), "GPU B");
  EXPECT_NEAR(derived(r.results[0].rows[0], "fleet_median"), 100, 0.2);
  EXPECT_NEAR(derived(r.results[1].rows[0], "fleet_median"), 140, 1e-9);
  const auto outliers = with_id(r, "fleet_outlier");
  ASSERT_EQ(outliers.size(), 1u);
  EXPECT_EQ(param_text_of(*outliers[0], "host"), "slow");
  EXPECT_EQ(fleet_outlier_count(r), 1u);
  ASSERT_NE(summary(r), nullptr);
  EXPECT_EQ(value_of(*summary(r), "models"), 2);
  EXPECT_EQ(value_of(*summary(r), "gpus"), 11);
  EXPECT_EQ(with_id(r, "fleet_model").size(), 2u);
}

TEST(Fleet, GpusAreCountedByUuidNotByFile) {
  // Seven runs of one GPU and two other GPUs: three GPUs, nine runs.
  std::vector<FleetMember> fleet;
  for (int i = 0; i < 7; ++i)
    fleet.push_back(member("same-" + std::to_string(i), {100.0 + i % 2}, "GPU A", "GPU-same"));
  fleet.push_back(member("other-1", {100}, "GPU A", "GPU-other-1"));
  fleet.push_back(member("other-2", {101}, "GPU A", "GPU-other-2"));
  const RunReport r = fleet_report(fleet, {});
  ASSERT_NE(summary(r), nullptr);
  EXPECT_EQ(value_of(*summary(r), "files"), 9);
  EXPECT_EQ(value_of(*summary(r), "gpus"), 3);
  EXPECT_EQ(value_of(*summary(r), "runs"), 9);
  EXPECT_EQ(derived(r.results[0].rows[0], "members"), 9);
  EXPECT_EQ(derived(r.results[0].rows[0], "gpus"), 3);
  EXPECT_EQ(r.results[0].subject, "fleet of 3 GPU A GPUs (9 runs)");
  EXPECT_TRUE(with_id(r, "fleet_incomplete").empty());
}

TEST(Fleet, RunsOfFewerThanThreeGpusAreNotJudged) {
  // Six runs of one GPU, one of them at half speed: one GPU has no fleet to be beyond.
  std::vector<FleetMember> fleet;
  for (int i = 0; i < 6; ++i)
    fleet.push_back(member("run-" + std::to_string(i), {i == 5 ? 50.0 : 100.0}, "GPU A", "GPU-1"));
  const RunReport r = fleet_report(fleet, {});
  EXPECT_TRUE(with_id(r, "fleet_beyond").empty());
  EXPECT_EQ(value_of(*summary(r), "gpus"), 1);
  EXPECT_EQ(value_of(*summary(r), "runs"), 6);
  // An outlier GPU seen in several runs is one GPU, its values tallied over its runs.
  fleet.pop_back();  // GPU-1's slow run
  for (int i = 0; i < 5; ++i)
    fleet.push_back(member("n" + std::to_string(i), {100}, "GPU A", "GPU-n" + std::to_string(i)));
  fleet.push_back(member("slow-1", {50}, "GPU A", "GPU-slow"));
  fleet.push_back(member("slow-2", {50}, "GPU A", "GPU-slow"));
  const RunReport again = fleet_report(fleet, {});  // outliers point into it
  const auto outliers = with_id(again, "fleet_outlier");
  ASSERT_EQ(outliers.size(), 1u);
  EXPECT_EQ(param_text_of(*outliers[0], "uuid"), "GPU-slow");
  EXPECT_EQ(value_of(*outliers[0], "runs"), 2);
  EXPECT_EQ(value_of(*outliers[0], "values"), 2);
}

}  // namespace
}  // namespace gpuprobe
