// Unit tests for the typed row readers (params by type, numbers from integers and reals, medians)
// and the row and metric-name builders probes plan with.
#include <gtest/gtest.h>

#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "gpuprobe/core/result.hpp"
#include "gpuprobe/probe.hpp"

namespace gpuprobe {
namespace {

Row sample_row() {
  Row row;
  row.params = {{"size", std::int64_t{4096}, "B"},
                {"kernel", std::string("padded"), ""},
                {"ratio", 0.5, ""},
                {"flag", true, ""},
                {"none", std::monostate{}, ""}};
  Metric bw{"bandwidth", "GB/s", {}, {}};
  bw.stats.median = 812.5;
  row.metrics.push_back(bw);
  return row;
}

TEST(RowReaders, IntParamReadsIntegersOnly) {
  const Row row = sample_row();
  EXPECT_EQ(int_param_of(row, "size"), std::int64_t{4096});
  EXPECT_FALSE(int_param_of(row, "ratio").has_value());
  EXPECT_FALSE(int_param_of(row, "kernel").has_value());
  EXPECT_FALSE(int_param_of(row, "flag").has_value());
  EXPECT_FALSE(int_param_of(row, "missing").has_value());
}

TEST(RowReaders, TextParamReadsTextOnly) {
  const Row row = sample_row();
  EXPECT_EQ(text_param_of(row, "kernel"), std::string("padded"));
  EXPECT_FALSE(text_param_of(row, "size").has_value());
  EXPECT_FALSE(text_param_of(row, "none").has_value());
  EXPECT_FALSE(text_param_of(row, "missing").has_value());
}

TEST(RowReaders, NumberParamReadsIntegersAndReals) {
  const Row row = sample_row();
  EXPECT_EQ(number_param_of(row, "size"), 4096.0);
  EXPECT_EQ(number_param_of(row, "ratio"), 0.5);
  EXPECT_FALSE(number_param_of(row, "kernel").has_value());
  EXPECT_FALSE(number_param_of(row, "flag").has_value());
  EXPECT_FALSE(number_param_of(row, "missing").has_value());
}

TEST(RowReaders, ParamReadersReadAnyListOfParamsAlike) {
  const SummaryRow summary{{{"stream", std::int64_t{3}, ""}, {"stage", std::string("h2d"), ""}},
                           {}};
  EXPECT_EQ(int_param_of(summary.params, "stream"), std::int64_t{3});
  EXPECT_EQ(number_param_of(summary.params, "stream"), 3.0);
  EXPECT_EQ(text_param_of(summary.params, "stage"), std::string("h2d"));
  EXPECT_FALSE(int_param_of(summary.params, "stage").has_value());
  EXPECT_FALSE(text_param_of(summary.params, "chunk").has_value());
}

TEST(RowReaders, MetricMedianByName) {
  const Row row = sample_row();
  EXPECT_EQ(metric_median(row, "bandwidth"), 812.5);
  EXPECT_FALSE(metric_median(row, "time").has_value());
  EXPECT_FALSE(metric_median(Row{}, "bandwidth").has_value());
}

TEST(RowReaders, QuantityValueByNameNulloptWhenAbsentOrNull) {
  Row row = sample_row();
  row.derived = {{"ratio", "x", 1.5}, {"empty", "", std::nullopt}, {"ratio", "x", 9.0}};
  row.model = {{"raw_limit", "GB/s", 64.0}};
  EXPECT_EQ(quantity_value(row.derived, "ratio"), 1.5);  // the first of a name
  EXPECT_EQ(quantity_value(row.model, "raw_limit"), 64.0);
  EXPECT_FALSE(quantity_value(row.derived, "empty").has_value());
  EXPECT_FALSE(quantity_value(row.derived, "raw_limit").has_value());
}

TEST(RowReaders, FirstParamOfAKeyWins) {
  Row row;
  row.params = {{"n", std::int64_t{1}, ""}, {"n", std::int64_t{2}, ""}};
  EXPECT_EQ(int_param_of(row, "n"), std::int64_t{1});
}

TEST(RowBuilders, UnmeasuredRowHasItsParamsAndFlagsOnly) {
  const Row row = unmeasured_row({{"bytes", std::int64_t{64}, "B"}}, {"baseline"});
  EXPECT_EQ(int_param_of(row, "bytes"), std::int64_t{64});
  EXPECT_EQ(row.params.at(0).unit, "B");
  EXPECT_EQ(row.flags, std::vector<std::string>{"baseline"});
  EXPECT_TRUE(row.metrics.empty());
  EXPECT_TRUE(row.model.empty());
  EXPECT_TRUE(row.derived.empty());
  EXPECT_FALSE(row.counters.has_value());
}

TEST(RowBuilders, MetricNamesKeepTheListsOrder) {
  constexpr std::array<std::string_view, 3> kNames = {"b.sum", "a.sum", "c.max"};
  EXPECT_EQ(metric_names(kNames), (std::vector<std::string>{"b.sum", "a.sum", "c.max"}));
}

}  // namespace
}  // namespace gpuprobe
