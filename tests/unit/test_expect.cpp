// Unit tests for expectations (--expect): the parser, units, the plan check and the evaluation.
#include "gpuprobe/core/expect.hpp"

#include <cstdio>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "fixtures.hpp"

#include "gpuprobe/core/errors.hpp"
#include "gpuprobe/core/stats.hpp"

namespace gpuprobe {
namespace {

// The UsageError message of parsing `text`, or "" when it parses.
std::string parse_error(const std::string& text) {
  try {
    (void)parse_expectation(text, "--expect");
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

TEST(ExpectParse, RowsWithSelectorsAndAUnit) {
  const Expectation e = parse_expectation(
      "transfer[memory=pinned, direction=h2d, bytes>=64MiB].bandwidth >= 50GB/s", "--expect");
  EXPECT_EQ(e.subject.source, Source::kRows);
  EXPECT_EQ(e.subject.probe, "transfer");
  ASSERT_EQ(e.subject.selectors.size(), 3u);
  EXPECT_EQ(e.subject.selectors[1].key, "direction");
  EXPECT_EQ(e.subject.selectors[1].text, "h2d");
  EXPECT_FALSE(e.subject.selectors[1].number.has_value());
  EXPECT_EQ(e.subject.selectors[2].relation, Relation::kGreaterEqual);
  EXPECT_EQ(*e.subject.selectors[2].number, 64.0 * 1024 * 1024);
  EXPECT_EQ(e.subject.name, "bandwidth");
  EXPECT_EQ(e.bound, Relation::kGreaterEqual);
  EXPECT_EQ(e.reference.source, Source::kConstant);
  EXPECT_EQ(e.reference.constant, 50);
  EXPECT_EQ(e.reference.unit, "GB/s");
}

TEST(ExpectParse, SummaryFindingsConditionsDeviceAndCounters) {
  const Expectation s = parse_expectation(
      "coalescing.summary[element_bytes=4].baseline_bandwidth >= 0.8 * "
      "device.peak_dram_estimate_gbps",
      "x");
  EXPECT_EQ(s.subject.source, Source::kSummary);
  EXPECT_EQ(s.subject.selectors.at(0).key, "element_bytes");
  EXPECT_EQ(s.factor, 0.8);
  EXPECT_EQ(s.reference.source, Source::kDevice);
  EXPECT_EQ(s.reference.name, "peak_dram_estimate_gbps");

  const Expectation f =
      parse_expectation("transfer.findings.transfer_pinned_fit[direction=h2d].latency < 10us", "x");
  EXPECT_EQ(f.subject.source, Source::kFinding);
  EXPECT_EQ(f.subject.finding_id, "transfer_pinned_fit");
  EXPECT_EQ(f.bound, Relation::kLess);
  EXPECT_EQ(f.reference.unit, "us");

  const Expectation c = parse_expectation("bank-conflicts.conditions.sm_clock_mhz > 1000", "x");
  EXPECT_EQ(c.subject.source, Source::kConditions);
  EXPECT_EQ(c.subject.probe, "bank-conflicts");

  const Expectation k =
      parse_expectation("transfer[memory=pinned].pcie__read_bytes.sum <= 2e9", "x");
  EXPECT_EQ(k.subject.name, "pcie__read_bytes.sum");
  EXPECT_EQ(k.reference.constant, 2e9);
  EXPECT_EQ(k.reference.unit, "");

  const Expectation z = parse_expectation("transfer.time <= 64 MiB", "x");  // a size: bytes
  EXPECT_EQ(z.reference.unit, "B");
  EXPECT_EQ(z.reference.constant, 64.0 * 1024 * 1024);
}

TEST(ExpectParse, ErrorsNameTheOriginAndTheToken) {
  EXPECT_NE(parse_error("transfer.bandwidth 50").find("expected a comparison"), std::string::npos);
  EXPECT_NE(parse_error("transfer[memory].bandwidth > 1").find("at 'memory'"), std::string::npos);
  EXPECT_NE(parse_error("transfer[memory=pinned.bandwidth > 1").find("no closing ']'"),
            std::string::npos);
  EXPECT_NE(parse_error("transfer.bandwidth > 50 furlongs")
                .find("unknown unit (GB/s MB/s TB/s, s ms us ns, B KiB MiB GiB KB MB GB, %, x) at "
                      "'furlongs'"),
            std::string::npos);
  EXPECT_NE(parse_error("device.sm_count > 1").find("not the device's"), std::string::npos);
  EXPECT_NE(parse_error("transfer.bandwidth >").find("a bound is missing"), std::string::npos);
  EXPECT_NE(parse_error("transfer.band width > 1").find("value name"), std::string::npos);
  EXPECT_EQ(parse_error("transfer.bandwidth > abc").find("--expect: bad expectation"), 0u);
  EXPECT_EQ(parse_error("transfer.bandwidth > 1"), "");
}

TEST(ExpectUnits, ConvertWithinAFamilyOnly) {
  EXPECT_DOUBLE_EQ(*convert_unit(50000, "MB/s", "GB/s"), 50);
  EXPECT_DOUBLE_EQ(*convert_unit(10, "us", "s"), 1e-5);
  EXPECT_DOUBLE_EQ(*convert_unit(7, "", "sectors"), 7);  // bare: the value's own unit
  EXPECT_DOUBLE_EQ(*convert_unit(3, "x", "x"), 3);
  EXPECT_FALSE(convert_unit(1, "us", "GB/s").has_value());
  EXPECT_FALSE(convert_unit(1, "%", "x").has_value());
  EXPECT_TRUE(known_constant_unit("TB/s"));
  EXPECT_FALSE(known_constant_unit("furlongs"));
}

// A bandwidth metric with samples in rounds (tests/unit/fixtures.hpp).
Metric bandwidth(double center, double spread) {
  return testing::zigzag_bandwidth(center, spread);
}

Row transfer_row(const std::string& memory, std::int64_t bytes, Metric m) {
  Row row;
  row.params = {
      {"memory", memory, ""}, {"direction", std::string("h2d"), ""}, {"bytes", bytes, "B"}};
  row.metrics.push_back(std::move(m));
  row.derived.push_back({"link_bytes_per_payload", "x", 1.05});
  return row;
}

RunReport run() {
  RunReport report;
  DeviceInfo d;
  d.index = 0;
  d.name = "Test GPU";
  d.peak_dram_estimate_gbps = 100.0;
  report.devices.push_back(d);
  ProbeResult r;
  r.probe = "transfer";
  r.device = 0;
  r.status = Status::kOk;
  r.rows.push_back(transfer_row("pinned", 4096, bandwidth(10, 0.01)));
  r.rows.push_back(transfer_row("pinned", 64 << 20, bandwidth(52, 0.01)));
  r.rows.push_back(transfer_row("pinned", 256 << 20, bandwidth(53, 0.01)));
  r.rows.push_back(transfer_row("pageable", 256 << 20, bandwidth(20, 0.01)));
  r.summary.push_back({{{"memory", std::string("pinned"), ""}}, {{"fit_bandwidth", "GB/s", 53.5}}});
  report.results.push_back(r);
  return report;
}

ExpectationResult evaluated(const std::string& text, const RunReport& report = run()) {
  return evaluate_expectations({parse_expectation(text, "--expect")}, report).at(0);
}

TEST(ExpectEvaluate, EveryMatchingRowIsCheckedWithItsInterval) {
  const auto ok = evaluated("transfer[memory=pinned,bytes>=64MiB].bandwidth >= 50GB/s");
  EXPECT_EQ(ok.state, ExpectState::kPass);
  ASSERT_EQ(ok.bound_tests.size(), 2u);  // 64 and 256 MiB, not 4 KiB, not pageable
  ASSERT_TRUE(ok.bound_tests[0].low && ok.bound_tests[0].high);
  EXPECT_LT(*ok.bound_tests[0].low, ok.bound_tests[0].measured);
  EXPECT_GT(*ok.bound_tests[0].high, ok.bound_tests[0].measured);

  const auto far = evaluated("transfer[memory=pinned,bytes>=64MiB].bandwidth >= 60GB/s");
  EXPECT_EQ(far.state, ExpectState::kFail);
  EXPECT_EQ(far.bound_tests[0].state, ExpectState::kFail);
  EXPECT_TRUE(expectation_failed(far));
  const auto lines = expectation_failure_lines(far);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_NE(lines[0].find("transfer[memory=pinned,direction=h2d,bytes=64 MiB] on GPU 0: bandwidth "
                          "measured 52 GB/s (95% interval"),
            std::string::npos)
      << lines[0];
  EXPECT_NE(lines[0].find("expected >= 60 GB/s"), std::string::npos) << lines[0];
}

TEST(ExpectEvaluate, SummaryShowsTheValueNearestTheBoundAndTheBound) {
  // Pass lines say what was measured against what (check's output, the table, Markdown).
  const auto ok = evaluated("transfer[memory=pinned,bytes>=64MiB].bandwidth >= 50GB/s");
  EXPECT_EQ(expectation_summary(ok),
            "pass: transfer[memory=pinned,bytes>=64MiB].bandwidth >= 50GB/s: 2 values, nearest the "
            "bound measured 52 GB/s, bound >= 50 GB/s [--expect]");
  const auto one = evaluated("transfer[memory=pinned,bytes=256MiB].bandwidth >= 50GB/s");
  EXPECT_EQ(expectation_outcome(one), "measured 53 GB/s, bound >= 50 GB/s");
  const auto far = evaluated("transfer[memory=pinned,bytes>=64MiB].bandwidth >= 60GB/s");
  EXPECT_EQ(expectation_outcome(far),
            "2 of 2 values beyond the bound, nearest measured 52 GB/s, bound >= 60 GB/s");
  // One value: its failure line names the GPU, not the row again.
  const auto lines = expectation_failure_lines(
      evaluated("transfer[memory=pinned,bytes=256MiB].bandwidth >= 60GB/s"));
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find(".bandwidth >= 60GB/s: GPU 0: measured 53 GB/s (95% interval"),
            std::string::npos)
      << lines[0];
  EXPECT_EQ(expectation_total({ok, one, far}), "3 bounds: 2 passed, 1 failed");
  EXPECT_EQ(expectation_total({ok}), "1 bound: 1 passed, 0 failed");
  ExpectationResult from_file = ok;
  from_file.origin = "/some/where/expectations/nvidia-h100.txt:12";
  EXPECT_NE(expectation_summary(from_file).find("[nvidia-h100.txt:12]"), std::string::npos);
}

TEST(ExpectEvaluate, InconclusiveIsNotAFailure) {
  // 52 GB/s with +-1% samples against 52.05: the median is below, its interval reaches it.
  const auto r = evaluated("transfer[memory=pinned,bytes>=64MiB].bandwidth >= 52050MB/s");
  EXPECT_EQ(r.state, ExpectState::kInconclusive);
  ASSERT_EQ(r.bound_tests.size(), 2u);
  EXPECT_EQ(r.bound_tests[0].state, ExpectState::kInconclusive);
  EXPECT_EQ(r.bound_tests[1].state, ExpectState::kPass);  // 53 GB/s
  EXPECT_FALSE(expectation_failed(r));
  EXPECT_TRUE(expectation_failure_lines(r).empty());
}

TEST(ExpectEvaluate, ReferencesDerivedValuesAndUnmatched) {
  EXPECT_EQ(evaluated("transfer.summary[memory=pinned].fit_bandwidth >= 0.5 * "
                      "device.peak_dram_estimate_gbps")
                .state,
            ExpectState::kPass);
  EXPECT_EQ(evaluated("transfer.summary[memory=pinned].fit_bandwidth >= 0.6 * "
                      "device.peak_dram_estimate_gbps")
                .state,
            ExpectState::kFail);
  EXPECT_EQ(evaluated("transfer[memory=pageable].link_bytes_per_payload < 1.1").state,
            ExpectState::kPass);
  const auto none = evaluated("transfer[memory=wc].bandwidth > 1");
  EXPECT_EQ(none.state, ExpectState::kUnmatched);
  EXPECT_TRUE(expectation_failed(none));
  const auto units = evaluated("transfer[memory=pinned].bandwidth > 1us");
  EXPECT_EQ(units.state, ExpectState::kError);
  EXPECT_NE(units.reason.find("'us'"), std::string::npos);
  const auto many =
      evaluated("transfer[memory=pinned].bandwidth > transfer[memory=pinned].bandwidth");
  EXPECT_EQ(many.state, ExpectState::kError);
  EXPECT_NE(many.reason.find("matched 3 values"), std::string::npos);
}

TEST(ExpectPlan, UnknownProbesAndSelectorsMatchingNoPlannedRowAreUsageErrors) {
  RunReport plan = run();
  for (auto& row : plan.results[0].rows)
    row.metrics.clear();  // a plan has params, no metrics
  const auto check = [&plan](const std::string& text) -> std::string {
    try {
      validate_against_plan({parse_expectation(text, "--expect")}, plan);
    } catch (const UsageError& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_EQ(check("transfer[memory=pinned].bandwidth > 1"), "");
  EXPECT_NE(check("coalescing[element_bytes=4].bandwidth > 1").find("'coalescing' is not a probe"),
            std::string::npos);
  EXPECT_NE(check("transfer[memory=wc].bandwidth > 1").find("no planned transfer row"),
            std::string::npos);
  EXPECT_NE(check("transfer[size=4KiB].bandwidth > 1").find("params: memory=pinned"),
            std::string::npos);
}

// Reference bounds as a GPU's file has them: for GPU 0.
Expectation reference_bound(const std::string& text) {
  Expectation e = parse_expectation(text, "ref.txt:1");
  e.device = 0;
  return e;
}

TEST(ExpectCoverage, ARunThatIsNoneACheckCanJudgeSaysWhat) {
  EXPECT_FALSE(not_checkable(run()).has_value());
  RunReport compared = run();
  compared.sides.resize(2);
  EXPECT_EQ(not_checkable(compared), "it is `gpuprobe compare` output, not a run's results");
  RunReport plan = run();
  plan.devices.clear();
  plan.results[0].status = Status::kPlanned;
  EXPECT_EQ(not_checkable(plan), "it is a plan (--plan): nothing was measured");
  RunReport fleet = run();
  fleet.devices.clear();
  fleet.command = {"gpuprobe", "fleet", "runs/"};
  EXPECT_EQ(not_checkable(fleet), "it is `gpuprobe fleet` output, not a run's results");
  RunReport empty = run();
  empty.results.clear();
  EXPECT_EQ(not_checkable(empty), "it holds no probe results");
  RunReport failed = run();
  failed.results[0].status = Status::kFailed;
  failed.results[0].reason = "out of memory";
  EXPECT_EQ(not_checkable(failed), "no probe result is ok (GPU 0): transfer failed: out of memory");
}

TEST(ExpectCoverage, BoundsOnAFailedSkippedOrMissingProbeAreSaidNotEvaluated) {
  const std::vector<Expectation> reference = {
      reference_bound("transfer[memory=pinned].bandwidth >= 50GB/s"),
      reference_bound("coalescing.summary[element_bytes=4].baseline_bandwidth >= 1GB/s"),
      reference_bound("zerocopy.summary[stride=32].copy_over_zerocopy_first >= 2"),
      reference_bound("coalescing.summary[element_bytes=8].baseline_bandwidth >= 1GB/s"),
  };
  const auto ok = reference_coverage({reference[0]}, run());
  EXPECT_EQ(ok.checkable.size(), 1u);
  EXPECT_TRUE(ok.unchecked.empty());

  const auto missing = reference_coverage(reference, run());
  ASSERT_EQ(missing.checkable.size(), 1u);  // transfer's
  EXPECT_EQ(missing.checkable[0].subject.probe, "transfer");
  ASSERT_EQ(missing.unchecked.size(), 1u);  // one line for the probes the run lacks
  EXPECT_EQ(missing.unchecked[0],
            "GPU 0: 3 reference bound(s) not checked: the run has no coalescing, zerocopy result");

  RunReport skipped = run();
  skipped.results[0].status = Status::kSkipped;
  skipped.results[0].reason = "needs compute capability 8.0";
  const auto on_skipped = reference_coverage({reference[0]}, skipped);
  EXPECT_TRUE(on_skipped.checkable.empty());
  ASSERT_EQ(on_skipped.unchecked.size(), 1u);
  EXPECT_EQ(on_skipped.unchecked[0],
            "GPU 0: 1 reference bound(s) on transfer not checked: transfer was skipped: needs "
            "compute capability 8.0");

  Expectation other_gpu = reference[0];
  other_gpu.device = 1;  // the run has transfer on GPU 0 only
  EXPECT_EQ(reference_coverage({other_gpu}, run()).unchecked.at(0),
            "GPU 1: 1 reference bound(s) not checked: the run has no transfer result");
}

TEST(ExpectFile, CommentsBlankLinesAndLineNumbersInErrors) {
  const std::string path = ::testing::TempDir() + "/expect-test.txt";
  {
    std::ofstream out(path);
    out << "# health check\n\ntransfer[memory=pinned].bandwidth >= 50GB/s  # pinned\n"
        << "transfer.bandwidth >> 3\n";
  }
  try {
    (void)read_expectation_file(path);
    FAIL() << "line 4 is malformed";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find(path + ":4: bad expectation"), std::string::npos)
        << e.what();
  }
  {
    std::ofstream out(path);
    out << "# health check\n\ntransfer[memory=pinned].bandwidth >= 50GB/s  # pinned\n";
  }
  const auto e = read_expectation_file(path);
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].origin, path + ":3");
  std::remove(path.c_str());
  EXPECT_THROW(read_expectation_file(path), UsageError);
}

}  // namespace
}  // namespace gpuprobe
