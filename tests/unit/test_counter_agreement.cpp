// Unit tests for counters beside a model: values by name, the derived pair, the 5% flag, the
// agree/differ findings and their sentences.
#include "gpuprobe/core/counter_agreement.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>

namespace gpuprobe {
namespace {

Row row_with(std::int64_t stride, std::optional<std::vector<Quantity>> counters) {
  Row row;
  row.params = {{"stride", stride, ""}};
  row.counters = std::move(counters);
  return row;
}

constexpr Int<"stride"> kStride;
FindingList test_findings;
const CounterAgreementMaker kSectors =
    define_counter_agreement(test_findings, "x_counter_sectors", "sectors per request",
                             point(kStride), [](const auto& f) { return "stride " + f[kStride]; });
const CounterAgreementMaker kLines =
    define_counter_agreement(test_findings, "x_counter_lines", "lines per request", point(kStride),
                             [](const auto& f) { return "stride " + f[kStride]; });

Glossary words() {
  Glossary g;
  g.add_findings(test_findings);
  return g;
}

bool flagged(const Row& row) {
  return std::find(row.flags.begin(), row.flags.end(), "ctr-vs-model") != row.flags.end();
}

TEST(CounterAgreement, ValuesByNameNullWhenAbsentUncollectedOrNoCounters) {
  const Row row = row_with(
      1, std::vector<Quantity>{{"a.sum", "sector", 64.0}, {"b.sum", "request", std::nullopt}});
  EXPECT_EQ(counter_value(row, "a.sum"), 64.0);
  EXPECT_FALSE(counter_value(row, "b.sum").has_value());
  EXPECT_FALSE(counter_value(row, "c.sum").has_value());
  EXPECT_FALSE(counter_value(row_with(1, std::nullopt), "a.sum").has_value());
  EXPECT_EQ(ratio_of(64.0, 2.0), 32.0);
  EXPECT_FALSE(ratio_of(64.0, 0.0).has_value());
  EXPECT_FALSE(ratio_of(std::nullopt, 2.0).has_value());
  EXPECT_EQ(sum_of(1.0, 2.0), 3.0);
  EXPECT_FALSE(sum_of(1.0, std::nullopt).has_value());
}

TEST(CounterAgreement, AModelValueShownBesideItsCounterIsSetOnce) {
  Row row = row_with(1, std::vector<Quantity>{});
  row.model = {{"sectors", "sectors", 4.0}};
  set_model_value(row, {"dram", "B/B", 1.5});
  set_model_value(row, {"dram", "B/B", 2.5});
  ASSERT_EQ(row.model.size(), 2u);
  EXPECT_EQ(row.model[1].name, "dram");
  EXPECT_EQ(row.model[1].value, 2.5);
}

TEST(CounterAgreement, AgreementIsAVerdictWithTheLargestDeviation) {
  CounterAgreement agreement(kSectors, "sectors");
  Row a = row_with(1, std::vector<Quantity>{});
  Row b = row_with(32, std::vector<Quantity>{});
  agreement.add(a, "sectors_counter", 4.0, 4.0);
  agreement.add(b, "sectors_counter", 32.96, 32.0);  // +3%: within 5%
  ASSERT_EQ(b.derived.size(), 2u);
  EXPECT_EQ(b.derived[0].name, "sectors_counter");
  EXPECT_EQ(b.derived[0].unit, "sectors");
  EXPECT_DOUBLE_EQ(*b.derived[0].value, 32.96);
  EXPECT_EQ(b.derived[1].name, "sectors_counter_vs_model");
  EXPECT_NEAR(*b.derived[1].value, 1.03, 1e-12);
  EXPECT_FALSE(flagged(a));
  EXPECT_FALSE(flagged(b));
  const auto f = agreement.finding();
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->id, "x_counter_sectors");
  EXPECT_EQ(f->kind, FindingKind::kVerdict);
  EXPECT_EQ(value_of(*f, "rows_compared"), 2);
  EXPECT_NEAR(value_of(*f, "deviation"), 3.0, 1e-9);
  EXPECT_EQ(param_text_of(*f, "stride"), "32");

  EXPECT_EQ(
      words().text(*f),
      "counters: sectors per request agree with the model within 5% on all 2 rows with counters "
      "(largest deviation +3.0%, at stride 32: 32.96 sectors measured vs 32 sectors model)");
}

TEST(CounterAgreement, DisagreementFlagsTheRowAndWarnsWithBothNumbers) {
  CounterAgreement agreement(kSectors, "sectors");
  Row a = row_with(1, std::vector<Quantity>{});
  Row b = row_with(2, std::vector<Quantity>{});
  Row c = row_with(4, std::vector<Quantity>{});
  agreement.add(a, "sectors_counter", 4.18, 4.0);   // +4.5%: within 5%
  agreement.add(b, "sectors_counter", 7.2, 8.0);    // -10%
  agreement.add(c, "sectors_counter", 17.3, 16.0);  // +8.1%: off, less than b
  CounterAgreement other(kLines, "lines");
  other.add(c, "lines_counter", 6.0, 4.0);  // a second quantity off on c: still one flag
  EXPECT_FALSE(flagged(a));
  EXPECT_TRUE(flagged(b));
  EXPECT_EQ(std::count(c.flags.begin(), c.flags.end(), "ctr-vs-model"), 1);
  EXPECT_EQ(agreement.rows_off(), 2u);
  const auto f = agreement.finding();
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->id, "x_counter_sectors");
  EXPECT_EQ(f->kind, FindingKind::kWarning);
  EXPECT_EQ(value_of(*f, "rows_off"), 2);
  EXPECT_EQ(value_of(*f, "rows_compared"), 3);
  EXPECT_DOUBLE_EQ(value_of(*f, "counter"), 7.2);
  EXPECT_DOUBLE_EQ(value_of(*f, "model"), 8.0);
  EXPECT_NEAR(value_of(*f, "deviation"), -10.0, 1e-9);
  EXPECT_EQ(words().text(*f),
            "counters: sectors per request differ from the model by more than 5% on 2 of 3 rows "
            "(flag ctr-vs-model); worst at stride 2: 7.2 sectors measured vs 8 sectors model "
            "(-10.0%)");
}

TEST(CounterAgreement, ABoundedModelAgreesInsideItsBoundsAndMeasuresOutsideFromTheNearerOne) {
  CounterAgreement agreement(kSectors, "sectors");
  Row inside = row_with(1, std::vector<Quantity>{});
  Row above = row_with(2, std::vector<Quantity>{});
  Row below = row_with(4, std::vector<Quantity>{});
  agreement.add_bounded(inside, "bytes_counter", 1.24, 1.0, 1.5);  // +24% over low: inside
  EXPECT_FALSE(flagged(inside));
  EXPECT_EQ(agreement.rows_off(), 0u);
  EXPECT_EQ(agreement.finding()->kind, FindingKind::kVerdict);
  agreement.add_bounded(above, "bytes_counter", 1.68, 1.0, 1.5);  // +12% over high
  agreement.add_bounded(below, "bytes_counter", 0.97, 1.0, 1.5);  // -3% under low: within 5%
  EXPECT_TRUE(flagged(above));
  EXPECT_FALSE(flagged(below));
  EXPECT_EQ(agreement.rows_off(), 1u);
  const auto f = agreement.finding();
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->kind, FindingKind::kWarning);
  EXPECT_DOUBLE_EQ(value_of(*f, "model"), 1.5);  // the bound it was measured against
  EXPECT_NEAR(value_of(*f, "deviation"), 12.0, 1e-9);
  // The row's ratio column is to the lower bound.
  EXPECT_NEAR(*find_quantity(above.derived, "bytes_counter_vs_model")->value, 1.68, 1e-12);
}

TEST(CounterAgreement, UnknownSidesGiveNullValuesAndNoFinding) {
  CounterAgreement agreement(kSectors, "sectors");
  Row a = row_with(1, std::vector<Quantity>{});
  agreement.add(a, "sectors_counter", std::nullopt, 4.0);
  agreement.add(a, "lines_counter", 3.0, std::nullopt);
  ASSERT_EQ(a.derived.size(), 4u);
  EXPECT_FALSE(a.derived[0].value.has_value());
  EXPECT_FALSE(a.derived[1].value.has_value());
  EXPECT_DOUBLE_EQ(*a.derived[2].value, 3.0);  // measured, but no model to compare with
  EXPECT_FALSE(a.derived[3].value.has_value());
  EXPECT_TRUE(a.flags.empty());
  EXPECT_EQ(agreement.rows_compared(), 0u);
  EXPECT_FALSE(agreement.finding().has_value());
}

// The identity of a counter finding (id and params) must not depend on which row happened to
// deviate most: that row goes into the outcome, so two runs whose worst rows differ by noise make
// the same finding.
TEST(CounterAgreement, TheWorstRowIsTheOutcomeNotTheIdentity) {
  // Worst row 4.3 vs 4.0 (beyond 5%: differ) or 4.1 vs 4.0 (within: agree), at stride `worst`.
  const auto finding_with_worst_at = [](std::int64_t worst, double worst_counter) {
    CounterAgreement agreement(kSectors, "sectors");
    for (std::int64_t stride : {1, 2, 4}) {
      Row row = row_with(stride, std::nullopt);
      agreement.add(row, "sectors", stride == worst ? worst_counter : 4.01, 4.0);
    }
    return *agreement.finding();
  };
  for (const double counter : {4.3, 4.1}) {
    const Finding a = finding_with_worst_at(2, counter);
    const Finding b = finding_with_worst_at(4, counter);
    // 4.3 is 7.5% beyond the model (differ: a warning), 4.1 2.5% (agree: a verdict); the id and
    // params stay whichever row is worst.
    const FindingKind kind = counter > 4.2 ? FindingKind::kWarning : FindingKind::kVerdict;
    EXPECT_EQ(a.kind, kind);
    EXPECT_EQ(b.kind, kind);
    EXPECT_EQ(a.id, "x_counter_sectors");
    EXPECT_EQ(b.id, "x_counter_sectors");
    EXPECT_TRUE(a.params.empty()) << a.id;
    EXPECT_TRUE(b.params.empty()) << b.id;
    EXPECT_EQ(param_text_of(a, "stride"), "2");
    EXPECT_EQ(param_text_of(b, "stride"), "4");
    EXPECT_NE(words().text(a).find("stride 2"), std::string::npos) << words().text(a);
  }
}

TEST(CounterAgreement, ARowWithAParamItsDefinitionDoesNotDeclareIsAProgrammingError) {
  CounterAgreement agreement(kSectors, "sectors");
  Row a = row_with(1, std::vector<Quantity>{});
  a.params.push_back({"width", std::int64_t{4}, "B"});
  agreement.add(a, "sectors_counter", 4.0, 4.0);
  EXPECT_THROW(agreement.finding(), std::logic_error);
}

}  // namespace
}  // namespace gpuprobe
