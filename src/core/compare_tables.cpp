// compare's value tables: each pair's classified values as "compare <probe>" results, one per
// row metric and one per unit of summary and of finding values, with their method lines.
#include <algorithm>
#include <cstdint>
#include <iterator>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "compare_steps.hpp"
#include "gpuprobe/core/units.hpp"

namespace gpuprobe::compare_steps {
namespace {

// The compared values of one part of one pair of results that share a table: a row metric, or
// summary / finding values of one unit. Becomes one "compare <probe>" result.
struct ValueTable {
  ComparedPart part = ComparedPart::kRows;
  std::string metric;  // rows only
  std::string unit;
  std::vector<Row> rows;
  bool bootstrap = false;  // some row was classified by the bootstrap rule
  bool band = false;       // some row by the band rule
};

// One classified value as a row of its table: its item's params, what it is, A, B and the ratio.
Row value_row(ComparedValue v) {
  const ValueComparison& c = v.comparison;
  Row row;
  row.params = std::move(v.row_params);
  for (auto& p : row.params) {
    if (is_size_param(p)) p.unit = "B";  // printed in IEC units, even from older files
  }
  row.params.push_back({v.part == ComparedPart::kRows ? "metric" : "value", v.quantity, ""});
  row.params.push_back({"method", std::string(compare_method_name(c.method)), ""});
  row.params.push_back({"change", std::string(change_name(c.change)), ""});
  row.derived = {{"a", v.unit, v.a_value},
                 {"b", v.unit, v.b_value},
                 {"ratio", "x", c.ratio},
                 {"ci_low", "x", c.ci_low},
                 {"ci_high", "x", c.ci_high}};
  // Row metrics: the smallest change this comparison could have called slower or faster.
  if (v.part == ComparedPart::kRows) {
    row.derived.push_back(
        {"detectable", "%",
         c.detectable ? std::optional<double>(*c.detectable * 100.0) : std::nullopt});
  }
  if (c.regression) row.flags.push_back("regression");
  return row;
}

// Rows: one table per metric; summary and finding values: one per unit; in order of first
// appearance.
std::vector<ValueTable> group_tables(std::vector<ComparedValue> values) {
  std::vector<ValueTable> tables;
  for (auto& v : values) {
    const bool rows = v.part == ComparedPart::kRows;
    auto table = std::find_if(tables.begin(), tables.end(), [&](const ValueTable& t) {
      return t.part == v.part && t.unit == v.unit && (!rows || t.metric == v.quantity);
    });
    if (table == tables.end()) {
      tables.push_back({v.part, rows ? v.quantity : std::string(), v.unit, {}, false, false});
      table = std::prev(tables.end());
    }
    (v.comparison.method == CompareMethod::kBootstrap ? table->bootstrap : table->band) = true;
    table->rows.push_back(value_row(std::move(v)));
  }
  return tables;
}

// The rules a table's rows were decided by, in words.
std::vector<std::string> table_rules(const CompareInputs& in, const ValueTable& table,
                                     Better better) {
  const bool rows = table.part == ComparedPart::kRows;
  std::vector<std::string> rules;
  if (table.bootstrap) {
    rules.push_back(bootstrap_rule_text(
        in.margin * 100.0, better == Better::kNone ? "higher or lower" : "slower or faster"));
  }
  if (table.band) {
    const std::string band =
        rows ? fmt::format("max({}%, {} x the larger rel_noise)", kCompareNoiseFloor * 100,
                           format_number(in.options.noise_k))
             : fmt::format("{}% (values without samples carry no noise)", kCompareNoiseFloor * 100);
    rules.push_back(fmt::format("{}same when |ratio - 1| <= {}",
                                rows ? "rows without samples (band): " : "", band));
  }
  if (!rows) rules.push_back("never a regression (derived from rows, which are checked)");
  return rules;
}

ProbeResult table_result(const CompareInputs& in, const ResultPairing& pairing, ValueTable table) {
  const DeviceInfo* da = find_device(in.a, pairing.devices.a);
  const DeviceInfo* db = find_device(in.b, pairing.devices.b);
  auto device_name = [](const DeviceInfo* d) { return d ? d->name : std::string("?"); };
  const bool rows = table.part == ComparedPart::kRows;
  ProbeResult r;
  r.probe = "compare " + pairing.a->probe;
  r.device = pairing.devices.a;
  r.subject = subject_text(in, pairing.devices);
  const Better better = better_for_unit(table.unit);
  const char* rule = better == Better::kLower    ? "lower is faster"
                     : better == Better::kHigher ? "higher is faster"
                                                 : "no better side: higher/lower";
  const std::string what =
      rows ? fmt::format("{} [{}]: ratio = B/A of the medians of all samples", table.metric,
                         table.unit)
           : fmt::format("{} values [{}]: ratio = B/A",
                         table.part == ComparedPart::kSummary ? "summary" : "finding", table.unit);
  const std::vector<std::string> rules = table_rules(in, table, better);
  r.method = fmt::format("{} GPU {} ({}) vs {} GPU {} ({}); {}, {}; {}", in.options.a_name,
                         pairing.devices.a, device_name(da), in.options.b_name, pairing.devices.b,
                         device_name(db), what, rule, fmt::join(rules, "; "));
  r.params = {{"compared", std::string(compared_part_name(table.part)), ""}};
  if (rows) r.params.push_back({"metric", table.metric, ""});
  r.params.push_back({"unit", table.unit, ""});
  r.params.push_back({"a_file", in.options.a_name, ""});
  r.params.push_back({"a_device", std::int64_t{pairing.devices.a}, ""});
  r.params.push_back({"b_file", in.options.b_name, ""});
  r.params.push_back({"b_device", std::int64_t{pairing.devices.b}, ""});
  for (auto& p : option_params(in))
    r.params.push_back(std::move(p));
  r.rows = std::move(table.rows);
  return r;
}

}  // namespace

const DeviceInfo* find_device(const RunReport& report, int index) {
  for (const auto& d : report.devices) {
    if (d.index == index) return &d;
  }
  return nullptr;
}

std::string subject_text(const CompareInputs& in, const DevicePair& pair) {
  auto side = [](const char* label, const RunReport& r, int index) {
    const DeviceInfo* d = find_device(r, index);
    return d ? fmt::format("{} GPU {}: {}", label, index, d->name)
             : fmt::format("{} GPU {}", label, index);
  };
  return fmt::format("{} vs {}", side("A", in.a, pair.a), side("B", in.b, pair.b));
}

std::vector<Param> option_params(const CompareInputs& in) {
  const CompareOptions& o = in.options;
  std::vector<Param> params{{"same_within", o.same_within * 100.0, "%"},
                            {"margin", in.margin * 100.0, "%"},
                            {"noise_k", o.noise_k, ""}};
  if (o.fail_on_regression)
    params.push_back({"fail_on_regression", *o.fail_on_regression, "%"});
  else
    params.push_back({"fail_on_regression", std::monostate{}, "%"});
  params.push_back({"fail_on_inconclusive", o.fail_on_inconclusive, ""});
  return params;
}

std::string bootstrap_rule_text(double margin_pct, const std::string& changes) {
  return fmt::format(
      "95% interval of the ratio by a hierarchical bootstrap ({} resamples: rounds with "
      "replacement, then samples within them; fixed seed): same when it lies within +-{}%, {} "
      "when wholly beyond, else inconclusive",
      kBootstrapResamples, format_number(margin_pct), changes);
}

std::vector<ProbeResult> value_tables(const CompareInputs& in, const ResultPairing& pairing,
                                      std::vector<ComparedValue> values) {
  std::vector<ValueTable> tables = group_tables(std::move(values));
  // Tables in part order (rows, summary, findings), each in order of first appearance.
  std::stable_sort(tables.begin(), tables.end(), [](const ValueTable& x, const ValueTable& y) {
    return static_cast<int>(x.part) < static_cast<int>(y.part);
  });
  std::vector<ProbeResult> out;
  for (auto& table : tables)
    out.push_back(table_result(in, pairing, std::move(table)));
  return out;
}

}  // namespace gpuprobe::compare_steps
