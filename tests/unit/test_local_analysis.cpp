// Unit tests of local's analysis on hand-made rows: the baseline, slowdowns and model columns,
// the occupancy trade-off decided both ways, the counters beside the model (agree, differ, none)
// and where the spills leave L1, the notes, and every sentence phrased.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gpuprobe/core/glossary.hpp"
#include "gpuprobe/core/stats.hpp"
#include "gpuprobe/models/local_model.hpp"
#include "local/analysis.hpp"
#include "local/internal.hpp"

namespace gpuprobe {
namespace {

constexpr double kThreadsLaunched = 132.0 * 24 * 256;
constexpr double kSteps = 256;

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
  std::string kernel;
  std::int64_t carve = 0, cap = 0;
  double regs = 0, local = 0, blocks = 0, seconds = 0;
};

Row row(const Spec& s) {
  Row r;
  r.params = {{local::kKernel, s.kernel, ""},
              {local::kCarveout, s.carve, "%"},
              {local::kMaxRegisters, s.cap, ""}};
  const double steps = s.kernel == local::kComputeName ? kSteps : 1024;
  r.metrics = {metric(local::kStepTime, "ps", s.seconds * 1e12 / (kThreadsLaunched * steps)),
               metric("time", "s", s.seconds)};
  r.derived = {{local::kRegisters, "", s.regs},
               {local::kLocalBytes, "B", s.local},
               {local::kBlocksPerSm, "", s.blocks},
               {local::kOccupancy, "%", s.blocks * 8 / 64 * 100},
               {local::kThreads, "", kThreadsLaunched},
               {local::kSteps, "", steps},
               {local::kTouches, "", s.kernel == local::kComputeName ? steps : 1.0}};
  return r;
}

// Counters of one repetition: local load/store sectors and load hits.
void count(Row& r, double loads, double stores, double hits) {
  r.counters = std::vector<Quantity>{
      {std::string(local::kLocalLoad), "", loads},    {std::string(local::kLocalStore), "", stores},
      {std::string(local::kLocalLoadHits), "", hits}, {std::string(local::kL2Reads), "", 100.0},
      {std::string(local::kL2Writes), "", 50.0},      {std::string(local::kDramRead), "", 64.0},
      {std::string(local::kDramWrite), "", 0.0},      {std::string(local::kAchieved), "", 40.0}};
}

local::RunFacts facts() {
  local::RunFacts f;
  f.sm_count = 132;
  f.clock_mhz = 1755;
  f.l1_bytes_per_second = 128.0 * 132 * 1755e6;
  f.l1_latency_s = 20e-9;
  f.l2_latency_s = 150e-9;
  f.table_bytes = 8u << 20;
  f.l1_by_carveout = {{0, 232 * 1024}, {100, 28 * 1024}};
  return f;
}

// compute: spills slow it down; memory: the occupancy the cap buys wins.
ProbeResult run() {
  ProbeResult r;
  r.rows = {
      row({"compute", 0, 0, 74, 0, 3, 1.0e-3}),    row({"compute", 0, 64, 64, 80, 4, 1.5e-3}),
      row({"compute", 0, 32, 32, 360, 8, 4.0e-3}), row({"memory", 0, 0, 112, 0, 2, 4.0e-3}),
      row({"memory", 0, 64, 64, 216, 4, 2.2e-3}),  row({"memory", 0, 32, 32, 344, 8, 1.2e-3})};
  return r;
}

Glossary words() {
  Glossary g = core_glossary();
  local::add_words(g);
  return g;
}

std::vector<const Finding*> all_of(const ProbeResult& r, const std::string& id) {
  std::vector<const Finding*> out;
  for (const auto& f : r.findings)
    if (f.id == id) out.push_back(&f);
  return out;
}

std::string outcome_text(const Finding& f, const char* key) {
  return std::get<std::string>(find_param(f.outcome, key)->value);
}

std::optional<double> derived(const Row& r, const char* name) {
  const Quantity* q = find_quantity(r.derived, name);
  return q ? q->value : std::nullopt;
}
std::optional<double> model(const Row& r, const char* name) {
  const Quantity* q = find_quantity(r.model, name);
  return q ? q->value : std::nullopt;
}

TEST(LocalAnalysis, SlowdownIsAgainstTheUnspilledCompilerChoice) {
  ProbeResult r = run();
  local::analyse(r, facts());
  EXPECT_NEAR(*derived(r.rows[0], "slowdown"), 1.0, 1e-9);
  EXPECT_NEAR(*derived(r.rows[2], "slowdown"), 4.0, 1e-6);
  EXPECT_NEAR(*derived(r.rows[5], "slowdown"), 0.3, 1e-6);
  // The rule itself: the compiler's own choice (no cap) wins over an unspilled capped row listed
  // first; without it, the unspilled row with the most registers.
  ProbeResult q;
  q.rows = {
      row({"compute", 0, 128, 74, 0, 3, 0.9e-3}),  row({"compute", 0, 0, 74, 0, 3, 1.0e-3}),
      row({"compute", 0, 32, 32, 360, 8, 4.0e-3}), row({"memory", 0, 96, 96, 0, 2, 3.0e-3}),
      row({"memory", 0, 128, 112, 0, 2, 4.0e-3}),  row({"memory", 0, 32, 32, 344, 8, 1.2e-3})};
  local::analyse(q, facts());
  EXPECT_NEAR(*derived(q.rows[2], "slowdown"), 4.0, 1e-6);  // against cap 0's 1.0 ms, not 0.9
  EXPECT_NEAR(*derived(q.rows[5], "slowdown"), 0.3, 1e-6);  // against 112 registers' 4.0 ms
  // The model: 360 B x 256 touches x threads / 32 B sectors; footprint 360 B x 8 x 256 per SM.
  EXPECT_DOUBLE_EQ(*model(r.rows[2], "spill_load_sectors"), 360.0 * 256 * kThreadsLaunched / 32);
  EXPECT_DOUBLE_EQ(*model(r.rows[2], "spill_footprint"), 360.0 * 8 * 256);
  EXPECT_DOUBLE_EQ(*model(r.rows[2], "l1_bytes"), 232.0 * 1024);
  // compute's spill cost: the L1-path bound (2 ways x 360 x 256 B x threads / L1 bytes/s).
  const double bw = 2.0 * 360 * 256 * kThreadsLaunched / facts().l1_bytes_per_second;
  EXPECT_NEAR(*model(r.rows[2], "spill_cost"), bw / (kThreadsLaunched * 256) * 1e12, 1e-9);
  // memory's chase: 24 blocks per SM at 2 per SM = 12 waves x 1024 loads x 150 ns.
  EXPECT_NEAR(*model(r.rows[3], "chase_step_time"),
              12 * 1024 * 150e-9 / (kThreadsLaunched * 1024) * 1e12, 1e-9);
  EXPECT_EQ(find_quantity(r.rows[0].model, "chase_step_time"), nullptr);
}

TEST(LocalAnalysis, TheTradeoffIsDecidedBothWays) {
  ProbeResult r = run();
  local::analyse(r, facts());
  const auto t = all_of(r, "local_occupancy_tradeoff");
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(outcome_text(*t[0], "decision"), "fewer registers lose");  // compute: 1.5 ms best
  EXPECT_EQ(std::get<std::int64_t>(find_param(t[0]->outcome, "max_registers")->value), 64);
  EXPECT_EQ(outcome_text(*t[1], "decision"), "fewer registers win");  // memory: 1.2 vs 4.0 ms
  EXPECT_EQ(std::get<std::int64_t>(find_param(t[1]->outcome, "max_registers")->value), 32);
  phrase_findings(r, words());
  EXPECT_NE(t[1]->text.find("3.33x as fast"), std::string::npos) << t[1]->text;
}

TEST(LocalAnalysis, TheMostSpilledCapIsTheSpillCost) {
  ProbeResult r = run();
  local::analyse(r, facts());
  phrase_findings(r, words());
  const auto c = all_of(r, "local_spill_cost");
  ASSERT_EQ(c.size(), 2u);
  EXPECT_NE(c[0]->text.find("360 B spilled per thread at 32 registers"), std::string::npos)
      << c[0]->text;
  EXPECT_NE(c[0]->text.find("4.00x"), std::string::npos) << c[0]->text;
}

TEST(LocalAnalysis, CountersSitBesideTheModelAndFindWhereSpillsLeaveL1) {
  ProbeResult r = run();
  const double m64 = 80.0 * 256 * kThreadsLaunched / 32, m32 = 360.0 * 256 * kThreadsLaunched / 32;
  count(r.rows[0], 0, 0, 0);
  count(r.rows[1], m64, m64, 0.9 * m64);  // agrees, served by L1
  count(r.rows[2], m32, m32, 0.1 * m32);  // agrees, misses L1
  local::analyse(r, facts());
  phrase_findings(r, words());
  EXPECT_NEAR(*derived(r.rows[1], "local_l1_hit"), 0.9, 1e-12);
  EXPECT_DOUBLE_EQ(*derived(r.rows[1], "l2_sectors"), 150);
  const auto loads = all_of(r, "local_counter_loads");
  ASSERT_EQ(loads.size(), 1u);
  EXPECT_EQ(loads[0]->kind, FindingKind::kVerdict);
  const auto fit = all_of(r, "local_spills_in_l1");
  ASSERT_EQ(fit.size(), 1u);  // compute only: the memory rows have no counters
  EXPECT_EQ(outcome_text(*fit[0], "spills_leave_l1"), "yes");
  EXPECT_NE(fit[0]->text.find("up to 80 KiB per SM"), std::string::npos) << fit[0]->text;
  EXPECT_NE(fit[0]->text.find("from 720 KiB per SM only 10% hit"), std::string::npos)
      << fit[0]->text;
  // Rows without counters get nothing counter-related.
  EXPECT_EQ(find_quantity(r.rows[3].derived, "local_l1_hit"), nullptr);
}

TEST(LocalAnalysis, CountersThatDifferFromTheModelAreAWarning) {
  ProbeResult r = run();
  const double m32 = 360.0 * 256 * kThreadsLaunched / 32;
  count(r.rows[2], 0.5 * m32, m32, 0.5 * m32);
  local::analyse(r, facts());
  const auto loads = all_of(r, "local_counter_loads");
  ASSERT_EQ(loads.size(), 1u);
  EXPECT_EQ(loads[0]->kind, FindingKind::kWarning);
  EXPECT_EQ(all_of(r, "local_counter_stores")[0]->kind, FindingKind::kVerdict);
}

TEST(LocalAnalysis, EverySpillingCapIsANoteNotASlowdown) {
  ProbeResult r;
  r.rows = {row({"compute", 100, 48, 48, 264, 5, 2e-3}),
            row({"compute", 100, 32, 32, 360, 8, 4e-3})};
  local::analyse(r, facts());
  phrase_findings(r, words());
  EXPECT_EQ(all_of(r, "local_no_baseline").size(), 1u);
  EXPECT_TRUE(all_of(r, "local_spill_cost").empty());
  EXPECT_EQ(find_quantity(r.rows[0].derived, "slowdown"), nullptr);
  EXPECT_EQ(all_of(r, "local_latencies").size(), 1u);
}

TEST(LocalAnalysis, NoRowsNoFindings) {
  ProbeResult r;
  local::analyse(r, facts());
  EXPECT_TRUE(r.findings.empty());
}

}  // namespace
}  // namespace gpuprobe
