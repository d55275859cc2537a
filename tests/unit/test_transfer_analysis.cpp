// Unit tests for transfer's analysis on real H100 rows (tests/fixtures/schema1/h100-all.json):
// the fits, the fit beside every row, the ratios to pageable and the findings are recomputed
// from the measured rows alone and must reproduce what that run reported.
#include "transfer/analysis.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "gpuprobe/core/json_io.hpp"

namespace gpuprobe {
namespace {

const ProbeResult& h100_transfer() {
  static const RunReport report = [] {
    const std::string path = std::string(GPUPROBE_FIXTURES_DIR) + "/schema1/h100-all.json";
    return report_from_json(read_json_file(path), path);
  }();
  return report.results.at(0);
}

// The run's measured rows only: what the analysis adds is taken away.
ProbeResult measured_only(const ProbeResult& original) {
  ProbeResult r;
  r.probe = original.probe;
  r.rows = original.rows;
  for (auto& row : r.rows)
    row.model.clear();
  return r;
}

double value(const std::vector<Quantity>& values, const std::string& name) {
  const Quantity* q = find_quantity(values, name);
  EXPECT_NE(q, nullptr) << name;
  return q && q->value ? *q->value : std::nan("");
}

Glossary words() {
  Glossary g = core_glossary();
  transfer::add_words(g);
  return g;
}

TEST(TransferAnalysis, ReproducesTheRunsFitsRatiosAndRowModels) {
  const ProbeResult& original = h100_transfer();
  ASSERT_EQ(original.probe, "transfer");
  ProbeResult r = measured_only(original);
  transfer::analyse(r, {32.0, 16});
  // 12 curves (4 kinds x 3 directions) with a fit each, then 9 ratios to pageable.
  ASSERT_EQ(r.summary.size(), original.summary.size());
  ASSERT_EQ(r.summary.size(), 21u);
  for (std::size_t i = 0; i < r.summary.size(); ++i) {
    for (const auto& q : original.summary[i].values) {
      ASSERT_TRUE(q.value.has_value());
      EXPECT_NEAR(value(r.summary[i].values, q.name), *q.value, 1e-9 * std::fabs(*q.value))
          << "summary " << i << " " << q.name;
    }
  }
  for (std::size_t i = 0; i < r.rows.size(); ++i) {
    EXPECT_NEAR(value(r.rows[i].model, "fit_bandwidth"),
                value(original.rows[i].model, "fit_bandwidth"), 1e-9)
        << "row " << i;
  }
  EXPECT_NEAR(value(r.conditions, "pcie_raw_limit"), 63.0154, 1e-3);
}

TEST(TransferAnalysis, FindingsCarryTheNumbersTheRunsVerdictLinesPrinted) {
  ProbeResult r = measured_only(h100_transfer());
  transfer::analyse(r, {32.0, 16});
  const Glossary g = words();
  phrase_findings(r, g);
  // The run printed: "h2d: pinned 54.0 GB/s vs pageable 6.9 GB/s at 64 MiB — pinned is 7.84x".
  const Finding& h2d = r.findings.at(0);
  EXPECT_EQ(h2d.id, "transfer_pinned_over_pageable");
  EXPECT_EQ(h2d.kind, FindingKind::kVerdict);
  EXPECT_EQ(param_text_of(h2d, "direction"), "h2d");
  EXPECT_EQ(param_text_of(h2d, "bytes"), "64 MiB");
  EXPECT_NEAR(value_of(h2d, "ratio"), 7.84, 0.005);
  EXPECT_NEAR(value_of(h2d, "pinned_bandwidth"), 54.0, 0.05);
  EXPECT_NEAR(value_of(h2d, "pageable_bandwidth"), 6.9, 0.05);
  EXPECT_EQ(h2d.text,
            "h2d: pinned 54.05 GB/s vs pageable 6.89 GB/s at 64 MiB — pinned is 7.84x pageable "
            "(measured)");
  EXPECT_NEAR(value_of(r.findings.at(1), "ratio"), 8.29, 0.005);  // d2h
  EXPECT_NEAR(value_of(r.findings.at(2), "ratio"), 7.25, 0.005);  // bidir
  // "pinned h2d: 52.9 GB/s asymptotic, 2.8 us per copy, half of it reached at 145 KiB".
  const Finding* fit = nullptr;
  for (const auto& f : r.findings) {
    if (f.id == "transfer_pinned_fit" && param_text_of(f, "direction") == "h2d") fit = &f;
  }
  ASSERT_NE(fit, nullptr);
  EXPECT_NEAR(value_of(*fit, "fit_bandwidth"), 52.9, 0.05);
  EXPECT_NEAR(value_of(*fit, "latency") * 1e6, 2.8, 0.05);
  EXPECT_NEAR(value_of(*fit, "half_bandwidth_size") / 1024, 145, 0.5);
  EXPECT_EQ(fit->text.rfind("pinned h2d: 52.9", 0), 0u) << fit->text;
  const Finding& link = r.findings.back();
  EXPECT_EQ(link.id, "transfer_pcie_link");
  EXPECT_NE(link.text.find("PCIe gen 5 x16 = 63.02 GB/s"), std::string::npos) << link.text;
}

TEST(TransferAnalysis, NoPageableMeansNoRatiosAndAnUnknownLinkIsSaid) {
  ProbeResult r = measured_only(h100_transfer());
  std::erase_if(r.rows, [](const Row& row) {
    return scalar_text(find_param(row.params, "memory")->value) == "pageable";
  });
  transfer::analyse(r, {0, 0});
  EXPECT_EQ(r.summary.size(), 9u);  // three kinds x three directions, no ratio
  EXPECT_EQ(find_finding(r, "transfer_pinned_over_pageable"), nullptr);
  EXPECT_NE(find_finding(r, "transfer_pcie_link_unknown"), nullptr);
  EXPECT_EQ(find_quantity(r.conditions, "pcie_raw_limit"), nullptr);
}

TEST(TransferAnalysis, OneSizeGivesNoFitAndSaysWhy) {
  ProbeResult r = measured_only(h100_transfer());
  std::erase_if(r.rows, [](const Row& row) {
    return std::get<std::int64_t>(find_param(row.params, "bytes")->value) != 67108864;
  });
  transfer::analyse(r, {32.0, 16});
  const Finding* f = find_finding(r, "transfer_no_fit");
  ASSERT_NE(f, nullptr);
  phrase_findings(r, words());
  EXPECT_EQ(r.findings.front().id, "transfer_pinned_over_pageable");  // ratios still measured
  const Finding* phrased = find_finding(r, "transfer_no_fit");
  EXPECT_EQ(phrased->text.rfind("no fit for pageable h2d: ", 0), 0u) << phrased->text;
  EXPECT_FALSE(find_quantity(r.summary.front().values, "latency")->value.has_value());
  for (const auto& row : r.rows)
    EXPECT_TRUE(row.model.empty());
}

TEST(TransferAnalysis, PlannedRowsWithoutMetricsAreLeftAlone) {
  ProbeResult r;
  r.rows.push_back({{{"memory", std::string("pinned"), ""},
                     {"direction", std::string("h2d"), ""},
                     {"bytes", std::int64_t{4096}, "B"}},
                    {},
                    {},
                    {},
                    {},
                    {}});
  transfer::analyse(r, {32.0, 16});
  EXPECT_TRUE(r.summary.empty());
  EXPECT_TRUE(r.rows.front().model.empty());
}

}  // namespace
}  // namespace gpuprobe
