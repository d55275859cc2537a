// Unit tests for transfer's analysis on real H100 rows (tests/fixtures/schema1/h100-all.json.gz):
// the fits, the fit beside every row, the ratios to pageable and the findings are recomputed
// from the measured rows alone and must reproduce what that run reported.
#include "transfer/analysis.hpp"

#include <gtest/gtest.h>

#include "fixtures.hpp"

#include <algorithm>
#include <cmath>

#include "gpuprobe/core/json_io.hpp"

namespace gpuprobe {
namespace {

const ProbeResult& h100_transfer() {
  return testing::fixture_result("schema1/h100-all.json.gz", "transfer");
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

// ---- Counters ------------------------------------------------------------------------------

// PCIe counters of one repetition (one cudaMemcpyAsync per lane): the payload in the copy's
// direction(s) (pcie__read_bytes = the GPU reading host memory, h2d; pcie__write_bytes = the GPU
// writing it, d2h) plus the background traffic measured with these counters on an H100 during a
// device-only copy: 6 KB read, 1.5 KB written.
std::vector<Quantity> pcie_counters(const std::string& direction, double bytes) {
  const bool h2d = direction != "d2h", d2h = direction != "h2d";
  return {{"pcie__read_bytes.sum", "byte", (h2d ? bytes : 0) + 6144},
          {"pcie__write_bytes.sum", "byte", (d2h ? bytes : 0) + 1536},
          {"gpu__time_duration.sum", "nsecond", 1e6},
          {"sm__cycles_elapsed.avg.per_second", "cycle/second", 1.98e9},
          {"dram__cycles_elapsed.avg.per_second", "cycle/second", 2.619e9}};
}

std::string text_of(const Row& row, const char* key) {
  return scalar_text(find_param(row.params, key)->value);
}

double bytes_of(const Row& row) {
  return static_cast<double>(std::get<std::int64_t>(find_param(row.params, "bytes")->value));
}

// The fixture's rows, with counters on the pinned ones.
ProbeResult pinned_with_counters() {
  ProbeResult r = measured_only(h100_transfer());
  for (auto& row : r.rows) {
    if (text_of(row, "memory") == "pinned")
      row.counters = pcie_counters(text_of(row, "direction"), bytes_of(row));
  }
  return r;
}

const Row& row_of(const ProbeResult& r, const char* memory, const char* direction, double bytes) {
  for (const auto& row : r.rows) {
    if (text_of(row, "memory") == memory && text_of(row, "direction") == direction &&
        bytes_of(row) == bytes)
      return row;
  }
  throw std::runtime_error("no such row");
}

TEST(TransferAnalysis, LinkBytesPerPayloadFromTheCountersWithoutAModel) {
  ProbeResult r = pinned_with_counters();
  transfer::analyse(r, {32.0, 16});
  phrase_findings(r, words());
  const double mib64 = 64.0 * 1024 * 1024;
  const Row& h2d = row_of(r, "pinned", "h2d", mib64);
  EXPECT_DOUBLE_EQ(value(h2d.derived, "link_bytes_per_payload"), (mib64 + 6144) / mib64);
  EXPECT_DOUBLE_EQ(value(h2d.derived, "reverse_link_bytes_per_payload"), 1536 / mib64);
  const Row& d2h = row_of(r, "pinned", "d2h", 4096);
  EXPECT_DOUBLE_EQ(value(d2h.derived, "link_bytes_per_payload"), (4096.0 + 1536) / 4096);
  EXPECT_DOUBLE_EQ(value(d2h.derived, "reverse_link_bytes_per_payload"), 1.5);
  // bidir: both directions over twice the bytes; no opposite direction to speak of.
  const Row& bidir = row_of(r, "pinned", "bidir", 4096);
  EXPECT_DOUBLE_EQ(value(bidir.derived, "link_bytes_per_payload"), (8192.0 + 7680) / 8192);
  EXPECT_EQ(find_quantity(bidir.derived, "reverse_link_bytes_per_payload"), nullptr);
  // No model value, no comparison, no flag; rows without counters get nothing.
  EXPECT_EQ(h2d.model.size(), 1u);
  for (const auto& row : r.rows)
    EXPECT_TRUE(std::find(row.flags.begin(), row.flags.end(), "ctr-vs-model") == row.flags.end());
  EXPECT_TRUE(row_of(r, "wc", "h2d", mib64).derived.empty());

  const Finding* f = find_finding(r, "transfer_link_bytes");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->kind, FindingKind::kVerdict);
  EXPECT_EQ(value_of(*f, "rows"), 24);
  EXPECT_DOUBLE_EQ(value_of(*f, "max"), 2.5);  // h2d 4 KiB: (4096 + 6144) / 4096
  EXPECT_EQ(value_of(*f, "large_rows"), 3);
  EXPECT_DOUBLE_EQ(value_of(*f, "large_min"), (mib64 + 1536) / mib64);
  EXPECT_DOUBLE_EQ(value_of(*f, "large_max"), (mib64 + 6144) / mib64);
  // Where the highest row lies is the outcome, not the identity: another run whose highest row
  // is another 4 KiB row makes the same finding.
  EXPECT_TRUE(f->params.empty());
  EXPECT_EQ(param_text_of(*f, "direction"), "h2d");
  EXPECT_EQ(param_text_of(*f, "bytes"), "4 KiB");
  EXPECT_EQ(f->text,
            "PCIe counters: bytes on the link / payload 1.000x on the 3 rows of 64 MiB and more; "
            "1.000-2.500x over all 24 rows with counters (highest: pinned h2d 4 KiB); no model "
            "predicts it: the counters count payload at 512-B granularity, device-wide, so about "
            "1 is expected where the copy dwarfs other traffic");
  EXPECT_EQ(r.findings.back().id, "transfer_pcie_link");
}

TEST(TransferAnalysis, NoCountersOrUncollectedOnesGiveNoLinkValue) {
  ProbeResult plain = measured_only(h100_transfer());
  transfer::analyse(plain, {32.0, 16});
  EXPECT_EQ(find_finding(plain, "transfer_link_bytes"), nullptr);
  for (const auto& row : plain.rows)
    EXPECT_TRUE(row.derived.empty());

  ProbeResult r = pinned_with_counters();
  for (auto& row : r.rows) {
    if (!row.counters) continue;
    for (auto& q : *row.counters) {
      if (q.name == "pcie__write_bytes.sum") q.value = std::nullopt;
    }
  }
  transfer::analyse(r, {32.0, 16});
  const Row& d2h = row_of(r, "pinned", "d2h", 4096);
  EXPECT_FALSE(find_quantity(d2h.derived, "link_bytes_per_payload")->value.has_value());
  const Row& h2d = row_of(r, "pinned", "h2d", 4096);
  EXPECT_DOUBLE_EQ(value(h2d.derived, "link_bytes_per_payload"), 2.5);
  EXPECT_FALSE(find_quantity(h2d.derived, "reverse_link_bytes_per_payload")->value.has_value());
  // Only the 8 h2d rows have a value now.
  EXPECT_EQ(value_of(*find_finding(r, "transfer_link_bytes"), "rows"), 8);
}

TEST(TransferAnalysis, LinkTermsAreShort) {
  const Glossary g = words();
  for (const char* name : {"link_bytes_per_payload", "reverse_link_bytes_per_payload"}) {
    const Term* t = g.term("transfer", name);
    ASSERT_NE(t, nullptr) << name;
    EXPECT_LE(t->label.size(), 8u) << name;
  }
}

}  // namespace
}  // namespace gpuprobe
