// Every registered probe's sweep is the framework's (sweep_probe.hpp): with its default axis
// values, across one, two and four GPUs, the rows a run starts from are the rows its plan shows
// (params, model, flags, in order), each point has its own key, and a round process finds every
// point again from its key. No GPU: the samples are made up.
#include <gtest/gtest.h>

#include <numeric>

#include "gpuprobe/core/errors.hpp"
#include "gpuprobe/sweep_probe.hpp"

namespace gpuprobe {
namespace {

SampleSet made_up_samples() {
  SampleSet s;
  s.lanes.push_back({"lane", 1e6, {}});
  for (int i = 0; i < 3; ++i) {
    const double seconds[] = {1e-3};
    s.add(0, 1e-3, seconds);
  }
  return s;
}

std::vector<std::string> param_texts(const Row& row) {
  std::vector<std::string> out;
  for (const Param& p : row.params)
    out.push_back(p.key + "=" + scalar_text(p.value) + " " + p.unit);
  return out;
}

std::vector<std::string> model_names(const Row& row) {
  std::vector<std::string> out;
  for (const Quantity& q : row.model)
    out.push_back(q.name);
  return out;
}

const std::vector<std::vector<int>> kSelections = {{0}, {0, 1}, {0, 1, 2, 3}};

TEST(SweepProbes, EveryRegisteredProbeHasItsSweepFromTheFramework) {
  for (const auto& probe : make_probes())
    EXPECT_NE(dynamic_cast<const SweepSource*>(probe.get()), nullptr) << probe->name();
}

TEST(SweepProbes, PlanAndRunNameTheSameRows) {
  for (const auto& probe : make_probes()) {
    const auto* source = dynamic_cast<const SweepSource*>(probe.get());
    ASSERT_NE(source, nullptr) << probe->name();
    const AxisValues values = resolve_axes(probe->axes(), {}, /*quick=*/false);
    for (const auto& devices : kSelections) {
      SCOPED_TRACE(probe->name() + " on " + std::to_string(devices.size()) + " GPUs");
      const ProbeResult plan = probe->plan_across(values, devices);
      SweepRows run = source->run_rows(values, devices);
      ASSERT_EQ(run.size(), plan.rows.size());
      if (probe->scope() == ProbeScope::kDevice || devices.size() > 1) {
        EXPECT_FALSE(plan.rows.empty());
      }
      for (std::size_t i = 0; i < run.size(); ++i)
        run.add(i, made_up_samples());
      const std::vector<Row> rows = run.finish();
      ASSERT_EQ(rows.size(), plan.rows.size());
      for (std::size_t i = 0; i < rows.size(); ++i) {
        EXPECT_EQ(param_texts(rows[i]), param_texts(plan.rows[i])) << i;
        EXPECT_TRUE(rows[i].metrics.size() > 0) << i;
        // The plan may add a model over all rows (finish_plan); what a point's row carries, the
        // run carries too.
        for (const auto& name : model_names(rows[i])) {
          const auto planned = model_names(plan.rows[i]);
          EXPECT_NE(std::find(planned.begin(), planned.end(), name), planned.end()) << name;
        }
        for (const auto& flag : plan.rows[i].flags)
          EXPECT_NE(std::find(rows[i].flags.begin(), rows[i].flags.end(), flag),
                    rows[i].flags.end())
              << flag;
      }
    }
  }
}

TEST(SweepProbes, ARoundProcessFindsEveryPointByItsKey) {
  for (const auto& probe : make_probes()) {
    const auto* source = dynamic_cast<const SweepSource*>(probe.get());
    ASSERT_NE(source, nullptr) << probe->name();
    const AxisValues values = resolve_axes(probe->axes(), {}, /*quick=*/false);
    for (const auto& devices : kSelections) {
      SCOPED_TRACE(probe->name() + " on " + std::to_string(devices.size()) + " GPUs");
      const SweepRows rows = source->run_rows(values, devices);
      std::vector<std::size_t> all(rows.size());
      std::iota(all.begin(), all.end(), std::size_t{0});
      const std::vector<std::string> keys = rows.keys(all);  // throws when two points share one
      EXPECT_EQ(rows.points_of(keys), all);
      std::vector<std::string> reversed(keys.rbegin(), keys.rend());
      EXPECT_EQ(rows.points_of(reversed), std::vector<std::size_t>(all.rbegin(), all.rend()));
    }
  }
}

TEST(SweepRows, APointNeitherMeasuredNorDroppedIsAnError) {
  SweepRows rows({unmeasured_row({{"bytes", std::int64_t{4096}, "B"}}),
                  unmeasured_row({{"bytes", std::int64_t{8192}, "B"}})});
  rows.add(0, made_up_samples());
  EXPECT_THROW(rows.finish(), std::logic_error);
  rows.drop(1);
  EXPECT_EQ(rows.finish().size(), 1u);
  EXPECT_THROW(rows.add(1, made_up_samples()), std::logic_error);
}

TEST(SweepRows, ARowThatLosesAPlannedParamIsAnError) {
  SweepRows rows({unmeasured_row(
      {{"memory", std::string("pinned"), ""}, {"bytes", std::int64_t{4096}, "B"}})});
  Row& row = rows.add(0, made_up_samples());
  row.params.push_back({"link", std::string("NVLink"), ""});  // after the planned ones: fine
  EXPECT_EQ(rows.finish().front().params.size(), 3u);
  row.params.erase(row.params.begin());
  EXPECT_THROW(rows.finish(), std::logic_error);
}

TEST(SweepRows, KeysNameTheParamsAndAnUnknownKeyIsRefused) {
  const SweepRows rows({unmeasured_row(
      {{"memory", std::string("pinned"), ""}, {"bytes", std::int64_t{4096}, "B"}})});
  EXPECT_EQ(rows.keys({0}), std::vector<std::string>{"memory=pinned bytes=4096"});
  EXPECT_THROW(rows.points_of({"memory=pinned bytes=8192"}), UsageError);
  const SweepRows twice({unmeasured_row({{"bytes", std::int64_t{1}, "B"}}),
                         unmeasured_row({{"bytes", std::int64_t{1}, "B"}})});
  EXPECT_THROW(twice.keys({0}), std::logic_error);
}

}  // namespace
}  // namespace gpuprobe
