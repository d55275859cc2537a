// Unit tests for overlap's analysis on real H100 rows. The fixture tests/fixtures/overlap.json is
// `gpuprobe overlap --memory pinned,pageable --timeline --json overlap.json` on an H100 80GB HBM3
// (PCIe gen 5, VM), Release build of commit e22dab580b4d (the same file as
// examples/results/h100/overlap.json). The stage times, models, speed-ups and findings are
// recomputed from the measured rows alone and checked against that run and hand computations.
#include "overlap/analysis.hpp"

#include <gtest/gtest.h>

#include "fixtures.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <variant>

namespace gpuprobe {
namespace {

const ProbeResult& h100_overlap() {
  return testing::fixture_result("overlap.json.gz", "overlap");
}

// The run's measured rows, conditions and recorded timeline: what the analysis adds is taken away.
ProbeResult measured_only(const ProbeResult& original) {
  ProbeResult r;
  r.probe = original.probe;
  r.rows = original.rows;
  r.conditions = original.conditions;
  for (auto& row : r.rows) {
    row.model.clear();
    row.derived.clear();
  }
  for (const auto& s : original.summary)
    if (find_param(s.params, "chunk")) r.summary.push_back(s);
  return r;
}

std::string text(const Row& row, const char* key) {
  return text_param_of(row, key).value_or("");
}

const Row& row_of(const ProbeResult& r, const std::string& memory, const std::string& workload,
                  const std::string& run, const std::string& order = "", std::int64_t n = 1) {
  for (const auto& row : r.rows) {
    if (text(row, "memory") == memory && text(row, "workload") == workload &&
        text(row, "run") == run && text(row, "order") == order &&
        int_param_of(row, "streams").value_or(0) == n)
      return row;
  }
  ADD_FAILURE() << "no row " << memory << " " << workload << " " << run << " " << order << " " << n;
  static const Row none;
  return none;
}

double median(const Row& row, const char* metric = "time") {
  const auto m = metric_median(row, metric);
  EXPECT_TRUE(m.has_value()) << metric;
  return m.value_or(std::nan(""));
}

double value(const std::vector<Quantity>& values, const std::string& name) {
  const Quantity* q = find_quantity(values, name);
  EXPECT_NE(q, nullptr) << name;
  return q && q->value ? *q->value : std::nan("");
}

std::vector<const Finding*> findings(const ProbeResult& r, const std::string& id) {
  std::vector<const Finding*> out;
  for (const auto& f : r.findings)
    if (f.id == id) out.push_back(&f);
  return out;
}

const Finding* finding(const ProbeResult& r, const std::string& id, const std::string& memory,
                       const std::string& workload) {
  for (const Finding* f : findings(r, id)) {
    const Param* m = find_param(f->params, "memory");
    const Param* w = find_param(f->params, "workload");
    if (m && std::get<std::string>(m->value) == memory && w &&
        std::get<std::string>(w->value) == workload)
      return f;
  }
  return nullptr;
}

std::string outcome(const Finding& f, const char* key) {
  const Param* p = find_param(f.outcome, key);
  return p ? scalar_text(p->value) : "";
}

Glossary words() {
  Glossary g = core_glossary();
  overlap::add_words(g);
  return g;
}

TEST(OverlapAnalysis, ReproducesTheRunsRowValues) {
  const ProbeResult& original = h100_overlap();
  ProbeResult r = measured_only(original);
  overlap::analyse(r, true);
  ASSERT_EQ(r.rows.size(), original.rows.size());
  std::size_t checked = 0;
  for (std::size_t i = 0; i < r.rows.size(); ++i) {
    ASSERT_EQ(r.rows[i].model.size(), original.rows[i].model.size()) << i;
    for (const auto& q : original.rows[i].model) {
      EXPECT_NEAR(value(r.rows[i].model, q.name), *q.value, 1e-9 * std::fabs(*q.value));
      ++checked;
    }
    for (const auto& q : original.rows[i].derived) {
      if (!q.value) continue;
      EXPECT_NEAR(value(r.rows[i].derived, q.name), *q.value, 1e-9 * std::fabs(*q.value))
          << i << " " << q.name;
      ++checked;
    }
  }
  EXPECT_GT(checked, 500u);
}

// The pinned balanced pipeline at 4 streams, computed here from the solo rows by hand.
TEST(OverlapAnalysis, BalancedModelsByHand) {
  ProbeResult r = measured_only(h100_overlap());
  overlap::analyse(r, false);
  const double h2d = median(row_of(r, "pinned", "", "h2d"));
  const double d2h = median(row_of(r, "pinned", "", "d2h"));
  const double k = median(row_of(r, "", "balanced", "kernel"));
  const Row both = row_of(r, "pinned", "", "h2d+d2h");
  const double h2d_c = median(both, "time_h2d"), d2h_c = median(both, "time_d2h");
  const Row hc = row_of(r, "pinned", "", "h2d-chunked", "", 1);
  const double n_cost = static_cast<double>(*int_param_of(hc, "chunks"));
  const double ch = (median(hc) - h2d) / (n_cost - 1);
  const double ck = (median(row_of(r, "", "balanced", "kernel-chunked")) - k) / (n_cost - 1);
  const double cd = (median(row_of(r, "pinned", "", "d2h-chunked")) - d2h) / (n_cost - 1);
  const Row staged = row_of(r, "pinned", "balanced", "staged", "depth-first", 4);
  const double s[] = {h2d / 4 + ch, k / 4 + ck, d2h / 4 + cd};
  const double smax = std::max({s[0], s[1], s[2]});
  EXPECT_NEAR(value(staged.model, "model_pipeline"), s[0] + s[1] + s[2] + 3 * smax, 1e-12);
  const double sc[] = {h2d_c / 4 + ch, k / 4 + ck, d2h_c / 4 + cd};
  EXPECT_NEAR(value(staged.model, "model_concurrent"),
              s[0] + s[1] + s[2] + smax + 2 * std::max({sc[0], sc[1], sc[2]}), 1e-12);
  EXPECT_NEAR(value(staged.model, "model_guide"),
              std::max(k, h2d + d2h) + std::min(k, h2d + d2h) / 4, 1e-12);
  const double ideal = std::max({h2d, k, d2h});
  EXPECT_NEAR(value(staged.model, "model_ideal"), ideal, 1e-12);
  const double seq = median(row_of(r, "pinned", "balanced", "sequential"));
  const double t = median(staged);
  EXPECT_NEAR(value(staged.derived, "speedup"), seq / t, 1e-12);
  EXPECT_NEAR(value(staged.derived, "efficiency"), (seq - t) / (seq - ideal), 1e-12);
  // The interval comes from other draws than the medians but must hold the point estimate.
  EXPECT_LE(value(staged.derived, "speedup_low"), seq / t);
  EXPECT_GE(value(staged.derived, "speedup_high"), seq / t);
}

TEST(OverlapAnalysis, BestStreamsIsTheSmallestWithinFivePercent) {
  ProbeResult r = measured_only(h100_overlap());
  overlap::analyse(r, false);
  for (const char* workload : {"copy-bound", "balanced", "compute-bound"}) {
    double best = 1e9;
    for (const auto& row : r.rows)
      if (text(row, "memory") == "pinned" && text(row, "workload") == workload &&
          text(row, "run") == "staged")
        best = std::min(best, median(row));
    std::int64_t smallest = 1 << 20;
    for (const auto& row : r.rows)
      if (text(row, "memory") == "pinned" && text(row, "workload") == workload &&
          text(row, "run") == "staged" && median(row) <= best * 1.05)
        smallest = std::min(smallest, *int_param_of(row, "streams"));
    const Finding* f = finding(r, "overlap_best_streams", "pinned", workload);
    ASSERT_NE(f, nullptr) << workload;
    EXPECT_DOUBLE_EQ(value(f->values, "best_time"), best) << workload;
    EXPECT_EQ(value(f->values, "near_best_streams"), static_cast<double>(smallest)) << workload;
  }
}

TEST(OverlapAnalysis, ModelFitJudgesTwoToSixteenStreamsOnPinnedOnly) {
  ProbeResult r = measured_only(h100_overlap());
  overlap::analyse(r, false);
  const Finding* fit = finding(r, "overlap_model_fit", "pinned", "balanced");
  ASSERT_NE(fit, nullptr);
  double worst = 0;
  for (const auto& row : r.rows) {
    const auto n = int_param_of(row, "streams").value_or(0);
    if (text(row, "memory") != "pinned" || text(row, "workload") != "balanced" ||
        text(row, "run") != "staged" || n < 2 || n > 16)
      continue;
    const double dev = median(row) / value(row.model, "model_concurrent") - 1;
    if (std::fabs(dev) > std::fabs(worst)) worst = dev;
  }
  EXPECT_NEAR(value(fit->values, "worst_deviation"), 100 * worst, 1e-9);
  EXPECT_EQ(outcome(*fit, "agreement"), std::fabs(worst) <= 0.15 ? "within" : "outside");
  // The largest count (32) is reported beside the model, with the chunk costs' share.
  const Finding* large = finding(r, "overlap_model_large_n", "pinned", "balanced");
  ASSERT_NE(large, nullptr);
  EXPECT_EQ(value(large->values, "streams"), 32.0);
  // Pageable copies are synchronous: no pipeline model is judged for them.
  EXPECT_EQ(finding(r, "overlap_model_fit", "pageable", "balanced"), nullptr);
  EXPECT_EQ(finding(r, "overlap_model_large_n", "pageable", "balanced"), nullptr);
}

TEST(OverlapAnalysis, PageableAndCopyConcurrencyVerdicts) {
  ProbeResult r = measured_only(h100_overlap());
  overlap::analyse(r, false);
  const Finding* pageable = finding(r, "overlap_pageable", "pageable", "balanced");
  ASSERT_NE(pageable, nullptr);
  double best = 0;
  for (const auto& row : r.rows)
    if (text(row, "memory") == "pageable" && text(row, "workload") == "balanced" &&
        text(row, "run") == "staged")
      best = std::max(best, value(row.derived, "speedup"));
  EXPECT_DOUBLE_EQ(value(pageable->values, "speedup"), best);
  EXPECT_EQ(outcome(*pageable, "outcome"),
            value(pageable->values, "speedup_low") > 1.05 ? "overlaps" : "no overlap");
  EXPECT_EQ(finding(r, "overlap_pageable", "pinned", "balanced"), nullptr);
  // One copy verdict per memory kind: at once vs one after the other.
  const auto copies = findings(r, "overlap_copy_concurrency");
  ASSERT_EQ(copies.size(), 2u);
  for (const Finding* f : copies) {
    // From the rows: each copy alone, and both started together (done when the later ends).
    const std::string memory = param_text_of(*f, "memory");
    const double h2d = median(row_of(r, memory, "", "h2d"));
    const double d2h = median(row_of(r, memory, "", "d2h"));
    const Row& both = row_of(r, memory, "", "h2d+d2h");
    const double at_once = std::max(median(both, "time_h2d"), median(both, "time_d2h"));
    EXPECT_DOUBLE_EQ(value(f->values, "h2d"), h2d) << memory;
    EXPECT_DOUBLE_EQ(value(f->values, "d2h"), d2h) << memory;
    EXPECT_DOUBLE_EQ(value(f->values, "at_once"), at_once) << memory;
    EXPECT_DOUBLE_EQ(value(f->values, "one_after_other"), h2d + d2h) << memory;
    EXPECT_EQ(outcome(*f, "outcome"), at_once < 0.95 * (h2d + d2h) ? "overlap" : "no overlap");
  }
}

TEST(OverlapAnalysis, EveryPhrasingRendersAndTimelineDrawsEachStream) {
  ProbeResult r = measured_only(h100_overlap());
  overlap::analyse(r, true);
  const Glossary g = words();
  std::map<std::string, int> ids;
  for (const auto& f : r.findings) {
    ASSERT_TRUE(g.has_phrasing(f.id)) << f.id;
    const std::string sentence = g.text(f);
    EXPECT_FALSE(sentence.empty()) << f.id;
    ++ids[f.id];
  }
  for (const char* id :
       {"overlap_engines", "overlap_copy_concurrency", "overlap_best_streams", "overlap_model_fit",
        "overlap_model_large_n", "overlap_issue_order", "overlap_pageable", "overlap_timeline"})
    EXPECT_GT(ids[id], 0) << id;
  // 4 streams in the recorded timeline, one bar each of 64 cells between '|'.
  const auto bars = findings(r, "overlap_timeline");
  ASSERT_EQ(bars.size(), 4u);
  for (const Finding* f : bars) {
    const std::string s = g.text(*f);
    const auto a = s.find('|'), b = s.rfind('|');
    ASSERT_NE(a, b);
    EXPECT_EQ(b - a - 1, 64u);
    // Each stream copies in, runs its kernel and copies out, in that order within its bar (the
    // legend after the bar names the same letters).
    const std::string bar = s.substr(a + 1, b - a - 1);
    const auto h = bar.find('H'), k = bar.find('K'), d = bar.find('D');
    ASSERT_NE(h, std::string::npos) << bar;
    ASSERT_NE(k, std::string::npos) << bar;
    ASSERT_NE(d, std::string::npos) << bar;
    EXPECT_LT(h, k) << bar;
    EXPECT_LT(k, d) << bar;
  }
  // Without the switch no timeline notes.
  ProbeResult quiet = measured_only(h100_overlap());
  overlap::analyse(quiet, false);
  EXPECT_TRUE(findings(quiet, "overlap_timeline").empty());
}

TEST(OverlapAnalysis, EdgeCases) {
  // Only the solo rows and the sequential run: models on the sequential row, no staged findings.
  ProbeResult r = measured_only(h100_overlap());
  std::erase_if(r.rows, [](const Row& row) {
    return text(row, "run") == "staged" || text(row, "run").ends_with("-chunked");
  });
  overlap::analyse(r, false);
  const Row seq = row_of(r, "pinned", "balanced", "sequential");
  EXPECT_NEAR(value(seq.model, "model_pipeline"),
              median(row_of(r, "pinned", "", "h2d")) + median(row_of(r, "", "balanced", "kernel")) +
                  median(row_of(r, "pinned", "", "d2h")),
              1e-12);
  EXPECT_TRUE(findings(r, "overlap_best_streams").empty());
  EXPECT_TRUE(findings(r, "overlap_model_fit").empty());
  // No chunked rows: per-chunk costs are zero.
  EXPECT_EQ(value(r.summary.front().values, "h2d_chunk_cost"), 0.0);
  // No solo rows at all: nothing is derived, nothing is found but the engines note.
  ProbeResult bare = measured_only(h100_overlap());
  std::erase_if(bare.rows, [](const Row& row) { return text(row, "run") == "kernel"; });
  overlap::analyse(bare, false);
  for (const auto& row : bare.rows)
    EXPECT_TRUE(row.model.empty());
  ASSERT_EQ(bare.findings.size(), 1u);
  EXPECT_EQ(bare.findings.front().id, "overlap_engines");
}

TEST(OverlapAnalysis, CountersOnlyWhereCollected) {
  ProbeResult r = measured_only(h100_overlap());
  for (auto& row : r.rows)
    row.counters.reset();
  Row& staged = const_cast<Row&>(row_of(r, "pinned", "balanced", "staged", "depth-first", 4));
  staged.counters = std::vector<Quantity>{{"pcie__read_bytes.sum", "byte", 70e6},
                                          {"pcie__write_bytes.sum", "byte", std::nullopt}};
  overlap::analyse(r, false);
  const double buffer = value(r.conditions, "buffer_bytes");
  EXPECT_NEAR(value(staged.derived, "pcie_read_per_payload"), 70e6 / buffer, 1e-12);
  EXPECT_EQ(find_quantity(staged.derived, "pcie_write_per_payload"), nullptr);
  for (const auto& row : r.rows)
    if (&row != &staged) {
      EXPECT_EQ(find_quantity(row.derived, "pcie_read_per_payload"), nullptr);
    }
}

}  // namespace
}  // namespace gpuprobe
