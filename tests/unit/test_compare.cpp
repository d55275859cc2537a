// Unit tests for gpuprobe compare: classification, matching, the report, summary and finding
// comparison, compare's findings as data, reading files.
#include "gpuprobe/core/compare.hpp"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "gpuprobe/core/errors.hpp"
#include "gpuprobe/core/glossary.hpp"
#include "gpuprobe/core/json_io.hpp"
#include "gpuprobe/core/render.hpp"

namespace gpuprobe {
namespace {

namespace fs = std::filesystem;

Metric metric(const std::string& name, const std::string& unit, double median,
              double rel_noise = 0.0) {
  Metric m{name, unit, {}, {}};
  m.stats.median = median;
  m.stats.min = m.stats.max = m.stats.mean = median;
  m.stats.stdev = median * rel_noise;
  m.stats.rel_noise = rel_noise;
  m.stats.n = 10;
  return m;
}

// A transfer row: bandwidth (GB/s) and the matching time (s) for `bytes`.
Row transfer_row(const std::string& direction, std::int64_t bytes, double gbps,
                 double rel_noise = 0.002, bool reversed_params = false) {
  Row row;
  row.params = {
      {"memory", std::string("pinned"), ""}, {"direction", direction, ""}, {"bytes", bytes, "B"}};
  if (reversed_params) std::reverse(row.params.begin(), row.params.end());
  row.metrics = {metric("bandwidth", "GB/s", gbps, rel_noise),
                 metric("time", "s", static_cast<double>(bytes) / (gbps * 1e9), rel_noise)};
  return row;
}

ProbeResult transfer_result(int device, std::vector<Row> rows) {
  ProbeResult r;
  r.probe = "transfer";
  r.device = device;
  r.rows = std::move(rows);
  return r;
}

RunReport report_with(std::vector<ProbeResult> results, const std::string& git = "aaaa",
                      int devices = 1) {
  RunReport report;
  report.tool = {"gpuprobe", "0.1.0", git};
  report.host = {"node17", "cpu", 13000, 13000};
  for (int i = 0; i < devices; ++i) {
    DeviceInfo d;
    d.index = i;
    d.name = "NVIDIA H100 80GB HBM3";
    d.uuid = "GPU-" + std::to_string(i);
    report.devices.push_back(d);
  }
  report.results = std::move(results);
  return report;
}

// The "compare <probe>" result for one metric, or nullptr.
const ProbeResult* table_for(const CompareOutcome& out, const std::string& metric_name) {
  for (const auto& r : out.report.results) {
    const Param* m = find_param(r.params, "metric");
    if (m && scalar_text(m->value) == metric_name) return &r;
  }
  return nullptr;
}

std::string change_of(const Row& row) {  // the last param: "change"
  return scalar_text(row.params.back().value);
}

bool has_note(const CompareOutcome& out, const std::string& text) {
  const auto& findings = out.report.results.back().findings;
  return std::any_of(findings.begin(), findings.end(), [&](const Finding& f) {
    return f.kind == FindingKind::kNote && f.text.find(text) != std::string::npos;
  });
}

constexpr std::int64_t kMiB = 1 << 20;

// The message of the UsageError `call` throws ("" when it throws none).
template <class F>
std::string error_of(F call) {
  try {
    call();
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

// ---- classification of one metric --------------------------------------------------------

TEST(CompareMetric, TimeHigherIsSlowerLowerIsFaster) {
  const Metric a = metric("time", "s", 1.0, 0.001);
  EXPECT_EQ(compare_metric(a, metric("time", "s", 1.10, 0.001), 3, 0).change, Change::kSlower);
  EXPECT_EQ(compare_metric(a, metric("time", "s", 0.90, 0.001), 3, 0).change, Change::kFaster);
  const ValueComparison c = compare_metric(a, metric("time", "s", 1.10, 0.001), 3, 0);
  ASSERT_TRUE(c.ratio.has_value());
  EXPECT_NEAR(*c.ratio, 1.10, 1e-12);
  EXPECT_DOUBLE_EQ(c.a, 1.0);
  EXPECT_DOUBLE_EQ(c.b, 1.10);
}

TEST(CompareMetric, BandwidthHigherIsFasterLowerIsSlower) {
  const Metric a = metric("bandwidth", "GB/s", 100, 0.001);
  EXPECT_EQ(compare_metric(a, metric("bandwidth", "GB/s", 110, 0.001), 3, 0).change,
            Change::kFaster);
  EXPECT_EQ(compare_metric(a, metric("bandwidth", "GB/s", 90, 0.001), 3, 0).change,
            Change::kSlower);
}

TEST(CompareMetric, OtherUnitsAreHigherOrLowerAndNeverRegress) {
  const Metric a = metric("sectors", "x", 4.0);
  const ValueComparison up = compare_metric(a, metric("sectors", "x", 5.0), 3, 0);
  EXPECT_EQ(up.change, Change::kHigher);
  EXPECT_FALSE(up.regression);
  EXPECT_EQ(compare_metric(a, metric("sectors", "x", 3.0), 3, 0).change, Change::kLower);
  EXPECT_EQ(better_for_unit("s"), Better::kLower);
  EXPECT_EQ(better_for_unit("GB/s"), Better::kHigher);
  EXPECT_EQ(better_for_unit("%"), Better::kNone);
}

TEST(CompareMetric, NoiseBandIsKTimesTheLargerRelativeNoise) {
  // A quiet (0.1%), B noisy (2%): band = 3 x 2% = 6%, so 5% is "same" and 7% is not.
  const Metric a = metric("bandwidth", "GB/s", 100, 0.001);
  const ValueComparison five = compare_metric(a, metric("bandwidth", "GB/s", 95, 0.02), 3, 0);
  EXPECT_NEAR(five.band, 0.06, 1e-12);
  EXPECT_EQ(five.change, Change::kSame);
  EXPECT_EQ(compare_metric(a, metric("bandwidth", "GB/s", 93, 0.02), 3, 0).change, Change::kSlower);
  // K scales the band: with K = 1 the same 5% is outside 2%.
  EXPECT_EQ(compare_metric(a, metric("bandwidth", "GB/s", 95, 0.02), 1, 0).change, Change::kSlower);
  // The noisier side decides, whichever file it is in.
  EXPECT_EQ(compare_metric(metric("bandwidth", "GB/s", 100, 0.02),
                           metric("bandwidth", "GB/s", 95, 0.001), 3, 0)
                .change,
            Change::kSame);
}

TEST(CompareMetric, NoiseBandHasAHalfPercentFloor) {
  const Metric a = metric("time", "s", 1.0, 0.0);
  const ValueComparison inside = compare_metric(a, metric("time", "s", 1.004, 0.0), 3, 0);
  EXPECT_DOUBLE_EQ(inside.band, kCompareNoiseFloor);
  EXPECT_EQ(inside.change, Change::kSame);
  EXPECT_EQ(compare_metric(a, metric("time", "s", 1.006, 0.0), 3, 0).change, Change::kSlower);
}

TEST(CompareMetric, RegressionNeedsSlowerBeyondThePercentage) {
  const Metric a = metric("bandwidth", "GB/s", 100, 0.001);
  const Metric b = metric("bandwidth", "GB/s", 90, 0.001);  // 10% slower
  EXPECT_TRUE(compare_metric(a, b, 3, 5).regression);
  EXPECT_FALSE(compare_metric(a, b, 3, 20).regression);
  EXPECT_TRUE(compare_metric(a, b, 3, 0).regression);
  EXPECT_FALSE(compare_metric(a, b, 3, std::nullopt).regression);  // no threshold, no check
  // Faster by any amount is never a regression.
  EXPECT_FALSE(compare_metric(a, metric("bandwidth", "GB/s", 150, 0.001), 3, 0).regression);
  // Slower but within the noise band: "same", not a regression.
  EXPECT_FALSE(compare_metric(a, metric("bandwidth", "GB/s", 90, 0.05), 3, 5).regression);
}

TEST(CompareMetric, ZeroOrNegativeBaselineHasNoRatio) {
  const ValueComparison c =
      compare_metric(metric("time", "s", 0.0), metric("time", "s", 1.0), 3, 0);
  EXPECT_FALSE(c.ratio.has_value());
  EXPECT_EQ(c.change, Change::kUndefined);
  EXPECT_STREQ(change_name(c.change), "n/a");
  EXPECT_EQ(compare_metric(metric("time", "s", 0.0), metric("time", "s", 0.0), 3, 0).change,
            Change::kSame);
}

// ---- matching and the report -------------------------------------------------------------

TEST(CompareReports, MatchesRowsWhateverTheParamOrder) {
  const RunReport a = report_with({transfer_result(0, {transfer_row("h2d", 64 * kMiB, 50)})});
  const RunReport b = report_with(
      {transfer_result(0, {transfer_row("h2d", 64 * kMiB, 50, 0.002, /*reversed=*/true)})});
  const CompareOutcome out = compare_reports(a, b, {});
  EXPECT_EQ(out.matched_rows, 1u);
  EXPECT_EQ(out.comparisons, 2u);  // bandwidth and time
  EXPECT_EQ(out.unmatched_a, 0u);
  EXPECT_EQ(out.unmatched_b, 0u);
  EXPECT_EQ(out.same, 2u);
}

TEST(CompareReports, IntegerAndWholeRealParamsMatchButTextDoesNot) {
  Row real = transfer_row("h2d", 64 * kMiB, 50);
  real.params[2].value = static_cast<double>(64 * kMiB);
  Row text = transfer_row("d2h", 64 * kMiB, 50);
  text.params[2].value = std::to_string(64 * kMiB);
  const RunReport a = report_with({transfer_result(
      0, {transfer_row("h2d", 64 * kMiB, 50), transfer_row("d2h", 64 * kMiB, 50)})});
  const RunReport b = report_with({transfer_result(0, {real, text})});
  const CompareOutcome out = compare_reports(a, b, {});
  EXPECT_EQ(out.matched_rows, 1u);
  EXPECT_EQ(out.unmatched_a, 1u);
  EXPECT_EQ(out.unmatched_b, 1u);
}

TEST(CompareReports, BuildsOneTablePerMetricWithChangeLastAndUnits) {
  const RunReport a = report_with({transfer_result(0, {transfer_row("h2d", 64 * kMiB, 50)})});
  const RunReport b = report_with({transfer_result(0, {transfer_row("h2d", 64 * kMiB, 45)})});
  const CompareOutcome out = compare_reports(a, b, {});
  // bandwidth table, time table, then the overview.
  ASSERT_EQ(out.report.results.size(), 3u);
  EXPECT_EQ(out.report.results.back().probe, "compare");
  const ProbeResult* bw = table_for(out, "bandwidth");
  const ProbeResult* time = table_for(out, "time");
  ASSERT_NE(bw, nullptr);
  ASSERT_NE(time, nullptr);
  EXPECT_EQ(bw->probe, "compare transfer");
  ASSERT_EQ(bw->rows.size(), 1u);
  const Row& row = bw->rows.front();
  ASSERT_EQ(row.params.size(), 6u);
  EXPECT_EQ(row.params[0].key, "memory");
  EXPECT_EQ(row.params[3].key, "metric");
  EXPECT_EQ(row.params[4].key, "method");
  EXPECT_EQ(scalar_text(row.params[4].value), "band");  // no samples: the band rule
  EXPECT_EQ(row.params[5].key, "change");
  EXPECT_EQ(change_of(row), "slower");
  ASSERT_EQ(row.derived.size(), 6u);
  EXPECT_EQ(row.derived[0].name, "a");
  EXPECT_EQ(row.derived[0].unit, "GB/s");
  EXPECT_DOUBLE_EQ(*row.derived[0].value, 50);
  EXPECT_EQ(row.derived[1].name, "b");
  EXPECT_DOUBLE_EQ(*row.derived[1].value, 45);
  EXPECT_EQ(row.derived[2].name, "ratio");
  EXPECT_EQ(row.derived[2].unit, "x");
  EXPECT_NEAR(*row.derived[2].value, 0.9, 1e-12);
  EXPECT_EQ(row.derived[3].name, "ci_low");
  EXPECT_FALSE(row.derived[3].value.has_value());  // the band has no interval
  EXPECT_EQ(row.derived[4].name, "ci_high");
  // The band rule detects a change beyond its band: 3 x 0.2% noise = 0.6%.
  EXPECT_EQ(row.derived[5].name, "detectable");
  EXPECT_EQ(row.derived[5].unit, "%");
  EXPECT_NEAR(*row.derived[5].value, 0.6, 1e-9);
  EXPECT_TRUE(row.flags.empty());  // no --fail-on-regression: slower, but no regression
  EXPECT_TRUE(out.regressions.empty());
  EXPECT_EQ(out.slowdowns.size(), 2u);
  EXPECT_EQ(time->rows.front().derived[0].unit, "s");
  EXPECT_EQ(change_of(time->rows.front()), "slower");
  // Overview summary: one line for transfer with the counts.
  const ProbeResult& overview = out.report.results.back();
  ASSERT_EQ(overview.summary.size(), 1u);
  EXPECT_DOUBLE_EQ(*find_quantity(overview.summary[0].values, "slower")->value, 2);
  EXPECT_DOUBLE_EQ(*find_quantity(overview.summary[0].values, "same")->value, 0);
  EXPECT_DOUBLE_EQ(*find_quantity(overview.summary[0].values, "rows")->value, 1);
  // Renders through the ordinary renderers, and the JSON reads back.
  const std::string table = render_table(out.report);
  EXPECT_NE(table.find("== compare transfer"), std::string::npos);
  EXPECT_NE(table.find("slower"), std::string::npos);
  const RunReport back = report_from_json(to_json(out.report), "compare");
  EXPECT_EQ(back.results.size(), 3u);
}

TEST(CompareReports, ClassifiesFasterSlowerSameAcrossRows) {
  const RunReport a = report_with(
      {transfer_result(0, {transfer_row("h2d", 64 * kMiB, 50), transfer_row("d2h", 64 * kMiB, 50),
                           transfer_row("bidir", 64 * kMiB, 90)})});
  const RunReport b =
      report_with({transfer_result(0, {transfer_row("h2d", 64 * kMiB, 45),        // 10% slower
                                       transfer_row("d2h", 64 * kMiB, 50.1),      // 0.2%: same
                                       transfer_row("bidir", 64 * kMiB, 99)})});  // 10% faster
  CompareOptions options;
  options.value_names = {"bandwidth"};
  const CompareOutcome out = compare_reports(a, b, options);
  EXPECT_EQ(out.comparisons, 3u);
  EXPECT_EQ(out.slower, 1u);
  EXPECT_EQ(out.same, 1u);
  EXPECT_EQ(out.faster, 1u);
  EXPECT_EQ(table_for(out, "time"), nullptr);  // --metric bandwidth only
  const ProbeResult* bw = table_for(out, "bandwidth");
  ASSERT_NE(bw, nullptr);
  ASSERT_EQ(bw->rows.size(), 3u);
  EXPECT_EQ(change_of(bw->rows[0]), "slower");
  EXPECT_EQ(change_of(bw->rows[1]), "same");
  EXPECT_EQ(change_of(bw->rows[2]), "faster");
  ASSERT_EQ(out.improvements.size(), 1u);
  EXPECT_EQ(out.improvements[0].item, "memory=pinned direction=bidir bytes=64 MiB");
}

TEST(CompareReports, RegressionThresholdDecidesWhatFails) {
  const RunReport a = report_with({transfer_result(
      0, {transfer_row("h2d", 64 * kMiB, 50), transfer_row("d2h", 64 * kMiB, 50)})});
  const RunReport b = report_with({transfer_result(
      0, {transfer_row("h2d", 64 * kMiB, 45), transfer_row("d2h", 64 * kMiB, 40)})});
  CompareOptions options;
  options.value_names = {"bandwidth"};
  options.fail_on_regression = 5;
  CompareOutcome out = compare_reports(a, b, options);
  ASSERT_EQ(out.regressions.size(), 2u);
  EXPECT_EQ(out.regressions[0].item, "memory=pinned direction=d2h bytes=64 MiB");  // worst
  EXPECT_EQ(regression_summary(out),
            "2 regression(s) beyond 5%: worst transfer memory=pinned direction=d2h "
            "bytes=64 MiB bandwidth 0.8x");
  options.fail_on_regression = 15;
  out = compare_reports(a, b, options);
  ASSERT_EQ(out.regressions.size(), 1u);
  EXPECT_EQ(out.slower, 2u);
  const ProbeResult* bw = table_for(out, "bandwidth");
  ASSERT_NE(bw, nullptr);
  EXPECT_TRUE(bw->rows[0].flags.empty());  // 10%: slower, below 15%
  EXPECT_EQ(bw->rows[1].flags, std::vector<std::string>{"regression"});
  options.fail_on_regression = 25;
  EXPECT_TRUE(compare_reports(a, b, options).regressions.empty());
}

TEST(CompareReports, CountsAndListsUnmatchedRows) {
  const RunReport a = report_with(
      {transfer_result(0, {transfer_row("h2d", 4096, 5), transfer_row("h2d", 64 * kMiB, 50),
                           transfer_row("d2h", 64 * kMiB, 50)})});
  ProbeResult extra_probe;
  extra_probe.probe = "coalescing";
  extra_probe.device = 0;
  extra_probe.rows = {transfer_row("h2d", 1, 1), transfer_row("h2d", 2, 1)};
  const RunReport b = report_with(
      {transfer_result(0, {transfer_row("h2d", 64 * kMiB, 50), transfer_row("d2h", 64 * kMiB, 50),
                           transfer_row("h2d", 256 * kMiB, 50)}),
       extra_probe});
  const CompareOutcome out = compare_reports(a, b, {});
  EXPECT_EQ(out.matched_rows, 2u);
  EXPECT_EQ(out.unmatched_a, 1u);
  EXPECT_EQ(out.unmatched_b, 3u);  // the 256 MiB row and both coalescing rows
  EXPECT_TRUE(has_note(out, "1 row(s) only in A: [memory=pinned direction=h2d bytes=4 KiB]"));
  EXPECT_TRUE(has_note(out, "coalescing on GPU 0: only in B (2 rows"));
  const auto& summary = out.report.results.back().summary;
  ASSERT_EQ(summary.size(), 2u);
  EXPECT_DOUBLE_EQ(*find_quantity(summary[0].values, "only_in_a")->value, 1);
  EXPECT_DOUBLE_EQ(*find_quantity(summary[0].values, "only_in_b")->value, 1);
  EXPECT_DOUBLE_EQ(*find_quantity(summary[1].values, "only_in_b")->value, 2);
}

TEST(CompareReports, NotesRowsThatTimedDifferentAmountsOfWork) {
  // Same params, but B's time is half for the same bandwidth: B moved half the bytes.
  Row half = transfer_row("h2d", 64 * kMiB, 50);
  half.metrics[1].stats.median /= 2;
  const RunReport a = report_with({transfer_result(
      0, {transfer_row("h2d", 64 * kMiB, 50), transfer_row("d2h", 64 * kMiB, 50)})});
  const RunReport b = report_with({transfer_result(0, {half, transfer_row("d2h", 64 * kMiB, 50)})});
  const CompareOutcome out = compare_reports(a, b, {});
  EXPECT_TRUE(has_note(out, "in 1 of 2 matched rows bandwidth x time"))
      << out.report.results.back().findings.back().text;
  EXPECT_TRUE(has_note(out, "B/A 0.5x"));
  // The same rows measured alike raise no such note.
  EXPECT_FALSE(has_note(compare_reports(a, a, {}), "bandwidth x time"));
}

TEST(CompareReports, NoRowInCommonIsAUsageError) {
  const RunReport a = report_with({transfer_result(0, {transfer_row("h2d", 4096, 5)})});
  const RunReport b = report_with({transfer_result(0, {transfer_row("h2d", 8192, 5)})});
  try {
    compare_reports(a, b, {});
    FAIL() << "expected UsageError";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("no rows in common"), std::string::npos) << e.what();
  }
}

TEST(CompareReports, FailedResultsAreNotedNotCompared) {
  ProbeResult failed = transfer_result(0, {});
  failed.probe = "coalescing";
  failed.status = Status::kFailed;
  failed.reason = "wrong kernel result";
  ProbeResult ok_coalescing = transfer_result(0, {transfer_row("h2d", 4096, 5)});
  ok_coalescing.probe = "coalescing";
  const RunReport a =
      report_with({transfer_result(0, {transfer_row("h2d", 64 * kMiB, 50)}), ok_coalescing});
  const RunReport b =
      report_with({transfer_result(0, {transfer_row("h2d", 64 * kMiB, 50)}), failed});
  const CompareOutcome out = compare_reports(a, b, {});
  EXPECT_EQ(out.matched_rows, 1u);
  EXPECT_TRUE(has_note(out, "coalescing on GPU 0: failed in B (wrong kernel result)"));
}

TEST(CompareReports, UnknownMetricIsAUsageError) {
  const RunReport a = report_with({transfer_result(0, {transfer_row("h2d", 64 * kMiB, 50)})});
  CompareOptions options;
  options.value_names = {"latency"};
  EXPECT_EQ(error_of([&] {
              compare_reports(a, a, options);
            }).rfind("--metric latency: no matched row", 0),
            0u);
}

TEST(CompareReports, NotesEnvironmentDifferences) {
  const RunReport a = report_with({transfer_result(0, {transfer_row("h2d", 64 * kMiB, 50)})});
  RunReport b = report_with({transfer_result(0, {transfer_row("h2d", 64 * kMiB, 50)})}, "bbbb");
  b.host.driver_version = 12080;
  b.devices[0].name = "NVIDIA H200";
  const CompareOutcome out = compare_reports(a, b, {});
  EXPECT_TRUE(has_note(out, "driver 13.0 vs 12.8"));
  EXPECT_TRUE(has_note(out, "git aaaa vs bbbb"));
  EXPECT_TRUE(has_note(out,
                       "different GPU models: A GPU 0 is NVIDIA H100 80GB HBM3, B GPU 0 is "
                       "NVIDIA H200"));
  EXPECT_EQ(out.report.devices.size(), 1u);
  EXPECT_EQ(out.report.devices[0].name, "NVIDIA H100 80GB HBM3");  // devices come from A
  // Every heading names both GPUs, not only A's.
  ASSERT_FALSE(out.report.results.empty());
  for (const auto& r : out.report.results)
    EXPECT_EQ(r.subject, "A GPU 0: NVIDIA H100 80GB HBM3 vs B GPU 0: NVIDIA H200") << r.probe;
  EXPECT_NE(
      render_table(out.report, {})
          .find("== compare transfer · A GPU 0: NVIDIA H100 80GB HBM3 vs B GPU 0: NVIDIA H200"),
      std::string::npos);
}

// ---- device pairing ----------------------------------------------------------------------

TEST(CompareDevices, PairsTwoGpusOfOneFile) {
  const RunReport run = report_with({transfer_result(0, {transfer_row("h2d", 64 * kMiB, 50)}),
                                     transfer_result(1, {transfer_row("h2d", 64 * kMiB, 40)})},
                                    "aaaa", 2);
  CompareOptions options;
  options.devices = {{0, 1}};
  options.value_names = {"bandwidth"};
  const CompareOutcome out = compare_reports(run, run, options);
  EXPECT_EQ(out.matched_rows, 1u);
  const ProbeResult* bw = table_for(out, "bandwidth");
  ASSERT_NE(bw, nullptr);
  EXPECT_EQ(bw->device, 0);
  EXPECT_EQ(scalar_text(find_param(bw->params, "b_device")->value), "1");
  EXPECT_DOUBLE_EQ(*bw->rows[0].derived[0].value, 50);
  EXPECT_DOUBLE_EQ(*bw->rows[0].derived[1].value, 40);
  EXPECT_EQ(change_of(bw->rows[0]), "slower");
  // Default pairing compares each GPU with itself: all same.
  const CompareOutcome self = compare_reports(run, run, {});
  EXPECT_EQ(self.matched_rows, 2u);
  EXPECT_EQ(self.same, self.comparisons);
}

TEST(CompareDevices, DifferentGpusNeedExplicitPairing) {
  const RunReport a = report_with({transfer_result(0, {transfer_row("h2d", 64 * kMiB, 50)})});
  const RunReport b =
      report_with({transfer_result(1, {transfer_row("h2d", 64 * kMiB, 50)})}, "aaaa", 2);
  try {
    compare_reports(a, b, {});
    FAIL() << "expected UsageError";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("--devices"), std::string::npos) << e.what();
  }
  CompareOptions options;
  options.devices = {{0, 1}};
  EXPECT_EQ(compare_reports(a, b, options).matched_rows, 1u);
  options.devices = {{0, 5}};
  EXPECT_NE(error_of([&] { compare_reports(a, b, options); }).find("B has no results for GPU 5"),
            std::string::npos);
  options.devices = {{3, 1}};
  EXPECT_NE(error_of([&] { compare_reports(a, b, options); }).find("A has no results for GPU 3"),
            std::string::npos);
}

TEST(CompareOptionsChecks, NegativeThresholdIsAUsageError) {
  // Reports with a row in common: only the option can make the call fail.
  const RunReport run = report_with({transfer_result(0, {transfer_row("h2d", 64 * kMiB, 50)})});
  CompareOptions options;
  EXPECT_EQ(compare_reports(run, run, options).matched_rows, 1u);
  options.fail_on_regression = -1.0;
  EXPECT_NE(error_of([&] { compare_reports(run, run, options); }).find("--fail-on-regression -1"),
            std::string::npos);
  options.fail_on_regression = std::nullopt;
  options.same_within = -0.01;
  EXPECT_NE(error_of([&] { compare_reports(run, run, options); }).find("--same-within -1%"),
            std::string::npos);
}

// ---- classification of noiseless values ----------------------------------------------------

TEST(CompareQuantity, UsesTheNoiseFloorAndTheUnitAndNeverRegresses) {
  const Quantity a{"fit_bandwidth", "GB/s", 100.0};
  EXPECT_EQ(compare_quantity(a, {"fit_bandwidth", "GB/s", 100.4}).change, Change::kSame);
  const ValueComparison slower = compare_quantity(a, {"fit_bandwidth", "GB/s", 90.0});
  EXPECT_EQ(slower.change, Change::kSlower);
  EXPECT_EQ(slower.method, CompareMethod::kBand);
  EXPECT_DOUBLE_EQ(slower.band, kCompareNoiseFloor);
  EXPECT_FALSE(slower.regression);  // derived from rows, which are checked themselves
  EXPECT_FALSE(slower.ci_low.has_value());
  EXPECT_EQ(compare_quantity({"latency", "s", 2e-6}, {"latency", "s", 3e-6}).change,
            Change::kSlower);
  // No better side: higher/lower.
  const ValueComparison ratio = compare_quantity({"r", "x", 1.0}, {"r", "x", 0.5});
  EXPECT_EQ(ratio.change, Change::kLower);
  EXPECT_FALSE(ratio.regression);
}

TEST(CompareQuantity, NullOrDifferentUnitsAreUndefined) {
  EXPECT_EQ(compare_quantity({"v", "GB/s", std::nullopt}, {"v", "GB/s", 1.0}).change,
            Change::kUndefined);
  EXPECT_EQ(compare_quantity({"v", "GB/s", 1.0}, {"v", "MB/s", 1.0}).change, Change::kUndefined);
  EXPECT_STREQ(change_name(Change::kUndefined), "n/a");
}

// ---- matching ------------------------------------------------------------------------------

TEST(CompareMatch, KeysPairInFileOrderEachUsedOnce) {
  const KeyMatch m = match_keys({"x", "y", "x", "z"}, {"x", "w", "x", "y"});
  ASSERT_EQ(m.matched.size(), 3u);
  EXPECT_EQ(m.matched[0], (std::pair<std::size_t, std::size_t>{0, 0}));
  EXPECT_EQ(m.matched[1], (std::pair<std::size_t, std::size_t>{1, 3}));
  EXPECT_EQ(m.matched[2], (std::pair<std::size_t, std::size_t>{2, 2}));
  EXPECT_EQ(m.only_a, std::vector<std::size_t>{3});
  EXPECT_EQ(m.only_b, std::vector<std::size_t>{1});
}

TEST(CompareMatch, ParamsKeyIgnoresOrderAndWholeRealsEqualIntegers) {
  const std::vector<Param> p{{"a", std::int64_t{64}, ""}, {"b", std::string("x"), ""}};
  const std::vector<Param> q{{"b", std::string("x"), ""}, {"a", 64.0, ""}};
  EXPECT_EQ(params_key(p), params_key(q));
  EXPECT_NE(params_key(p), params_key({{"a", std::string("64"), ""}, {"b", std::string("x"), ""}}));
  EXPECT_EQ(params_text(p), "a=64 b=x");
  EXPECT_EQ(canonical_scalar(std::monostate{}), "null");
}

// A list param is the claim older files wrote as text ("1,2,4"): a finding keeps its identity
// across the change; another list is another claim.
TEST(CompareMatch, ListParamsMatchTheTextOlderFilesCarried) {
  const std::vector<Param> list{{"offsets", IntList{1, 2, 4}, ""}};
  EXPECT_EQ(params_key(list), params_key({{"offsets", std::string("1,2,4"), ""}}));
  EXPECT_EQ(params_key({{"m", TextList{"pinned", "wc"}, ""}}),
            params_key({{"m", std::string("pinned,wc"), ""}}));
  EXPECT_NE(params_key(list), params_key({{"offsets", IntList{1, 2}, ""}}));
  EXPECT_EQ(params_text(list), "offsets=1,2,4");
}

TEST(CompareMatch, FindingsMatchByIdAndParams) {
  const std::vector<Finding> a{verdict("speedup", {{"direction", std::string("h2d"), ""}}, {}),
                               verdict("speedup", {{"direction", std::string("d2h"), ""}}, {}),
                               note("other", {}, {})};
  const std::vector<Finding> b{verdict("speedup", {{"direction", std::string("d2h"), ""}}, {}),
                               note("speedup", {}, {})};
  const KeyMatch m = match_findings(a, b);
  ASSERT_EQ(m.matched.size(), 1u);
  EXPECT_EQ(m.matched[0], (std::pair<std::size_t, std::size_t>{1, 0}));
  EXPECT_EQ(m.only_a, (std::vector<std::size_t>{0, 2}));
  EXPECT_EQ(m.only_b, std::vector<std::size_t>{1});
}

TEST(CompareMatch, ResultsPairByProbeWithinDevicePairs) {
  ProbeResult planned;
  planned.probe = "coalescing";
  planned.status = Status::kPlanned;
  const RunReport a =
      report_with({transfer_result(0, {}), transfer_result(1, {}), planned}, "aaaa", 2);
  ProbeResult other = transfer_result(0, {});
  other.probe = "bank-conflicts";
  const RunReport b = report_with({transfer_result(0, {}), other}, "aaaa", 1);
  const std::vector<DevicePair> pairs = device_pairs(a, b, {}, "A", "B");
  ASSERT_EQ(pairs.size(), 2u);  // GPU 0 and GPU 1 of A, each with the same index in B
  const ResultMatch m = match_results(a, b, pairs);
  ASSERT_EQ(m.pairs.size(), 1u);
  EXPECT_EQ(m.pairs[0].a, &a.results[0]);
  EXPECT_EQ(m.pairs[0].b, &b.results[0]);
  ASSERT_EQ(m.lone.size(), 2u);  // A's transfer on GPU 1, B's bank-conflicts
  EXPECT_EQ(m.lone[0].side, 'A');
  EXPECT_EQ(m.lone[0].devices, (DevicePair{1, 1}));
  EXPECT_EQ(m.lone[1].side, 'B');
  EXPECT_EQ(m.lone[1].result->probe, "bank-conflicts");
  ASSERT_EQ(m.unmeasured.size(), 1u);
  EXPECT_EQ(m.unmeasured[0].second, 'A');
  EXPECT_THROW(device_pairs(a, b, {{0, 4}}, "A", "B"), UsageError);
}

// A host-scoped result (peer across GPUs 0 and 1, recorded on GPU 0) pairs once, with the other
// run's, under GPU 0; it is not about GPU 0 alone, so comparing GPU 0 with GPU 1 leaves it out.
TEST(CompareMatch, HostScopedResultPairsOnceAndNeverAcrossTwoGpus) {
  ProbeResult peer = transfer_result(0, {});
  peer.probe = "peer";
  peer.devices = {0, 1};
  const RunReport a =
      report_with({transfer_result(0, {}), transfer_result(1, {}), peer}, "aaaa", 2);
  const RunReport b =
      report_with({transfer_result(0, {}), transfer_result(1, {}), peer}, "aaaa", 2);
  const ResultMatch same = match_results(a, b, device_pairs(a, b, {}, "A", "B"));
  ASSERT_EQ(same.pairs.size(), 3u);
  EXPECT_EQ(same.pairs[2].a, &a.results[2]);
  EXPECT_EQ(same.pairs[2].b, &b.results[2]);
  EXPECT_TRUE(same.lone.empty());
  const ResultMatch across = match_results(a, b, {{0, 1}});
  ASSERT_EQ(across.pairs.size(), 1u);  // transfer on A's GPU 0 with B's GPU 1
  EXPECT_EQ(across.pairs[0].a->probe, "transfer");
  EXPECT_TRUE(across.lone.empty());
  EXPECT_EQ(across.outside_a, 2u);  // A's transfer on GPU 1, A's peer
  EXPECT_EQ(across.outside_b, 2u);  // B's transfer on GPU 0, B's peer
}

// ---- summary rows and findings ---------------------------------------------------------------

SummaryRow fit_summary(const std::string& direction, double gbps, double latency_s) {
  return {{{"memory", std::string("pinned"), ""}, {"direction", direction, ""}},
          {{"fit_bandwidth", "GB/s", gbps}, {"latency", "s", latency_s}, {"rms", "%", 3.0}}};
}

ProbeResult with_summary(std::vector<SummaryRow> summary) {
  ProbeResult r = transfer_result(0, {transfer_row("h2d", 64 * kMiB, 50)});
  r.summary = std::move(summary);
  return r;
}

const ProbeResult* part_table(const CompareOutcome& out, const std::string& part,
                              const std::string& unit) {
  for (const auto& r : out.report.results) {
    const Param* c = find_param(r.params, "compared");
    const Param* u = find_param(r.params, "unit");
    if (c && u && scalar_text(c->value) == part && scalar_text(u->value) == unit) return &r;
  }
  return nullptr;
}

TEST(CompareSummaries, MatchesSummaryRowsAndComparesTheirValues) {
  const RunReport a = report_with({with_summary({fit_summary("h2d", 50, 2e-6)})});
  const RunReport b =
      report_with({with_summary({fit_summary("h2d", 40, 2e-6), fit_summary("d2h", 50, 2e-6)})});
  CompareOptions options;
  options.fail_on_regression = 5;
  const CompareOutcome out = compare_reports(a, b, options);
  EXPECT_EQ(out.matched_rows, 1u);
  EXPECT_EQ(out.matched_summary_rows, 1u);
  EXPECT_EQ(out.comparisons, 5u);  // bandwidth, time; fit_bandwidth, latency, rms
  EXPECT_EQ(out.slower, 1u);
  EXPECT_EQ(out.same, 4u);
  // A summary value 20% slower is reported, but never counted as a regression: it is derived
  // from rows, which are checked themselves.
  EXPECT_TRUE(out.regressions.empty());
  ASSERT_EQ(out.slowdowns.size(), 1u);
  EXPECT_EQ(out.slowdowns[0].part, ComparedPart::kSummary);
  EXPECT_EQ(out.slowdowns[0].item, "summary memory=pinned direction=h2d");
  EXPECT_FALSE(out.slowdowns[0].comparison.regression);
  // One table per unit: GB/s, s, %.
  const ProbeResult* gbps = part_table(out, "summary", "GB/s");
  ASSERT_NE(gbps, nullptr);
  EXPECT_EQ(gbps->probe, "compare transfer");
  ASSERT_EQ(gbps->rows.size(), 1u);
  const Row& row = gbps->rows[0];
  EXPECT_EQ(scalar_text(find_param(row.params, "value")->value), "fit_bandwidth");
  EXPECT_EQ(change_of(row), "slower");
  EXPECT_TRUE(row.flags.empty());
  EXPECT_NE(part_table(out, "summary", "s"), nullptr);
  EXPECT_NE(part_table(out, "summary", "%"), nullptr);
  EXPECT_NE(part_table(out, "rows", "GB/s"), nullptr);
  EXPECT_TRUE(has_note(out,
                       "transfer on GPU 0: 1 summary row(s) only in B: "
                       "[memory=pinned direction=d2h]"));
  // The overview counts summary rows per probe.
  const auto& summary = out.report.results.back().summary;
  ASSERT_EQ(summary.size(), 1u);
  EXPECT_DOUBLE_EQ(*find_quantity(summary[0].values, "summary_rows")->value, 1);
}

TEST(CompareSummaries, NeutralValuesNeverRegressAndMetricFilterApplies) {
  SummaryRow a_row = fit_summary("h2d", 50, 2e-6);
  SummaryRow b_row = fit_summary("h2d", 50, 2e-6);
  b_row.values[2].value = 30.0;  // rms 3% -> 30%: higher, no better side
  CompareOptions options;
  options.fail_on_regression = 0;
  CompareOutcome out = compare_reports(report_with({with_summary({a_row})}),
                                       report_with({with_summary({b_row})}), options);
  EXPECT_EQ(out.higher, 1u);
  EXPECT_TRUE(out.regressions.empty());
  options.value_names = {"latency"};  // a summary value's name works with --metric
  out = compare_reports(report_with({with_summary({a_row})}), report_with({with_summary({b_row})}),
                        options);
  EXPECT_EQ(out.comparisons, 1u);
  EXPECT_EQ(out.same, 1u);
}

ProbeResult with_findings(std::vector<Finding> findings) {
  ProbeResult r = transfer_result(0, {transfer_row("h2d", 64 * kMiB, 50)});
  r.findings = std::move(findings);
  return r;
}

Finding speedup(const std::string& direction, double ratio, double gbps) {
  return verdict("pinned_vs_pageable", {{"direction", direction, ""}},
                 {{"speedup", "x", ratio}, {"pinned_bandwidth", "GB/s", gbps}});
}

TEST(CompareFindings, MatchesFindingsByIdAndParamsAndComparesTheirValues) {
  const RunReport a = report_with({with_findings(
      {speedup("h2d", 8.0, 54), speedup("d2h", 8.0, 55), warning("sm_clock_low", {}, {})})});
  const RunReport b = report_with({with_findings(
      {speedup("d2h", 8.0, 60), speedup("h2d", 6.0, 54), note("new_note", {}, {})})});
  const CompareOutcome out = compare_reports(a, b, {});
  EXPECT_EQ(out.matched_findings, 2u);
  EXPECT_EQ(out.comparisons, 6u);  // 2 row metrics + 2 findings x 2 values
  EXPECT_EQ(out.lower, 1u);        // h2d speedup 8x -> 6x (unit x: no better side)
  EXPECT_EQ(out.faster, 1u);       // d2h pinned bandwidth 55 -> 60 GB/s
  ASSERT_EQ(out.improvements.size(), 1u);
  EXPECT_EQ(out.improvements[0].part, ComparedPart::kFindings);
  EXPECT_EQ(out.improvements[0].item, "finding pinned_vs_pageable direction=d2h");
  const ProbeResult* x = part_table(out, "findings", "x");
  ASSERT_NE(x, nullptr);
  ASSERT_EQ(x->rows.size(), 2u);
  EXPECT_EQ(scalar_text(x->rows[0].params[0].value), "pinned_vs_pageable");
  EXPECT_EQ(x->rows[0].params[0].key, "finding");
  EXPECT_EQ(change_of(x->rows[0]), "lower");
  EXPECT_TRUE(has_note(out, "transfer on GPU 0: 1 finding(s) only in A: [sm_clock_low]"));
  EXPECT_TRUE(has_note(out, "transfer on GPU 0: 1 finding(s) only in B: [new_note]"));
  EXPECT_NE(find_finding(out.report.results.back(), "compare_improvement"), nullptr);
}

TEST(CompareFindings, Schema1InputIsNotedOnceAndItsFindingsAreNotCompared) {
  RunReport a = report_with({with_findings({speedup("h2d", 8.0, 54)})});
  a.results[0].summary = {fit_summary("h2d", 50, 2e-6)};
  RunReport b = a;
  b.schema_version = 1;
  b.results[0].findings = {{"schema1_verdict", FindingKind::kVerdict, {}, {}, "prose", {}}};
  CompareOptions options;
  options.a_name = "a.json";
  options.b_name = "b.json";
  const CompareOutcome out = compare_reports(a, b, options);
  EXPECT_EQ(out.matched_findings, 0u);
  EXPECT_EQ(out.matched_summary_rows, 1u);  // summaries are still compared
  EXPECT_EQ(out.comparisons, 5u);
  const ProbeResult& overview = out.report.results.back();
  std::size_t schema1_notes = 0;
  for (const auto& f : overview.findings) {
    if (f.id != "compare_schema1_input") continue;
    ++schema1_notes;
    EXPECT_EQ(f.text, "B (b.json) is schema 1: its findings are prose and are not compared");
    EXPECT_EQ(scalar_text(find_param(f.params, "side")->value), "B");
  }
  EXPECT_EQ(schema1_notes, 1u);
  EXPECT_FALSE(has_note(out, "finding(s) only in"));
}

// ---- compare's own findings, as data -------------------------------------------------------

TEST(CompareFindingsAsData, EveryFindingHasAnIdAPhrasingAndItsText) {
  const RunReport a = report_with(
      {transfer_result(0, {transfer_row("h2d", 4096, 5), transfer_row("h2d", 64 * kMiB, 50),
                           transfer_row("d2h", 64 * kMiB, 50)})});
  RunReport b = report_with({transfer_result(0, {transfer_row("h2d", 64 * kMiB, 45),
                                                 transfer_row("d2h", 64 * kMiB, 60)})},
                            "bbbb");
  b.devices[0].name = "NVIDIA H200";
  CompareOptions options;
  options.fail_on_regression = 5;
  const CompareOutcome out = compare_reports(a, b, options);
  const ProbeResult& overview = out.report.results.back();
  const Glossary glossary = core_glossary();
  for (const auto& f : overview.findings) {
    EXPECT_EQ(f.id.rfind("compare_", 0), 0u) << f.id;
    EXPECT_TRUE(glossary.has_phrasing(f.id)) << f.id;
    EXPECT_FALSE(f.text.empty()) << f.id;
    Finding bare = f;
    bare.text.clear();
    EXPECT_EQ(glossary.text(bare), f.text) << f.id;  // the text is rendered from the data
  }
  const Finding* counts = find_finding(overview, "compare_counts");
  ASSERT_NE(counts, nullptr);
  EXPECT_EQ(counts->kind, FindingKind::kVerdict);
  EXPECT_DOUBLE_EQ(value_of(*counts, "matched_rows"), 2);
  EXPECT_DOUBLE_EQ(value_of(*counts, "comparisons"), 4);
  EXPECT_DOUBLE_EQ(value_of(*counts, "slower"), 2);
  EXPECT_DOUBLE_EQ(value_of(*counts, "faster"), 2);
  EXPECT_DOUBLE_EQ(value_of(*counts, "only_in_a"), 1);
  EXPECT_EQ(counts->text,
            "2 matched rows, 4 comparisons: 2 faster, 2 slower, 0 same; 1 row(s) only in A, 0 "
            "only in B");
  const Finding* threshold = find_finding(overview, "compare_regression_threshold");
  ASSERT_NE(threshold, nullptr);
  EXPECT_EQ(find_quantity(threshold->values, "threshold")->unit, "%");
  EXPECT_EQ(threshold->text, "2 regression(s) beyond 5%");
  const Finding* slowdown = find_finding(overview, "compare_slowdown");
  ASSERT_NE(slowdown, nullptr);
  EXPECT_EQ(param_text_of(*slowdown, "item"), "memory=pinned direction=h2d bytes=64 MiB");
  EXPECT_EQ(find_quantity(slowdown->values, "ratio")->unit, "x");
  EXPECT_NEAR(value_of(*slowdown, "delta"), (value_of(*slowdown, "ratio") - 1) * 100, 1e-9);
  EXPECT_NEAR(value_of(*slowdown, "ratio"), value_of(*slowdown, "b") / value_of(*slowdown, "a"),
              1e-12);
  EXPECT_EQ(slowdown->text.rfind("regression: transfer memory=pinned direction=h2d", 0), 0u)
      << slowdown->text;
  const Finding* models = find_finding(overview, "compare_different_models");
  ASSERT_NE(models, nullptr);
  EXPECT_EQ(param_text_of(*models, "b_name"), "NVIDIA H200");
  const Finding* env = find_finding(overview, "compare_environment_differs");
  ASSERT_NE(env, nullptr);
  EXPECT_EQ(param_text_of(*env, "a_git"), "aaaa");
  EXPECT_EQ(env->text, "environment differs (A vs B): git aaaa vs bbbb");
  // JSON carries both the structure and the sentence.
  const RunReport back = report_from_json(to_json(out.report), "compare");
  const Finding* back_counts = find_finding(back.results.back(), "compare_counts");
  ASSERT_NE(back_counts, nullptr);
  EXPECT_EQ(back_counts->text, counts->text);
  EXPECT_DOUBLE_EQ(value_of(*back_counts, "matched_rows"), 2);
}

TEST(CompareFindingsAsData, OneSidedMetricsAreCountedPerName) {
  Row extra = transfer_row("h2d", 64 * kMiB, 50);
  extra.metrics.push_back(metric("latency", "s", 1e-6));
  Row other_unit = transfer_row("d2h", 64 * kMiB, 50);
  other_unit.metrics[0].unit = "MB/s";
  const RunReport a = report_with({transfer_result(
      0, {transfer_row("h2d", 64 * kMiB, 50), transfer_row("d2h", 64 * kMiB, 50)})});
  const RunReport b = report_with({transfer_result(0, {extra, other_unit})});
  const CompareOutcome out = compare_reports(a, b, {});
  EXPECT_TRUE(has_note(out,
                       "transfer: metric 'latency' only in B (1 matched row(s)) - not "
                       "compared"));
  EXPECT_TRUE(has_note(out,
                       "transfer: metric 'bandwidth' has unit 'GB/s' in A but 'MB/s' in B "
                       "(1 matched row(s)) - not compared"));
}

// ---- reading files -----------------------------------------------------------------------

class CompareFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("gpuprobe_compare_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& text) {
    const fs::path p = dir_ / name;
    std::ofstream(p) << text;
    return p.string();
  }
  fs::path dir_;
};

TEST_F(CompareFiles, MalformedInputIsAUsageError) {
  EXPECT_THROW(read_report_file(write("broken.json", "{\"schema_version\": 1, \"results\": [")),
               UsageError);
  EXPECT_THROW(read_report_file(write("no_results.json", "{\"schema_version\": 1}")), UsageError);
  EXPECT_THROW(read_report_file(write("bad_metric.json",
                                      R"({"schema_version": 1, "results": [{"probe": "transfer",
                                          "rows": [{"params": {}, "metrics": {"time": {}}}]}]})")),
               UsageError);
  EXPECT_THROW(read_report_file((dir_ / "missing.json").string()), UsageError);
}

TEST_F(CompareFiles, ReadsWhatItWrote) {
  const RunReport a = report_with({transfer_result(0, {transfer_row("h2d", 64 * kMiB, 50)})});
  const std::string path = write("a.json", to_json(a).dump());
  const RunReport back = read_report_file(path);
  const CompareOutcome out = compare_reports(a, back, {});
  EXPECT_EQ(out.matched_rows, 1u);
  EXPECT_EQ(out.same, out.comparisons);
}

// One finding in both runs whose decision flipped (agree -> differ) and whose worst row moved:
// compare matches it (no "only in"), reports the decision, and not the move of the extreme.
TEST(CompareFindings, ADecisionThatChangedIsReportedAWorstRowThatMovedIsNot) {
  auto run = [](const char* agreement, std::int64_t worst_offset) {
    RunReport report;
    ProbeResult r;
    r.probe = "coalescing";
    r.device = 0;
    Row row;
    row.params = {{"offset", std::int64_t{1}, ""}};
    row.metrics = {{"bandwidth", "GB/s", {}, {}}};
    row.metrics[0].stats.median = 100;
    r.rows = {row};
    r.findings = {
        warning("coalescing_counter_dram", {}, {{"deviation", "%", 5.1}},
                {{"offset", worst_offset, ""}, {"agreement", std::string(agreement), ""}})};
    report.results = {r};
    return report;
  };
  const CompareOutcome flipped = compare_reports(run("agree", 1), run("differ", 4), {});
  const Finding* changed = nullptr;
  for (const auto& res : flipped.report.results)
    if (const Finding* f = find_finding(res, "compare_finding_outcome_changed")) changed = f;
  ASSERT_NE(changed, nullptr);
  EXPECT_EQ(param_text_of(*changed, "listed"),
            "[coalescing_counter_dram: agreement agree -> differ]");
  for (const auto& res : flipped.report.results) {
    EXPECT_EQ(find_finding(res, "compare_only_in_a"), nullptr);
    EXPECT_EQ(find_finding(res, "compare_only_in_b"), nullptr);
  }
  const CompareOutcome moved = compare_reports(run("differ", 1), run("differ", 4), {});
  for (const auto& res : moved.report.results)
    EXPECT_EQ(find_finding(res, "compare_finding_outcome_changed"), nullptr);
}

// The decisions of the new probes are decisions too: zerocopy's break-even result, l2-persist's
// window effect and winner; where an extreme lies (worst_at, best_streams) is not.
TEST(CompareFindings, TheNewProbesDecisionKeysAreDecisions) {
  for (const char* key : {"agreement", "outcome", "holds", "result", "winner", "effect", "hurts",
                          "residual", "slowdown"})
    EXPECT_TRUE(is_decision_key(key)) << key;
  for (const char* key : {"worst_at", "best_streams", "highest_pattern", "best_alike_with"})
    EXPECT_FALSE(is_decision_key(key)) << key;
}

TEST(FindingKey, IsIdAndParamsNotValuesOrOutcome) {
  Finding a = verdict("x_worst", {{"element_bytes", std::int64_t{4}, "B"}}, {{"ratio", "x", 0.5}},
                      {{"worst_at", std::int64_t{1}, ""}});
  Finding b = verdict("x_worst", {{"element_bytes", std::int64_t{4}, "B"}}, {{"ratio", "x", 0.52}},
                      {{"worst_at", std::int64_t{4}, ""}});
  EXPECT_EQ(finding_key(a), finding_key(b));
  b.params[0].value = std::int64_t{8};  // another element width: another claim
  EXPECT_NE(finding_key(a), finding_key(b));
  b = a;
  b.id = "x_best";
  EXPECT_NE(finding_key(a), finding_key(b));
}

TEST_F(CompareFiles, SizesComeBackWithTheirUnitAndPrintInIecUnits) {
  const RunReport a = report_with(
      {transfer_result(0, {transfer_row("h2d", 4096, 5), transfer_row("h2d", 64 * kMiB, 50)})});
  const RunReport back = read_report_file(write("a.json", to_json(a).dump()));
  EXPECT_EQ(find_param(back.results[0].rows[0].params, "bytes")->unit, "B");
  const CompareOutcome out = compare_reports(back, back, {});
  const std::string table = render_table(out.report, {});
  EXPECT_NE(table.find("  pinned h2d        4 KiB bandwidth"), std::string::npos) << table;
  EXPECT_NE(table.find("  pinned h2d       64 MiB bandwidth"), std::string::npos) << table;
  EXPECT_EQ(table.find("67108864"), std::string::npos) << table;
  // JSON keeps the raw value, with the unit beside it.
  const auto j = to_json(out.report);
  EXPECT_EQ(j["results"][0]["rows"][1]["params"]["bytes"], 64 * kMiB);
  EXPECT_EQ(j.at("results").at(0).at("param_units").value("bytes", ""), "B");
}

}  // namespace
}  // namespace gpuprobe
