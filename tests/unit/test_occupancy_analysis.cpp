// Unit tests of occupancy's analysis on hand-made rows: the plateau (the points alike to the best),
// the knees interpolated between swept points beside Little's law, the cheapest route, writes
// against reads, the counters beside the model (agree, differ, none), the notes, the sweep's
// points, and every sentence phrased.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "gpuprobe/core/glossary.hpp"
#include "gpuprobe/core/stats.hpp"
#include "occupancy/analysis.hpp"
#include "occupancy/internal.hpp"

namespace gpuprobe {
namespace {

// A metric of three rounds of five samples around `median` (+-0.5%).
Metric metric(const char* name, const char* unit, double median) {
  Metric m{name, unit, {}, {}};
  std::vector<double> all;
  for (int r = 0; r < 3; ++r) {
    m.samples.emplace_back();
    for (int k = -2; k <= 2; ++k) {
      m.samples.back().push_back(median * (1 + 0.0025 * k));
      all.push_back(m.samples.back().back());
    }
  }
  m.stats = statistics_of(all);
  return m;
}

struct Spec {
  const char* op;
  int warps, ilp, width;
  double gbps, regs;
};

Row row(const Spec& s) {
  Row r;
  r.params = occupancy::row_params({s.op, s.warps, s.ilp, s.width});
  r.metrics = {metric("bandwidth", "GB/s", s.gbps)};
  const double in_flight = s.warps * 32.0 * s.ilp * s.width;
  r.derived = {{occupancy::kInFlight, "B", in_flight},
               {occupancy::kRegistersPerSm, "", s.regs * s.warps * 32},
               {occupancy::kOccupancy, "%", s.warps / 64.0 * 100},
               {occupancy::kStreamed, "B", 1e9}};
  return r;
}

void count(Row& r, double achieved, double dram) {
  r.counters = std::vector<Quantity>{{std::string(occupancy::kAchieved), "%", achieved},
                                     {std::string(occupancy::kDramRead), "B", dram},
                                     {std::string(occupancy::kDramWrite), "B", 0.0}};
}

occupancy::RunFacts facts() {
  occupancy::RunFacts f;
  f.sm_count = 132;
  f.latency_s = 340e-9;
  f.latency_cycles = 673;
  f.chase_bytes = 512u << 20;
  f.chase_stride = 512;
  f.working_set = 1u << 30;
  f.l2_bytes = 50u << 20;
  return f;
}

// read: the warps route (ILP 1, 4 B) falls short; ILP and width at 8 and 16 warps reach the
// plateau of 3000 GB/s; 4 warps at ILP 8, 16 B comes close with more registers. write: saturates
// at 8 warps. copy: a few points.
ProbeResult run() {
  ProbeResult r;
  const std::vector<Spec> specs = {
      {"read", 4, 1, 4, 120, 16},    {"read", 8, 1, 4, 240, 16},    {"read", 16, 1, 4, 480, 16},
      {"read", 32, 1, 4, 960, 16},   {"read", 64, 1, 4, 1800, 16},  {"read", 8, 2, 4, 480, 20},
      {"read", 8, 4, 4, 960, 24},    {"read", 8, 8, 4, 1850, 32},   {"read", 8, 1, 16, 950, 20},
      {"read", 8, 2, 16, 1900, 28},  {"read", 8, 4, 16, 2900, 40},  {"read", 4, 8, 16, 2880, 96},
      {"read", 8, 8, 16, 3000, 64},  {"read", 16, 4, 16, 3010, 40}, {"read", 16, 8, 16, 3000, 64},
      {"write", 4, 1, 4, 1500, 16},  {"write", 8, 1, 4, 2900, 16},  {"write", 16, 1, 4, 3000, 16},
      {"write", 32, 1, 4, 3000, 16}, {"write", 64, 1, 4, 2990, 16}, {"copy", 8, 1, 4, 1000, 16},
      {"copy", 32, 1, 4, 4000, 16},  {"copy", 64, 1, 4, 5500, 16},  {"copy", 8, 8, 16, 6000, 64},
      {"copy", 16, 8, 16, 6010, 64}};
  for (const Spec& s : specs)
    r.rows.push_back(row(s));
  return r;
}

Glossary words() {
  Glossary g = core_glossary();
  occupancy::add_words(g);
  return g;
}

std::vector<const Finding*> all_of(const ProbeResult& r, const std::string& id) {
  std::vector<const Finding*> out;
  for (const auto& f : r.findings)
    if (f.id == id) out.push_back(&f);
  return out;
}

const Finding* one(const ProbeResult& r, const std::string& id, const std::string& op,
                   std::int64_t level = -1) {
  for (const auto& f : r.findings) {
    if (f.id != id) continue;
    const Param* o = find_param(f.params, "op");
    const Param* l = find_param(f.params, "level");
    if (o && std::get<std::string>(o->value) != op) continue;
    if (level >= 0 && (!l || std::get<std::int64_t>(l->value) != level)) continue;
    return &f;
  }
  return nullptr;
}

double value(const Finding& f, const char* key) {
  return find_quantity(f.values, key)->value.value();
}
std::string text(const Finding& f, const char* key) {
  const Param* p = find_param(f.outcome, key);
  if (!p) p = find_param(f.params, key);
  return std::get<std::string>(p->value);
}
std::int64_t integer(const Finding& f, const char* key) {
  return std::get<std::int64_t>(find_param(f.outcome, key)->value);
}

TEST(OccupancyAnalysis, ThePlateauIsThePointsAlikeToTheBest) {
  ProbeResult r = run();
  occupancy::analyse(r, facts());
  const Finding* p = one(r, "occupancy_plateau", "read");
  ASSERT_NE(p, nullptr);
  EXPECT_DOUBLE_EQ(value(*p, "plateau"), 3000);  // median of 3000, 3010, 3000
  EXPECT_DOUBLE_EQ(value(*p, "alike"), 3);       // 2900 and 2880 are beyond the noise
  EXPECT_EQ(integer(*p, "warps"), 16);
  EXPECT_EQ(integer(*p, "ilp"), 4);
  // A best point alone within noise is said to be that, not "the median of the 1 points".
  ProbeResult lone;
  for (const Spec& s : std::vector<Spec>{{"read", 4, 1, 4, 1000, 16}, {"read", 8, 1, 4, 2000, 16}})
    lone.rows.push_back(row(s));
  occupancy::analyse(lone, facts());
  phrase_findings(r, words());
  phrase_findings(lone, words());
  EXPECT_NE(p->text.find("(median of the 3 points alike to the best within noise)"),
            std::string::npos)
      << p->text;
  const Finding* alone = one(lone, "occupancy_plateau", "read");
  ASSERT_NE(alone, nullptr);
  EXPECT_DOUBLE_EQ(value(*alone, "alike"), 1);
  EXPECT_NE(alone->text.find("(the best point: no other is alike to the best within noise)"),
            std::string::npos)
      << alone->text;
}

TEST(OccupancyAnalysis, KneesAreInterpolatedBetweenSweptPointsBesideLittlesLaw) {
  ProbeResult r = run();
  occupancy::analyse(r, facts());
  const Finding* k90 = one(r, "occupancy_knee", "read", 90);
  const Finding* k95 = one(r, "occupancy_knee", "read", 95);
  ASSERT_NE(k90, nullptr);
  ASSERT_NE(k95, nullptr);
  // 2700 GB/s first at 16 KiB (2900); below it the best of 8 KiB (1900): 8 KiB x 2^0.8.
  EXPECT_NEAR(value(*k90, "measured"), 8192 * std::pow(2, 0.8), 1e-6);
  EXPECT_NEAR(value(*k95, "measured"), 8192 * std::pow(2, 0.95), 1e-6);
  EXPECT_DOUBLE_EQ(value(*k90, "measured_low"), 8192);
  EXPECT_DOUBLE_EQ(value(*k90, "measured_high"), 16384);
  const double predicted = 0.9 * 3000e9 * 340e-9 / 132;  // 6954.5 B
  EXPECT_NEAR(value(*k90, "predicted"), predicted, 1e-6);
  EXPECT_NEAR(value(*k90, "ratio"), 8192 * std::pow(2, 0.8) / predicted, 1e-9);
  EXPECT_NEAR(value(*k90, "loaded_latency"), 8192 * std::pow(2, 0.8) * 132 / 2700e9 * 1e9, 1e-6);
  EXPECT_EQ(text(*k90, "agreement"), "beyond it: the latency under load is longer");
  EXPECT_EQ(integer(*k90, "warps"), 8);
  // The model's bandwidth per row: min(plateau, bytes x SMs / latency).
  const Quantity* m = find_quantity(r.rows[0].model, "bandwidth");
  ASSERT_NE(m, nullptr);
  EXPECT_NEAR(*m->value, 512.0 * 132 / 340e-9 / 1e9, 1e-9);
  EXPECT_NEAR(*find_quantity(r.rows[14].model, "bandwidth")->value, 3000, 1e-9);
}

TEST(OccupancyAnalysis, AKneeInsideTheBracketOrWithinTheBandAgrees) {
  ProbeResult r = run();
  occupancy::RunFacts f = facts();
  f.latency_s = 680e-9;  // predicted 90%: 13909 B, inside (8 KiB, 16 KiB]
  occupancy::analyse(r, f);
  EXPECT_EQ(text(*one(r, "occupancy_knee", "read", 90), "agreement"), "within 25% of it");
  ProbeResult r2 = run();
  f.latency_s = 2000e-9;  // predicted far beyond the measured knee
  occupancy::analyse(r2, f);
  EXPECT_EQ(text(*one(r2, "occupancy_knee", "read", 90), "agreement"),
            "short of it: the load needs less than the model says");
  // writes saturate with few bytes in flight: short of the law, because stores are posted
  EXPECT_EQ(text(*one(r2, "occupancy_knee", "write", 90), "agreement"),
            "short of it: stores are posted, no thread waits for them");
  // a prediction inside the bracket but far from the interpolated knee is not "within 25%"
  ProbeResult r3 = run();
  f.latency_s = 430e-9;  // predicted 90%: 8.6 KiB, inside (8 KiB, 16 KiB], the knee near its top
  occupancy::analyse(r3, f);
  const Finding* k3 = one(r3, "occupancy_knee", "read", 90);
  EXPECT_GT(value(*k3, "ratio"), 1.25);
  EXPECT_EQ(text(*k3, "agreement"), "inside the two swept points around the measured knee");
}

TEST(OccupancyAnalysis, TheCheapestRoutesAreNamed) {
  ProbeResult r = run();
  occupancy::analyse(r, facts());
  const Finding* b = one(r, "occupancy_best_route", "read");
  ASSERT_NE(b, nullptr);
  // Reaching 2850: 2900 (8w ILP4 16B, 40 regs), 2880 (4w ILP8 16B, 96 regs), 3000, 3010, 3000.
  EXPECT_EQ(integer(*b, "warps"), 4);
  EXPECT_EQ(text(*b, "route"), "ILP and width");
  EXPECT_DOUBLE_EQ(value(*b, "register_count"), 40.0 * 8 * 32);  // 8 warps ILP 4: 10240 < 12288
  EXPECT_EQ(text(*b, "register_point"), "8 warps/SM, ILP 4, 16 B");
  // The route names against the smallest ILP and width.
  occupancy::Sample s;
  s.ilp = 1, s.width = 16;
  EXPECT_EQ(occupancy::route_of(s, 1, 4), "width");
  s.ilp = 2, s.width = 4;
  EXPECT_EQ(occupancy::route_of(s, 1, 4), "ILP");
  s.ilp = 1;
  EXPECT_EQ(occupancy::route_of(s, 1, 4), "warps");
}

TEST(OccupancyAnalysis, WritesAgainstReadsAreDecidedOnTheSweptBrackets) {
  ProbeResult r = run();
  occupancy::analyse(r, facts());
  const auto sides = all_of(r, "occupancy_copy_sides");
  ASSERT_EQ(sides.size(), 1u);
  EXPECT_EQ(text(*sides[0], "writes_need"), "fewer");  // (512, 1 KiB] against (8, 16 KiB]
  // The write curve 16x further out in bytes in flight: (8, 16 KiB], the read's bracket.
  ProbeResult same = run();
  for (Row& row : same.rows)
    if (*text_param_of(row, occupancy::kOp) == occupancy::kWrite)
      row.derived[0].value = *row.derived[0].value * 16;
  occupancy::analyse(same, facts());
  EXPECT_EQ(text(*all_of(same, "occupancy_copy_sides")[0], "writes_need"), "as many");
  // The sentences: "fewer ... than reads", "as many ... as reads".
  phrase_findings(r, words());
  phrase_findings(same, words());
  EXPECT_NE(sides[0]->text.find("writes need fewer bytes in flight per SM than reads"),
            std::string::npos)
      << sides[0]->text;
  const std::string as_many = all_of(same, "occupancy_copy_sides")[0]->text;
  EXPECT_NE(as_many.find("writes need as many bytes in flight per SM as reads"), std::string::npos)
      << as_many;
}

TEST(OccupancyAnalysis, CountersSitBesideTheTheoreticalOccupancyAndTheStream) {
  ProbeResult r = run();
  count(r.rows[1], 12.2, 1.01e9);  // 8 warps: theoretical 12.5%
  count(r.rows[4], 98.0, 1.0e9);   // 64 warps: 100%
  occupancy::analyse(r, facts());
  const auto occ = all_of(r, "occupancy_counter_occupancy");
  ASSERT_EQ(occ.size(), 1u);
  EXPECT_EQ(occ[0]->kind, FindingKind::kVerdict);
  EXPECT_EQ(all_of(r, "occupancy_counter_dram").size(), 1u);
  EXPECT_NE(find_quantity(r.rows[1].derived, "achieved_occupancy"), nullptr);
  EXPECT_EQ(find_quantity(r.rows[0].derived, "achieved_occupancy"), nullptr);  // no counters
  ProbeResult off = run();
  count(off.rows[1], 8.0, 1.0e9);  // well under the theoretical 12.5%
  occupancy::analyse(off, facts());
  EXPECT_EQ(all_of(off, "occupancy_counter_occupancy")[0]->kind, FindingKind::kWarning);
}

// A write's DRAM bytes are the range's and the write-back of the lines it left dirty (counted after
// it); a file from before the write-back was counted for every op has the range's only.
TEST(OccupancyAnalysis, DramBytesWrittenCountTheWriteBack) {
  ProbeResult r = run();
  ASSERT_EQ(*text_param_of(r.rows[16], occupancy::kOp), occupancy::kWrite);
  count(r.rows[16], 12.5, 0.0);
  r.rows[16].counters->back().value = 0.977e9;  // the range's writes
  r.rows[16].counters->push_back({std::string(occupancy::kDramWriteBack), "B", 0.023e9});
  count(r.rows[17], 25.0, 0.0);
  r.rows[17].counters->back().value = 0.99e9;  // no write-back counted
  occupancy::analyse(r, facts());
  EXPECT_DOUBLE_EQ(find_quantity(r.rows[16].derived, "dram_bytes")->value.value(), 1.0e9);
  EXPECT_DOUBLE_EQ(find_quantity(r.rows[17].derived, "dram_bytes")->value.value(), 0.99e9);
  EXPECT_EQ(all_of(r, "occupancy_counter_dram")[0]->kind, FindingKind::kVerdict);
}

TEST(OccupancyAnalysis, NotesForDroppedPointsSmallSetsAndNoLatency) {
  ProbeResult r = run();
  occupancy::RunFacts f = facts();
  f.dropped = {"read 64 warps ILP 8 16 B"};
  f.working_set = 64u << 20;
  f.latency_s = 0;
  occupancy::analyse(r, f);
  EXPECT_EQ(all_of(r, "occupancy_not_resident").size(), 1u);
  EXPECT_EQ(all_of(r, "occupancy_small_working_set").size(), 1u);
  EXPECT_TRUE(all_of(r, "occupancy_knee").empty());
  EXPECT_TRUE(all_of(r, "occupancy_latency").empty());
  EXPECT_FALSE(find_quantity(r.rows[0].model, "bandwidth")->value.has_value());
  EXPECT_EQ(all_of(r, "occupancy_plateau").size(), 3u);
}

TEST(OccupancyAnalysis, EverySentenceIsPhrased) {
  ProbeResult r = run();
  occupancy::RunFacts f = facts();
  f.dropped = {"read 64 warps ILP 8 16 B"};
  count(r.rows[1], 12.2, 1.01e9);
  occupancy::analyse(r, f);
  phrase_findings(r, words());
  EXPECT_GE(r.findings.size(), 12u);
  for (const auto& finding : r.findings) {
    EXPECT_TRUE(words().has_phrasing(finding.id)) << finding.id;  // not the generic id: values
    // a field that carries its unit is not followed by it again (the H100's first run: "16 B B")
    EXPECT_EQ(finding.text.find(" B B"), std::string::npos) << finding.text;
  }
  const Finding* k = one(r, "occupancy_knee", "read", 95);
  EXPECT_NE(k->text.find("95% of the plateau"), std::string::npos) << k->text;
}

AxisValues sweep_values() {
  AxisValues v;
  v.values["op"] = {AxisKind::kChoice, "", true, {}, {"read", "copy"}, false};
  v.values["warps"] = {AxisKind::kList, "", true, {1, 8, 64}, {}, false};
  v.values["at-warps"] = {AxisKind::kList, "", true, {8}, {}, false};
  v.values["ilp"] = {AxisKind::kList, "", true, {4, 1}, {}, false};
  v.values["width"] = {AxisKind::kList, "", true, {16, 4}, {}, false};
  return v;
}

TEST(OccupancySweep, WarpsAtTheSmallestIlpAndWidthThenTheGridWithoutRepeats) {
  const auto pts = occupancy::points(sweep_values());
  ASSERT_EQ(pts.size(), 12u);  // per op: 3 warps + 4 combos at 8 warps - (8, 1, 4) once
  EXPECT_EQ(pts[0], (occupancy::Point{"read", 1, 1, 4}));
  EXPECT_EQ(pts[2], (occupancy::Point{"read", 64, 1, 4}));
  EXPECT_EQ(pts[3], (occupancy::Point{"read", 8, 4, 16}));
  EXPECT_EQ(pts[6], (occupancy::Point{"copy", 1, 1, 4}));
  const auto params = occupancy::row_params(pts[3]);
  EXPECT_EQ(std::get<std::int64_t>(params[3].value), 16);
  EXPECT_EQ(params[3].unit, "B");
}

}  // namespace
}  // namespace gpuprobe
