// Unit tests of coalescing's analysis on real H100 rows (tests/fixtures/schema1/h100-all.json.gz,
// a quick `gpuprobe all` sweep): model columns, ratios, summary rows, findings and phrasings
// checked against the file's own numbers and its old prose verdict; and the edge cases.
#include <gtest/gtest.h>

#include "fixtures.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <string>

#include "coalescing/analysis.hpp"
#include "gpuprobe/core/json_io.hpp"

namespace gpuprobe {
namespace {

using coalescing::RunFacts;

// The coalescing result of the fixture as written (with what the old probe derived).
const ProbeResult& original() {
  return testing::fixture_result("schema1/h100-all.json.gz", "coalescing");
}

// The measured rows only: params, metrics, flags and the sizing's working_set_over_l2.
ProbeResult stripped(ProbeResult r = original()) {
  for (auto& row : r.rows) {
    row.model.clear();
    std::vector<Quantity> kept;
    for (const auto& q : row.derived) {
      if (q.name == "working_set_over_l2") kept.push_back(q);
    }
    row.derived = kept;
  }
  r.summary.clear();
  r.findings.clear();
  r.conditions.clear();
  return r;
}

// What the probe knew on that H100: G = 64 B reported, 50 MiB L2, quick sizing (4x L2).
RunFacts h100_facts() {
  RunFacts f;
  f.fetch_bytes = 64;
  f.reported_fetch = 64;
  f.peak_dram_gbps = 3352.32;
  f.sizing.l2_bytes = 52428800;
  f.sizing.l2_multiple = 4;
  f.sizing.memory_cap = 21115748352;
  f.sizing.out_bytes = 200ull << 20;
  f.sizing.default_elements = {{4, 52428800}, {8, 26214400}, {16, 13107200}};
  return f;
}

Glossary words() {
  Glossary g = core_glossary();
  coalescing::add_words(g);
  return g;
}

ProbeResult analysed(ProbeResult r = stripped(), const RunFacts& facts = h100_facts()) {
  coalescing::analyse(r, facts);
  phrase_findings(r, words());
  return r;
}

const Row& row(const ProbeResult& r, const char* pattern, int param, int width) {
  for (const auto& row : r.rows) {
    if (scalar_text(find_param(row.params, "pattern")->value) == pattern &&
        std::get<std::int64_t>(find_param(row.params, pattern)->value) == param &&
        std::get<std::int64_t>(find_param(row.params, "element_bytes")->value) == width)
      return row;
  }
  throw std::runtime_error("no such row");
}

double median(const ProbeResult& r, const char* pattern, int param, int width) {
  return find_metric(row(r, pattern, param, width), "bandwidth")->stats.median;
}

double value(const std::vector<Quantity>& values, const std::string& name) {
  const Quantity* q = find_quantity(values, name);
  if (!q || !q->value) throw std::runtime_error("no value " + name);
  return *q->value;
}

// Findings with this id whose element_bytes is `width` (or all, width 0).
std::vector<const Finding*> findings(const ProbeResult& r, const std::string& id, int width = 0) {
  std::vector<const Finding*> out;
  for (const auto& f : r.findings) {
    if (f.id != id) continue;
    const Param* w = find_param(f.params, "element_bytes");
    if (width && (!w || std::get<std::int64_t>(w->value) != width)) continue;
    out.push_back(&f);
  }
  return out;
}

// The old probe's prose line that starts with `prefix`.
std::string old_line(const std::string& prefix) {
  for (const auto& f : original().findings) {
    if (f.text.rfind(prefix, 0) == 0) return f.text;
  }
  return "";
}

void expect_same_quantities(const std::vector<Quantity>& got, const std::vector<Quantity>& want,
                            const std::string& where) {
  ASSERT_EQ(got.size(), want.size()) << where;
  for (std::size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].name, want[i].name) << where;
    EXPECT_EQ(got[i].unit, want[i].unit) << where << " " << got[i].name;
    ASSERT_EQ(got[i].value.has_value(), want[i].value.has_value()) << where << " " << got[i].name;
    if (got[i].value) {
      EXPECT_NEAR(*got[i].value, *want[i].value, 1e-9 * std::max(1.0, std::abs(*want[i].value)))
          << where << " " << got[i].name;
    }
  }
}

TEST(CoalescingAnalysis, RowsSummaryAndConditionsMatchTheOldProbe) {
  const ProbeResult r = analysed();
  const ProbeResult& old = original();
  ASSERT_EQ(r.rows.size(), old.rows.size());
  for (std::size_t i = 0; i < r.rows.size(); ++i) {
    const std::string where = "row " + std::to_string(i);
    expect_same_quantities(r.rows[i].derived, old.rows[i].derived, where + " derived");
    expect_same_quantities(r.rows[i].model, old.rows[i].model, where + " model");
  }
  ASSERT_EQ(r.summary.size(), old.summary.size());
  for (std::size_t i = 0; i < r.summary.size(); ++i) {
    ASSERT_EQ(r.summary[i].params.size(), old.summary[i].params.size());
    for (std::size_t k = 0; k < r.summary[i].params.size(); ++k) {
      EXPECT_EQ(r.summary[i].params[k].key, old.summary[i].params[k].key);
      EXPECT_EQ(r.summary[i].params[k].value, old.summary[i].params[k].value);
    }
    expect_same_quantities(r.summary[i].values, old.summary[i].values,
                           "summary " + std::to_string(i));
  }
  // The probe's conditions, in the old order (the runner adds clocks and the rule around them).
  std::vector<Quantity> want;
  for (const char* name :
       {"working_set_over_l2", "memory_cap", "l2_fetch_granularity", "model_fetch_bytes"})
    want.push_back(*find_quantity(old.conditions, name));
  expect_same_quantities(r.conditions, want, "conditions");
}

TEST(CoalescingAnalysis, RatiosAreComputedFromTheRows) {
  const ProbeResult r = analysed();
  // offset 1 at 4 B: 2438.3 / 2625.3 GB/s.
  const Row& o1 = row(r, "offset", 1, 4);
  EXPECT_DOUBLE_EQ(value(o1.derived, "relative_bandwidth"),
                   median(r, "offset", 1, 4) / median(r, "offset", 0, 4));
  EXPECT_NEAR(value(o1.derived, "relative_bandwidth"), 0.9288, 1e-4);
  // stride 32 at 8 B with G = 64: each element costs a 64-B block, the store 8 B, so DRAM moves
  // (64 + 8) / (8 + 8) = 4.5x the useful bytes.
  const Row& s32 = row(r, "stride", 32, 8);
  EXPECT_NEAR(value(s32.derived, "implied_dram_bandwidth"), median(r, "stride", 32, 8) * 4.5,
              1e-9 * median(r, "stride", 32, 8));
  EXPECT_DOUBLE_EQ(value(s32.model, "predicted_relative_bandwidth_dram"), 16.0 / 72.0);
}

TEST(CoalescingAnalysis, OffsetClassesAndCostsOf4ByteElements) {
  const ProbeResult r = analysed();
  const auto classes = findings(r, "coalescing_offset_class", 4);
  ASSERT_EQ(classes.size(), 3u);
  // Most sectors first, then most lines; each with its members' measured mean.
  const auto rel = [&](int offset) {
    return median(r, "offset", offset, 4) / median(r, "offset", 0, 4);
  };
  EXPECT_EQ(param_text_of(*classes[0], "offsets"), "1,2,4");
  EXPECT_EQ(value_of(*classes[0], "sectors_per_request"), 5);
  EXPECT_EQ(value_of(*classes[0], "lines_per_request"), 2);
  EXPECT_DOUBLE_EQ(value_of(*classes[0], "relative_mean"), (rel(1) + rel(2) + rel(4)) / 3);
  EXPECT_DOUBLE_EQ(value_of(*classes[0], "relative_min"), rel(1));
  EXPECT_DOUBLE_EQ(value_of(*classes[0], "relative_max"), rel(4));
  EXPECT_DOUBLE_EQ(value_of(*classes[0], "model_relative"), 8.0 / 9.0);
  EXPECT_DOUBLE_EQ(value_of(*classes[0], "model_dram_max"), 1.0);
  EXPECT_EQ(param_text_of(*classes[1], "offsets"), "8,16");
  EXPECT_EQ(value_of(*classes[1], "sectors_per_request"), 4);
  EXPECT_EQ(value_of(*classes[1], "lines_per_request"), 2);
  EXPECT_EQ(param_text_of(*classes[2], "offsets"), "32");
  EXPECT_EQ(value_of(*classes[2], "lines_per_request"), 1);
  // Offset 0 standing for its class when only misaligned offsets were measured.
  ProbeResult only_one = stripped();
  std::erase_if(only_one.rows, [](const Row& row) {
    const std::string pattern = scalar_text(find_param(row.params, "pattern")->value);
    const auto at = std::get<std::int64_t>(find_param(row.params, pattern)->value);
    return pattern == "stride" || (at != 0 && at != 1);
  });
  const ProbeResult one = analysed(only_one);
  const auto two = findings(one, "coalescing_offset_class", 8);
  ASSERT_EQ(two.size(), 2u);
  EXPECT_EQ(two[1]->text,
            "8 B offset 0 (8 sectors, 2 lines per warp load): 1.00x offset 0; model: sectors "
            "1.00x, DRAM (64-B fetches) 1.00x");
  EXPECT_EQ(classes[0]->text,
            "4 B offsets 1, 2, 4 (5 sectors, 2 lines per warp load; offset 0: 4 sectors, 1 "
            "line): 0.93x offset 0 (0.93-0.94x); model: sectors 0.89x, DRAM (64-B fetches) "
            "1.00x");
  EXPECT_EQ(classes[2]->text,
            "4 B offset 32 (4 sectors, 1 line per warp load; offset 0: 4 sectors, 1 line): 0.99x "
            "offset 0; model: sectors 1.00x, DRAM (64-B fetches) 1.00x");

  // The old verdict: "measured ratios: 5 vs 4 sectors with 2 lines each 1.00x, 2 vs 1 lines
  // with 4 sectors each 0.94x".
  const auto sector = findings(r, "coalescing_offset_sector_cost", 4);
  const auto line = findings(r, "coalescing_offset_line_cost", 4);
  ASSERT_EQ(sector.size(), 1u);
  ASSERT_EQ(line.size(), 1u);
  EXPECT_DOUBLE_EQ(value_of(*sector[0], "ratio"),
                   (rel(1) + rel(2) + rel(4)) / 3 / ((rel(8) + rel(16)) / 2));
  EXPECT_DOUBLE_EQ(value_of(*line[0], "ratio"), (rel(8) + rel(16)) / 2 / rel(32));
  EXPECT_EQ(sector[0]->text, "4 B offsets, measured: 5 vs 4 sectors with 2 lines each 1.00x");
  EXPECT_EQ(line[0]->text, "4 B offsets, measured: 2 vs 1 lines with 4 sectors each 0.94x");
  const std::string old = old_line("4 B offsets");
  EXPECT_NE(old.find("5 vs 4 sectors with 2 lines each 1.00x"), std::string::npos) << old;
  EXPECT_NE(old.find("2 vs 1 lines with 4 sectors each 0.94x"), std::string::npos) << old;
  EXPECT_NE(old.find("offsets 1, 2, 4 (5 sectors, 2 lines) 0.93x (0.93-0.94x)"), std::string::npos);

  // 16 B: offset 1 alone misaligned, offsets 2, 4 a line more, 8, 16, 32 like offset 0.
  const auto wide = findings(r, "coalescing_offset_class", 16);
  ASSERT_EQ(wide.size(), 3u);
  EXPECT_EQ(param_text_of(*wide[0], "offsets"), "1");
  EXPECT_EQ(param_text_of(*wide[1], "offsets"), "2,4");
  EXPECT_EQ(param_text_of(*wide[2], "offsets"), "8,16,32");
  EXPECT_EQ(wide[2]->text.find("16 B offsets 8, 16, 32 (16 sectors, 4 lines"), 0u) << wide[2]->text;
  EXPECT_NE(wide[2]->text.find(": 0.99x offset 0 (0.98-1.00x)"), std::string::npos)
      << wide[2]->text;
}

TEST(CoalescingAnalysis, StrideCurvesBesideBothModels) {
  const ProbeResult r = analysed();
  const auto four = findings(r, "coalescing_strides", 4);
  ASSERT_EQ(four.size(), 1u);
  EXPECT_EQ(value_of(*four[0], "sector_stride"), 8);
  EXPECT_EQ(value_of(*four[0], "fetch_stride"), 16);
  EXPECT_EQ(value_of(*four[0], "largest_stride"), 32);
  EXPECT_DOUBLE_EQ(value_of(*four[0], "relative_stride_2"),
                   median(r, "stride", 2, 4) / median(r, "stride", 1, 4));
  EXPECT_DOUBLE_EQ(value_of(*four[0], "model_sector_stride"), 8.0 / 36.0);
  EXPECT_DOUBLE_EQ(value_of(*four[0], "model_dram_largest_stride"), 256.0 / 2176.0);
  // The old verdict's first part, word for word.
  const std::string want4 =
      "4 B strides, measured (sector model, DRAM model with 64-B fetches): 0.70x at stride 2 "
      "(0.67x, 0.67x), 0.25x at 8 (0.22x, 0.22x), 0.13x at 16 (0.22x, 0.12x), 0.12x at 32 "
      "(0.22x, 0.12x)";
  EXPECT_EQ(four[0]->text, want4);
  EXPECT_EQ(old_line("4 B strides").find(want4), 0u);

  // 16 B: the sector stride is 2 (shown once), the fetch stride 4.
  const auto sixteen = findings(r, "coalescing_strides", 16);
  ASSERT_EQ(sixteen.size(), 1u);
  EXPECT_EQ(sixteen[0]->text,
            "16 B strides, measured (sector model, DRAM model with 64-B fetches): 0.69x at stride "
            "2 (0.67x, 0.67x), 0.44x at 4 (0.67x, 0.40x), 0.31x at 32 (0.67x, 0.40x)");

  // 4 B follows the DRAM model everywhere: "measured/DRAM model 1.03-1.13x at every stride".
  const auto holds = findings(r, "coalescing_stride_dram_model_holds", 4);
  ASSERT_EQ(holds.size(), 1u);
  EXPECT_EQ(holds[0]->text, "4 B strides: measured/DRAM model 1.03-1.13x at every stride");
  // stride 8: 0.2498 / (8/36).
  EXPECT_NEAR(value_of(*holds[0], "ratio_min"),
              std::min({median(r, "stride", 2, 4) / median(r, "stride", 1, 4) / (8.0 / 12.0),
                        median(r, "stride", 4, 4) / median(r, "stride", 1, 4) / (8.0 / 20.0),
                        median(r, "stride", 8, 4) / median(r, "stride", 1, 4) / (256.0 / 1152.0),
                        median(r, "stride", 16, 4) / median(r, "stride", 1, 4) / (256.0 / 2176.0),
                        median(r, "stride", 32, 4) / median(r, "stride", 1, 4) / (256.0 / 2176.0)}),
              1e-12);

  // 8 B leaves it from stride 32 (256 B apart).
  const auto leaves = findings(r, "coalescing_stride_leaves_dram_model", 8);
  ASSERT_EQ(leaves.size(), 1u);
  EXPECT_EQ(value_of(*leaves[0], "holds_up_to"), 16);
  EXPECT_EQ(value_of(*leaves[0], "holds_up_to_spacing"), 128);
  EXPECT_EQ(value_of(*leaves[0], "short_from"), 32);
  EXPECT_EQ(value_of(*leaves[0], "short_from_spacing"), 256);
  EXPECT_EQ(value_of(*leaves[0], "lowest_at"), 32);
  EXPECT_DOUBLE_EQ(value_of(*leaves[0], "lowest_ratio"),
                   median(r, "stride", 32, 8) / median(r, "stride", 1, 8) / (16.0 / 72.0));
  const std::string tail =
      "measured/DRAM model 1.02-1.10x up to stride 16 (elements 128 B apart), more than 10% "
      "below it from stride 32 (256 B apart), down to 0.76x at stride 32: a loss the model does "
      "not explain";
  EXPECT_EQ(leaves[0]->text, "8 B strides: " + tail);
  EXPECT_NE(old_line("8 B strides").find(tail), std::string::npos);
  EXPECT_EQ(findings(r, "coalescing_stride_leaves_dram_model", 16).size(), 1u);
}

TEST(CoalescingAnalysis, ShortfallAtTheFirstStrideHasNoRangeBeforeIt) {
  // 4 B stride 2 measured at half its bandwidth: 0.35x against a DRAM model of 0.67x.
  ProbeResult in = stripped();
  for (auto& r : in.rows) {
    if (scalar_text(find_param(r.params, "pattern")->value) == "stride" &&
        std::get<std::int64_t>(find_param(r.params, "stride")->value) == 2 &&
        std::get<std::int64_t>(find_param(r.params, "element_bytes")->value) == 4)
      r.metrics[0].stats.median /= 2;
  }
  const ProbeResult r = analysed(in);
  const auto leaves = findings(r, "coalescing_stride_leaves_dram_model", 4);
  ASSERT_EQ(leaves.size(), 1u);
  EXPECT_FALSE(optional_value_of(*leaves[0], "holds_up_to").has_value());
  EXPECT_FALSE(optional_value_of(*leaves[0], "ratio_min").has_value());
  EXPECT_EQ(value_of(*leaves[0], "short_from"), 2);
  EXPECT_EQ(leaves[0]->text,
            "4 B strides: measured more than 10% below the DRAM model from stride 2 (8 B apart), "
            "down to 0.53x at stride 2: a loss the model does not explain");
}

TEST(CoalescingAnalysis, WorstAndBestAreSetsOfPointsAlikeWithinNoise) {
  const ProbeResult r = analysed();
  const Finding* wb = find_finding(r, "coalescing_worst_best");
  ASSERT_NE(wb, nullptr);
  EXPECT_DOUBLE_EQ(value_of(*wb, "worst_bandwidth"), median(r, "stride", 32, 4));
  EXPECT_DOUBLE_EQ(value_of(*wb, "best_bandwidth"), median(r, "offset", 32, 16));
  // The old line named the argmax, offset 32 at 16 B; offsets 0, 16 and stride 1 at 16 B lie
  // within the noise band of it (this schema 1 file has no samples: 3x the relative noise), so
  // the best is the set, named by its first point in sweep order. Stride 2 at 16 B (one more
  // sector per request) is measurably lower and not in it.
  EXPECT_EQ(value_of(*wb, "best_alike"), 4);
  EXPECT_EQ(value_of(*wb, "worst_alike"), 1);
  EXPECT_EQ(param_text_of(*wb, "best_pattern"), "offset");
  EXPECT_EQ(param_text_of(*wb, "best_at"), "0");
  EXPECT_EQ(param_text_of(*wb, "best_alike_with"),
            "offset 16, 16 B; offset 32, 16 B; stride 1, 16 B");
  EXPECT_EQ(wb->text,
            "worst/best measured: 318.2 GB/s (stride 32, 4 B) vs 2745.2 GB/s (offset 0, 16 B; "
            "alike within noise or 2%: offset 16, 16 B; offset 32, 16 B; stride 1, 16 B) = 0.116x");

  const Finding* dram = find_finding(r, "coalescing_implied_dram");
  ASSERT_NE(dram, nullptr);
  // Highest: stride 8 at 8 B, elements 64 B apart, one 64-B block each: the DRAM model moves
  // (32 x 64 + 32 x 8) / (2 x 32 x 8) = 4.5x the useful bytes.
  EXPECT_NEAR(value_of(*dram, "highest"), median(r, "stride", 8, 8) * 4.5, 1e-9 * 3000);
  EXPECT_EQ(param_text_of(*dram, "highest_pattern"), "stride");
  EXPECT_EQ(param_text_of(*dram, "lowest_at"), "32");
  EXPECT_DOUBLE_EQ(value_of(*dram, "baseline_min"), median(r, "stride", 1, 4));
  EXPECT_DOUBLE_EQ(value_of(*dram, "baseline_max"), median(r, "offset", 0, 16));
  EXPECT_EQ(param_text_of(*dram, "highest_alike_with"), "stride 4, 16 B");
  EXPECT_EQ(
      dram->text,
      "implied DRAM traffic (bandwidth x DRAM-model bytes per useful byte, 64-B fetches): "
      "2623-2743 GB/s for the aligned unit-stride copies, highest 2994 GB/s (stride 8, 8 B; "
      "alike within noise or 2%: stride 4, 16 B), lowest 2071 GB/s (stride 32, 8 B) (est. peak "
      "3352 GB/s); the model's predictions assume it is the same everywhere");
}

// Six same-build `gpuprobe all` runs on the H100 (build 56c2238, schema 3: samples by round;
// tests/fixtures/h100-gate2, gzipped; they lived in examples/results/h100/gate-2 up to 2f837c4). As written, they named four different best
// points at 16 B (offset 32, offset 16, stride 1, offset 0: an argmax among bandwidths alike within
// noise) and two different highest implied-DRAM points. Re-analysed, every run names the same
// extremes (the points listed beside them as alike may differ at the set's edge: they are not its
// identity).
TEST(CoalescingAnalysis, SixSameBuildRunsNameTheSameExtremes) {
  std::vector<std::string> named;
  std::set<std::string> written_best;
  for (int run = 1; run <= 6; ++run) {
    const std::string path = std::string(GPUPROBE_FIXTURES_DIR) + "/h100-gate2/run-" +
                             std::to_string(run) + ".json.gz";
    const RunReport report = report_from_json(read_json_file(path), path);
    const auto it = std::find_if(report.results.begin(), report.results.end(),
                                 [](const ProbeResult& p) { return p.probe == "coalescing"; });
    ASSERT_NE(it, report.results.end()) << path;
    const Finding* written = find_finding(*it, "coalescing_worst_best");
    ASSERT_NE(written, nullptr) << path;
    written_best.insert(param_text_of(*written, "best_pattern") +
                        param_text_of(*written, "best_at"));
    const ProbeResult r = analysed(stripped(*it));
    std::string outcome;
    for (const char* id : {"coalescing_worst_best", "coalescing_implied_dram"}) {
      const Finding* f = find_finding(r, id);
      ASSERT_NE(f, nullptr) << path << " " << id;
      for (const auto& p : f->outcome) {
        if (p.key.ends_with("_alike_with")) continue;
        outcome += p.key + "=" + scalar_text(p.value) + " ";
      }
    }
    named.push_back(outcome);
  }
  EXPECT_EQ(written_best.size(), 4u);  // the flicker this test is about
  for (int run = 2; run <= 6; ++run)
    EXPECT_EQ(named[run - 1], named[0]) << "run " << run;
}

TEST(CoalescingAnalysis, NotesSayWhatTheOldNotesSaid) {
  const ProbeResult r = analysed();
  for (const char* id :
       {"coalescing_sizing", "coalescing_model", "coalescing_implied_dram_meaning"}) {
    const Finding* f = find_finding(r, id);
    ASSERT_NE(f, nullptr) << id;
    EXPECT_EQ(f->kind, FindingKind::kNote);
    bool found = false;
    for (const auto& o : original().findings)
      found = found || o.text == f->text;
    EXPECT_TRUE(found) << id << ": " << f->text;
  }
  EXPECT_DOUBLE_EQ(value_of(*find_finding(r, "coalescing_sizing"), "working_set_over_l2"), 8.0);
  // G reported and used as is: no fetch note; nothing clamped, dropped or added as a baseline.
  for (const char* id : {"coalescing_fetch_not_reported", "coalescing_fetch_adjusted",
                         "coalescing_clamped", "coalescing_dropped", "coalescing_baseline_added",
                         "coalescing_l2_size_assumed", "coalescing_no_baseline"})
    EXPECT_EQ(find_finding(r, id), nullptr) << id;
  // Verdicts come first, then the notes.
  const auto first_note = std::find_if(r.findings.begin(), r.findings.end(), [](const Finding& f) {
    return f.kind != FindingKind::kVerdict;
  });
  EXPECT_TRUE(std::all_of(first_note, r.findings.end(),
                          [](const Finding& f) { return f.kind != FindingKind::kVerdict; }));
}

TEST(CoalescingAnalysis, SizingFindingsFromWhatTheProbeDecided) {
  RunFacts facts = h100_facts();
  facts.reported_fetch = 96;  // not a power of two: the model uses 64
  facts.sizing.l2_assumed = true;
  facts.sizing.clamped = {{4, 64, 80846848}, {4, 128, 40423424}, {4, 256, 20211712}};
  facts.sizing.dropped = {{models::CopyPattern::kStride, 16, 65536}};
  const ProbeResult r = analysed(stripped(), facts);
  const Finding* clamped = find_finding(r, "coalescing_clamped");
  ASSERT_NE(clamped, nullptr);
  EXPECT_EQ(clamped->text,
            "4 B strides 64 (N = 80846848), 128 (N = 40423424), 256 (N = 20211712) ran with fewer "
            "elements than the default 52428800 so the input span fits the memory cap of 19.7 "
            "GiB; their working set stays >= 4x L2 (flag 'clamped')");
  const Finding* dropped = find_finding(r, "coalescing_dropped");
  ASSERT_NE(dropped, nullptr);
  EXPECT_EQ(dropped->kind, FindingKind::kWarning);
  EXPECT_EQ(dropped->text,
            "stride 65536 at 16 B dropped: its input span does not fit the memory cap of 19.7 GiB "
            "(25% of free memory) with a working set of at least 4x L2");
  const Finding* adjusted = find_finding(r, "coalescing_fetch_adjusted");
  ASSERT_NE(adjusted, nullptr);
  EXPECT_EQ(adjusted->text,
            "the driver reports an L2 fetch granularity of 96 B: the DRAM model uses 64 B (a "
            "power of two from 32 to 128)");
  EXPECT_EQ(find_finding(r, "coalescing_l2_size_assumed")->text,
            "the driver reports no L2 size: sized as if it were 50 MiB");
  EXPECT_EQ(find_quantity(r.conditions, "l2_fetch_granularity")->value, 96.0);

  facts.reported_fetch.reset();
  facts.fetch_bytes = 32;
  const ProbeResult unreported = analysed(stripped(), facts);
  EXPECT_EQ(find_finding(unreported, "coalescing_fetch_not_reported")->text,
            "the driver reports no L2 fetch granularity: the DRAM model uses 32-B fetches (the "
            "sector)");
  EXPECT_EQ(find_quantity(unreported.conditions, "l2_fetch_granularity"), nullptr);
}

TEST(CoalescingAnalysis, BaselineFlagsBecomeANote) {
  ProbeResult in = stripped();
  for (auto& row : in.rows) {
    if (scalar_text(find_param(row.params, "pattern")->value) == "stride" &&
        std::get<std::int64_t>(find_param(row.params, "stride")->value) == 1 &&
        std::get<std::int64_t>(find_param(row.params, "element_bytes")->value) != 8)
      row.flags.push_back("baseline");
  }
  const ProbeResult r = analysed(in);
  const auto notes = findings(r, "coalescing_baseline_added");
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0]->text,
            "stride 1 was not asked for and was measured as the baseline of widths 4, 16 B (flag "
            "'baseline')");
}

TEST(CoalescingAnalysis, MissingBaselineGivesAWarningNotACrash) {
  ProbeResult in = stripped();
  std::erase_if(in.rows, [](const Row& row) {
    return scalar_text(find_param(row.params, "pattern")->value) == "offset" &&
           std::get<std::int64_t>(find_param(row.params, "offset")->value) == 0 &&
           std::get<std::int64_t>(find_param(row.params, "element_bytes")->value) == 4;
  });
  const ProbeResult r = analysed(in);
  const auto warn = findings(r, "coalescing_no_baseline", 4);
  ASSERT_EQ(warn.size(), 1u);
  EXPECT_EQ(warn[0]->kind, FindingKind::kWarning);
  EXPECT_EQ(warn[0]->text,
            "offset 0 of 4 B was not measured: no relative bandwidth for those rows");
  const Quantity* rel = find_quantity(row(r, "offset", 1, 4).derived, "relative_bandwidth");
  ASSERT_NE(rel, nullptr);
  EXPECT_FALSE(rel->value.has_value());
  EXPECT_TRUE(findings(r, "coalescing_offset_class", 4).empty());
  EXPECT_EQ(findings(r, "coalescing_offset_class", 8).size(), 3u);
  EXPECT_FALSE(find_quantity(r.summary.front().values, "baseline_bandwidth")->value.has_value());
  // The implied DRAM range of the aligned copies no longer includes offset 0 at 4 B.
  EXPECT_DOUBLE_EQ(value_of(*find_finding(r, "coalescing_implied_dram"), "baseline_min"),
                   median(r, "stride", 1, 4));
}

TEST(CoalescingAnalysis, GroupsWithoutPointsToCompareGiveNoVerdict) {
  // Only the baselines: no classes, no stride curve, but a summary per group and worst = 1.
  ProbeResult in = stripped();
  std::erase_if(in.rows, [](const Row& row) {
    const std::string pattern = scalar_text(find_param(row.params, "pattern")->value);
    return std::get<std::int64_t>(find_param(row.params, pattern)->value) !=
           (pattern == "offset" ? 0 : 1);
  });
  const ProbeResult r = analysed(in);
  ASSERT_EQ(r.summary.size(), 6u);
  for (const auto& s : r.summary) {
    EXPECT_EQ(value(s.values, "worst_relative_bandwidth"), 1.0);
    EXPECT_EQ(find_quantity(s.values, "misaligned_mean_relative"), nullptr);
  }
  for (const auto& f : r.findings) {
    EXPECT_TRUE(f.id == "coalescing_worst_best" || f.id == "coalescing_implied_dram" ||
                f.kind != FindingKind::kVerdict)
        << f.id;
  }

  // No rows at all (everything planned or dropped): conditions and notes, no verdicts.
  ProbeResult empty = stripped();
  empty.rows.clear();
  const ProbeResult e = analysed(empty);
  EXPECT_TRUE(e.summary.empty());
  EXPECT_EQ(find_quantity(e.conditions, "working_set_over_l2"), nullptr);
  for (const auto& f : e.findings)
    EXPECT_NE(f.kind, FindingKind::kVerdict) << f.id;
  EXPECT_EQ(find_finding(e, "coalescing_sizing")->text.find("smallest working set"),
            std::string::npos);
}

TEST(CoalescingAnalysis, PlannedRowsGetTheSectorModelAndPlanNotes) {
  ProbeResult plan;
  plan.rows.push_back(
      {coalescing::row_params(models::CopyPattern::kStride, 4, 32), {}, {}, {}, {}, {}});
  coalescing::add_model(plan, models::kSectorBytes);
  coalescing::add_plan_findings(plan, 8);
  phrase_findings(plan, words());
  EXPECT_DOUBLE_EQ(value(plan.rows[0].model, "predicted_relative_bandwidth_dram"), 8.0 / 36.0);
  EXPECT_EQ(value(plan.rows[0].model, "sectors_per_request"), 32);
  EXPECT_EQ(find_finding(plan, "coalescing_plan_sizing")->text,
            "sizes are chosen on the device: N x element bytes >= 8x L2 per direction at offset "
            "0 / stride 1 (--l2-multiple); large strides may run with a smaller N or be dropped "
            "to stay within 25% of free device memory");
  EXPECT_NE(find_finding(plan, "coalescing_plan_fetch")->text.find("uses 32-B fetches"),
            std::string::npos);
}

// ---- Counters ------------------------------------------------------------------------------

// What one launch of a 4-byte stride copy (N = 52428800, the fixture's sizing) counts on an
// H100, from the geometry and the l1tex/lts counts measured on it: lane l loads element 32k*s +
// l*s, so a warp load touches min(32, 4s) sectors (32 at stride 32, as measured) and every sector
// goes on to L2 (no two warps share one); DRAM moves a 64-B block per sector touched once a
// lane owns its block (stride >= 16: exactly 2x the L2 sectors, as measured), plus the N x 4 B
// written by unit-stride stores (4 sectors per request): 97% of them inside the launch's range,
// 3% written back after it. No load sector hits in L1 (no two warps share one).
std::vector<Quantity> stride4_counters(std::int64_t stride) {
  const double n = 52428800, requests = n / 32;
  const double sectors = std::min(32.0, 4.0 * static_cast<double>(stride));
  const double read_per_element = std::min(64.0, 4.0 * static_cast<double>(stride));
  return {{"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", "request", requests},
          {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "sector", requests * sectors},
          {"l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", "request", requests},
          {"l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", "sector", requests * 4},
          {"lts__t_sectors_srcunit_tex_op_read.sum", "sector", requests * sectors},
          {"lts__t_sectors_srcunit_tex_op_write.sum", "sector", requests * 4},
          {"dram__bytes_read.sum", "byte", n * read_per_element},
          {"dram__bytes_write.sum", "byte", n * 4 * 0.97},
          {"write_back.dram__bytes_write.sum", "byte", n * 4 * 0.03},
          {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum", "sector", 0},
          {"smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct", "%",
           100 * 4 / (sectors * 32 / 32)},
          {"gpu__time_duration.sum", "nsecond", 1.4e6},
          {"sm__cycles_elapsed.avg.per_second", "cycle/second", 1.98e9},
          {"dram__cycles_elapsed.avg.per_second", "cycle/second", 2.619e9}};
}

// The fixture's rows with counters on the 4-byte strides (the other rows have none).
ProbeResult with_stride4_counters() {
  ProbeResult r = stripped();
  for (auto& row : r.rows) {
    if (scalar_text(find_param(row.params, "pattern")->value) == "stride" &&
        std::get<std::int64_t>(find_param(row.params, "element_bytes")->value) == 4)
      row.counters =
          stride4_counters(std::get<std::int64_t>(find_param(row.params, "stride")->value));
  }
  return r;
}

void set_counter(Row& row, const std::string& name, std::optional<double> value) {
  for (auto& q : *row.counters) {
    if (q.name == name) q.value = value;
  }
}

bool has_flag(const Row& row, const std::string& flag) {
  return std::find(row.flags.begin(), row.flags.end(), flag) != row.flags.end();
}

std::vector<std::string> counter_finding_ids(const ProbeResult& r) {
  std::vector<std::string> ids;
  for (const auto& f : r.findings) {
    if (f.id.find("_counter_") != std::string::npos) ids.push_back(f.id);
  }
  return ids;
}

TEST(CoalescingAnalysis, WithoutCountersNothingCounterRelatedIsAdded) {
  const ProbeResult r = analysed();
  for (const auto& row : r.rows) {
    for (const auto& q : row.derived)
      EXPECT_EQ(q.name.find("_counter"), std::string::npos) << q.name;
    EXPECT_EQ(row.model.size(), 5u);
    EXPECT_FALSE(has_flag(row, "ctr-vs-model"));
  }
  EXPECT_TRUE(counter_finding_ids(r).empty());
}

TEST(CoalescingAnalysis, CountersBesideTheModelAgreeOnTheStrides) {
  const ProbeResult r = analysed(with_stride4_counters());
  // stride 32: 32 sectors per load request, 4 per store, 32 reaching L2; DRAM reads 64 B per
  // 4 useful (a 64-B block per lane: nothing shared, so both read bounds are 16), writes 1.
  const Row& s32 = row(r, "stride", 32, 4);
  EXPECT_DOUBLE_EQ(value(s32.derived, "sectors_per_request_counter"), 32);
  EXPECT_DOUBLE_EQ(value(s32.derived, "sectors_per_request_counter_vs_model"), 1);
  EXPECT_DOUBLE_EQ(value(s32.derived, "store_sectors_per_request_counter"), 4);
  EXPECT_DOUBLE_EQ(value(s32.derived, "store_sectors_per_request_counter_vs_model"), 1);
  EXPECT_DOUBLE_EQ(value(s32.derived, "l2_sectors_per_request_counter"), 32);
  EXPECT_DOUBLE_EQ(value(s32.derived, "l1_hit_sectors_per_request_counter"), 0);
  EXPECT_DOUBLE_EQ(value(s32.derived, "dram_read_bytes_per_useful_byte_counter"), 16);
  EXPECT_DOUBLE_EQ(value(s32.derived, "dram_read_bytes_per_useful_byte_counter_vs_model"), 1);
  EXPECT_NEAR(value(s32.derived, "dram_write_bytes_per_useful_byte_counter"), 1, 1e-12);
  EXPECT_FALSE(find_quantity(s32.derived, "shared_blocks_refetched")->value.has_value());
  // stride 8: 32 sectors, but 64-B blocks hold two lanes' elements: 32 B read per 4 useful.
  EXPECT_DOUBLE_EQ(value(row(r, "stride", 8, 4).derived, "dram_read_bytes_per_useful_byte_counter"),
                   8);
  EXPECT_DOUBLE_EQ(value(row(r, "stride", 2, 4).derived, "sectors_per_request_counter"), 8);
  // The model beside them, with the two values only counter rows show; rows without counters
  // get no counter columns.
  EXPECT_DOUBLE_EQ(value(s32.model, "sectors_per_request"), 32);
  EXPECT_DOUBLE_EQ(value(s32.model, "store_sectors_per_request"), 4);
  EXPECT_DOUBLE_EQ(value(s32.model, "l2_sectors_per_request"), 32);
  EXPECT_DOUBLE_EQ(value(s32.model, "dram_read_bytes_per_useful_byte"), 16);
  EXPECT_DOUBLE_EQ(value(s32.model, "dram_read_bytes_per_useful_byte_refetch"), 16);
  EXPECT_DOUBLE_EQ(value(s32.model, "dram_write_bytes_per_useful_byte"), 1);
  EXPECT_EQ(find_quantity(row(r, "stride", 32, 8).model, "dram_read_bytes_per_useful_byte"),
            nullptr);
  EXPECT_EQ(find_quantity(row(r, "stride", 32, 8).derived, "sectors_per_request_counter"), nullptr);
  for (const auto& rw : r.rows)
    EXPECT_FALSE(has_flag(rw, "ctr-vs-model"));

  EXPECT_EQ(
      counter_finding_ids(r),
      (std::vector<std::string>{"coalescing_counter_load_sectors",
                                "coalescing_counter_store_sectors", "coalescing_counter_l2_sectors",
                                "coalescing_counter_dram_read", "coalescing_counter_dram_write"}));
  const Finding* load = find_finding(r, "coalescing_counter_load_sectors");
  EXPECT_EQ(load->kind, FindingKind::kVerdict);
  EXPECT_EQ(value_of(*load, "rows_compared"), 6);
  EXPECT_EQ(value_of(*load, "deviation"), 0);
  EXPECT_EQ(load->text,
            "counters: global-load sectors per request (l1tex) agree with the model within 5% on "
            "all 6 rows with counters (largest deviation +0.0%, at stride 1, 4 B: 4 sectors "
            "measured vs 4 sectors model)");
}

TEST(CoalescingAnalysis, DirtyLinesInDramWritesAreADisagreementWithBothNumbers) {
  // cupti.md §3.1: with no clean L2 before the range, the stride-32 kernel's range wrote 3.3x
  // its stores (the previous kernel's dirty lines leaving L2); with the write-back after it:
  // 3.33x the model's 1.
  ProbeResult in = with_stride4_counters();
  for (auto& rw : in.rows) {
    if (rw.counters && std::get<std::int64_t>(find_param(rw.params, "stride")->value) == 32)
      set_counter(rw, "dram__bytes_write.sum", 52428800.0 * 4 * 3.3);
  }
  const ProbeResult r = analysed(in);
  const Row& s32 = row(r, "stride", 32, 4);
  EXPECT_NEAR(value(s32.derived, "dram_write_bytes_per_useful_byte_counter"), 3.33, 1e-12);
  EXPECT_NEAR(value(s32.derived, "dram_write_bytes_per_useful_byte_counter_vs_model"), 3.33, 1e-12);
  EXPECT_TRUE(has_flag(s32, "ctr-vs-model"));
  EXPECT_FALSE(has_flag(row(r, "stride", 16, 4), "ctr-vs-model"));
  const Finding* f = find_finding(r, "coalescing_counter_dram_write");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->kind, FindingKind::kWarning);
  EXPECT_EQ(param_text_of(*f, "agreement"), "differ");
  EXPECT_EQ(value_of(*f, "rows_off"), 1);
  EXPECT_EQ(value_of(*f, "rows_compared"), 6);
  EXPECT_NEAR(value_of(*f, "counter"), 3.33, 1e-12);
  EXPECT_DOUBLE_EQ(value_of(*f, "model"), 1);
  EXPECT_EQ(f->text,
            "counters: DRAM bytes written per useful byte (in the range + written back after it) "
            "differ from the model by more than 5% on 1 of 6 rows (flag ctr-vs-model); worst at "
            "stride 32, 4 B: 3.33 B/B measured vs 1 B/B model (+233.0%)");
  // Reads and sectors still agree: one finding per quantity.
  EXPECT_EQ(find_finding(r, "coalescing_counter_dram_read")->kind, FindingKind::kVerdict);
  EXPECT_NE(find_finding(r, "coalescing_counter_load_sectors"), nullptr);
}

// A misaligned 4-byte offset as the H100 counts it (offset 1): 5 sectors per request of which
// 0.3 hit in L1, 4.7 read from L2; DRAM reads 1.22x the useful bytes, between the model's 1.0
// (each shared 64-B block once) and 1.5 (once per request: 3 blocks per 128 B).
TEST(CoalescingAnalysis, L1HitsAndRefetchedBlocksExplainAMisalignedOffset) {
  ProbeResult in = stripped();
  const double n = 104857600, requests = n / 32;
  for (auto& rw : in.rows) {
    if (scalar_text(find_param(rw.params, "pattern")->value) != "offset" ||
        std::get<std::int64_t>(find_param(rw.params, "element_bytes")->value) != 4 ||
        std::get<std::int64_t>(find_param(rw.params, "offset")->value) != 1)
      continue;
    rw.counters = std::vector<Quantity>{
        {"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", "request", requests},
        {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "sector", requests * 5},
        {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum", "sector", requests * 0.3},
        {"lts__t_sectors_srcunit_tex_op_read.sum", "sector", requests * 4.69},
        {"dram__bytes_read.sum", "byte", n * 4 * 1.22},
        {"dram__bytes_write.sum", "byte", n * 4 * 0.99},
        {"write_back.dram__bytes_write.sum", "byte", n * 4 * 0.02}};
  }
  RunFacts facts = h100_facts();
  facts.sizing.default_elements = {{4, 104857600}, {8, 52428800}, {16, 26214400}};
  const ProbeResult r = analysed(in, facts);
  const Row& o1 = row(r, "offset", 1, 4);
  EXPECT_NEAR(value(o1.model, "l2_sectors_per_request"), 4.7, 1e-12);
  EXPECT_NEAR(value(o1.derived, "l2_sectors_per_request_counter_vs_model"), 4.69 / 4.7, 1e-12);
  EXPECT_DOUBLE_EQ(value(o1.model, "dram_read_bytes_per_useful_byte"), 1);
  EXPECT_DOUBLE_EQ(value(o1.model, "dram_read_bytes_per_useful_byte_refetch"), 1.5);
  EXPECT_NEAR(value(o1.derived, "shared_blocks_refetched"), 44, 1e-9);
  EXPECT_NEAR(value(o1.derived, "dram_write_bytes_per_useful_byte_counter"), 1.01, 1e-12);
  EXPECT_FALSE(has_flag(o1, "ctr-vs-model"));
  for (const char* id : {"coalescing_counter_l2_sectors", "coalescing_counter_dram_read",
                         "coalescing_counter_dram_write"})
    EXPECT_EQ(find_finding(r, id)->kind, FindingKind::kVerdict) << id;
}

TEST(CoalescingAnalysis, AMissingCounterOrSizeGivesNullValuesAndIsNotCompared) {
  ProbeResult in = with_stride4_counters();
  for (auto& rw : in.rows) {
    if (rw.counters) set_counter(rw, "dram__bytes_write.sum", std::nullopt);
    if (rw.counters && std::get<std::int64_t>(find_param(rw.params, "stride")->value) == 2)
      set_counter(rw, "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", std::nullopt);
  }
  ProbeResult r = analysed(in);
  const Row& s2 = row(r, "stride", 2, 4);
  const Quantity* sectors = find_quantity(s2.derived, "sectors_per_request_counter");
  ASSERT_NE(sectors, nullptr);
  EXPECT_FALSE(sectors->value.has_value());
  EXPECT_FALSE(find_quantity(s2.derived, "l2_sectors_per_request_counter")->value.has_value());
  EXPECT_DOUBLE_EQ(value(s2.derived, "store_sectors_per_request_counter"), 4);
  EXPECT_FALSE(
      find_quantity(s2.derived, "dram_write_bytes_per_useful_byte_counter")->value.has_value());
  EXPECT_EQ(find_finding(r, "coalescing_counter_dram_write"), nullptr);
  EXPECT_NE(find_finding(r, "coalescing_counter_dram_read"), nullptr);
  EXPECT_EQ(value_of(*find_finding(r, "coalescing_counter_load_sectors"), "rows_compared"), 5);

  // A sizing that does not give the width's N: no useful bytes, no DRAM ratio.
  RunFacts facts = h100_facts();
  facts.sizing.default_elements = {{8, 26214400}, {16, 13107200}};
  r = analysed(with_stride4_counters(), facts);
  EXPECT_FALSE(
      find_quantity(row(r, "stride", 32, 4).derived, "dram_read_bytes_per_useful_byte_counter")
          ->value.has_value());
  EXPECT_EQ(find_finding(r, "coalescing_counter_dram_read"), nullptr);
  EXPECT_EQ(find_finding(r, "coalescing_counter_dram_write"), nullptr);
}

TEST(CoalescingAnalysis, AClampedStrideUsesItsOwnN) {
  RunFacts facts = h100_facts();
  facts.sizing.clamped = {{4, 32, 52428800 / 4}};  // stride 32 ran with a quarter of N
  const ProbeResult r = analysed(with_stride4_counters(), facts);
  // The counters were for the full N: 4x the DRAM bytes per useful byte of the smaller launch.
  EXPECT_DOUBLE_EQ(
      value(row(r, "stride", 32, 4).derived, "dram_read_bytes_per_useful_byte_counter"), 4 * 16);
}

TEST(CoalescingAnalysis, CounterColumnsHaveShortTerms) {
  const Glossary g = words();
  const ProbeResult r = analysed(with_stride4_counters());
  std::vector<Quantity> shown = row(r, "stride", 1, 4).derived;
  const auto& model = row(r, "stride", 1, 4).model;
  shown.insert(shown.end(), model.begin(), model.end());
  for (const auto& q : shown) {
    const Term* t = g.term("coalescing", q.name);
    ASSERT_NE(t, nullptr) << q.name;
    EXPECT_LE(t->label.size(), 8u) << q.name;
  }
}

TEST(CoalescingAnalysis, EveryColumnHasAShortTerm) {
  const Glossary g = words();
  const ProbeResult r = analysed();
  std::vector<std::string> names;
  for (const auto& q : r.rows[0].derived)
    names.push_back(q.name);
  for (const auto& q : r.rows[0].model)
    names.push_back(q.name);
  for (const auto& s : r.summary)
    for (const auto& q : s.values)
      names.push_back(q.name);
  for (const auto& name : names) {
    const Term* t = g.term("coalescing", name);
    ASSERT_NE(t, nullptr) << name;
    EXPECT_LE(t->label.size(), 8u) << name;
    EXPECT_FALSE(t->meaning.empty()) << name;
  }
}

}  // namespace
}  // namespace gpuprobe
