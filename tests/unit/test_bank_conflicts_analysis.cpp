// Unit tests of bank-conflicts' analysis on real H100 rows (tests/fixtures/schema1/h100-all.json):
// derived values, summary rows, findings and their sentences against the numbers of that run.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "bank_conflicts/analysis.hpp"
#include "gpuprobe/core/json_io.hpp"

namespace gpuprobe {
namespace {

const std::string kPrefixLoads = "loads, slowdown vs stride 1 measured (model): ";
const std::string kPrefixStores = "stores, slowdown vs stride 1 measured (model): ";

// The bank-conflicts result of the fixture, as that run wrote it (schema 1: stride rows' metric
// still named `time`; its verdict and notes lines are findings with text only).
const ProbeResult& recorded() {
  static const ProbeResult r = [] {
    const std::string path = std::string(GPUPROBE_FIXTURES_DIR) + "/schema1/h100-all.json";
    const RunReport report = report_from_json(read_json_file(path), path);
    for (const auto& result : report.results) {
      if (result.probe == "bank-conflicts") return result;
    }
    throw std::runtime_error("no bank-conflicts result in " + path);
  }();
  return r;
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
  Metric m{"bandwidth", "GB/s", {}};
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
  EXPECT_EQ(param_text_of(*claim, "holds"), "false");
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
  EXPECT_EQ(g.text(*counters), old[4]);

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
