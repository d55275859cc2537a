// Unit tests for several runs per side in compare: pooling runs, naming sides, both sides in the
// header and in JSON.
#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "gpuprobe/core/compare.hpp"
#include "gpuprobe/core/compare_pool.hpp"
#include "gpuprobe/core/json_io.hpp"
#include "gpuprobe/core/render.hpp"
#include "gpuprobe/core/stats.hpp"

namespace gpuprobe {
namespace {

// A metric with these rounds of samples, its statistics over all of them.
Metric metric_of(const std::string& name, const std::string& unit, SampleRounds rounds) {
  Metric m{name, unit, {}, std::move(rounds)};
  std::vector<double> all;
  for (const auto& r : m.samples)
    all.insert(all.end(), r.begin(), r.end());
  m.stats = statistics_of(all);
  return m;
}

Row row_of(const std::string& direction, std::vector<Metric> metrics) {
  Row row;
  row.params = {{"direction", direction, ""}, {"bytes", std::int64_t{4096}, "B"}};
  row.metrics = std::move(metrics);
  return row;
}

RunReport run_of(const std::string& git, std::vector<Row> rows, const std::string& gpu = "H100") {
  RunReport run;
  run.tool = {"gpuprobe", "0.1.0", git};
  run.host = {"node-" + git, "cpu", 13000, 13000};
  DeviceInfo d;
  d.name = gpu;
  run.devices = {d};
  ProbeResult r;
  r.probe = "transfer";
  r.device = 0;
  r.rows = std::move(rows);
  r.summary = {{{{"direction", std::string("h2d"), ""}}, {{"latency", "s", 2e-6}}}};
  r.findings = {note("only_in_" + git, {}, {})};
  run.results = {r};
  return run;
}

TEST(PoolRuns, KeepsEachFilesRoundsAndRecomputesTheStatistics) {
  const RunReport one =
      run_of("r1", {row_of("h2d", {metric_of("bandwidth", "GB/s", {{1, 2}, {3}})})});
  const RunReport two =
      run_of("r2", {row_of("h2d", {metric_of("bandwidth", "GB/s", {{4}, {5, 6}})})});
  const RunReport pooled = pool_runs({one, two});
  ASSERT_EQ(pooled.results.size(), 1u);
  ASSERT_EQ(pooled.results[0].rows.size(), 1u);
  const Metric& m = pooled.results[0].rows[0].metrics[0];
  // Four rounds: the first file's two, then the second's two.
  EXPECT_EQ(m.samples, (SampleRounds{{1, 2}, {3}, {4}, {5, 6}}));
  EXPECT_EQ(m.stats.n, 6u);
  EXPECT_DOUBLE_EQ(m.stats.median, 3.5);
  EXPECT_DOUBLE_EQ(m.stats.min, 1);
  EXPECT_DOUBLE_EQ(m.stats.max, 6);
  // Header, summary rows and findings are the first file's.
  EXPECT_EQ(pooled.tool.git, "r1");
  EXPECT_EQ(pooled.host.hostname, "node-r1");
  ASSERT_EQ(pooled.results[0].findings.size(), 1u);
  EXPECT_EQ(pooled.results[0].findings[0].id, "only_in_r1");
  EXPECT_EQ(pooled.results[0].summary.size(), 1u);
  // One run: unchanged.
  EXPECT_EQ(to_json(pool_runs({one})).dump(), to_json(one).dump());
}

TEST(PoolRuns, RowsInSomeFilesOnlyArePooledFromThoseThatHaveThem) {
  const RunReport one = run_of("r1", {row_of("h2d", {metric_of("bandwidth", "GB/s", {{1}})}),
                                      row_of("d2h", {metric_of("bandwidth", "GB/s", {{10}})})});
  const RunReport two = run_of("r2", {row_of("h2d", {metric_of("bandwidth", "GB/s", {{2}})})});
  RunReport three = run_of("r3", {row_of("bidir", {metric_of("bandwidth", "GB/s", {{7}})}),
                                  row_of("h2d", {metric_of("bandwidth", "GB/s", {{3}})})});
  std::reverse(three.results[0].rows[1].params.begin(), three.results[0].rows[1].params.end());
  const RunReport pooled = pool_runs({one, two, three});
  const auto& rows = pooled.results[0].rows;
  ASSERT_EQ(rows.size(), 3u);  // h2d, d2h (first file only), bidir (third only)
  EXPECT_EQ(rows[0].metrics[0].samples, (SampleRounds{{1}, {2}, {3}}));  // params in any order
  EXPECT_EQ(rows[1].metrics[0].samples, (SampleRounds{{10}}));
  EXPECT_EQ(scalar_text(rows[2].params[0].value), "bidir");
  EXPECT_EQ(rows[2].metrics[0].samples, (SampleRounds{{7}}));
}

TEST(PoolRuns, AFileWithoutSamplesLeavesTheMetricToTheBand) {
  const RunReport one = run_of("r1", {row_of("h2d", {metric_of("bandwidth", "GB/s", {{1, 2}})})});
  RunReport old = run_of("r2", {row_of("h2d", {metric_of("bandwidth", "GB/s", {{9, 9}})})});
  old.results[0].rows[0].metrics[0].samples.clear();  // as read from a schema 2 file
  const RunReport pooled = pool_runs({one, old});     // kept: m refers into it
  const Metric& m = pooled.results[0].rows[0].metrics[0];
  EXPECT_TRUE(m.samples.empty());
  EXPECT_DOUBLE_EQ(m.stats.median, 1.5);  // the first file's statistics
}

TEST(PoolRuns, ResultsMatchByProbeAndDevice) {
  RunReport one = run_of("r1", {row_of("h2d", {metric_of("bandwidth", "GB/s", {{1}})})});
  RunReport two = run_of("r2", {row_of("h2d", {metric_of("bandwidth", "GB/s", {{2}})})});
  two.results[0].device = 1;  // another GPU: a result of its own
  ProbeResult failed = two.results[0];
  failed.device = 0;
  failed.status = Status::kFailed;
  two.results.push_back(failed);  // failed: nothing pooled from it
  const RunReport pooled = pool_runs({one, two});
  ASSERT_EQ(pooled.results.size(), 2u);
  EXPECT_EQ(pooled.results[0].rows[0].metrics[0].samples, (SampleRounds{{1}}));
  EXPECT_EQ(pooled.results[1].device, 1);
}

TEST(SideName, TheFileOrTheCountOfRuns) {
  EXPECT_EQ(side_name("A", {"before.json"}), "before.json");
  EXPECT_EQ(side_name("A", {"a1.json", "a2.json", "a3.json"}), "A (3 runs)");
}

// Runs of A around 50 GB/s, of B around 45 GB/s, 4 rounds of 6 samples each.
RunReport run_at(const std::string& git, double center, const std::string& gpu = "H100") {
  SampleRounds rounds(4);
  for (std::size_t r = 0; r < rounds.size(); ++r) {
    for (std::size_t i = 0; i < 6; ++i)
      rounds[r].push_back(center * (1.0 + 0.002 * static_cast<double>((r * 6 + i) % 5)));
  }
  return run_of(git, {row_of("h2d", {metric_of("bandwidth", "GB/s", rounds)})}, gpu);
}

TEST(CompareSides, SeveralRunsPerSideArePooledAndNamed) {
  CompareSide a{{"a1.json", "a2.json", "a3.json"},
                {run_at("r1", 50), run_at("r2", 50), run_at("r3", 50)}};
  CompareSide b{{"b.json"}, {run_at("r4", 45, "H200")}};
  CompareOptions options;
  options.fail_on_regression = 5;
  const CompareOutcome out = compare_sides(a, b, options);
  EXPECT_EQ(out.slower, 1u);
  ASSERT_EQ(out.regressions.size(), 1u);
  const ProbeResult& table = out.report.results.front();
  EXPECT_EQ(scalar_text(find_param(table.params, "a_file")->value), "A (3 runs)");
  EXPECT_EQ(scalar_text(find_param(table.params, "b_file")->value), "b.json");
  EXPECT_EQ(table.method.rfind("A (3 runs) GPU 0 (H100) vs b.json GPU 0 (H200)", 0), 0u)
      << table.method;
  // Every file is noted.
  std::size_t files = 0;
  for (const auto& f : out.report.results.back().findings)
    files += f.id == "compare_file" ? 1 : 0;
  EXPECT_EQ(files, 4u);
  // Both sides in the header: files, hosts, GPUs.
  ASSERT_EQ(out.report.sides.size(), 2u);
  EXPECT_EQ(out.report.sides[0].files, (std::vector<std::string>{"a1.json", "a2.json", "a3.json"}));
  EXPECT_EQ(out.report.sides[1].devices[0].name, "H200");
  const std::string text = render_table(out.report, {});
  EXPECT_NE(text.find("A (3 runs) = a1.json, a2.json, a3.json: node-r1 · cpu"), std::string::npos)
      << text;
  EXPECT_NE(text.find("B = b.json: node-r4 · cpu"), std::string::npos) << text;
  EXPECT_NE(text.find("A GPU 0: H100 · "), std::string::npos) << text;
  EXPECT_NE(text.find("B GPU 0: H200 · "), std::string::npos) << text;
  const std::string md = render_markdown(out.report);
  EXPECT_NE(md.find("**B GPU 0: H200**"), std::string::npos) << md;
  // JSON carries the sides and reads them back.
  const RunReport back = report_from_json(to_json(out.report), "compare");
  ASSERT_EQ(back.sides.size(), 2u);
  EXPECT_EQ(back.sides[0].label, "A");
  EXPECT_EQ(back.sides[0].files.size(), 3u);
  EXPECT_EQ(back.sides[1].host.hostname, "node-r4");
  EXPECT_EQ(back.sides[1].tool.git, "r4");
  EXPECT_EQ(back.sides[1].devices[0].name, "H200");
}

TEST(CompareSides, PoolingNarrowsTheInterval) {
  // The same runs of A twice over: more rounds, a narrower interval around the same ratio.
  CompareSide one{{"a.json"}, {run_at("r1", 50)}};
  CompareSide three{{"a1.json", "a2.json", "a3.json"},
                    {run_at("r1", 50), run_at("r1", 50.1), run_at("r1", 49.9)}};
  CompareSide b{{"b.json"}, {run_at("r4", 50)}};
  const auto ci = [](const CompareOutcome& out) {
    const Row& row = out.report.results.front().rows.front();
    return std::pair{*find_quantity(row.derived, "ci_low")->value,
                     *find_quantity(row.derived, "ci_high")->value};
  };
  const auto [lo1, hi1] = ci(compare_sides(one, b, {}));
  const auto [lo3, hi3] = ci(compare_sides(three, b, {}));
  EXPECT_LT(hi3 - lo3, hi1 - lo1) << "[" << lo1 << ", " << hi1 << "] vs [" << lo3 << ", " << hi3
                                  << "]";
}

// A row that only one of a side's files holds is one run's worth of evidence: its run-level term
// is that of one run, not the mean over every file of the side (which would narrow it).
TEST(CompareSides, ARowInOneFileOfASideCountsAsOneRun) {
  // Rounds at two levels, so the run-level term is wide.
  const SampleRounds levels = {{50, 50.1}, {55, 55.1}, {45, 45.1}, {50, 50.2}};
  const Metric m = metric_of("bandwidth", "GB/s", levels);
  const RunReport with_row = run_of("r1", {row_of("h2d", {m})});
  const RunReport other_row = run_of("r2", {row_of("d2h", {m})});  // no h2d row
  const CompareSide one{{"a.json"}, {with_row}};
  const CompareSide two{{"a1.json", "a2.json"}, {with_row, other_row}};
  const CompareSide b{{"b.json"}, {with_row}};
  const auto h2d_ci = [](const CompareOutcome& out) {
    for (const auto& res : out.report.results) {
      for (const auto& row : res.rows) {
        const Param* dir = find_param(row.params, "direction");
        if (dir && scalar_text(dir->value) == "h2d")
          return std::pair{*find_quantity(row.derived, "ci_low")->value,
                           *find_quantity(row.derived, "ci_high")->value};
      }
    }
    ADD_FAILURE() << "no h2d row in the comparison";
    return std::pair{0.0, 0.0};
  };
  const auto alone = h2d_ci(compare_sides(one, b, {}));
  const auto pooled = h2d_ci(compare_sides(two, b, {}));
  EXPECT_DOUBLE_EQ(pooled.first, alone.first);
  EXPECT_DOUBLE_EQ(pooled.second, alone.second);
  // The term is there to be counted wrongly: round levels 10% apart widen the interval both ways.
  EXPECT_LT(alone.first, 0.95);
  EXPECT_GT(alone.second, 1.05);
}

TEST(CompareSides, ASideNeedsARunPerFile) {
  EXPECT_THROW(compare_sides({{}, {}}, {{"b.json"}, {run_at("r4", 45)}}, {}),
               std::invalid_argument);
}

}  // namespace
}  // namespace gpuprobe
