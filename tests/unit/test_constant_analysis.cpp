// Unit tests of the constant probe's analysis on rows made by hand: the model columns and measured
// slowdown, the broadcast ratio, the winner of each point with its margin, the textbook verdict,
// the chase levels (latency's change points), the counters beside the model (agree, differ, no
// counters) and the notes; every finding phrased.
#include <gtest/gtest.h>

#include <string>

#include "constant/analysis.hpp"
#include "fixtures.hpp"
#include "gpuprobe/core/glossary.hpp"

namespace gpuprobe {
namespace {

constexpr double kWarpLookups = 1e6;

Metric rate(double median) {
  Metric m = testing::zigzag_bandwidth(median, 0.01);
  m.name = constant::kLookups;
  m.unit = "Glookup/s";
  return m;
}

Row lookup(const char* path, int distinct, double glookups) {
  Row r;
  r.params = {{constant::kMode, std::string(constant::kLookup), ""},
              {constant::kPath, std::string(path), ""},
              {constant::kWidth, std::int64_t{4}, "B"},
              {constant::kDistinct, std::int64_t{distinct}, ""},
              {constant::kBytes, std::int64_t{4096}, "B"}};
  r.metrics = {rate(glookups)};
  r.derived = {{constant::kWarpLookups, "", kWarpLookups}};
  return r;
}

// Counters of one launch: `requests` in the path's unit per warp lookup, `per` transactions
// (idc per LDC, sectors per request) per request.
Row counted(Row r, double requests, double per) {
  const std::string path = std::get<std::string>(r.params[1].value);
  const bool c = path == "constant", tex = path == "texture";
  const double req = requests * kWarpLookups;
  auto q = [](std::string_view name, double v) { return Quantity{std::string(name), "", v}; };
  r.counters = std::vector<Quantity>{q(constant::kLdc, c ? req : 0),
                                     q(constant::kIdcRequests, c ? req * per : 0),
                                     q(constant::kIdcHits, c ? req * per : 0),
                                     q(constant::kLsuRequests, !c && !tex ? req : 0),
                                     q(constant::kLsuSectors, !c && !tex ? req * per : 0),
                                     q(constant::kTexSectors, tex ? req * per : 0),
                                     q(constant::kL2FromL1, 0),
                                     q(constant::kL2FromGcc, 0)};
  return r;
}

Row chase(std::int64_t bytes, double cycles) {
  Row r;
  r.params = {{constant::kMode, std::string(constant::kChase), ""},
              {constant::kPath, std::string("constant"), ""},
              {constant::kBytes, bytes, "B"}};
  Metric c{constant::kCycles, "cycles", {}, {}}, t{constant::kSeconds, "s", {}, {}};
  c.stats.median = cycles;
  t.stats.median = cycles / 2e9;  // a 2 GHz clock
  r.metrics = {c, t};
  return r;
}

// constant wins the broadcast by far, plain loads win 32 addresses; the counters agree except on
// one global row; readonly rows and texture's d32 have no counters.
ProbeResult made_result() {
  ProbeResult r;
  r.probe = "constant";
  r.rows = {counted(lookup("constant", 1, 800), 1, 1),
            counted(lookup("constant", 32, 25), 1, 32),
            lookup("readonly", 1, 400),
            lookup("readonly", 32, 200),
            counted(lookup("texture", 1, 300), 4, 1),
            lookup("texture", 32, 150),
            counted(lookup("global", 1, 400), 1, 1),
            counted(lookup("global", 32, 300), 1, 24)};
  for (std::int64_t b : {1024, 2048})
    r.rows.push_back(chase(b, 20));
  for (std::int64_t b : {4096, 8192, 16384, 32768, 65536})
    r.rows.push_back(chase(b, 100));
  constant::RunFacts facts;
  facts.constant_skipped = 6;
  constant::analyse(r, facts);
  return r;
}

// The first finding `id` whose param or outcome `key` reads `value` ("" key: the first `id`).
const Finding* first_of(const ProbeResult& r, const std::string& id, const std::string& key = "",
                        const std::string& value = "") {
  for (const auto& f : r.findings)
    if (f.id == id && (key.empty() || param_text_of(f, key) == value)) return &f;
  return nullptr;
}

TEST(ConstantAnalysis, ModelColumnsAndMeasuredSlowdown) {
  const ProbeResult r = made_result();
  const Row& c32 = r.rows[1];
  EXPECT_DOUBLE_EQ(*find_quantity(c32.model, "transactions_per_ldc")->value, 32);
  EXPECT_DOUBLE_EQ(*find_quantity(c32.model, "predicted_slowdown")->value, 32);
  EXPECT_NEAR(*find_quantity(c32.derived, "slowdown")->value, 800.0 / 25, 0.5);
  EXPECT_DOUBLE_EQ(*find_quantity(r.rows[7].model, "sectors_per_request")->value, 32);
}

TEST(ConstantAnalysis, BroadcastRatioPerPath) {
  const ProbeResult r = made_result();
  const Finding* f = first_of(r, "constant_broadcast", "path", "constant");
  ASSERT_NE(f, nullptr);
  EXPECT_NEAR(value_of(*f, "ratio"), 32, 0.5);
  EXPECT_DOUBLE_EQ(value_of(*f, "model_ratio"), 32);
  const Finding* g = first_of(r, "constant_broadcast", "path", "global");
  ASSERT_NE(g, nullptr);
  EXPECT_NEAR(value_of(*g, "ratio"), 400.0 / 300, 0.02);
}

TEST(ConstantAnalysis, WinnerAndMarginAtEachPoint) {
  const ProbeResult r = made_result();
  const Finding* one = first_of(r, "constant_winner", "distinct", "1");
  const Finding* many = first_of(r, "constant_winner", "distinct", "32");
  ASSERT_NE(one, nullptr);
  ASSERT_NE(many, nullptr);
  EXPECT_EQ(param_text_of(*one, "winner"), "constant");
  EXPECT_NEAR(value_of(*one, "margin"), 100, 3);  // 800 against 400 (readonly ~ global)
  EXPECT_NEAR(value_of(*one, "constant_vs_global"), 2, 0.05);
  EXPECT_EQ(param_text_of(*many, "winner"), "global");
  EXPECT_EQ(param_text_of(*many, "runner_up"), "readonly");
  EXPECT_NEAR(value_of(*many, "margin"), 50, 2);
  EXPECT_NEAR(value_of(*many, "texture_vs_global"), 0.5, 0.02);
}

TEST(ConstantAnalysis, TextbookVerdictSaysWhereItHolds) {
  const ProbeResult r = made_result();
  const Finding* c = first_of(r, "constant_textbook", "path", "constant");
  const Finding* t = first_of(r, "constant_textbook", "path", "texture");
  ASSERT_NE(c, nullptr);
  ASSERT_NE(t, nullptr);
  EXPECT_DOUBLE_EQ(value_of(*c, "points_won"), 1);
  EXPECT_DOUBLE_EQ(value_of(*c, "points_compared"), 2);
  EXPECT_EQ(param_text_of(*c, "where"), "d1 at 4 KiB");
  EXPECT_EQ(param_text_of(*t, "verdict"), "does not hold on this GPU");
  Glossary g = core_glossary();
  constant::add_words(g);
  EXPECT_NE(g.text(*c).find("at 1 of 2 (distinct, table) points: d1 at 4 KiB"), std::string::npos)
      << g.text(*c);
}

TEST(ConstantAnalysis, ChaseLevelsStepAtTheConstantCache) {
  const ProbeResult r = made_result();
  const Finding* l1 = first_of(r, "constant_latency_level", "level", "1");
  const Finding* l2 = first_of(r, "constant_latency_level", "level", "2");
  ASSERT_NE(l1, nullptr);
  ASSERT_NE(l2, nullptr);
  EXPECT_DOUBLE_EQ(value_of(*l1, "latency"), 20);
  EXPECT_DOUBLE_EQ(value_of(*l1, "latency_ns"), 10);
  EXPECT_EQ(param_text_of(*l1, "size"), "2 KiB");
  EXPECT_EQ(param_text_of(*l1, "next_size"), "4 KiB");
  EXPECT_DOUBLE_EQ(value_of(*l2, "latency"), 100);
  // A level of one table names it; one of several, its range.
  Glossary g = core_glossary();
  constant::add_words(g);
  EXPECT_NE(g.text(*l1).find("for tables from 1 KiB to 2 KiB; 4 KiB is past it"), std::string::npos)
      << g.text(*l1);
  Finding one = *l1;
  const Param* size = find_param(one.outcome, "size");
  ASSERT_NE(size, nullptr);
  const Scalar to = size->value;
  for (Param& p : one.outcome)
    if (p.key == "from_bytes") p.value = to;
  EXPECT_NE(g.text(one).find("for the 2 KiB table; 4 KiB is past it"), std::string::npos)
      << g.text(one);
}

TEST(ConstantAnalysis, CountersBesideTheModel) {
  const ProbeResult r = made_result();
  const Finding* req = first_of(r, "constant_counter_requests");
  const Finding* tr = first_of(r, "constant_counter_transactions");
  ASSERT_NE(req, nullptr);
  ASSERT_NE(tr, nullptr);
  EXPECT_EQ(req->kind, FindingKind::kVerdict);
  EXPECT_EQ(param_text_of(*req, "agreement"), "agree");
  // global d32: 24 sectors per request against 32 in the model.
  EXPECT_EQ(tr->kind, FindingKind::kWarning);
  EXPECT_DOUBLE_EQ(value_of(*tr, "rows_off"), 1);
  EXPECT_DOUBLE_EQ(value_of(*tr, "rows_compared"), 5);
  EXPECT_DOUBLE_EQ(value_of(*req, "rows_compared"), 4);  // not texture's
  // Each path's counts are read from its own unit: texture sectors from the texture pipe, 4 per
  // broadcast (one per 8-lane request); texture requests are not collected.
  EXPECT_DOUBLE_EQ(*find_quantity(r.rows[4].derived, "sectors_per_lookup_counter")->value, 4);
  EXPECT_DOUBLE_EQ(*find_quantity(r.rows[1].derived, "transactions_per_ldc_counter")->value, 32);
  EXPECT_DOUBLE_EQ(*find_quantity(r.rows[1].derived, "idc_hit")->value, 1);
  // Rows without counters get nothing counter-related.
  EXPECT_EQ(find_quantity(r.rows[2].derived, "sectors_per_request_counter"), nullptr);
  EXPECT_EQ(find_quantity(r.rows[2].model, "requests_per_lookup"), nullptr);
}

// The H100's CUPTI gives idc__requests_lookup_hit below 0 for tables past the constant cache:
// no hit rate from it, and a warning with the first such row's figures.
TEST(ConstantAnalysis, AnIdcHitCountOutsideItsRequestsGivesNoHitRate) {
  ProbeResult r;
  r.probe = "constant";
  r.rows = {counted(lookup("constant", 1, 800), 1, 1), counted(lookup("constant", 32, 25), 1, 32)};
  for (auto& q : *r.rows[1].counters)
    if (q.name == constant::kIdcHits) q.value = -0.2 * 32 * kWarpLookups;
  constant::analyse(r, constant::RunFacts{});
  EXPECT_DOUBLE_EQ(*find_quantity(r.rows[0].derived, "idc_hit")->value, 1);
  const Quantity* bad = find_quantity(r.rows[1].derived, "idc_hit");
  ASSERT_NE(bad, nullptr);
  EXPECT_FALSE(bad->value.has_value());
  const Finding* w = first_of(r, "constant_idc_hit_unusable");
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->kind, FindingKind::kWarning);
  EXPECT_EQ(param_text_of(*w, "rows"), "1");
  EXPECT_DOUBLE_EQ(value_of(*w, "hits"), -0.2 * 32 * kWarpLookups);
  EXPECT_DOUBLE_EQ(value_of(*w, "requests"), 32 * kWarpLookups);
  // A healthy run has no such warning.
  EXPECT_EQ(first_of(made_result(), "constant_idc_hit_unusable"), nullptr);
}

TEST(ConstantAnalysis, NotesAndSentences) {
  const ProbeResult r = made_result();
  const Finding* sizing = first_of(r, "constant_sizing");
  ASSERT_NE(sizing, nullptr);
  EXPECT_EQ(param_text_of(*sizing, "skipped"), "6");
  EXPECT_EQ(param_text_of(*sizing, "dropped"), "0");
  Glossary g = core_glossary();
  constant::add_words(g);
  for (const Finding& f : r.findings) {
    const std::string text = g.text(f);
    EXPECT_FALSE(text.empty()) << f.id;
    EXPECT_EQ(text.find("{}"), std::string::npos) << text;
  }
}

TEST(ConstantAnalysis, NoRowsNoFindings) {
  ProbeResult r;
  constant::analyse(r, {});
  EXPECT_TRUE(r.findings.empty());
}

}  // namespace
}  // namespace gpuprobe
