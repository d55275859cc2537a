// Unit tests of partitions' analysis on hand-made rows: the GT200 columns, camping found and not
// found (with the smallest effect the noise let through), the block order, the transpose orders,
// the counters (per-slice, totals only, none), the strides with fewer streams, and every
// sentence phrased.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gpuprobe/core/glossary.hpp"
#include "gpuprobe/core/stats.hpp"
#include "partitions/analysis.hpp"

namespace gpuprobe {
namespace {

using namespace partitions;

// A bandwidth of three rounds of five samples around `median` (+-0.5%).
Metric bandwidth(double median) {
  Metric m{kBandwidth, "GB/s", {}, {}};  // as Sweep::add makes it
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

Row stride_row(const char* order, std::int64_t pad, std::int64_t stride, double gbps,
               double streams = 64) {
  Row r;
  r.params = {{kMode, std::string(kStrideMode), ""},
              {kOrder, std::string(order), ""},
              {kPad, pad, "B"},
              {kStride, stride, "B"}};
  r.metrics = {bandwidth(gbps)};
  r.derived = {{kStreams, "", streams}, {kRegionBytes, "B", 16384.0}, {kSteps, "", 64.0}};
  return r;
}

Row transpose_row(const char* order, std::int64_t n, double gbps) {
  Row r;
  r.params = {
      {kMode, std::string(kTransposeMode), ""}, {kOrder, std::string(order), ""}, {kSide, n, ""}};
  r.metrics = {bandwidth(gbps)};
  r.derived = {{kWaveBlocks, "", 1056.0}};
  return r;
}

// Aligned and padded rows at 256 B .. 1 MiB (x4), every one at `gbps` but the aligned 4 KiB
// row at `camp` x that.
ProbeResult sweep(double camp, const char* order = kRow) {
  ProbeResult r;
  for (const std::int64_t pad : {0, 256})
    for (std::int64_t s = 256; s <= (1 << 20); s *= 4)
      r.rows.push_back(stride_row(order, pad, s + pad, pad == 0 && s == 4096 ? 3000 * camp : 3000));
  return r;
}

Glossary words() {
  Glossary g = core_glossary();
  partitions::add_words(g);
  return g;
}

std::vector<const Finding*> all_of(const ProbeResult& r, const std::string& id) {
  std::vector<const Finding*> out;
  for (const auto& f : r.findings)
    if (f.id == id) out.push_back(&f);
  return out;
}

const Param& outcome(const Finding& f, const char* key) {
  const Param* p = find_param(f.outcome, key);
  EXPECT_NE(p, nullptr) << key;
  return *p;
}

double value(const Finding& f, const char* key) {
  const Quantity* q = find_quantity(f.values, key);
  EXPECT_TRUE(q != nullptr && q->value) << key;
  return q && q->value ? *q->value : -1;
}

std::optional<double> quantity(const std::vector<Quantity>& v, const char* name) {
  const Quantity* q = find_quantity(v, name);
  return q ? q->value : std::nullopt;
}

TEST(PartitionsAnalysis, Gt200ColumnsBesideEveryStride) {
  ProbeResult r = sweep(0.5);  // the aligned 4 KiB stride at half its padded companion's rate
  analyse(r);
  // rows: aligned 256, 1K, 4K, 16K, 64K, 256K, 1M; padded 512, 1280, 4352, ...
  EXPECT_DOUBLE_EQ(*quantity(r.rows[0].model, "gt200_slowdown"), 1.0);
  EXPECT_DOUBLE_EQ(*quantity(r.rows[1].model, "gt200_partitions"), 2.0);  // 1 KiB: 4k mod 8
  EXPECT_DOUBLE_EQ(*quantity(r.rows[2].model, "gt200_slowdown"), 8.0);    // 4 KiB
  EXPECT_DOUBLE_EQ(*quantity(r.rows[9].model, "gt200_slowdown"), 1.0);    // 4 KiB + 256 B
  EXPECT_DOUBLE_EQ(*quantity(r.rows[2].model, "vs_padded"), 1.0 / 8);
  EXPECT_NEAR(*quantity(r.rows[2].derived, "vs_padded"), 0.5, 1e-9);  // aligned / padded
  EXPECT_NEAR(*quantity(r.rows[1].derived, "vs_padded"), 1.0, 1e-9);
  EXPECT_FALSE(quantity(r.rows[9].derived, "vs_padded"));  // a padded row has no companion
}

TEST(PartitionsAnalysis, NoCampingSaysWhatTheNoiseCouldHide) {
  ProbeResult r = sweep(1.0);
  analyse(r);
  phrase_findings(r, words());
  const auto f = all_of(r, "partitions_camping");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(std::get<std::string>(outcome(*f[0], "camping").value), "not found");
  EXPECT_TRUE(std::get<IntList>(outcome(*f[0], "camping_strides").value).empty());
  EXPECT_DOUBLE_EQ(value(*f[0], "pairs"), 7);
  EXPECT_DOUBLE_EQ(value(*f[0], "gt200_worst"), 8);
  EXPECT_DOUBLE_EQ(value(*f[0], "gt200_strides"), 6);  // 1 KiB .. 1 MiB aligned
  // The detectable change: above compare's 2% margin, below a few % for +-0.5% samples.
  EXPECT_GT(value(*f[0], "detectable_max"), 2.0);
  EXPECT_LT(value(*f[0], "detectable_max"), 5.0);
  EXPECT_NE(f[0]->text.find("no camping"), std::string::npos) << f[0]->text;
}

TEST(PartitionsAnalysis, CampingFoundAtTheSlowAlignedStride) {
  ProbeResult r = sweep(0.5);
  analyse(r);
  phrase_findings(r, words());
  const auto f = all_of(r, "partitions_camping");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(std::get<std::string>(outcome(*f[0], "camping").value), "found");
  EXPECT_EQ(std::get<IntList>(outcome(*f[0], "camping_strides").value), IntList{4096});
  EXPECT_EQ(std::get<std::int64_t>(outcome(*f[0], "worst_stride").value), 4096);
  EXPECT_NEAR(value(*f[0], "worst_ratio"), 0.5, 1e-9);
  EXPECT_NE(f[0]->text.find("4 KiB"), std::string::npos) << f[0]->text;
  // the list of strides, an outcome param, is named (the H200's first run printed "strides ()")
  EXPECT_NE(f[0]->text.find("strides (4 KiB)"), std::string::npos) << f[0]->text;
}

// An aligned stride whose padded partner ran fewer streams (the buffer cap) is not judged: its
// loss would be the loads in flight, not camping.
TEST(PartitionsAnalysis, PartnersWithOtherStreamsAreNotCompared) {
  ProbeResult r = sweep(0.5);  // the aligned 4 KiB row at half the others' bandwidth
  for (Row& row : r.rows)
    if (std::get<std::int64_t>(row.params[3].value) == 4096 + 256) row.derived[0].value = 32;
  analyse(r);
  phrase_findings(r, words());
  const auto f = all_of(r, "partitions_camping");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(std::get<std::string>(outcome(*f[0], "camping").value), "not found") << f[0]->text;
  EXPECT_DOUBLE_EQ(value(*f[0], "pairs"), 6);  // 256 B .. 1 MiB x4 (7 strides) but 4 KiB
}

TEST(PartitionsAnalysis, BlockOrderAgainstRowOrder) {
  ProbeResult r = sweep(1.0);
  ProbeResult s = sweep(1.0, kScatter);
  s.rows[3].metrics = {bandwidth(2000)};  // scatter slower at aligned 16 KiB
  for (Row& row : s.rows)
    r.rows.push_back(row);
  analyse(r);
  phrase_findings(r, words());
  EXPECT_EQ(all_of(r, "partitions_camping").size(), 2u);
  const auto f = all_of(r, "partitions_block_order");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_DOUBLE_EQ(value(*f[0], "pairs"), 14);
  EXPECT_DOUBLE_EQ(value(*f[0], "slower"), 1);
  EXPECT_DOUBLE_EQ(value(*f[0], "same"), 13);
  EXPECT_NEAR(value(*f[0], "lowest_ratio"), 2.0 / 3, 1e-9);
  EXPECT_EQ(std::get<std::string>(outcome(*f[0], "decision").value),
            "scattered is slower at some strides");
}

TEST(PartitionsAnalysis, TransposeOrdersBesideTheGt200Prediction) {
  ProbeResult r;
  r.rows = {transpose_row(kRow, 8192, 2500), transpose_row(kDiagonal, 8192, 2500)};
  analyse(r);
  phrase_findings(r, words());
  const auto f = all_of(r, "partitions_transpose");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(std::get<std::string>(outcome(*f[0], "decision").value), "same");
  EXPECT_NEAR(value(*f[0], "ratio"), 1.0, 1e-9);
  // Row order's first wave (1056 blocks of a 256-wide grid: grid rows 0..4) writes at columns
  // by x 128 B: by 0..4 -> partitions 0, 0, 1, 1, 2: 3 of 8; reads spread over all 8.
  EXPECT_DOUBLE_EQ(value(*f[0], "gt200_write_partitions"), 3);
  EXPECT_NEAR(value(*f[0], "gt200_ratio"), (8.0 / 8 + 8.0 / 3) / 2, 1e-9);
  EXPECT_NE(f[0]->text.find("several-fold"), std::string::npos);
  EXPECT_NE(f[0]->text.find("(2500 GB/s vs 2500 GB/s)"), std::string::npos) << f[0]->text;
  r.rows[1].metrics = {bandwidth(3000)};
  r.findings.clear();
  analyse(r);
  phrase_findings(r, words());
  const auto g = all_of(r, "partitions_transpose");
  ASSERT_EQ(g.size(), 1u);
  EXPECT_EQ(std::get<std::string>(outcome(*g[0], "decision").value), "faster");
  EXPECT_NEAR(value(*g[0], "ratio"), 3000.0 / 2500, 1e-9);  // diagonal over row order
  EXPECT_NE(g[0]->text.find("(3000 GB/s vs 2500 GB/s)"), std::string::npos) << g[0]->text;
}

void count(Row& r, bool slices, double l2max) {
  std::vector<Quantity> c = {{std::string(kL2Sum), "", 8000.0},
                             {std::string(kDramSum), "", 256000.0},
                             {std::string(kFabric), "", 4000.0}};
  if (slices) {
    c.push_back({std::string(kL2Max), "", l2max});
    c.push_back({std::string(kL2Avg), "", 100.0});
    c.push_back({std::string(kDramMax), "", 3200.0});
    c.push_back({std::string(kDramAvg), "", 3200.0});
  }
  r.counters = c;
}

TEST(PartitionsAnalysis, PerSliceCountersGiveTheSpread) {
  ProbeResult r = sweep(1.0);
  count(r.rows[0], true, 100.0);
  count(r.rows[2], true, 400.0);
  analyse(r);
  phrase_findings(r, words());
  EXPECT_DOUBLE_EQ(*quantity(r.rows[2].derived, "l2_slices"), 80.0);
  EXPECT_DOUBLE_EQ(*quantity(r.rows[2].derived, "l2_spread"), 20.0);
  EXPECT_DOUBLE_EQ(*quantity(r.rows[2].derived, "l2_imbalance"), 4.0);
  EXPECT_DOUBLE_EQ(*quantity(r.rows[2].derived, "fabric_share"), 0.5);
  EXPECT_FALSE(quantity(r.rows[1].derived, "l2_sectors"));  // no counters, no columns
  const auto f = all_of(r, "partitions_counters");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(std::get<std::string>(outcome(*f[0], "counters").value), "per-slice");
  EXPECT_DOUBLE_EQ(value(*f[0], "l2_imbalance_max"), 4.0);
  EXPECT_EQ(std::get<std::string>(outcome(*f[0], "l2_imbalance_at").value), "stride 4 KiB row");
}

TEST(PartitionsAnalysis, TotalsOnlyAndNoCounters) {
  ProbeResult r = sweep(1.0);
  count(r.rows[0], false, 0);
  analyse(r);
  phrase_findings(r, words());
  EXPECT_FALSE(quantity(r.rows[0].derived, "l2_imbalance"));
  const auto f = all_of(r, "partitions_counters");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(std::get<std::string>(outcome(*f[0], "counters").value), "totals");
  EXPECT_NE(f[0]->text.find("only L2 and DRAM totals"), std::string::npos);
  ProbeResult none = sweep(1.0);
  analyse(none);
  EXPECT_TRUE(all_of(none, "partitions_counters").empty());
}

TEST(PartitionsAnalysis, FewerStreamsNoted) {
  ProbeResult r;
  r.rows = {stride_row(kRow, 0, 4096, 3000), stride_row(kRow, 0, 1 << 20, 800, 16),
            stride_row(kRow, 0, 4 << 20, 800, 4)};
  analyse(r);
  phrase_findings(r, words());
  const auto f = all_of(r, "partitions_fewer_streams");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(std::get<std::int64_t>(outcome(*f[0], "reduced_from").value), 1 << 20);
  EXPECT_DOUBLE_EQ(value(*f[0], "fewest_streams"), 4);
  EXPECT_TRUE(all_of(r, "partitions_camping").empty());  // no padded companions
  for (const Finding& x : r.findings)
    EXPECT_TRUE(words().has_phrasing(x.id)) << x.id;
}

}  // namespace
}  // namespace gpuprobe
