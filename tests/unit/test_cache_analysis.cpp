// Unit tests of cache's analysis: the curve method (segments, plateaus, knees) on hand-made
// curves, the findings and counter attribution on hand-made rows (with and without counters),
// and the analysis re-run on the committed H100 result (examples/results/h100/cache.json.gz:
// `gpuprobe cache` on an H100 80GB HBM3, driver 580.159.04, CUDA 13.0).
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "cache/analysis.hpp"
#include "cache/internal.hpp"
#include "fixtures.hpp"
#include "gpuprobe/core/glossary.hpp"

namespace gpuprobe {
namespace {

using cache::CurvePoint;

constexpr double kKiB = 1024, kMiB = 1024 * 1024;

std::vector<CurvePoint> curve(const std::vector<std::pair<double, double>>& pts) {
  std::vector<CurvePoint> out;
  for (const auto& [b, g] : pts)
    out.push_back({b, g, g * 0.99, g * 1.01});
  return out;
}

// An sm read curve: L1 at ~32.3 TB/s to 224 KiB, a step at 256 KiB, L2 at ~12 TB/s beyond.
std::vector<CurvePoint> l1_then_l2() {
  return curve({{16 * kKiB, 32300},
                {64 * kKiB, 32200},
                {128 * kKiB, 32400},
                {224 * kKiB, 32350},
                {256 * kKiB, 20000},
                {512 * kKiB, 12100},
                {1 * kMiB, 11900},
                {2 * kMiB, 12000}});
}

TEST(CacheCurve, AStepSplitsTheCurveIntoTwoPlateaus) {
  const auto p = cache::plateaus(l1_then_l2());
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p[0].first, 0u);
  EXPECT_EQ(p[0].last, 3u);
  EXPECT_DOUBLE_EQ(p[0].gbps, (32300.0 + 32350.0) / 2);  // median of the four core sizes
  EXPECT_DOUBLE_EQ(p[0].low, 32200 * 0.99);
  EXPECT_DOUBLE_EQ(p[0].high, 32400 * 1.01);
  EXPECT_EQ(p[1].first, 5u);  // 256 KiB is a transition: 20000 is far from 12000
  EXPECT_EQ(p[1].last, 7u);
  EXPECT_DOUBLE_EQ(p[1].gbps, 12000);
  EXPECT_EQ(p[1].sizes, 3u);
}

TEST(CacheCurve, TheKneeIsWhereTheCurveCrossesTheGeometricMean) {
  const auto pts = l1_then_l2();
  const auto p = cache::plateaus(pts);
  ASSERT_EQ(p.size(), 2u);
  const auto knee = cache::knee_between(pts, p[0], p[1]);
  ASSERT_TRUE(knee.has_value());
  // level = sqrt(32325 x 12000) = 19695.4: crossed between 256 KiB (20000) and 512 KiB (12100),
  // at t = ln(19695.4/20000) / ln(12100/20000) of the way in log size.
  const double level = std::sqrt(32325.0 * 12000.0);
  const double t = std::log(level / 20000) / std::log(12100.0 / 20000);
  const double expected = std::exp(std::log(256 * kKiB) + t * std::log(2.0));
  EXPECT_NEAR(*knee, expected, 1e-6 * expected);
  EXPECT_GT(*knee, 256 * kKiB);
  EXPECT_LT(*knee, 512 * kKiB);
}

TEST(CacheCurve, NoiseInsideTheStepIsOnePlateau) {
  const auto pts = curve({{4 * kMiB, 7600},
                          {8 * kMiB, 8100},
                          {16 * kMiB, 7800},
                          {24 * kMiB, 8000},
                          {32 * kMiB, 7700}});
  EXPECT_EQ(cache::segments(pts).size(), 1u);
  const auto p = cache::plateaus(pts);
  ASSERT_EQ(p.size(), 1u);
  EXPECT_DOUBLE_EQ(p[0].gbps, 7800);
  EXPECT_EQ(p[0].sizes, 5u);
}

TEST(CacheCurve, TwoSizesAreATransitionNotAPlateau) {
  // L2, two sizes in between, DRAM: the middle pair is no plateau (kMinCore = 3).
  const auto pts = curve({{8 * kMiB, 7700},
                          {16 * kMiB, 7650},
                          {32 * kMiB, 7600},
                          {48 * kMiB, 5800},
                          {56 * kMiB, 5500},
                          {128 * kMiB, 3300},
                          {256 * kMiB, 3200},
                          {1024 * kMiB, 3150}});
  const auto p = cache::plateaus(pts);
  ASSERT_EQ(p.size(), 2u);
  EXPECT_DOUBLE_EQ(p[0].gbps, 7650);
  EXPECT_DOUBLE_EQ(p[1].gbps, 3200);
}

TEST(CacheCurve, EmptyAndOnePointCurvesHaveNoPlateau) {
  EXPECT_TRUE(cache::plateaus({}).empty());
  EXPECT_TRUE(cache::plateaus(curve({{1 * kMiB, 100}})).empty());
}

TEST(CacheLevels, SizesNameTheLevel) {
  cache::RunFacts f;
  f.sm_count = 132;
  f.l1_bytes = 256 * 1024;
  f.l2_bytes = 50 * 1024 * 1024;
  EXPECT_EQ(cache::size_level("shared", "read", 16 * kKiB, 192 * kKiB, f), "shared");
  EXPECT_EQ(cache::size_level("sm", "read", 16 * kKiB, 224 * kKiB, f), "L1");
  EXPECT_EQ(cache::size_level("sm", "read", 512 * kKiB, 2 * kMiB, f), "L2");
  EXPECT_EQ(cache::size_level("sm", "write", 16 * kKiB, 224 * kKiB, f), "L2");   // 29.6 MB
  EXPECT_EQ(cache::size_level("sm", "write", 384 * kKiB, 2 * kMiB, f), "DRAM");  // 49.5 MiB
  EXPECT_EQ(cache::size_level("sm", "read", 16 * kKiB, 320 * kKiB, f), "L1");    // from its start
  EXPECT_EQ(cache::size_level("device", "read", 4 * kMiB, 40 * kMiB, f), "L2");
  EXPECT_EQ(cache::size_level("device", "read", 40 * kMiB, 1024 * kMiB, f), "DRAM");  // > 37.5
  EXPECT_EQ(cache::counter_level(0.99, 0.0), "L1");
  EXPECT_EQ(cache::counter_level(0.0, 0.05), "L2");
  EXPECT_EQ(cache::counter_level(std::nullopt, 0.05), "L2");
  EXPECT_EQ(cache::counter_level(0.0, 0.97), "DRAM");
  EXPECT_EQ(cache::counter_level(0.9, std::nullopt), "");
}

// A measured row: params, a bandwidth metric of ten samples at gbps, bytes moved, counters.
Row made_row(const std::string& scope, const std::string& op, double bytes, double gbps,
             std::optional<std::vector<Quantity>> counters = std::nullopt) {
  Row r = unmeasured_row({{cache::kScope, scope, ""},
                          {cache::kOp, op, ""},
                          {cache::kBytes, static_cast<std::int64_t>(bytes), "B"}});
  Metric m{"bandwidth", "GB/s", {}, {{}}};
  for (int i = 0; i < 10; ++i)
    m.samples[0].push_back(gbps * (1 + 0.001 * (i - 4.5)));  // median: gbps
  m.stats = statistics_of(m.samples[0]);
  r.metrics.push_back(m);
  r.derived.push_back({"bytes_moved", "B", 1e9});
  r.counters = std::move(counters);
  return r;
}

std::vector<Quantity> counters(double l1_hit, double l2_hit, double dram_bytes) {
  return {{std::string(cache::kL1Sectors), "", 1000},
          {std::string(cache::kL1Hits), "", 1000 * l1_hit},
          {std::string(cache::kL2Reads), "", 1000},
          {std::string(cache::kL2ReadHits), "", 1000 * l2_hit},
          {std::string(cache::kDramRead), "B", dram_bytes},
          {std::string(cache::kDramWrite), "B", 0}};
}

cache::RunFacts h100_facts() {
  cache::RunFacts f;
  f.sm_count = 132;
  f.clock_mhz = 1980;
  f.l1_peak_gbps = 33454.08;
  f.dram_peak_gbps = 3352.32;
  f.l1_bytes = 256 * 1024;
  f.l2_bytes = 50 * 1024 * 1024;
  return f;
}

ProbeResult sm_and_device(bool with_counters, double l1_hit_at_l1) {
  ProbeResult r;
  r.probe = "cache";
  auto c = [&](double a, double b, double d) {
    return with_counters ? std::optional(counters(a, b, d)) : std::nullopt;
  };
  for (const auto& [b, g] : std::vector<std::pair<double, double>>{
           {16 * kKiB, 32300}, {64 * kKiB, 32200}, {128 * kKiB, 32400}, {224 * kKiB, 32350}})
    r.rows.push_back(made_row("sm", "read", b, g, c(l1_hit_at_l1, 1, 0)));
  for (const auto& [b, g] : std::vector<std::pair<double, double>>{
           {512 * kKiB, 12100}, {1 * kMiB, 11900}, {2 * kMiB, 12000}})
    r.rows.push_back(made_row("sm", "read", b, g, c(0.01, 1, 0)));
  for (const auto& [b, g] : std::vector<std::pair<double, double>>{
           {8 * kMiB, 8400}, {16 * kMiB, 8300}, {32 * kMiB, 8200}})
    r.rows.push_back(made_row("device", "read", b, g, c(0, 0.99, 1e7)));
  for (const auto& [b, g] : std::vector<std::pair<double, double>>{
           {256 * kMiB, 3200}, {512 * kMiB, 3180}, {1024 * kMiB, 3150}})
    r.rows.push_back(made_row("device", "read", b, g, c(0, 0.01, 1e9)));
  return r;
}

std::vector<const Finding*> findings_with(const ProbeResult& r, const std::string& id) {
  std::vector<const Finding*> out;
  for (const Finding& f : r.findings)
    if (f.id == id) out.push_back(&f);
  return out;
}

std::optional<double> fvalue(const Finding& f, const std::string& name) {
  const Quantity* q = find_quantity(f.values, name);
  return q ? q->value : std::nullopt;
}

std::string param_text(const Finding& f, const std::string& key) {
  const Param* p = find_param(f.params, key);
  return p ? scalar_text(p->value) : "";
}

TEST(CacheAnalysis, PlateausKneesAndTheModelBesideThem) {
  ProbeResult r = sm_and_device(true, 0.99);
  cache::analyse(r, h100_facts());
  const auto plateaus = findings_with(r, "cache_plateau");
  ASSERT_EQ(plateaus.size(), 4u);
  EXPECT_EQ(param_text(*plateaus[0], "level"), "L2");  // device first: curves sorted by key
  EXPECT_EQ(param_text(*plateaus[1], "level"), "DRAM");
  EXPECT_NEAR(*fvalue(*plateaus[1], "of_model"), 3180 / 3352.32, 1e-3);
  EXPECT_EQ(param_text(*plateaus[2], "level"), "L1");
  EXPECT_NEAR(*fvalue(*plateaus[2], "plateau"), 32325, 1);
  EXPECT_NEAR(*fvalue(*plateaus[2], "of_model"), 32325 / 33454.08, 1e-3);
  EXPECT_FALSE(fvalue(*plateaus[3], "of_model").has_value());  // no model for the L2
  EXPECT_EQ(findings_with(r, "cache_knee").size(), 2u);
  const auto l2 = findings_with(r, "cache_l2_between");
  ASSERT_EQ(l2.size(), 1u);
  EXPECT_NEAR(*fvalue(*l2[0], "l2_over_dram"), 8300.0 / 3180, 1e-2);
  EXPECT_NEAR(*fvalue(*l2[0], "l1_over_l2"), 32325.0 / 8300, 1e-2);
  // One counter verdict per plateau: the counters of every plateau agree with its level.
  const auto counted = findings_with(r, "cache_counter_level");
  ASSERT_EQ(counted.size(), 4u);
  for (const Finding* f : counted)
    EXPECT_EQ(f->kind, FindingKind::kVerdict) << param_text(*f, "level");
  Glossary g = core_glossary();
  cache::add_words(g);
  for (Finding& f : r.findings)
    EXPECT_FALSE(g.text(f).empty());
}

TEST(CacheAnalysis, CountersThatDisagreeWithTheSizesAreAWarning) {
  ProbeResult r = sm_and_device(true, 0.1);  // the "L1" sizes barely hit L1: the L2 served them
  cache::analyse(r, h100_facts());
  int warnings = 0;
  for (const Finding* f : findings_with(r, "cache_counter_level")) {
    if (param_text(*f, "level") != "L1") continue;
    EXPECT_EQ(f->kind, FindingKind::kWarning);
    const Param* says = find_param(f->outcome, "counters_say");
    ASSERT_NE(says, nullptr);
    EXPECT_EQ(scalar_text(says->value), "L2");
    ++warnings;
  }
  EXPECT_EQ(warnings, 1);
}

TEST(CacheAnalysis, RowsWithoutCountersGetNoCounterColumnsOrFindings) {
  ProbeResult r = sm_and_device(false, 0);
  cache::analyse(r, h100_facts());
  EXPECT_TRUE(findings_with(r, "cache_counter_level").empty());
  for (const Row& row : r.rows)
    EXPECT_EQ(find_quantity(row.derived, "l1_hit_rate"), nullptr);
  EXPECT_EQ(findings_with(r, "cache_plateau").size(), 4u);
}

TEST(CacheAnalysis, ACurveWithoutTwoAlikeSizesHasANoteAndNoPlateau) {
  ProbeResult r;
  r.probe = "cache";
  r.rows.push_back(made_row("device", "write", 4 * kMiB, 4000));
  r.rows.push_back(made_row("device", "write", 64 * kMiB, 2000));
  cache::analyse(r, h100_facts());
  EXPECT_TRUE(findings_with(r, "cache_plateau").empty());
  EXPECT_EQ(findings_with(r, "cache_no_plateau").size(), 1u);
  // One size swept (as `gpuprobe all` sweeps shared memory) says so, not "no two of its 1 sizes".
  ProbeResult one;
  one.probe = "cache";
  one.rows.push_back(made_row("shared", "read", 64 * 1024, 30000));
  cache::analyse(one, h100_facts());
  Glossary g = core_glossary();
  cache::add_words(g);
  phrase_findings(r, g);
  phrase_findings(one, g);
  ASSERT_EQ(findings_with(one, "cache_no_plateau").size(), 1u);
  EXPECT_EQ(findings_with(one, "cache_no_plateau")[0]->text,
            "shared read: one size swept: no plateau named");
  EXPECT_EQ(findings_with(r, "cache_no_plateau")[0]->text,
            "device write: 2 sizes swept, fewer than the 3 a plateau needs: no plateau named");
  // Three sizes, two of them alike: still no plateau (it needs three), and the sentence says so.
  ProbeResult three;
  three.probe = "cache";
  for (const auto& [bytes, gbps] :
       {std::pair{4 * kMiB, 4000.0}, {8 * kMiB, 4000.0}, {64 * kMiB, 1000.0}})
    three.rows.push_back(made_row("device", "write", bytes, gbps));
  cache::analyse(three, h100_facts());
  phrase_findings(three, g);
  EXPECT_TRUE(findings_with(three, "cache_plateau").empty());
  ASSERT_EQ(findings_with(three, "cache_no_plateau").size(), 1u);
  EXPECT_EQ(findings_with(three, "cache_no_plateau")[0]->text,
            "device write: no 3 of its 3 sizes agree within the flat band: no plateau named");
}

// The committed H100 run, its rows stripped of what the analysis adds, analysed again: the same
// plateaus, knees and counter verdicts as the run reported, and the levels the docs state.
ProbeResult h100_rows_only(cache::RunFacts& facts) {
  const ProbeResult run =
      testing::fixture_result("../../examples/results/h100/cache.json.gz", "cache");
  const Finding* f = find_finding(run, "cache_facts");
  if (f == nullptr) throw std::runtime_error("no cache_facts in the H100 run");
  facts.sm_count = static_cast<int>(*fvalue(*f, "sm_count"));
  facts.clock_mhz = *fvalue(*f, "clock_mhz");
  facts.l1_peak_gbps = *fvalue(*f, "model_peak");
  facts.dram_peak_gbps = *fvalue(*f, "dram");
  facts.l1_bytes = static_cast<std::uint64_t>(*fvalue(*f, "l1_bytes"));
  facts.l2_bytes = static_cast<std::uint64_t>(*fvalue(*f, "l2_bytes"));
  ProbeResult r;
  r.probe = "cache";
  for (Row row : run.rows) {
    row.model.clear();
    std::erase_if(row.derived, [](const Quantity& q) { return q.name != "bytes_moved"; });
    r.rows.push_back(std::move(row));
  }
  return r;
}

std::string level_of(const Finding& f) {
  return param_text(f, "scope") + " " + param_text(f, "op") + " " + param_text(f, "level");
}

TEST(CacheAnalysisH100, TheRunsFindingsComeBackFromItsRows) {
  cache::RunFacts facts;
  ProbeResult again = h100_rows_only(facts);
  cache::analyse(again, facts);
  const ProbeResult run =
      testing::fixture_result("../../examples/results/h100/cache.json.gz", "cache");
  // The runner orders findings by kind (verdicts first): match them by identity.
  auto keyed = [](const ProbeResult& r, const char* id) {
    std::map<std::string, const Finding*> out;
    for (const Finding* f : findings_with(r, id))
      out[level_of(*f) + param_text(*f, "from") + param_text(*f, "to")] = f;
    return out;
  };
  for (const char* id : {"cache_plateau", "cache_knee", "cache_counter_level"}) {
    const auto a = keyed(run, id), b = keyed(again, id);
    ASSERT_EQ(a.size(), b.size()) << id;
    EXPECT_FALSE(a.empty()) << id;
    for (const auto& [key, fa] : a) {
      ASSERT_TRUE(b.count(key)) << id << " " << key;
      const Finding* fb = b.at(key);
      EXPECT_EQ(fa->kind, fb->kind) << id << " " << key;
      for (const Quantity& q : fa->values) {
        const auto v = fvalue(*fb, q.name);
        ASSERT_EQ(v.has_value(), q.value.has_value()) << q.name;
        if (v) {
          EXPECT_NEAR(*v, *q.value, 1e-6 * std::abs(*q.value) + 1e-9) << key << " " << q.name;
        }
      }
    }
  }
}

TEST(CacheAnalysisH100, TheLevelsAreWhereTheDocsSayTheyAre) {
  cache::RunFacts facts;
  ProbeResult r = h100_rows_only(facts);
  cache::analyse(r, facts);
  std::map<std::string, const Finding*> by;
  for (const Finding* f : findings_with(r, "cache_plateau"))
    by[level_of(*f)] = f;
  ASSERT_TRUE(by.count("sm read L1") && by.count("device read L2") && by.count("device read DRAM"));
  // The L1 plateau above the L2's, the L2's above DRAM's, shared memory near the L1 read.
  const double l1 = *fvalue(*by["sm read L1"], "plateau");
  const double l2 = *fvalue(*by["device read L2"], "plateau");
  const double dram = *fvalue(*by["device read DRAM"], "plateau");
  EXPECT_GT(l1, 2 * l2);
  EXPECT_GT(l2, 2 * dram);
  EXPECT_LE(*fvalue(*by["device read DRAM"], "of_model"), 1.0);
  // The L1 knee lies past the last L1 size (224 KiB) and before the first L2 one (512 KiB).
  std::vector<const Finding*> l1_knees;
  for (const Finding* k : findings_with(r, "cache_knee"))
    if (param_text(*k, "scope") == "sm" && param_text(*k, "op") == "read") l1_knees.push_back(k);
  ASSERT_EQ(l1_knees.size(), 1u);
  EXPECT_GT(*fvalue(*l1_knees[0], "knee_bytes"), 224 * kKiB);
  EXPECT_LT(*fvalue(*l1_knees[0], "knee_bytes"), 512 * kKiB);
}

}  // namespace
}  // namespace gpuprobe
