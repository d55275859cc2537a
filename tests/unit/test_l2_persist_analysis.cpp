// Unit tests of l2-persist's analysis on real H100 rows (the gallery's
// examples/results/h100/l2-persist.json.gz: H100 80GB HBM3 test VM, build 5124cb8baaec Release,
// `gpuprobe l2-persist --json l2-persist.json --no-color`, the default map): hot
// times, speed-ups, counters and findings recomputed from the rows and checked by hand; every
// phrasing rendered; edge cases.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "fixtures.hpp"
#include "gpuprobe/core/counter_agreement.hpp"
#include "l2_persist/analysis.hpp"
#include "l2_persist/sweep.hpp"

namespace gpuprobe {
namespace {

using namespace l2_persist;

const ProbeResult& original() {
  return testing::fixture_result("../../examples/results/h100/l2-persist.json.gz", "l2-persist");
}

double condition(const ProbeResult& r, const char* name) {
  const Quantity* q = find_quantity(r.conditions, name);
  if (!q || !q->value) throw std::runtime_error(std::string("no condition ") + name);
  return *q->value;
}

// What the probe knew on that H100, from the file's conditions.
RunFacts facts_of(const ProbeResult& r) {
  RunFacts f;
  f.l2_bytes = static_cast<std::uint64_t>(condition(r, "l2_bytes"));
  f.persisting_max = static_cast<std::uint64_t>(condition(r, "persisting_l2_max"));
  f.window_max = static_cast<std::uint64_t>(condition(r, "access_policy_max_window"));
  f.stream_bytes = static_cast<std::uint64_t>(condition(r, "stream_bytes"));
  f.iterations = static_cast<int>(condition(r, "phase_iterations"));
  return f;
}

// The measured rows only: params, metrics, counters, flags.
ProbeResult stripped() {
  ProbeResult r = original();
  for (auto& row : r.rows) {
    row.model.clear();
    row.derived.clear();
    row.flags.erase(std::remove(row.flags.begin(), row.flags.end(), kCounterModelFlag),
                    row.flags.end());
  }
  r.findings.clear();
  r.conditions.clear();
  return r;
}

Glossary words() {
  Glossary g = core_glossary();
  add_words(g);
  return g;
}

ProbeResult analysed(ProbeResult r = stripped()) {
  const RunFacts facts = facts_of(original());
  add_model(r, facts.window_max);
  analyse(r, facts);
  phrase_findings(r, words());
  return r;
}

// (const char* params: g++ 13 warns of a dangling reference when a temporary std::string is
// passed to a function returning a reference.)
const Row& row(const ProbeResult& r, const char* workload, int aside, int hot, const char* window,
               bool tuned = false) {
  for (const auto& row : r.rows) {
    const auto num = [&](const char* k) {
      return std::get<std::int64_t>(find_param(row.params, k)->value);
    };
    const bool is_tuned = std::count(row.flags.begin(), row.flags.end(), kTunedFlag) > 0;
    if (scalar_text(find_param(row.params, kWorkload)->value) == workload &&
        num(kSetAsidePct) == aside && num(kHotPct) == hot &&
        scalar_text(find_param(row.params, kWindow)->value) == window && is_tuned == tuned)
      return row;
  }
  throw std::runtime_error("no such row");
}

double med(const Row& row) {
  return find_metric(row, "time")->stats.median;
}

double derived(const Row& row, const char* name) {
  const Quantity* q = find_quantity(row.derived, name);
  if (!q || !q->value) throw std::runtime_error(std::string("no derived ") + name);
  return *q->value;
}

double counter(const Row& row, std::string_view name) {
  return counter_value(row, name).value();
}

TEST(L2PersistAnalysis, HotTimeIsTheRepetitionLessItsStreamingPart) {
  const ProbeResult r = analysed();
  const int k = facts_of(original()).iterations;
  ASSERT_GT(k, 0);
  const Row w = row(r, kPhases, 100, 100, kStream);
  const Row s = row(r, kStreamOnly, 100, 0, kNone);
  const Row b = row(r, kPhases, 0, 100, kNone);
  const Row s0 = row(r, kStreamOnly, 0, 0, kNone);
  const double hot_w = (med(w) - med(s)) / k;
  const double hot_b = (med(b) - med(s0)) / k;
  EXPECT_DOUBLE_EQ(derived(w, "hot_time"), hot_w);
  EXPECT_DOUBLE_EQ(derived(w, "speedup"), hot_b / hot_w);
  EXPECT_DOUBLE_EQ(derived(w, "loop_speedup"), med(b) / med(w));
  const double hot = static_cast<double>(std::get<std::int64_t>(find_param(w.params, kHot)->value));
  EXPECT_DOUBLE_EQ(derived(w, "hot_bandwidth"), 2 * hot / hot_w / 1e9);
  EXPECT_LE(derived(w, "speedup_low"), derived(w, "speedup_high"));
  // The file's own numbers: the same analysis made them on the GPU.
  EXPECT_DOUBLE_EQ(derived(w, "speedup"),
                   derived(row(original(), kPhases, 100, 100, kStream), "speedup"));
}

TEST(L2PersistAnalysis, CountersOfTheHotKernelsAreTheRepetitionLessTheStreamOnlyRow) {
  const ProbeResult r = analysed();
  const int k = facts_of(original()).iterations;
  const Row w = row(r, kPhases, 100, 100, kStream);
  const Row s = row(r, kStreamOnly, 100, 0, kNone);
  const double reads = counter(w, kL2Reads) - counter(s, kL2Reads);
  const double dram_read = counter(w, kDramRead) - counter(s, kDramRead);
  EXPECT_DOUBLE_EQ(derived(w, "hot_l2_hit_share"), 1 - dram_read / (32 * reads));
  EXPECT_DOUBLE_EQ(derived(w, "hot_near_hit_share"),
                   (counter(w, kL2ReadHits) - counter(s, kL2ReadHits)) / reads);
  const double dram = dram_read + counter(w, kDramWrite) - counter(s, kDramWrite);
  EXPECT_DOUBLE_EQ(derived(w, "hot_dram_bytes"), dram / k);
  // Read sectors: k x the hot region / 32 B, exactly (the subtraction isolates the hot kernels).
  const double hot = static_cast<double>(std::get<std::int64_t>(find_param(w.params, kHot)->value));
  EXPECT_DOUBLE_EQ(derived(w, "hot_read_sectors"), reads);
  EXPECT_NEAR(reads, k * hot / 32, 0.001 * k * hot / 32);
}

TEST(L2PersistAnalysis, ModelColumnsFromTheParams) {
  const ProbeResult r = analysed();
  const auto model = [](const Row& row, const char* name) {
    return *find_quantity(row.model, name)->value;
  };
  // 100 % set-aside, hot 200 %: twice the set-aside tagged (hitRatio 1) or half of it (tuned).
  EXPECT_DOUBLE_EQ(model(row(r, kPhases, 100, 200, kStream), "persisting_fraction"), 0.5);
  EXPECT_DOUBLE_EQ(model(row(r, kPhases, 100, 200, kStream), "overcommit"), 1);
  EXPECT_DOUBLE_EQ(model(row(r, kPhases, 100, 200, kStream, true), "overcommit"), 0);
  EXPECT_DOUBLE_EQ(model(row(r, kPhases, 100, 200, kStream, true), "hot_hit_share"), 0.5);
  EXPECT_DOUBLE_EQ(model(row(r, kBpg, 50, 25, kLaunch), "hot_hit_share"), 1);
}

bool has(const ProbeResult& r, const std::string& id, const std::string& key,
         const std::string& text) {
  return std::any_of(r.findings.begin(), r.findings.end(), [&](const Finding& f) {
    if (f.id != id) return false;
    const Param* p = find_param(f.params, key);
    return p && scalar_text(p->value) == text;
  });
}

TEST(L2PersistAnalysis, EveryHotSizeOfBothWorkloadsHasAnEffectFinding) {
  const ProbeResult r = analysed();
  for (const char* workload : {kPhases, kBpg}) {
    for (const char* hot : {"8192000", "16384000", "32768000", "65536000"}) {
      const bool found = std::any_of(r.findings.begin(), r.findings.end(), [&](const Finding& f) {
        return f.id == "l2_persist_effect" &&
               scalar_text(find_param(f.params, kWorkload)->value) == workload &&
               scalar_text(find_param(f.params, kHot)->value) == hot;
      });
      EXPECT_TRUE(found) << workload << " " << hot;
    }
    EXPECT_TRUE(has(r, "l2_persist_tuned_vs_one", kWorkload, workload)) << workload;
    EXPECT_TRUE(has(r, "l2_persist_overcommit", kWorkload, workload)) << workload;
  }
  EXPECT_TRUE(has(r, "l2_persist_no_residual", kWorkload, kPhases));
  EXPECT_TRUE(has(r, "l2_persist_setaside_cost", kSetAside, "32768000"));
}

TEST(L2PersistAnalysis, EveryFindingIsPhrased) {
  const ProbeResult r = analysed();
  const Glossary g = words();
  ASSERT_FALSE(r.findings.empty());
  for (const auto& f : r.findings) {
    EXPECT_TRUE(g.has_phrasing(f.id)) << f.id;
    EXPECT_FALSE(f.text.empty()) << f.id;
    EXPECT_EQ(f.text.find(f.id + ":"), std::string::npos) << f.text;  // not the generic one
  }
}

TEST(L2PersistAnalysis, WithoutBaselinesNoSpeedUpAndNoEffectFindings) {
  ProbeResult r = stripped();
  std::erase_if(r.rows, [](const Row& row) {
    return scalar_text(find_param(row.params, kWindow)->value) == kNone &&
           scalar_text(find_param(row.params, kWorkload)->value) != kStreamOnly;
  });
  r = analysed(r);
  ASSERT_FALSE(r.rows.empty());
  for (const auto& row : r.rows) {
    if (scalar_text(find_param(row.params, kWorkload)->value) == kStreamOnly) continue;
    const Quantity* q = find_quantity(row.derived, "speedup");
    ASSERT_NE(q, nullptr);
    EXPECT_FALSE(q->value.has_value());
  }
  for (const auto& f : r.findings) {
    EXPECT_NE(f.id, "l2_persist_effect");
    EXPECT_NE(f.id, "l2_persist_best");
  }
}

TEST(L2PersistAnalysis, WithoutCountersNoCounterColumnsOrChecks) {
  ProbeResult r = stripped();
  for (auto& row : r.rows)
    row.counters.reset();
  r = analysed(r);
  for (const auto& row : r.rows) {
    EXPECT_EQ(find_quantity(row.derived, "hot_l2_hit_share"), nullptr);
    EXPECT_EQ(find_quantity(row.derived, "hot_read_sectors"), nullptr);
  }
  for (const auto& f : r.findings)
    EXPECT_EQ(f.id.find("l2_persist_counter_"), std::string::npos) << f.id;
}

TEST(L2PersistAnalysis, WithoutStreamOnlyRowsPhasesHaveNoHotTime) {
  ProbeResult r = stripped();
  std::erase_if(r.rows, [](const Row& row) {
    return scalar_text(find_param(row.params, kWorkload)->value) == kStreamOnly;
  });
  r = analysed(r);
  const Quantity* q = find_quantity(row(r, kPhases, 100, 100, kStream).derived, "hot_time");
  ASSERT_NE(q, nullptr);
  EXPECT_FALSE(q->value.has_value());
  // bpg is timed whole: unaffected.
  EXPECT_GT(derived(row(r, kBpg, 100, 100, kStream), "hot_time"), 0);
}

}  // namespace
}  // namespace gpuprobe
