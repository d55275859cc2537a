// Unit tests of the latency analysis: level boundaries by binary segmentation, the two clusters of
// a per-access trace, the level the counters point to, and the findings built from rows made by
// hand (the latencies are shaped after the H100 anchors in ../shared/notes: L1 33 cycles, near L2
// 276, far L2 451-680, not taken from a gpuprobe run).
#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "latency/analysis.hpp"

namespace gpuprobe {
namespace {

using latency::SeriesPoint;

constexpr std::uint64_t kKiB = 1024;
constexpr std::uint64_t kMiB = kKiB * kKiB;

// 1 KiB ... at two points per octave: L1 33 to 192 KiB, a transition point, near L2 276 to 16
// MiB, far L2 500 to 40 MiB, DRAM 900 beyond.
std::vector<SeriesPoint> hierarchy() {
  std::vector<SeriesPoint> pts;
  for (double b = kKiB; b <= 512.0 * kMiB; b *= std::sqrt(2.0)) {
    const auto bytes = static_cast<std::uint64_t>(b);
    double c = 900;
    if (bytes <= 192 * kKiB)
      c = 33;
    else if (bytes <= 280 * kKiB)
      c = 120;  // partly L1
    else if (bytes <= 16 * kMiB)
      c = 276;
    else if (bytes <= 40 * kMiB)
      c = 500;
    pts.push_back({bytes, c * (1 + 0.01 * std::sin(b))});  // 1 % wobble
  }
  return pts;
}

TEST(LatencyLevels, FindsEachLevelOfTheHierarchy) {
  const auto pts = hierarchy();
  const auto levels = latency::find_levels(pts);
  ASSERT_EQ(levels.size(), 4u);
  EXPECT_NEAR(levels[0].median, 33, 0.5);
  EXPECT_NEAR(levels[1].median, 276, 3);
  EXPECT_NEAR(levels[2].median, 500, 6);
  EXPECT_NEAR(levels[3].median, 900, 10);
  // Sizes: the largest working set on each plateau, and the next one measured past it.
  EXPECT_LE(levels[0].size, 192 * kKiB);
  EXPECT_GT(levels[0].size, 128 * kKiB);
  ASSERT_TRUE(levels[0].next_size);
  EXPECT_GT(*levels[0].next_size, 192 * kKiB);
  EXPECT_LE(levels[1].size, 16 * kMiB);
  EXPECT_GT(levels[1].size, 8 * kMiB);
  EXPECT_LE(levels[2].size, 40 * kMiB);
  EXPECT_FALSE(levels[3].next_size);
}

// The 32-byte series of `gpuprobe latency` on the H100 80GB HBM3 (driver 580.159.04, commit
// 458371814020, 2026-11-27; median cycles per load, 4 working sets per octave): the levels its run
// reported, found again from the medians alone.
const std::vector<SeriesPoint> kH100 = {
    {1024, 32.0},       {1216, 32.0},       {1440, 32.0},       {1696, 32.0},
    {2048, 32.0},       {2432, 32.0},       {2880, 32.0},       {3424, 32.0},
    {4096, 32.0},       {4864, 32.0},       {5792, 32.0},       {6880, 32.0},
    {8192, 32.0},       {9728, 32.0},       {11584, 32.0},      {13760, 32.0},
    {16384, 32.0},      {19456, 32.0},      {23168, 32.0},      {27552, 32.0},
    {32768, 32.0},      {38944, 32.0},      {46336, 32.0},      {55104, 32.0},
    {65536, 32.0},      {77920, 32.0},      {92672, 32.0},      {110208, 32.0},
    {131072, 32.0},     {155840, 32.0},     {185344, 32.0},     {220416, 32.0},
    {262144, 209.6},    {311712, 276.7},    {370720, 276.6},    {440864, 276.9},
    {524288, 277.2},    {623456, 276.1},    {741440, 276.2},    {881728, 276.1},
    {1048576, 276.1},   {1246944, 276.2},   {1482880, 276.1},   {1763456, 275.8},
    {2097152, 276.1},   {2493920, 276.0},   {2965792, 275.9},   {3526944, 276.1},
    {4194304, 276.1},   {4987872, 275.9},   {5931616, 275.9},   {7053920, 276.2},
    {8388608, 275.9},   {9975776, 275.7},   {11863264, 276.0},  {14107872, 276.0},
    {16777216, 275.9},  {19951584, 275.9},  {23726560, 275.8},  {28215776, 275.9},
    {33554432, 285.7},  {39903168, 322.4},  {47453120, 410.4},  {56431584, 453.4},
    {67108864, 490.6},  {79806336, 518.6},  {94906240, 542.5},  {112863200, 677.4},
    {134217728, 677.1}, {159612672, 678.0}, {189812512, 678.9}, {225726400, 679.2},
    {268435456, 677.6}, {319225344, 680.3}, {379625056, 681.1}, {451452800, 682.9},
    {536870912, 682.3},
};

TEST(LatencyLevels, FindsTheH100Levels) {
  const auto levels = latency::find_levels(kH100, latency::kCacheLevelRule);
  ASSERT_EQ(levels.size(), 4u);
  // L1: 32 cycles up to 215 KiB; 256 KiB (209.6 cycles alone: partial L1 hits) is past it.
  EXPECT_DOUBLE_EQ(levels[0].median, 32.0);
  EXPECT_EQ(levels[0].size, 220416u);
  EXPECT_EQ(levels[0].next_size, std::optional<std::uint64_t>(262144));
  // Near L2: 276 cycles from 304 KiB to 32 MiB (285.7 there, within the band).
  EXPECT_NEAR(levels[1].median, 276.1, 0.5);
  EXPECT_EQ(levels[1].smallest, 311712u);
  EXPECT_EQ(levels[1].size, 33554432u);
  // The L2's edge: 453-519 cycles from 54 to 76 MiB (322 and 410 alone before it: transitions).
  EXPECT_NEAR(levels[2].median, 490.6, 0.5);
  EXPECT_EQ(levels[2].smallest, 56431584u);
  // DRAM: 679 cycles from 108 MiB to 512 MiB (the L2 flushed before each sample).
  EXPECT_NEAR(levels[3].median, 679.0, 1.0);
  EXPECT_EQ(levels[3].smallest, 112863200u);
  EXPECT_FALSE(levels[3].next_size);
}

// The 32-byte series of two quick `latency` runs on one H200 (2026-11-28, build 044105052629,
// examples/results/h200/latency-ab/; 2 working sets per octave from 1 KiB): the same medians but at
// 64 MiB, 369 cycles in one and 463 in the other. Binary segmentation made the 256 KiB point (205)
// a level of its own in one run only; in a cache series a working set alone between two levels is
// a transition, so both runs have the same three levels over the same sizes and segments.
TEST(LatencyLevels, APointFarAwayDoesNotMakeOrUnmakeALevel) {
  const std::vector<double> cycles = {
      32,  32,  32,  32,  32,  32,  32,  32,  32,  32,  32,  32,  32,  32,  32,  32,  205, 280, 282,
      279, 281, 281, 281, 280, 280, 281, 280, 280, 280, 280, 281, 316, 369, 527, 681, 684, 682};
  std::vector<std::vector<latency::Level>> runs;
  for (const double at_64_mib : {369.0, 463.0}) {
    std::vector<SeriesPoint> pts;
    for (std::size_t i = 0; i < cycles.size(); ++i) {
      const auto bytes =
          static_cast<std::uint64_t>(1024 * std::pow(2.0, 0.5 * static_cast<double>(i)));
      pts.push_back({bytes, i == 32 ? at_64_mib : cycles[i]});
    }
    ASSERT_EQ(pts[32].bytes, 64 * kMiB);
    runs.push_back(latency::find_levels(pts, latency::kCacheLevelRule));
  }
  ASSERT_EQ(runs[0].size(), 3u);
  ASSERT_EQ(runs[1].size(), 3u);
  for (std::size_t k = 0; k < 3; ++k) {
    EXPECT_DOUBLE_EQ(runs[0][k].median, runs[1][k].median) << "level " << k;
    EXPECT_EQ(runs[0][k].plateau_first, runs[1][k].plateau_first) << "level " << k;
    EXPECT_EQ(runs[0][k].plateau_last, runs[1][k].plateau_last) << "level " << k;
    EXPECT_EQ(runs[0][k].first, runs[1][k].first) << "level " << k;  // "change point before"
    EXPECT_EQ(runs[0][k].last, runs[1][k].last) << "level " << k;
  }
  EXPECT_NEAR(runs[0][1].median, 280.0, 1.0);
  EXPECT_EQ(runs[0][1].first, 16u);  // from 256 KiB, just past the L1's plateau
  EXPECT_NEAR(runs[0][2].median, 682.0, 1.0);
  EXPECT_EQ(runs[0][2].smallest, 128 * kMiB);  // whichever segment 128 MiB fell in
  EXPECT_EQ(runs[0][2].last, cycles.size() - 1);
}

// Only a working set between two levels is a transition: one at the end of a cache series stays a
// level (the sweep ends there: a narrow level or the start of the next), and a page series keeps
// one-working-set levels (a TLB level may be one), as constant's tables do.
TEST(LatencyLevels, ALoneWorkingSetAtTheEndOrInAPageSeriesStaysALevel) {
  std::vector<SeriesPoint> end, pages;
  for (int i = 0; i < 11; ++i)
    end.push_back({kKiB << i, 280.0});
  end.push_back({kKiB << 11, 500.0});
  end.push_back({kKiB << 12, 700.0});
  EXPECT_EQ(latency::find_levels(end, latency::kCacheLevelRule).size(), 2u);
  for (int i = 0; i < 6; ++i)
    pages.push_back({kMiB << i, 300.0});
  pages.push_back({kMiB << 6, 420.0});
  pages.push_back({kMiB << 7, 560.0});
  pages.push_back({kMiB << 8, 565.0});
  pages.push_back({kMiB << 9, 560.0});
  EXPECT_EQ(latency::find_levels(pages, latency::kCacheLevelRule).size(), 2u);
  EXPECT_EQ(latency::find_levels(pages).size(), 3u);  // kLevelRule: 420 a level of its own
}

TEST(LatencyLevels, FlatOrSmallStepsAreOneLevel) {
  std::vector<SeriesPoint> flat, small;
  for (int i = 0; i < 20; ++i) {
    flat.push_back({kKiB << i, 276.0});
    small.push_back({kKiB << i, i < 10 ? 276.0 : 300.0});  // 9 %: under the 15 % step
  }
  EXPECT_EQ(latency::find_levels(flat).size(), 1u);
  EXPECT_EQ(latency::find_levels(small).size(), 1u);
  EXPECT_TRUE(latency::find_levels({}).empty());
}

TEST(LatencyLevels, OnePointAloneIsNoLevel) {
  // A single outlier cannot form a level of its own (kMinPoints).
  std::vector<SeriesPoint> pts;
  for (int i = 0; i < 12; ++i)
    pts.push_back({kKiB << i, i == 6 ? 900.0 : 33.0});
  EXPECT_EQ(latency::find_levels(pts).size(), 1u);
}

TEST(LatencyClusters, SplitsNearAndFar) {
  std::vector<double> v;
  for (int i = 0; i < 700; ++i)
    v.push_back(270 + i % 11);
  for (int i = 0; i < 300; ++i)
    v.push_back(590 + i % 21);
  const auto c = latency::two_clusters(v);
  EXPECT_TRUE(c.two);
  EXPECT_NEAR(c.slow_share, 0.3, 1e-9);
  EXPECT_NEAR(c.fast_median, 275, 1);
  EXPECT_NEAR(c.slow_median, 600, 1);
  EXPECT_GT(c.threshold, 280);
  EXPECT_LT(c.threshold, 590);
}

TEST(LatencyClusters, OneModeIsOneCluster) {
  std::vector<double> v;
  for (int i = 0; i < 1000; ++i)
    v.push_back(270 + i % 17);
  EXPECT_FALSE(latency::two_clusters(v).two);
}

Row counted(double l1_sectors, double l1_hits, double l2_reads, double l2_hits, double fabric,
            double dram) {
  Row r;
  r.counters = std::vector<Quantity>{{std::string(latency::kL1Sectors), "", l1_sectors},
                                     {std::string(latency::kL1Hits), "", l1_hits},
                                     {std::string(latency::kL2Reads), "", l2_reads},
                                     {std::string(latency::kL2Hits), "", l2_hits},
                                     {std::string(latency::kFabricReads), "", fabric},
                                     {std::string(latency::kDramRead), "", dram}};
  return r;
}

TEST(LatencyServed, CountersNameTheLevel) {
  // 10000 accesses each time.
  EXPECT_EQ(latency::served_by(counted(10000, 8000, 2000, 2000, 0, 0), 10000)->level, "L1");
  EXPECT_EQ(latency::served_by(counted(10000, 0, 10000, 10000, 300, 0), 10000)->level, "L2");
  // Half the reads over the fabric is still L2 (an H100's near-L2 plateau looks like this).
  const auto l2 = latency::served_by(counted(10000, 0, 10000, 7500, 5000, 0), 10000);
  EXPECT_EQ(l2->level, "L2");
  EXPECT_DOUBLE_EQ(l2->fabric_share, 0.5);
  // 40 B per access: 62 % of the accesses went to DRAM (64 B each).
  const auto dram = latency::served_by(counted(10000, 0, 10000, 1000, 2000, 400000), 10000);
  EXPECT_EQ(dram->level, "DRAM");
  EXPECT_DOUBLE_EQ(dram->dram_per_access, 40);
  // 16 B per access: a quarter went to DRAM, the rest is L2.
  EXPECT_EQ(latency::served_by(counted(10000, 0, 10000, 7500, 2000, 160000), 10000)->level, "L2");
  EXPECT_FALSE(latency::served_by(Row{}, 10000));
}

Metric cycles(double median) {
  Metric m{latency::kCycles, "cycles", {}, {}};
  m.stats.median = m.stats.min = m.stats.max = m.stats.mean = median;
  m.stats.n = 5;
  return m;
}

Row chase(std::uint64_t stride, std::uint64_t bytes, double c, const Row& counters) {
  Row r = counters;
  r.params = {{latency::kMode, std::string(latency::kChase), ""},
              {latency::kStride, static_cast<std::int64_t>(stride), "B"},
              {latency::kCarveout, std::int64_t{0}, "%"},
              {latency::kBytes, static_cast<std::int64_t>(bytes), "B"}};
  r.metrics = {cycles(c)};
  r.derived = {{latency::kClock, "MHz", 1980.0}};
  return r;
}

Glossary words() {
  Glossary g = core_glossary();
  latency::add_words(g);
  return g;
}

std::vector<const Finding*> all_of(const ProbeResult& r, const std::string& id) {
  std::vector<const Finding*> out;
  for (const auto& f : r.findings)
    if (f.id == id) out.push_back(&f);
  return out;
}

const Param* outcome_of(const Finding& f, const std::string& key) {
  return find_param(f.outcome, key);
}

// L1, L2 and DRAM plateaus; `inverted`: the L2 and DRAM rows' counters swapped.
ProbeResult cache_run(bool inverted) {
  ProbeResult r;
  const Row l1 = counted(10000, 8000, 2000, 2000, 0, 0);
  const Row l2 = counted(10000, 0, 10000, 7500, 5000, 0);
  const Row dram = counted(10000, 0, 10000, 500, 9000, 600000);
  for (std::uint64_t b = 8 * kKiB; b <= 64 * kKiB; b *= 2)
    r.rows.push_back(chase(32, b, 33, l1));
  for (std::uint64_t b = 256 * kKiB; b <= 2 * kMiB; b *= 2)
    r.rows.push_back(chase(32, b, 276, inverted ? dram : l2));
  for (std::uint64_t b = 8 * kMiB; b <= 64 * kMiB; b *= 2)
    r.rows.push_back(chase(32, b, 650, inverted ? l2 : dram));
  return r;
}

TEST(LatencyAnalysis, LevelsCarryTheirLatencySizeAndServingLevel) {
  ProbeResult r = cache_run(false);
  latency::RunFacts facts;
  facts.l2_bytes = 2 * kMiB;
  facts.steps = 8192;
  facts.l1_model_by_carveout[0] = 64 * kKiB;
  latency::analyse(r, facts);
  phrase_findings(r, words());
  const auto levels = all_of(r, "latency_level");
  ASSERT_EQ(levels.size(), 3u);
  EXPECT_EQ(std::get<std::string>(outcome_of(*levels[0], "served_by")->value), "L1");
  EXPECT_EQ(std::get<std::string>(outcome_of(*levels[1], "served_by")->value), "L2");
  EXPECT_EQ(std::get<std::string>(outcome_of(*levels[2], "served_by")->value), "DRAM");
  EXPECT_EQ(std::get<std::int64_t>(outcome_of(*levels[0], "size")->value), 64 * kKiB);
  // 33 cycles at 1980 MHz: 16.7 ns.
  EXPECT_NE(levels[0]->text.find("16.7 ns"), std::string::npos) << levels[0]->text;
  const auto agree = all_of(r, "latency_counters");
  ASSERT_EQ(agree.size(), 1u);
  EXPECT_EQ(agree[0]->kind, FindingKind::kVerdict);
  EXPECT_NE(agree[0]->text.find("by L1, L2, DRAM"), std::string::npos) << agree[0]->text;
  const auto l1 = all_of(r, "latency_l1_capacity");
  ASSERT_EQ(l1.size(), 1u);
  EXPECT_EQ(std::get<std::string>(outcome_of(*l1[0], "against_model")->value), "at the model");
  // The L2 plateau ends at 2 MiB, 8 MiB is past it.
  const auto reach = all_of(r, "latency_l2_reach");
  ASSERT_EQ(reach.size(), 1u);
  EXPECT_EQ(std::get<std::int64_t>(outcome_of(*reach[0], "size")->value), 2 * kMiB);
  EXPECT_EQ(std::get<std::int64_t>(outcome_of(*reach[0], "next_size")->value), 8 * kMiB);
  // The largest working set is 64 MiB, 32 x this L2: no short-sweep warning.
  EXPECT_TRUE(all_of(r, "latency_short_sweep").empty());
  ASSERT_EQ(all_of(r, "latency_clock").size(), 1u);
}

TEST(LatencyAnalysis, CountersInvertedAgainstLatencyIsAWarning) {
  ProbeResult r = cache_run(true);
  latency::RunFacts facts;
  facts.steps = 8192;
  latency::analyse(r, facts);
  const auto agree = all_of(r, "latency_counters");
  ASSERT_EQ(agree.size(), 1u);
  EXPECT_EQ(agree[0]->kind, FindingKind::kWarning);
}

TEST(LatencyAnalysis, RowsWithoutCountersSayNoCounters) {
  ProbeResult r;
  for (std::uint64_t b = 8 * kKiB; b <= 64 * kKiB; b *= 2)
    r.rows.push_back(chase(32, b, 33, Row{}));
  for (std::uint64_t b = 256 * kKiB; b <= 2 * kMiB; b *= 2)
    r.rows.push_back(chase(32, b, 276, Row{}));
  latency::RunFacts facts;
  facts.steps = 8192;
  latency::analyse(r, facts);
  const auto levels = all_of(r, "latency_level");
  ASSERT_EQ(levels.size(), 2u);
  EXPECT_EQ(std::get<std::string>(outcome_of(*levels[0], "served_by")->value), "no counters");
  EXPECT_TRUE(all_of(r, "latency_counters").empty());
  for (const Row& row : r.rows)
    EXPECT_FALSE(find_quantity(row.derived, "l1_hit"));
}

TEST(LatencyAnalysis, PageStepWithTheSameDataLevelIsATlbStep) {
  ProbeResult r;
  const Row l2 = counted(10000, 0, 10000, 10000, 100, 0);
  for (std::uint64_t b = 32 * kMiB; b <= 256 * kMiB; b *= 2)
    r.rows.push_back(chase(2 * kMiB, b, 300, l2));
  for (std::uint64_t b = 512 * kMiB; b <= 4096 * kMiB; b *= 2)
    r.rows.push_back(chase(2 * kMiB, b, 700, l2));
  latency::RunFacts facts;
  facts.steps = 8192;
  latency::analyse(r, facts);
  phrase_findings(r, words());
  const auto steps = all_of(r, "latency_tlb_step");
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_EQ(std::get<std::int64_t>(outcome_of(*steps[0], "size")->value), 256 * kMiB);
  EXPECT_EQ(std::get<std::int64_t>(outcome_of(*steps[0], "pages")->value), 128);
  EXPECT_NE(std::get<std::string>(outcome_of(*steps[0], "cause")->value).find("translation"),
            std::string::npos);
}

// A page series keeps a TLB level of one working set (kLevelRule): 300, one span at 420, then 560
// cycles are two TLB steps, not one (the cache series' rule would call 420 a transition).
TEST(LatencyAnalysis, APageSeriesKeepsALoneTlbLevel) {
  ProbeResult r;
  const Row l2 = counted(10000, 0, 10000, 10000, 100, 0);
  const double cycles[] = {300, 300, 300, 300, 420, 560, 565, 560};
  std::uint64_t b = 32 * kMiB;
  for (const double c : cycles) {
    r.rows.push_back(chase(2 * kMiB, b, c, l2));
    b *= 2;
  }
  latency::RunFacts facts;
  facts.steps = 8192;
  latency::analyse(r, facts);
  EXPECT_EQ(all_of(r, "latency_level").size(), 3u);
  EXPECT_EQ(all_of(r, "latency_tlb_step").size(), 2u);
}

// The H100's first page series (L1-cached loads) stepped where its L1 began to lose the chased
// lines: the L1 hit rate fell from 0.95 to 0.76 while both sides were "L1". That is no TLB step.
TEST(LatencyAnalysis, PageStepWithFallingL1HitsIsNotATlbStep) {
  ProbeResult r;
  for (std::uint64_t b = 32 * kMiB; b <= 256 * kMiB; b *= 2)
    r.rows.push_back(chase(2 * kMiB, b, 32, counted(10000, 9500, 500, 500, 0, 0)));
  for (std::uint64_t b = 512 * kMiB; b <= 4096 * kMiB; b *= 2)
    r.rows.push_back(chase(2 * kMiB, b, 67, counted(10000, 7600, 2400, 2400, 0, 0)));
  latency::RunFacts facts;
  facts.steps = 8192;
  latency::analyse(r, facts);
  const auto steps = all_of(r, "latency_tlb_step");
  ASSERT_EQ(steps.size(), 1u);
  const std::string cause = std::get<std::string>(outcome_of(*steps[0], "cause")->value);
  EXPECT_EQ(cause.find("address translation"), std::string::npos) << cause;
  EXPECT_NE(cause.find("changes too"), std::string::npos) << cause;
}

TEST(LatencyAnalysis, TraceRowsGiveTheFarL2Verdict) {
  ProbeResult r;
  Row t;
  t.params = {{latency::kMode, std::string(latency::kTrace), ""},
              {latency::kStride, std::int64_t{32}, "B"},
              {latency::kCarveout, std::int64_t{0}, "%"},
              {latency::kL2Pct, std::int64_t{75}, "%"},
              {latency::kBytes, static_cast<std::int64_t>(30 * kMiB), "B"}};
  std::vector<double> v;
  for (int i = 0; i < 600; ++i)
    v.push_back(i % 2 ? 268 : 284);
  for (int i = 0; i < 400; ++i)
    v.push_back(i % 2 ? 560 : 600);
  latency::add_trace_values(t, v);
  r.rows.push_back(t);
  latency::RunFacts facts;
  latency::analyse(r, facts);
  phrase_findings(r, words());
  const auto far = all_of(r, "latency_far_l2");
  ASSERT_EQ(far.size(), 1u);
  EXPECT_NE(std::get<std::string>(outcome_of(*far[0], "clusters")->value).find("two"),
            std::string::npos);
  EXPECT_NE(far[0]->text.find("40%"), std::string::npos) << far[0]->text;
}

}  // namespace
}  // namespace gpuprobe
