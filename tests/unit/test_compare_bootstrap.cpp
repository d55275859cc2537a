// Unit tests for compare's bootstrap rule: classifying an interval, metrics with samples, and
// what the report says about inconclusive rows and files without samples.
#include <algorithm>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "gpuprobe/core/compare.hpp"
#include "gpuprobe/core/json_io.hpp"
#include "gpuprobe/core/stats.hpp"

namespace gpuprobe {
namespace {

RatioInterval interval(double low, double high) {
  return {100.0, 100.0 * (low + high) / 2, (low + high) / 2, low, high};
}

Change change_of(double low, double high, const std::string& unit, double margin = 0.02) {
  return classify_interval(interval(low, high), unit, margin, std::nullopt).change;
}

// A metric with `rounds` rounds of `per_round` samples: center x (1 + spread x a fixed zig-zag in
// [-1, 1]); statistics over all of them.
Metric sampled(const std::string& name, const std::string& unit, double center, double spread,
               std::size_t rounds = 5, std::size_t per_round = 8) {
  Metric m{name, unit, {}, SampleRounds(rounds)};
  std::vector<double> all;
  for (std::size_t r = 0; r < rounds; ++r) {
    for (std::size_t i = 0; i < per_round; ++i) {
      const double z = static_cast<double>((r * per_round + i) * 7 % 13) / 6.0 - 1.0;
      m.samples[r].push_back(center * (1.0 + spread * z));
      all.push_back(m.samples[r].back());
    }
  }
  m.stats = statistics_of(all);
  return m;
}

// ---- classifying an interval -----------------------------------------------------------------

TEST(ClassifyInterval, WithinTheMarginIsSame) {
  EXPECT_EQ(change_of(0.99, 1.01, "GB/s"), Change::kSame);
  EXPECT_EQ(change_of(0.98, 1.02, "GB/s"), Change::kSame);  // the margin's edges are inside
  EXPECT_EQ(change_of(1.0, 1.0, "s", 0.0), Change::kSame);
  const ValueComparison c = classify_interval(interval(0.99, 1.01), "GB/s", 0.02, std::nullopt);
  EXPECT_EQ(c.method, CompareMethod::kBootstrap);
  EXPECT_DOUBLE_EQ(*c.ci_low, 0.99);
  EXPECT_DOUBLE_EQ(*c.ci_high, 1.01);
  EXPECT_DOUBLE_EQ(c.band, 0.02);
}

TEST(ClassifyInterval, WhollyBeyondTheMarginFollowsTheUnit) {
  EXPECT_EQ(change_of(0.88, 0.92, "GB/s"), Change::kSlower);  // rates: lower is slower
  EXPECT_EQ(change_of(1.05, 1.10, "GB/s"), Change::kFaster);
  EXPECT_EQ(change_of(1.08, 1.12, "s"), Change::kSlower);  // time: higher is slower
  EXPECT_EQ(change_of(0.90, 0.95, "s"), Change::kFaster);
}

TEST(ClassifyInterval, StraddlingTheMarginIsInconclusive) {
  EXPECT_EQ(change_of(0.95, 1.01, "GB/s"), Change::kInconclusive);  // across 1
  EXPECT_EQ(change_of(0.97, 0.99, "GB/s"), Change::kInconclusive);  // across -2% only
  EXPECT_EQ(change_of(1.01, 1.03, "s"), Change::kInconclusive);     // across +2% only
  EXPECT_EQ(change_of(0.5, 2.0, "s"), Change::kInconclusive);
  EXPECT_STREQ(change_name(Change::kInconclusive), "inconclusive");
  // A wider margin takes it in.
  EXPECT_EQ(change_of(0.97, 0.99, "GB/s", 0.05), Change::kSame);
}

TEST(ClassifyInterval, UnitsWithoutABetterSideAreHigherLowerOrInconclusive) {
  EXPECT_EQ(change_of(1.05, 1.10, "x"), Change::kHigher);
  EXPECT_EQ(change_of(0.90, 0.95, "x"), Change::kLower);
  EXPECT_EQ(change_of(0.97, 1.05, "x"), Change::kInconclusive);
  EXPECT_EQ(change_of(0.99, 1.01, "x"), Change::kSame);
  EXPECT_FALSE(classify_interval(interval(0.5, 0.6), "x", 0.02, 0).regression);
}

TEST(ClassifyInterval, ARegressionIsAWholeIntervalBeyondThePercentage) {
  // 8% to 12% slower: beyond 5% everywhere, but not beyond 10% everywhere.
  auto regression = [](double low, double high, const std::string& unit, double pct) {
    return classify_interval(interval(low, high), unit, decision_margin(0.02, pct), pct).regression;
  };
  EXPECT_TRUE(regression(0.88, 0.92, "GB/s", 5));
  EXPECT_FALSE(regression(0.88, 0.92, "GB/s", 10));
  EXPECT_FALSE(regression(0.88, 0.92, "GB/s", 15));
  EXPECT_TRUE(regression(1.08, 1.12, "s", 5));
  EXPECT_FALSE(regression(1.08, 1.12, "s", 10));
  EXPECT_FALSE(regression(1.08, 1.12, "GB/s", 5));  // faster never regresses
  EXPECT_FALSE(regression(0.97, 1.01, "GB/s", 0));  // inconclusive is not a regression
  EXPECT_FALSE(classify_interval(interval(0.8, 0.9), "GB/s", 0.02, std::nullopt).regression);
}

TEST(ClassifyInterval, TheMarginIsTheSmallerOfSameWithinAndThePercentage) {
  EXPECT_DOUBLE_EQ(decision_margin(0.02, std::nullopt), 0.02);
  EXPECT_DOUBLE_EQ(decision_margin(0.02, 5), 0.02);
  EXPECT_DOUBLE_EQ(decision_margin(0.02, 1), 0.01);
  EXPECT_DOUBLE_EQ(decision_margin(0.02, 0), 0.0);
  // 1.5% to 2.5% slower: inconclusive against +-2%, a regression beyond 1%.
  const ValueComparison c =
      classify_interval(interval(0.975, 0.985), "GB/s", decision_margin(0.02, 1), 1);
  EXPECT_EQ(c.change, Change::kSlower);
  EXPECT_TRUE(c.regression);
  EXPECT_EQ(change_of(0.975, 0.985, "GB/s"), Change::kInconclusive);
}

// ---- metrics with samples ------------------------------------------------------------------

// The p-value of "slower beyond 5%" from the interval's worse side, as a normal on log(ratio):
// rates 0.8 [0.7, 0.9]: se = ln(0.9 / 0.8) / 1.96, z = (ln 0.8 - ln 0.95) / -se = 2.86.
TEST(RegressionPValue, ComesFromTheIntervalsWorseSide) {
  ValueComparison rate = classify_interval({100, 80, 0.8, 0.7, 0.9}, "GB/s", 0.02, 5.0);
  ASSERT_TRUE(rate.regression);
  const auto p_rate = regression_p_value(rate, "GB/s", 5.0);
  ASSERT_TRUE(p_rate.has_value());
  EXPECT_NEAR(*p_rate, 0.00212, 0.0001);
  // Time: 1.25 [1.1, 1.4]; the lower side counts: se = ln(1.25 / 1.1) / 1.96, z = 2.674.
  ValueComparison time = classify_interval({1, 1.25, 1.25, 1.1, 1.4}, "s", 0.02, 5.0);
  const auto p_time = regression_p_value(time, "s", 5.0);
  ASSERT_TRUE(p_time.has_value());
  EXPECT_NEAR(*p_time, 0.00375, 0.0001);
  // Within the threshold: more likely not slower beyond it than slower.
  ValueComparison near = classify_interval({100, 98, 0.98, 0.9, 1.05}, "GB/s", 0.02, 5.0);
  EXPECT_GT(regression_p_value(near, "GB/s", 5.0).value_or(0), 0.5);
  EXPECT_FALSE(regression_p_value(near, "cycles", 5.0).has_value());  // no better side
}

// Holm over the family: a far-out regression holds among 2,000 row metrics; the 0.8x one whose
// interval reaches 0.9 (p 0.002) does not, though alone it would.
TEST(HoldRegressionsToFamily, AFarOutOneHoldsANoisyOneAmongManyDoesNot) {
  const std::string rate = "GB/s";
  std::vector<ValueComparison> values(
      2000, classify_interval({100, 100, 1, 0.98, 1.02}, rate, 0.02, 5.0));
  values[0] = classify_interval({100, 50, 0.5, 0.49, 0.51}, rate, 0.02, 5.0);
  values[1] = classify_interval({100, 80, 0.8, 0.7, 0.9}, rate, 0.02, 5.0);
  ASSERT_TRUE(values[0].regression && values[1].regression);
  std::vector<FamilyMember> family;
  for (auto& v : values)
    family.push_back({&v, &rate});
  EXPECT_EQ(hold_regressions_to_family(family, 5.0), 1u);
  EXPECT_TRUE(values[0].regression);
  EXPECT_FALSE(values[1].regression);
  EXPECT_EQ(values[1].change, Change::kSlower);  // still shown as slower
  ValueComparison alone = classify_interval({100, 80, 0.8, 0.7, 0.9}, rate, 0.02, 5.0);
  const FamilyMember one[] = {{&alone, &rate}};
  EXPECT_EQ(hold_regressions_to_family(one, 5.0), 0u);
  EXPECT_TRUE(alone.regression);
}

TEST(CompareMetricBootstrap, IdenticalSamplesAreSame) {
  const Metric a = sampled("bandwidth", "GB/s", 50, 0.01);
  const ValueComparison c = compare_metric(a, a, 3, std::nullopt);
  EXPECT_EQ(c.method, CompareMethod::kBootstrap);
  EXPECT_EQ(c.change, Change::kSame);
  // The same samples 0.3% faster: the ratio of medians is 1.003 and the interval, which the
  // samples' +-1% spread bounds to [0.99/1.01, 1.01/0.99] x 1.003, lies inside the 2% band.
  const Metric b = sampled("bandwidth", "GB/s", 50 * 1.003, 0.01);
  const ValueComparison d = compare_metric(a, b, 3, std::nullopt);
  EXPECT_EQ(d.change, Change::kSame);
  EXPECT_NEAR(*d.ratio, 1.003, 1e-12);
  EXPECT_GT(*d.ci_low, 0.99 / 1.01 * 1.003);
  EXPECT_LT(*d.ci_high, 1.01 / 0.99 * 1.003);
  EXPECT_LT(*d.ci_low, 1.003);
  EXPECT_GT(*d.ci_high, 1.003);
}

TEST(CompareMetricBootstrap, ACleanTenPercentShiftIsSlowerAndRegressesAtFiveNotFifteen) {
  const Metric a = sampled("bandwidth", "GB/s", 50, 0.005);
  const Metric b = sampled("bandwidth", "GB/s", 45, 0.005);
  const ValueComparison c = compare_metric(a, b, 3, 5);
  EXPECT_EQ(c.change, Change::kSlower);
  EXPECT_NEAR(*c.ratio, 0.9, 1e-12);
  EXPECT_TRUE(c.regression);
  EXPECT_GT(*c.ci_low, 0.89);
  EXPECT_LT(*c.ci_high, 0.91);
  const ValueComparison at15 = compare_metric(a, b, 3, 15);
  EXPECT_EQ(at15.change, Change::kSlower);
  EXPECT_FALSE(at15.regression);
  // Time, the other way up.
  const ValueComparison t =
      compare_metric(sampled("time", "s", 1e-3, 0.005), sampled("time", "s", 1.1e-3, 0.005), 3, 5);
  EXPECT_EQ(t.change, Change::kSlower);
  EXPECT_TRUE(t.regression);
}

TEST(CompareMetricBootstrap, OverlappingWideSamplesAreInconclusive) {
  // +-20% samples, medians 4% apart: the interval reaches from "same" into "slower".
  const Metric a = sampled("bandwidth", "GB/s", 50, 0.2, 3, 4);
  const Metric b = sampled("bandwidth", "GB/s", 48, 0.2, 3, 4);
  const ValueComparison c = compare_metric(a, b, 3, 5);
  EXPECT_EQ(c.change, Change::kInconclusive)
      << "[" << *c.ci_low << ", " << *c.ci_high << "] ratio " << *c.ratio;
  EXPECT_FALSE(c.regression);
  // The band rule on the same medians would have called it "same" (band 3 x 23% noise).
  Metric a_band = a, b_band = b;
  a_band.samples.clear();
  b_band.samples.clear();
  EXPECT_EQ(compare_metric(a_band, b_band, 3, 5).change, Change::kSame);
}

TEST(CompareMetricBootstrap, NoBetterSideGivesHigherLowerOrInconclusive) {
  const Metric a = sampled("sectors", "x", 4, 0.001);
  EXPECT_EQ(compare_metric(a, sampled("sectors", "x", 5, 0.001), 3, 0).change, Change::kHigher);
  EXPECT_EQ(compare_metric(a, sampled("sectors", "x", 3, 0.001), 3, 0).change, Change::kLower);
  EXPECT_FALSE(compare_metric(a, sampled("sectors", "x", 3, 0.001), 3, 0).regression);
  EXPECT_EQ(compare_metric(sampled("sectors", "x", 4, 0.3, 2, 3),
                           sampled("sectors", "x", 4.2, 0.3, 2, 3), 3, std::nullopt)
                .change,
            Change::kInconclusive);
}

TEST(CompareMetricBootstrap, OneRoundPerSideWorks) {
  const ValueComparison c = compare_metric(sampled("time", "s", 1.0, 0.002, 1, 30),
                                           sampled("time", "s", 1.2, 0.002, 1, 30), 3, 5);
  EXPECT_EQ(c.method, CompareMethod::kBootstrap);
  EXPECT_EQ(c.change, Change::kSlower);
  EXPECT_TRUE(c.regression);
}

TEST(CompareMetricBootstrap, SamplesOnOneSideOnlyFallBackToTheBand) {
  Metric a = sampled("bandwidth", "GB/s", 50, 0.001);
  a.samples.clear();  // as read from a schema 2 file
  const ValueComparison c = compare_metric(a, sampled("bandwidth", "GB/s", 45, 0.001), 3, 5);
  EXPECT_EQ(c.method, CompareMethod::kBand);
  EXPECT_FALSE(c.ci_low.has_value());
  EXPECT_EQ(c.change, Change::kSlower);
  EXPECT_TRUE(c.regression);
}

// ---- the report --------------------------------------------------------------------------------

Row row_with(const std::string& direction, std::vector<Metric> metrics) {
  Row row;
  row.params = {{"memory", std::string("pinned"), ""}, {"direction", direction, ""}};
  row.metrics = std::move(metrics);
  return row;
}

RunReport report_of(std::vector<Row> rows, int schema = kSchemaVersion) {
  RunReport report;
  report.schema_version = schema;
  report.tool = {"gpuprobe", "0.1.0", "aaaa"};
  DeviceInfo d;
  d.name = "NVIDIA H100 80GB HBM3";
  report.devices = {d};
  ProbeResult r;
  r.probe = "transfer";
  r.device = 0;
  r.rows = std::move(rows);
  report.results = {r};
  return report;
}

const Finding* finding(const CompareOutcome& out, const std::string& id) {
  return find_finding(out.report.results.back(), id);
}

TEST(CompareReportBootstrap, InconclusiveRowsAreCountedListedAndCarryTheirInterval) {
  const RunReport a = report_of({row_with("h2d", {sampled("bandwidth", "GB/s", 50, 0.2, 3, 4)}),
                                 row_with("d2h", {sampled("bandwidth", "GB/s", 50, 0.01)})});
  const RunReport b = report_of({row_with("h2d", {sampled("bandwidth", "GB/s", 48, 0.2, 3, 4)}),
                                 row_with("d2h", {sampled("bandwidth", "GB/s", 50, 0.01)})});
  CompareOptions options;
  options.fail_on_regression = 5;
  const CompareOutcome out = compare_reports(a, b, options);
  EXPECT_EQ(out.inconclusive, 1u);
  EXPECT_EQ(out.same, 1u);
  EXPECT_TRUE(out.regressions.empty());
  ASSERT_EQ(out.inconclusives.size(), 1u);
  EXPECT_EQ(out.inconclusives[0].item, "memory=pinned direction=h2d");
  EXPECT_DOUBLE_EQ(out.margin, 0.02);
  const Row& row = out.report.results.front().rows.front();
  EXPECT_EQ(scalar_text(find_param(row.params, "method")->value), "bootstrap");
  EXPECT_EQ(scalar_text(row.params.back().value), "inconclusive");
  EXPECT_TRUE(find_quantity(row.derived, "ci_low")->value.has_value());
  EXPECT_LT(*find_quantity(row.derived, "ci_low")->value,
            *find_quantity(row.derived, "ci_high")->value);
  const Finding* listed = finding(out, "compare_inconclusive");
  ASSERT_NE(listed, nullptr);
  EXPECT_EQ(param_text_of(*listed, "item"), "memory=pinned direction=h2d");
  EXPECT_NE(listed->text.find("95% interval"), std::string::npos) << listed->text;
  EXPECT_NE(listed->text.find("not clear of +-2%"), std::string::npos) << listed->text;
  EXPECT_NE(finding(out, "compare_counts")->text.find("1 inconclusive"), std::string::npos);
  EXPECT_EQ(inconclusive_summary(out).rfind("1 inconclusive comparison(s) (95% interval not clear "
                                            "of +-2%): widest transfer memory=pinned "
                                            "direction=h2d bandwidth 0.96x [",
                                            0),
            0u)
      << inconclusive_summary(out);
  // The overview counts it per probe.
  EXPECT_DOUBLE_EQ(
      *find_quantity(out.report.results.back().summary[0].values, "inconclusive")->value, 1);
}

TEST(CompareReportBootstrap, FilesWithoutSamplesUseTheBandAndSaySoOncePerFile) {
  Row old_h2d = row_with("h2d", {sampled("bandwidth", "GB/s", 50, 0.001)});
  Row old_d2h = row_with("d2h", {sampled("bandwidth", "GB/s", 50, 0.001)});
  old_h2d.metrics[0].samples.clear();
  old_d2h.metrics[0].samples.clear();
  const RunReport a = report_of({old_h2d, old_d2h}, 2);
  const RunReport b = report_of({row_with("h2d", {sampled("bandwidth", "GB/s", 45, 0.001)}),
                                 row_with("d2h", {sampled("bandwidth", "GB/s", 50, 0.001)})});
  CompareOptions options;
  options.a_name = "old.json";
  options.fail_on_regression = 5;
  const CompareOutcome out = compare_reports(a, b, options);
  EXPECT_EQ(out.band_only_a, 2u);
  EXPECT_EQ(out.band_only_b, 0u);
  EXPECT_EQ(out.slower, 1u);  // still classified, by the band
  EXPECT_EQ(out.same, 1u);
  EXPECT_EQ(out.regressions.size(), 1u);
  std::size_t notes = 0;
  for (const auto& f : out.report.results.back().findings) {
    if (f.id != "compare_band_fallback") continue;
    ++notes;
    EXPECT_EQ(param_text_of(f, "file"), "old.json");
    EXPECT_DOUBLE_EQ(value_of(f, "comparisons"), 2);
    EXPECT_EQ(f.text,
              "A file old.json (schema 2) has no samples: 2 row metric comparison(s) used the "
              "noise band (K x rel_noise, at least 0.5%) instead of the bootstrap interval");
  }
  EXPECT_EQ(notes, 1u);
  EXPECT_EQ(scalar_text(find_param(out.report.results.front().rows[0].params, "method")->value),
            "band");
  // Two files with samples: no such note.
  EXPECT_EQ(finding(compare_reports(b, b, {}), "compare_band_fallback"), nullptr);
}

TEST(CompareReportBootstrap, TheSameInputsGiveTheSameOutput) {
  const RunReport a = report_of({row_with("h2d", {sampled("bandwidth", "GB/s", 50, 0.05, 4, 6),
                                                  sampled("time", "s", 1e-3, 0.05, 4, 6)})});
  const RunReport b = report_of({row_with("h2d", {sampled("bandwidth", "GB/s", 49, 0.06, 5, 5),
                                                  sampled("time", "s", 1.02e-3, 0.06, 5, 5)})});
  EXPECT_EQ(to_json(compare_reports(a, b, {}).report).dump(),
            to_json(compare_reports(a, b, {}).report).dump());
}

}  // namespace
}  // namespace gpuprobe
