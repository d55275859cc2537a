// Unit tests of bank-conflicts' analysis on real H100 rows
// (tests/fixtures/schema1/h100-all.json.gz): derived values, summary rows, findings and their
// sentences against the numbers of that run.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "fixtures.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "bank_conflicts/analysis.hpp"
#include "gpuprobe/core/json_io.hpp"
#include "gpuprobe/models/bank_conflict_model.hpp"

namespace gpuprobe {
namespace {

const std::string kPrefixLoads = "loads, slowdown vs stride 1 measured (model): ";
const std::string kPrefixStores = "stores, slowdown vs stride 1 measured (model): ";

// The bank-conflicts result of the fixture, as that run wrote it (schema 1: stride rows' metric
// still named `time`; its verdict and notes lines are findings with text only).
const ProbeResult& recorded() {
  return testing::fixture_result("schema1/h100-all.json.gz", "bank-conflicts");
}

bool is_stride_row(const Row& row) {
  return find_param(row.params, "op") != nullptr;
}

// The measured rows only: what the analysis produces stripped, `time` of stride rows renamed.
ProbeResult measured_rows() {
  ProbeResult r = recorded();
  for (auto& row : r.rows) {
    row.derived.clear();
    if (is_stride_row(row)) {
      for (auto& m : row.metrics) {
        if (m.name == "time") m.name = "time_per_instruction";
      }
    }
  }
  r.summary.clear();
  r.findings.clear();
  std::erase_if(r.conditions, [](const Quantity& q) {
    return q.name == "working_set_over_l2" || q.name == "stride_sweep_sm_clock";
  });
  return r;
}

// copy's repeat as the run's note gives it: 5 samples, median 2958 GB/s (the same within noise).
Metric copy_repeat() {
  Metric m{"bandwidth", "GB/s", {}, {}};
  m.stats.median = 2958;
  m.stats.min = m.stats.max = m.stats.mean = 2958;
  m.stats.rel_noise = 0.002;
  m.stats.n = 5;
  return m;
}

// What the H100 run had: 132 SMs, 50 MiB L2, the stride sweep's clock condition (1979.992 MHz),
// 6 blocks per SM, 8192/4096/2048 instructions per warp at 4/8/16 B.
bank::Inputs h100_inputs() {
  bank::Inputs in;
  in.sm_count = 132;
  in.l2_bytes = 52428800;
  in.sweep_clock_before_mhz = in.sweep_clock_after_mhz = 1979.992;
  in.sm_clock_max_mhz = 1980;
  for (const char* op : {"load", "store"})
    for (int w : {4, 8, 16})
      in.shapes.push_back({op, w, 6, 256, 8192.0 * 4 / w});
  in.copy_repeat = copy_repeat();
  return in;
}

ProbeResult analysed(ProbeResult r, const bank::Inputs& in = h100_inputs()) {
  bank::analyse(r, in);
  return r;
}

Glossary words() {
  Glossary g;
  bank::add_words(g);
  return g;
}

std::vector<const Finding*> all_of(const ProbeResult& r, const std::string& id) {
  std::vector<const Finding*> out;
  for (const auto& f : r.findings) {
    if (f.id == id) out.push_back(&f);
  }
  return out;
}

std::vector<std::string> old_lines(const std::string& id) {
  std::vector<std::string> out;
  for (const auto& f : recorded().findings) {
    if (f.id == id) out.push_back(f.text);
  }
  return out;
}

const Row& row_of(const ProbeResult& r, const std::vector<std::pair<std::string, std::string>>& m) {
  for (const auto& row : r.rows) {
    bool all = true;
    for (const auto& [k, v] : m) {
      const Param* p = find_param(row.params, k);
      all = all && p && scalar_text(p->value) == v;
    }
    if (all) return row;
  }
  throw std::runtime_error("no such row");
}

double median(const Row& row, const char* metric) {
  return find_metric(row, metric)->stats.median;
}

double value(const std::vector<Quantity>& q, const char* name) {
  const Quantity* v = find_quantity(q, name);
  if (!v || !v->value) throw std::runtime_error(std::string("no value ") + name);
  return *v->value;
}

// Every finding renders, with no exception and no empty sentence.
void expect_all_phrased(const ProbeResult& r) {
  const Glossary g = words();
  for (const auto& f : r.findings) {
    ASSERT_TRUE(g.has_phrasing(f.id)) << f.id;
    std::string text;
    EXPECT_NO_THROW(text = g.text(f)) << f.id;
    EXPECT_FALSE(text.empty()) << f.id;
  }
}

TEST(BankConflictsAnalysis, FixtureHasTheRowsThisTestNeeds) {
  const ProbeResult& r = recorded();
  EXPECT_EQ(r.rows.size(), 5u + 48u);
  EXPECT_EQ(old_lines("schema1_verdict").size(), 6u);
  EXPECT_EQ(old_lines("schema1_note").size(), 5u);
}

TEST(BankConflictsAnalysis, ModelColumnsAreTheRecordedOnes) {
  for (const auto& row : recorded().rows) {
    const std::vector<Quantity> model =
        is_stride_row(row)
            ? bank::stride_model(scalar_text(find_param(row.params, "op")->value),
                                 static_cast<std::uint64_t>(std::get<std::int64_t>(
                                     find_param(row.params, "stride")->value)),
                                 static_cast<int>(std::get<std::int64_t>(
                                     find_param(row.params, "element_bytes")->value)))
            : bank::ladder_model(scalar_text(find_param(row.params, "kernel")->value));
    ASSERT_EQ(model.size(), row.model.size());
    for (std::size_t i = 0; i < model.size(); ++i) {
      EXPECT_EQ(model[i].name, row.model[i].name);
      EXPECT_EQ(model[i].unit, row.model[i].unit);
      EXPECT_EQ(model[i].value, row.model[i].value) << model[i].name;
    }
  }
}

TEST(BankConflictsAnalysis, DerivedValuesAreTheRecordedOnes) {
  const ProbeResult r = analysed(measured_rows());
  const ProbeResult& old = recorded();
  ASSERT_EQ(r.rows.size(), old.rows.size());
  for (std::size_t i = 0; i < r.rows.size(); ++i) {
    ASSERT_EQ(r.rows[i].derived.size(), old.rows[i].derived.size()) << i;
    for (std::size_t j = 0; j < r.rows[i].derived.size(); ++j) {
      const Quantity& a = r.rows[i].derived[j];
      const Quantity& b = old.rows[i].derived[j];
      EXPECT_EQ(a.name, b.name);
      EXPECT_EQ(a.unit, b.unit);
      ASSERT_TRUE(a.value && b.value) << a.name;
      EXPECT_NEAR(*a.value, *b.value, 1e-12 * std::fabs(*b.value)) << i << " " << a.name;
    }
  }
  // By hand: tiled 1596.56 / copy 2952.61 GB/s; load 4 B stride 32 time / stride 1 time;
  // cycles = 5.1722e-10 s x 1979.992 MHz.
  const Row tiled = row_of(r, {{"kernel", "tiled"}});
  EXPECT_NEAR(value(tiled.derived, "relative_to_copy"), 1596.5629346697528 / 2952.6089231070027,
              1e-12);
  const Row s32 = row_of(r, {{"op", "load"}, {"element_bytes", "4"}, {"stride", "32"}});
  const Row s1 = row_of(r, {{"op", "load"}, {"element_bytes", "4"}, {"stride", "1"}});
  EXPECT_NEAR(value(s32.derived, "slowdown"),
              median(s32, "time_per_instruction") / median(s1, "time_per_instruction"), 1e-12);
  EXPECT_NEAR(value(s32.derived, "slowdown"), 31.28, 0.005);
  EXPECT_NEAR(value(s1.derived, "cycles_per_request"), 5.172200568874056e-10 * 1979.992e6, 1e-9);
  EXPECT_NEAR(value(s1.derived, "cycles_per_request"), 1.0241, 1e-4);
  // Conditions as the run had them.
  EXPECT_NEAR(value(r.conditions, "working_set_over_l2"), 10.24, 1e-12);
  EXPECT_EQ(value(r.conditions, "stride_sweep_sm_clock"), 1979.992);
}

TEST(BankConflictsAnalysis, SummaryRowsAreTheRecordedOnes) {
  const ProbeResult r = analysed(measured_rows());
  const ProbeResult& old = recorded();
  ASSERT_EQ(r.summary.size(), old.summary.size());
  for (std::size_t i = 0; i < r.summary.size(); ++i) {
    ASSERT_EQ(r.summary[i].params.size(), old.summary[i].params.size());
    for (std::size_t j = 0; j < r.summary[i].params.size(); ++j) {
      EXPECT_EQ(r.summary[i].params[j].key, old.summary[i].params[j].key);
      EXPECT_EQ(scalar_text(r.summary[i].params[j].value),
                scalar_text(old.summary[i].params[j].value));
    }
    ASSERT_EQ(r.summary[i].values.size(), old.summary[i].values.size());
    for (std::size_t j = 0; j < r.summary[i].values.size(); ++j) {
      const Quantity& a = r.summary[i].values[j];
      const Quantity& b = old.summary[i].values[j];
      EXPECT_EQ(a.name, b.name);
      EXPECT_EQ(a.unit, b.unit);
      ASSERT_TRUE(a.value && b.value);
      EXPECT_NEAR(*a.value, *b.value, 1e-12 * std::fabs(*b.value)) << i << " " << a.name;
    }
  }
  // By hand: padded ÷ tiled = 2783.49 / 1596.56.
  EXPECT_EQ(scalar_text(r.summary[0].params[0].value), "padded ÷ tiled");
  EXPECT_NEAR(value(r.summary[0].values, "bandwidth_ratio"),
              2783.4915297672987 / 1596.5629346697528, 1e-12);
}

TEST(BankConflictsAnalysis, LadderFindingsCarryTheNumbersAndReadAsBefore) {
  const ProbeResult r = analysed(measured_rows());
  const Glossary g = words();
  const auto old = old_lines("schema1_verdict");

  const Finding* pt = find_finding(r, "bank_padded_vs_tiled");
  ASSERT_NE(pt, nullptr);
  EXPECT_EQ(pt->kind, FindingKind::kVerdict);
  EXPECT_EQ(param_text_of(*pt, "outcome"), "faster");
  EXPECT_NEAR(value_of(*pt, "padded_bandwidth"), 2783.4915297672987, 1e-9);
  EXPECT_NEAR(value_of(*pt, "tiled_bandwidth"), 1596.5629346697528, 1e-9);
  EXPECT_NEAR(value_of(*pt, "copy_bandwidth"), 2952.6089231070027, 1e-9);
  EXPECT_NEAR(value_of(*pt, "padded_over_tiled"), 1.7434273772258535, 1e-12);
  EXPECT_NEAR(value_of(*pt, "padded_over_copy"), 0.9427227249717367, 1e-12);
  EXPECT_EQ(value_of(*pt, "tiled_column_read_ways"), 32.0);
  EXPECT_EQ(value_of(*pt, "padded_column_read_ways"), 1.0);
  EXPECT_EQ(g.text(*pt), old[0]);

  const Finding* sp = find_finding(r, "bank_swizzled_vs_padded");
  ASSERT_NE(sp, nullptr);
  EXPECT_EQ(param_text_of(*sp, "outcome"), "same");
  EXPECT_NEAR(value_of(*sp, "swizzled_over_padded"), 2785.2942787549846 / 2783.4915297672987,
              1e-12);
  EXPECT_EQ(g.text(*sp), old[1]);

  const Finding* claim = find_finding(r, "bank_source_claim");
  ASSERT_NE(claim, nullptr);
  EXPECT_EQ(param_text_of(*claim, "holds"), "no");
  EXPECT_NEAR(value_of(*claim, "naive_over_copy"), 0.1609223063334366, 1e-12);
  EXPECT_NEAR(value_of(*claim, "tiled_over_copy"), 0.5407295636665979, 1e-12);
  EXPECT_EQ(value_of(*claim, "band"), 10.0);
  EXPECT_EQ(g.text(*claim), old[2]);

  // copy: 5 samples, 2949.58-2964.26 GB/s; repeat 2958 GB/s = 1.0018x, the same within noise.
  const Finding* rep = find_finding(r, "bank_copy_repeat");
  ASSERT_NE(rep, nullptr);
  EXPECT_EQ(rep->kind, FindingKind::kNote);
  EXPECT_EQ(value_of(*rep, "copy_samples"), 5.0);
  EXPECT_NEAR(value_of(*rep, "copy_min"), 2949.5809500454334, 1e-9);
  EXPECT_NEAR(value_of(*rep, "copy_max"), 2964.2596112489273, 1e-9);
  EXPECT_EQ(value_of(*rep, "repeat_samples"), 5.0);
  EXPECT_NEAR(value_of(*rep, "repeat_over_copy"), 2958 / 2952.6089231070027, 1e-12);
  EXPECT_EQ(param_text_of(*rep, "outcome"), "same");
  EXPECT_EQ(g.text(*rep), old_lines("schema1_note")[0]);

  // padded and swizzled stayed below copy, and 512 MiB is 10x L2: no such notes.
  EXPECT_EQ(find_finding(r, "bank_transpose_beats_copy"), nullptr);
  EXPECT_EQ(find_finding(r, "bank_ladder_fits_l2"), nullptr);
}

TEST(BankConflictsAnalysis, StrideFindingsCarryTheTableAndReadAsBefore) {
  const ProbeResult r = analysed(measured_rows());
  const Glossary g = words();
  const auto old = old_lines("schema1_verdict");

  const auto tables = all_of(r, "bank_stride_slowdowns");
  ASSERT_EQ(tables.size(), 6u);
  // The old line per op is the per-width sentences joined.
  for (const auto* f : tables) {
    const std::string text = g.text(*f);
    const bool load = param_text_of(*f, "op") == "load";
    const std::string& prefix = load ? kPrefixLoads : kPrefixStores;
    ASSERT_EQ(text.rfind(prefix, 0), 0u) << text;
    EXPECT_NE((load ? old[3] : old[4]).find(text.substr(prefix.size())), std::string::npos) << text;
  }
  // By hand, load 4 B: time at stride s / time at stride 1.
  const Finding* l4 = tables[0];
  EXPECT_EQ(param_text_of(*l4, "op"), "load");
  EXPECT_EQ(param_text_of(*l4, "element_bytes"), "4 B");
  const auto t = [&](const char* stride) {
    return median(row_of(r, {{"op", "load"}, {"element_bytes", "4"}, {"stride", stride}}),
                  "time_per_instruction");
  };
  EXPECT_NEAR(value_of(*l4, "stride32_slowdown"), t("32") / t("1"), 1e-12);
  EXPECT_EQ(value_of(*l4, "stride32_model"), 32.0);
  EXPECT_NEAR(value_of(*l4, "stride2_slowdown"), t("2") / t("1"), 1e-12);
  EXPECT_NEAR(value_of(*l4, "broadcast_slowdown"), t("0") / t("1"), 1e-12);
  EXPECT_NEAR(value_of(*l4, "odd_slowdown_min"), t("33") / t("1"), 1e-12);  // the only odd > 1
  EXPECT_EQ(value_of(*l4, "odd_model"), 1.0);
  // 8-byte broadcast loads: half the wavefronts of stride 1.
  EXPECT_EQ(value_of(*tables[1], "broadcast_model"), 0.5);
  EXPECT_NEAR(value_of(*tables[1], "broadcast_slowdown"), 0.5159332246773924, 1e-12);

  const Finding* agree = find_finding(r, "bank_stride_model_agreement");
  ASSERT_NE(agree, nullptr);
  EXPECT_EQ(value_of(*agree, "rows_within"), 42.0);
  EXPECT_EQ(value_of(*agree, "rows_compared"), 42.0);
  EXPECT_EQ(g.text(*agree), old[5]);
  EXPECT_EQ(find_finding(r, "bank_stride_model_miss"), nullptr);
  EXPECT_EQ(find_finding(r, "bank_no_stride1"), nullptr);
}

TEST(BankConflictsAnalysis, StrideNotesCarryShapesLaunchTimesAndTheClock) {
  const ProbeResult r = analysed(measured_rows());
  const Glossary g = words();
  const auto old = old_lines("schema1_note");

  const auto shapes = all_of(r, "bank_stride_shape");
  ASSERT_EQ(shapes.size(), 6u);
  for (const auto* f : shapes) {
    EXPECT_EQ(value_of(*f, "blocks"), 792.0);
    EXPECT_EQ(value_of(*f, "blocks_per_sm"), 6.0);
    // launch time = time per instruction x 6 blocks x 8 warps x instructions per warp: the old
    // note's "4 B load 203 us, ...".
    const std::string op = param_text_of(*f, "op");
    const std::string width = param_text_of(*f, "element_bytes");
    EXPECT_NE(old[2].find(width + " " + op + " " + value_text(*f, "launch_time_stride1")),
              std::string::npos)
        << g.text(*f);
    EXPECT_NE(old[1].find(fmt::format("{} {}: 792 blocks (6/SM) x {:g} instructions per warp",
                                      width, op, value_of(*f, "instructions_per_warp"))),
              std::string::npos);
  }
  const Row s1 = row_of(r, {{"op", "load"}, {"element_bytes", "4"}, {"stride", "1"}});
  EXPECT_NEAR(value_of(*shapes[0], "launch_time_stride1"),
              median(s1, "time_per_instruction") * 6 * 8 * 8192, 1e-15);

  const Finding* clock = find_finding(r, "bank_cycles_method");
  ASSERT_NE(clock, nullptr);
  EXPECT_EQ(value_of(*clock, "sm_clock"), 1979.992);
  std::string expected = old[3];
  expected.replace(expected.find("= time x"), 8, "= time_per_instruction x");
  EXPECT_EQ(g.text(*clock), expected);
  const Finding* counters = find_finding(r, "bank_counters_not_collected");
  ASSERT_NE(counters, nullptr);
  // The schema-1 run said the counters were "not collected yet"; now the note says why a run
  // has none and where else to look.
  EXPECT_NE(old[4].find("not collected yet"), std::string::npos);
  EXPECT_NE(g.text(*counters).find("no row has shared-memory counters in this run"),
            std::string::npos);
  EXPECT_NE(g.text(*counters).find("Nsight Compute"), std::string::npos);

  // Verdicts first, then notes.
  const auto first_note = std::find_if(r.findings.begin(), r.findings.end(), [](const Finding& f) {
    return f.kind == FindingKind::kNote;
  });
  EXPECT_TRUE(std::all_of(first_note, r.findings.end(),
                          [](const Finding& f) { return f.kind == FindingKind::kNote; }));
  expect_all_phrased(r);
}

TEST(BankConflictsAnalysis, NoStrideOneGivesANoteAndNullSlowdowns) {
  ProbeResult in = measured_rows();
  std::erase_if(in.rows, [](const Row& row) {
    const Param* s = find_param(row.params, "stride");
    return s && scalar_text(s->value) == "1";
  });
  const ProbeResult r = analysed(in);
  EXPECT_NE(find_finding(r, "bank_no_stride1"), nullptr);
  EXPECT_EQ(find_finding(r, "bank_stride_slowdowns"), nullptr);
  EXPECT_EQ(find_finding(r, "bank_stride_model_agreement"), nullptr);
  for (const auto& row : r.rows) {
    if (!is_stride_row(row)) continue;
    EXPECT_FALSE(find_quantity(row.derived, "slowdown")->value.has_value());
    EXPECT_TRUE(find_quantity(row.derived, "cycles_per_request")->value.has_value());
  }
  for (const auto& s : r.summary) {
    if (find_param(s.params, "op")) {
      EXPECT_FALSE(find_quantity(s.values, "stride1_bandwidth")->value.has_value());
    }
  }
  for (const auto* f : all_of(r, "bank_stride_shape"))
    EXPECT_FALSE(optional_value_of(*f, "launch_time_stride1").has_value());
  EXPECT_EQ(words().text(*find_finding(r, "bank_no_stride1")),
            "stride sweep: no stride 1 in --strides, so no slowdown is derived");
  expect_all_phrased(r);
}

TEST(BankConflictsAnalysis, LadderAbsentGivesStrideFindingsOnly) {
  ProbeResult in = measured_rows();
  std::erase_if(in.rows, [](const Row& row) { return !is_stride_row(row); });
  in.conditions.clear();
  bank::Inputs inputs = h100_inputs();
  inputs.copy_repeat.reset();
  const ProbeResult r = analysed(in, inputs);
  for (const auto& f : r.findings)
    EXPECT_TRUE(f.id.rfind("bank_stride", 0) == 0 || f.id == "bank_cycles_method" ||
                f.id == "bank_counters_not_collected")
        << f.id;
  EXPECT_NE(find_finding(r, "bank_stride_slowdowns"), nullptr);
  EXPECT_NE(find_finding(r, "bank_stride_model_agreement"), nullptr);
  EXPECT_EQ(find_quantity(r.conditions, "working_set_over_l2"), nullptr);
  EXPECT_EQ(r.summary.size(), 6u);
  expect_all_phrased(r);
}

TEST(BankConflictsAnalysis, StridesAbsentGivesLadderFindingsOnly) {
  ProbeResult in = measured_rows();
  std::erase_if(in.rows, is_stride_row);
  const ProbeResult r = analysed(in);
  for (const auto& f : r.findings)
    EXPECT_TRUE(f.id.rfind("bank_stride", 0) != 0 && f.id != "bank_cycles_method") << f.id;
  EXPECT_NE(find_finding(r, "bank_padded_vs_tiled"), nullptr);
  EXPECT_EQ(find_quantity(r.conditions, "stride_sweep_sm_clock"), nullptr);
  EXPECT_EQ(r.summary.size(), 5u);
  expect_all_phrased(r);
}

TEST(BankConflictsAnalysis, PlannedRowsAndNoRowsAddNothing) {
  ProbeResult planned = recorded();
  for (auto& row : planned.rows) {
    row.metrics.clear();
    row.derived.clear();
  }
  planned.summary.clear();
  planned.findings.clear();
  const ProbeResult r = analysed(planned);
  EXPECT_TRUE(r.findings.empty());
  EXPECT_TRUE(r.summary.empty());
  EXPECT_TRUE(analysed(ProbeResult{}).findings.empty());
}

TEST(BankConflictsAnalysis, ARowFarFromTheModelIsNamed) {
  ProbeResult in = measured_rows();
  for (auto& row : in.rows) {
    const Param* op = find_param(row.params, "op");
    if (op && scalar_text(op->value) == "load" &&
        scalar_text(find_param(row.params, "element_bytes")->value) == "4" &&
        scalar_text(find_param(row.params, "stride")->value) == "2") {
      for (auto& m : row.metrics) {
        if (m.name == "time_per_instruction") m.stats.median *= 1.5;
      }
    }
  }
  const ProbeResult r = analysed(in);
  const Finding* agree = find_finding(r, "bank_stride_model_agreement");
  ASSERT_NE(agree, nullptr);
  EXPECT_EQ(value_of(*agree, "rows_within"), 41.0);
  const auto misses = all_of(r, "bank_stride_model_miss");
  ASSERT_EQ(misses.size(), 1u);
  const double slow = 1.5 * 1.0218099204293040e-09 / 5.172200568874056e-10;
  EXPECT_NEAR(value_of(*misses[0], "slowdown"), slow, 1e-9);
  EXPECT_EQ(value_of(*misses[0], "predicted_slowdown"), 2.0);
  EXPECT_NEAR(value_of(*misses[0], "off"), (slow / 2 - 1) * 100, 1e-9);
  EXPECT_EQ(
      words().text(*misses[0]),
      fmt::format("stride sweep, far from the model: 4 B load stride 2: {:.2f}x vs 2x ({:.0f}% "
                  "off)",
                  slow, (slow / 2 - 1) * 100));
}

TEST(BankConflictsAnalysis, SmallLadderAndFastTransposeGiveTheirNotes) {
  ProbeResult in = measured_rows();
  std::erase_if(in.rows, is_stride_row);
  for (auto& row : in.rows) {
    for (auto& p : row.params) {
      if (p.key == "size") p.value = std::int64_t{2048};  // 2 x 16 MiB: under 4 x L2
    }
    if (scalar_text(find_param(row.params, "kernel")->value) == "padded") {
      for (auto& m : row.metrics) {
        if (m.name == "bandwidth") m.stats.median = 3200;  // 1.084x copy, beyond noise
      }
    }
  }
  const ProbeResult r = analysed(in);
  const Finding* l2 = find_finding(r, "bank_ladder_fits_l2");
  ASSERT_NE(l2, nullptr);
  EXPECT_EQ(value_of(*l2, "working_set"), 2.0 * 2048 * 2048 * 4);
  EXPECT_EQ(words().text(*l2),
            "ladder: the two matrices (32 MiB) are not much larger than L2 (50 MiB): copy and "
            "transposes may partly run from L2; use --size 8192 or more for DRAM behaviour");
  const auto beats = all_of(r, "bank_transpose_beats_copy");
  ASSERT_EQ(beats.size(), 1u);
  EXPECT_EQ(param_text_of(*beats[0], "kernel"), "padded");
  EXPECT_NEAR(value_of(*beats[0], "over_copy"), 3200 / 2952.6089231070027, 1e-12);
  EXPECT_NE(words().text(*beats[0]).find("padded ran at 1.08x copy"), std::string::npos);
  expect_all_phrased(r);
}

TEST(BankConflictsAnalysis, WithoutClockSampleOrRepeatTheRatedClockIsUsedAndSaid) {
  bank::Inputs inputs = h100_inputs();
  inputs.sweep_clock_before_mhz = 0;
  inputs.copy_repeat.reset();
  const ProbeResult r = analysed(measured_rows(), inputs);
  EXPECT_EQ(value(r.conditions, "stride_sweep_sm_clock"), 1980.0);
  const Finding* clock = find_finding(r, "bank_cycles_method");
  ASSERT_NE(clock, nullptr);
  EXPECT_NE(words().text(*clock).find("rated maximum"), std::string::npos);
  const Finding* rep = find_finding(r, "bank_copy_repeat");
  ASSERT_NE(rep, nullptr);
  EXPECT_FALSE(optional_value_of(*rep, "repeat_bandwidth").has_value());
  EXPECT_NE(words().text(*rep).find("copy was not measured again"), std::string::npos);
  // No clock at all: no cycles.
  inputs.sm_clock_max_mhz = 0;
  const ProbeResult none = analysed(measured_rows(), inputs);
  EXPECT_FALSE(
      find_quantity(row_of(none, {{"op", "load"}, {"stride", "1"}}).derived, "cycles_per_request")
          ->value.has_value());
  expect_all_phrased(none);
}

// ---- Counters ------------------------------------------------------------------------------

// The probe's counters of one launch: shared instructions and wavefronts per op, bank
// conflicts as the wavefronts beyond one per instruction (the ideal of a 4-byte access).
std::vector<Quantity> shared_counters(double ld, double st, double ld_wf, double st_wf) {
  return {{"smsp__inst_executed_op_shared_ld.sum", "inst", ld},
          {"smsp__inst_executed_op_shared_st.sum", "inst", st},
          {"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "", ld_wf},
          {"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", "", st_wf},
          {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", "", ld_wf - ld},
          {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", "", st_wf - st},
          {"gpu__time_duration.sum", "nsecond", 1e5},
          {"sm__cycles_elapsed.avg.per_second", "cycle/second", 1.98e9},
          {"dram__cycles_elapsed.avg.per_second", "cycle/second", 2.619e9}};
}

// Counters an H100 gives for the fixture's rows. Ladder (8192 x 8192, one launch = 8192^2 / 32
// warp instructions per op in the tile kernels, none in copy and naive): ncu on an H100
// measured 4096^2 (a quarter of these): conflicting tile 16,906,366 load
// wavefronts (32.2 per LDS), padded 541,804 (1.03), stores 537-555 K (1.02-1.06) for 524,288
// instructions; swizzled (not in the notes) taken as padded. Strides: 132 SMs x 6 blocks x 8
// warps x the loop's instructions per warp (8192 x 4 / width), each at the model's wavefronts
// (the timing matched it within 10% on every row); a store row's stores also count the 32 per
// warp that zero the region (conflict-free, 1 wavefront each).
ProbeResult with_counters() {
  ProbeResult r = measured_rows();
  const double tile = 8192.0 * 8192 / 32;  // 2,097,152 = 4 x 524,288
  for (auto& row : r.rows) {
    if (const auto kernel = find_param(row.params, "kernel")) {
      const std::string k = scalar_text(kernel->value);
      if (k == "copy" || k == "naive") row.counters = shared_counters(0, 0, 0, 0);
      if (k == "tiled") row.counters = shared_counters(tile, tile, 4 * 16906366.0, 4 * 537000.0);
      if (k == "padded") row.counters = shared_counters(tile, tile, 4 * 541804.0, 4 * 555000.0);
      if (k == "swizzled") row.counters = shared_counters(tile, tile, 4 * 541804.0, 4 * 537000.0);
      continue;
    }
    const std::string op = scalar_text(find_param(row.params, "op")->value);
    const int width =
        static_cast<int>(std::get<std::int64_t>(find_param(row.params, "element_bytes")->value));
    const auto stride =
        static_cast<std::uint64_t>(std::get<std::int64_t>(find_param(row.params, "stride")->value));
    const double warps = 132.0 * 6 * 8;
    const double loop = warps * 8192 * 4 / width;
    const bool load = op == "load";
    const double wf = models::predict_stride_access(
                          stride, width, load ? models::AccessOp::kLoad : models::AccessOp::kStore)
                          .wavefronts;
    const double fill = warps * 32;
    row.counters = load ? shared_counters(loop, fill, loop * wf, fill)
                        : shared_counters(2 * warps, loop + fill, 2 * warps * wf, loop * wf + fill);
  }
  return r;
}

bool flagged(const Row& row) {
  return std::find(row.flags.begin(), row.flags.end(), "ctr-vs-model") != row.flags.end();
}

TEST(BankConflictsAnalysis, WithoutCountersNothingCounterRelatedIsAdded) {
  const ProbeResult r = analysed(measured_rows());
  for (const auto& row : r.rows) {
    for (const auto& q : row.derived)
      EXPECT_EQ(q.name.find("_counter"), std::string::npos) << q.name;
    EXPECT_EQ(find_quantity(row.model, "load_wavefronts_per_request"), nullptr);
    EXPECT_FALSE(flagged(row));
  }
  for (const auto& f : r.findings)
    EXPECT_EQ(f.id.find("bank_counter_"), std::string::npos) << f.id;
  EXPECT_NE(find_finding(r, "bank_counters_not_collected"), nullptr);
}

TEST(BankConflictsAnalysis, LadderWavefrontsBesideTheModelAndAStoreBackgroundOver5Percent) {
  const ProbeResult r = analysed(with_counters());
  const Row tiled = row_of(r, {{"kernel", "tiled"}});
  EXPECT_NEAR(value(tiled.derived, "load_wavefronts_per_request_counter"), 32.2463, 1e-4);
  EXPECT_NEAR(value(tiled.derived, "load_wavefronts_per_request_counter_vs_model"), 32.2463 / 32,
              1e-5);
  EXPECT_NEAR(value(tiled.derived, "store_wavefronts_per_request_counter"), 1.0242, 1e-4);
  EXPECT_EQ(value(tiled.model, "load_wavefronts_per_request"), 32);
  EXPECT_EQ(value(tiled.model, "store_wavefronts_per_request"), 1);
  EXPECT_EQ(value(tiled.model, "load_conflict_ways"), 32);  // the probe's columns stay
  EXPECT_FALSE(flagged(tiled));
  const Row padded = row_of(r, {{"kernel", "padded"}});
  EXPECT_NEAR(value(padded.derived, "load_wavefronts_per_request_counter"), 1.0334, 1e-4);
  EXPECT_NEAR(value(padded.derived, "store_wavefronts_per_request_counter_vs_model"), 1.0586, 1e-4);
  EXPECT_TRUE(flagged(padded));
  // copy and naive run no shared instruction: null, not compared.
  const Row copy = row_of(r, {{"kernel", "copy"}});
  EXPECT_FALSE(find_quantity(copy.derived, "load_wavefronts_per_request_counter")->value);
  EXPECT_FALSE(find_quantity(copy.derived, "load_wavefronts_per_request_counter_vs_model")->value);
  EXPECT_FALSE(find_quantity(copy.model, "load_wavefronts_per_request")->value);

  const Finding* loads = find_finding(r, "bank_counter_ladder_loads");
  ASSERT_NE(loads, nullptr);
  EXPECT_EQ(value_of(*loads, "rows_compared"), 3);
  EXPECT_EQ(words().text(*loads),
            "counters: ladder shared-load wavefronts per instruction agree with the model within "
            "5% on all 3 rows with counters (largest deviation +3.3%, at padded: 1.033 wavefronts "
            "measured vs 1 wavefronts model)");
  const Finding* stores = find_finding(r, "bank_counter_ladder_stores");
  ASSERT_NE(stores, nullptr);
  EXPECT_EQ(stores->kind, FindingKind::kWarning);
  EXPECT_EQ(param_text_of(*stores, "agreement"), "differ");
  EXPECT_EQ(param_text_of(*loads, "agreement"), "agree");
  EXPECT_EQ(value_of(*stores, "rows_off"), 1);
  EXPECT_NEAR(value_of(*stores, "counter"), 1.0586, 1e-4);
  EXPECT_EQ(value_of(*stores, "model"), 1);
  EXPECT_EQ(words().text(*stores),
            "counters: ladder shared-store wavefronts per instruction differ from the model by "
            "more than 5% on 1 of 3 rows (flag ctr-vs-model); worst at padded: 1.059 wavefronts "
            "measured vs 1 wavefronts model (+5.9%)");
  expect_all_phrased(r);
  // After every verdict of both parts, before the notes.
  const auto at = [&](const std::string& id) {
    return std::find_if(r.findings.begin(), r.findings.end(),
                        [&](const Finding& x) { return x.id == id; }) -
           r.findings.begin();
  };
  EXPECT_LT(at("bank_stride_model_agreement"), at("bank_counter_ladder_loads"));
  EXPECT_LT(at("bank_counter_ladder_loads"), at("bank_counter_ladder_stores"));
  EXPECT_LT(at("bank_counter_ladder_stores"), at("bank_counter_stride"));
  EXPECT_LT(at("bank_counter_stride"), at("bank_copy_repeat"));
}

TEST(BankConflictsAnalysis, StrideWavefrontsOfTheRowsOpBesideTheModel) {
  const ProbeResult r = analysed(with_counters());
  const Row s32 = row_of(r, {{"op", "load"}, {"element_bytes", "4"}, {"stride", "32"}});
  EXPECT_DOUBLE_EQ(value(s32.derived, "wavefronts_per_request_counter"), 32);
  EXPECT_DOUBLE_EQ(value(s32.derived, "wavefronts_per_request_counter_vs_model"), 1);
  // 16-B stores at stride 32 (as at 8 and 16, the first of them the worst row): 8-way x 4
  // wavefronts in the loop, diluted by the zeroing stores: (2048 x 32 + 32) / 2080 per warp.
  const Row st = row_of(r, {{"op", "store"}, {"element_bytes", "16"}, {"stride", "32"}});
  EXPECT_NEAR(value(st.derived, "wavefronts_per_request_counter"), (2048.0 * 32 + 32) / 2080,
              1e-12);
  EXPECT_EQ(find_quantity(st.derived, "load_wavefronts_per_request_counter"), nullptr);
  const Finding* f = find_finding(r, "bank_counter_stride");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(value_of(*f, "rows_compared"), 48);
  EXPECT_NEAR(value_of(*f, "deviation"), ((2048.0 * 32 + 32) / 2080 / 32 - 1) * 100, 1e-9);
  EXPECT_EQ(words().text(*f),
            "counters: stride sweep shared wavefronts per instruction agree with the model within "
            "5% on all 48 rows with counters (largest deviation -1.5%, at 16 B stores stride 8: "
            "31.52 wavefronts measured vs 32 wavefronts model)");
  EXPECT_EQ(find_finding(r, "bank_counters_not_collected"), nullptr);
}

TEST(BankConflictsAnalysis, AStrideRowOffTheModelOrWithoutACounter) {
  ProbeResult in = with_counters();
  for (auto& row : in.rows) {
    if (!find_param(row.params, "op")) continue;
    const std::string key = scalar_text(find_param(row.params, "op")->value) + " " +
                            scalar_text(find_param(row.params, "element_bytes")->value) + " " +
                            scalar_text(find_param(row.params, "stride")->value);
    for (auto& q : *row.counters) {
      // 8-B loads at stride 2: twice the model's 4 wavefronts (2-way x 2).
      if (key == "load 8 2" && q.name == "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum")
        *q.value *= 2;
      if (key == "load 4 0" && q.name == "smsp__inst_executed_op_shared_ld.sum")
        q.value = std::nullopt;
    }
  }
  const ProbeResult r = analysed(in);
  const Row off = row_of(r, {{"op", "load"}, {"element_bytes", "8"}, {"stride", "2"}});
  EXPECT_TRUE(flagged(off));
  EXPECT_DOUBLE_EQ(value(off.derived, "wavefronts_per_request_counter"), 8);
  const Row none = row_of(r, {{"op", "load"}, {"element_bytes", "4"}, {"stride", "0"}});
  EXPECT_FALSE(find_quantity(none.derived, "wavefronts_per_request_counter")->value);
  EXPECT_FALSE(flagged(none));
  const Finding* f = find_finding(r, "bank_counter_stride");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(value_of(*f, "rows_off"), 1);
  EXPECT_EQ(value_of(*f, "rows_compared"), 47);
  EXPECT_EQ(words().text(*f),
            "counters: stride sweep shared wavefronts per instruction differ from the model by "
            "more than 5% on 1 of 47 rows (flag ctr-vs-model); worst at 8 B loads stride 2: 8 "
            "wavefronts measured vs 4 wavefronts model (+100.0%)");
}

TEST(BankConflictsAnalysis, CounterColumnTermsAreShort) {
  const Glossary g = words();
  for (const char* name :
       {"wavefronts_per_request_counter", "wavefronts_per_request_counter_vs_model",
        "load_wavefronts_per_request_counter", "load_wavefronts_per_request_counter_vs_model",
        "store_wavefronts_per_request_counter", "store_wavefronts_per_request_counter_vs_model",
        "load_wavefronts_per_request", "store_wavefronts_per_request"}) {
    const Term* t = g.term("bank-conflicts", name);
    ASSERT_NE(t, nullptr) << name;
    EXPECT_LE(t->label.size(), 8u) << name;
  }
}

TEST(BankConflictsAnalysis, ColumnTermsAreShort) {
  const Glossary g = words();
  for (const char* name :
       {"time_per_instruction", "relative_to_copy", "slowdown", "cycles_per_request",
        "conflict_ways", "load_conflict_ways", "store_conflict_ways", "wavefronts_per_request",
        "predicted_slowdown", "bandwidth_ratio", "stride1_bandwidth", "stride1_cycles_per_request",
        "max_slowdown", "model_max_slowdown"}) {
    const Term* t = g.term("bank-conflicts", name);
    ASSERT_NE(t, nullptr) << name;
    EXPECT_LE(t->label.size(), 8u) << name;
    EXPECT_FALSE(t->meaning.empty()) << name;
  }
}

}  // namespace
}  // namespace gpuprobe
