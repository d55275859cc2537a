// Evaluates expectations on a run's results: the values they select, their bounds, and the
// decision with the noise of each metric (compare's bootstrap interval of the median).
#include <fmt/format.h>

#include <cmath>

#include "device_fields.hpp"
#include "gpuprobe/core/compare_stats.hpp"
#include "gpuprobe/core/errors.hpp"
#include "gpuprobe/core/expect.hpp"
#include "gpuprobe/core/units.hpp"

namespace gpuprobe {
namespace {

enum class Family { kRate, kTime, kBytes, kOther };

// A unit's family and its size in the family's base (GB/s, s, B); kOther for anything else.
std::pair<Family, double> unit_scale(const std::string& unit) {
  static const std::pair<const char*, double> kRates[] = {
      {"B/s", 1e-9}, {"kB/s", 1e-6}, {"KB/s", 1e-6}, {"MB/s", 1e-3}, {"GB/s", 1}, {"TB/s", 1e3}};
  static const std::pair<const char*, double> kTimes[] = {
      {"s", 1}, {"ms", 1e-3}, {"us", 1e-6}, {"ns", 1e-9}};
  for (const auto& [u, s] : kRates)
    if (unit == u) return {Family::kRate, s};
  for (const auto& [u, s] : kTimes)
    if (unit == u) return {Family::kTime, s};
  if (unit == "B") return {Family::kBytes, 1};
  return {Family::kOther, 1};
}

// A value a reference selected, where it came from, and the metric behind it (rows only).
struct Item {
  const ProbeResult* result = nullptr;
  std::vector<Param> params;
  std::string name;
  std::string unit;
  double value = 0;
  const Metric* metric = nullptr;
};

bool holds(double a, Relation r, double b) {
  switch (r) {
    case Relation::kLess:
      return a < b;
    case Relation::kLessEqual:
      return a <= b;
    case Relation::kGreater:
      return a > b;
    case Relation::kGreaterEqual:
      return a >= b;
    case Relation::kEqual:
      return a == b;
    case Relation::kNotEqual:
      return a != b;
  }
  return false;
}

std::optional<double> number_of(const Scalar& v) {
  if (const auto* i = std::get_if<std::int64_t>(&v)) return static_cast<double>(*i);
  if (const auto* d = std::get_if<double>(&v)) return *d;
  return std::nullopt;
}

bool matches(const std::vector<Param>& params, const std::vector<Selector>& selectors) {
  for (const auto& s : selectors) {
    const Param* p = find_param(params, s.key);
    if (!p) return false;
    const auto n = number_of(p->value);
    if (s.number && n) {
      if (!holds(*n, s.relation, *s.number)) return false;
    } else if (s.relation == Relation::kEqual || s.relation == Relation::kNotEqual) {
      if ((scalar_text(p->value) == s.text) != (s.relation == Relation::kEqual)) return false;
    } else {
      return false;  // an ordering on text
    }
  }
  return true;
}

void add_quantity(std::vector<Item>& out, const ProbeResult& r, const std::vector<Param>& params,
                  const std::vector<Quantity>& values, const std::string& name) {
  const Quantity* q = find_quantity(values, name);
  if (q && q->value) out.push_back({&r, params, name, q->unit, *q->value, nullptr});
}

// A row's value by name: a metric's median, else a derived, model or counter value.
void add_row_value(std::vector<Item>& out, const ProbeResult& r, const Row& row,
                   const std::string& name) {
  if (const Metric* m = find_metric(row, name)) {
    out.push_back({&r, row.params, name, m->unit, m->stats.median, m});
    return;
  }
  for (const auto* values : {&row.derived, &row.model}) {
    if (find_quantity(*values, name)) return add_quantity(out, r, row.params, *values, name);
  }
  if (row.counters) add_quantity(out, r, row.params, *row.counters, name);
}

// The device's field `name` as a number, with the unit its name implies.
void add_device_value(std::vector<Item>& out, const ProbeResult& r, const RunReport& report,
                      const std::string& name);

std::vector<Item> collect(const Reference& ref, const RunReport& report,
                          std::optional<int> device_of_subject) {
  std::vector<Item> out;
  for (const auto& r : report.results) {
    if (device_of_subject && r.device != device_of_subject) continue;
    if (ref.source == Source::kDevice) {
      add_device_value(out, r, report, ref.name);
      break;  // one device
    }
    if (r.probe != ref.probe || r.status != Status::kOk) continue;
    if (ref.source == Source::kRows) {
      for (const auto& row : r.rows)
        if (matches(row.params, ref.selectors)) add_row_value(out, r, row, ref.name);
    } else if (ref.source == Source::kSummary) {
      for (const auto& s : r.summary)
        if (matches(s.params, ref.selectors)) add_quantity(out, r, s.params, s.values, ref.name);
    } else if (ref.source == Source::kFinding) {
      for (const auto& f : r.findings)
        if (f.id == ref.finding_id && matches(f.params, ref.selectors))
          add_quantity(out, r, f.params, f.values, ref.name);
    } else if (ref.source == Source::kConditions) {
      add_quantity(out, r, {}, r.conditions, ref.name);
    }
  }
  return out;
}

void add_device_value(std::vector<Item>& out, const ProbeResult& r, const RunReport& report,
                      const std::string& name) {
  for (const auto& d : report.devices) {
    if (!r.device || d.index != *r.device) continue;
    std::optional<double> v;
    auto pick = [&](const char* key, const auto& field) {
      using T = std::decay_t<decltype(field)>;
      if (name != key) return;
      if constexpr (std::is_arithmetic_v<T>) {
        v = static_cast<double>(field);
      } else if constexpr (requires {
                             field.has_value();
                             *field + 0;
                           }) {
        if (field) v = static_cast<double>(*field);
      }
    };
    for_each_device_field(d, pick);
    const std::string unit = name.ends_with("_bytes") ? "B" : name.ends_with("_gbps") ? "GB/s" : "";
    if (v) out.push_back({&r, {}, name, unit, *v, nullptr});
  }
}

// The bound for one subject value: factor x the reference, in the subject's unit; or why not.
std::optional<double> bound_for(const Expectation& e, const Item& subject, const RunReport& report,
                                std::string& why) {
  double ref = 0;
  std::string unit;
  if (e.reference.source == Source::kConstant) {
    ref = e.reference.constant;
    unit = e.reference.unit;
  } else {
    const auto items = collect(e.reference, report, subject.result->device);
    if (items.size() != 1) {
      why = fmt::format("the bound's reference matched {} values on GPU {} (needs one)",
                        items.size(), subject.result->device.value_or(-1));
      return std::nullopt;
    }
    ref = items[0].value;
    unit = items[0].unit;
  }
  const auto v = convert_unit(e.factor * ref, unit, subject.unit);
  if (!v) why = fmt::format("the bound is in '{}', the value in '{}'", unit, subject.unit);
  return v;
}

BoundTest bound_test_of(const Item& item, Relation relation, double bound) {
  BoundTest c{item.result->probe, item.result->device, item.params,  item.name, item.unit,
              item.value,         std::nullopt,        std::nullopt, bound,     ExpectState::kPass};
  if (item.metric && !item.metric->samples.empty()) {
    if (const auto i = bootstrap_ratio({{1.0}}, item.metric->samples)) {
      c.low = i->low;
      c.high = i->high;
    }
  }
  if (holds(c.measured, relation, bound)) return c;
  const bool reaches =
      c.low && c.high && (holds(*c.low, relation, bound) || holds(*c.high, relation, bound));
  c.state = reaches ? ExpectState::kInconclusive : ExpectState::kFail;
  return c;
}

ExpectationResult evaluate(const Expectation& e, const RunReport& report) {
  ExpectationResult out{e.text, e.origin, e.bound, ExpectState::kPass, "", {}};
  const auto items = collect(e.subject, report, e.device);
  if (items.empty()) {
    out.state = ExpectState::kUnmatched;
    out.reason =
        fmt::format("no value '{}' of {} matched in this run", e.subject.name, e.subject.probe);
    return out;
  }
  for (const auto& item : items) {
    std::string why;
    const auto bound = bound_for(e, item, report, why);
    if (!bound) {
      out.state = ExpectState::kError;
      out.reason = why;
      return out;
    }
    out.bound_tests.push_back(bound_test_of(item, e.bound, *bound));
    const ExpectState s = out.bound_tests.back().state;
    if (s == ExpectState::kFail ||
        (s == ExpectState::kInconclusive && out.state == ExpectState::kPass))
      out.state = s;
  }
  return out;
}

std::string params_text(const std::vector<Param>& params) {
  std::string out;
  for (const auto& p : params) {
    const auto n = number_of(p.value);
    const std::string v = p.unit == "B" && n ? format_bytes(*n) : scalar_text(p.value);
    out += fmt::format("{}{}={}", out.empty() ? "" : ",", p.key, v);
  }
  return out;
}

std::string value_text(double v, const std::string& unit) {
  if (unit == "B") return format_bytes(v);
  if (unit == "s") return format_seconds(v);
  return fmt::format("{} {}", format_number(v), unit);
}

// "FILE:LINE" without the file's folder (the run names the file it read), or "--expect".
std::string origin_name(std::string origin) {
  if (const auto slash = origin.rfind('/'); slash != std::string::npos) origin.erase(0, slash + 1);
  return origin;
}

}  // namespace

void validate_against_plan(const std::vector<Expectation>& expectations, const RunReport& plan) {
  for (const auto& e : expectations) {
    for (const Reference* ref : {&e.subject, &e.reference}) {
      if (ref->source == Source::kConstant || ref->source == Source::kDevice) continue;
      const ProbeResult* planned = nullptr;
      for (const auto& r : plan.results)
        if (r.probe == ref->probe) planned = &r;
      if (!planned)
        throw UsageError(fmt::format("{}: bad expectation '{}': '{}' is not a probe of this run",
                                     e.origin, e.text, ref->probe));
      if (ref->source != Source::kRows) continue;
      bool any = false;
      for (const auto& row : planned->rows)
        any = any || matches(row.params, ref->selectors);
      if (!any)
        throw UsageError(fmt::format(
            "{}: bad expectation '{}': no planned {} row matches its selectors (params: {})",
            e.origin, e.text, ref->probe,
            planned->rows.empty() ? std::string("none") : params_text(planned->rows[0].params)));
    }
  }
}

std::vector<Expectation> applicable_to_plan(const std::vector<Expectation>& expectations,
                                            const RunReport& plan) {
  std::vector<Expectation> out;
  for (const auto& e : expectations) {
    try {
      validate_against_plan({e}, plan);
      out.push_back(e);
    } catch (const UsageError&) {
      // not for this run
    }
  }
  return out;
}

std::optional<double> convert_unit(double value, const std::string& from, const std::string& to) {
  if (from.empty() || from == to) return value;
  const auto [ff, fs] = unit_scale(from);
  const auto [tf, ts] = unit_scale(to);
  if (ff != tf || ff == Family::kOther) return std::nullopt;
  return value * fs / ts;
}

bool known_constant_unit(const std::string& unit) {
  return unit.empty() || unit == "%" || unit == "x" || unit_scale(unit).first != Family::kOther;
}

const char* expect_state_name(ExpectState state) noexcept {
  switch (state) {
    case ExpectState::kPass:
      return "pass";
    case ExpectState::kInconclusive:
      return "inconclusive";
    case ExpectState::kFail:
      return "fail";
    case ExpectState::kUnmatched:
      return "unmatched";
    case ExpectState::kError:
      return "error";
  }
  return "error";
}

std::vector<ExpectationResult> evaluate_expectations(const std::vector<Expectation>& expectations,
                                                     const RunReport& report) {
  std::vector<ExpectationResult> out;
  for (const auto& e : expectations)
    out.push_back(evaluate(e, report));
  return out;
}

bool expectation_failed(const ExpectationResult& result) {
  return result.state == ExpectState::kFail || result.state == ExpectState::kUnmatched ||
         result.state == ExpectState::kError;
}

std::vector<std::string> expectation_failure_lines(const ExpectationResult& result) {
  std::vector<std::string> lines;
  const std::string head =
      fmt::format("expectation failed ({}): {}", origin_name(result.origin), result.expression);
  if (result.state == ExpectState::kUnmatched || result.state == ExpectState::kError) {
    lines.push_back(fmt::format("{}: {}", head, result.reason));
    return lines;
  }
  for (const auto& c : result.bound_tests) {
    if (c.state != ExpectState::kFail) continue;
    std::string interval;
    if (c.low && c.high)
      interval = fmt::format(" (95% interval {} to {})", value_text(*c.low, c.unit),
                             value_text(*c.high, c.unit));
    // One value: the expression names it; several: which of them.
    const std::string which =
        result.bound_tests.size() == 1
            ? fmt::format("GPU {}:", c.device.value_or(-1))
            : fmt::format("{}[{}] on GPU {}: {}", c.probe, params_text(c.params),
                          c.device.value_or(-1), c.name);
    lines.push_back(fmt::format("{}: {} measured {}{}, expected {} {}", head, which,
                                value_text(c.measured, c.unit), interval,
                                relation_text(result.relation), value_text(c.bound, c.unit)));
  }
  return lines;
}

std::string expectation_summary(const ExpectationResult& result) {
  return fmt::format("{}: {}: {} [{}]", expect_state_name(result.state), result.expression,
                     expectation_outcome(result), origin_name(result.origin));
}

std::string expectation_total(const std::vector<ExpectationResult>& results) {
  std::size_t passed = 0, unsure = 0;
  for (const auto& e : results) {
    passed += e.state == ExpectState::kPass;
    unsure += e.state == ExpectState::kInconclusive;
  }
  std::string total =
      fmt::format("{} bound{}: {} passed", results.size(), results.size() == 1 ? "" : "s", passed);
  if (unsure > 0) total += fmt::format(", {} inconclusive", unsure);
  return total + fmt::format(", {} failed", results.size() - passed - unsure);
}

std::string expectation_outcome(const ExpectationResult& result) {
  if (result.state == ExpectState::kUnmatched || result.state == ExpectState::kError ||
      result.bound_tests.empty())
    return result.reason;
  const BoundTest* nearest = nullptr;
  double nearest_margin = 0;
  std::size_t beyond = 0, unsure = 0;
  for (const auto& c : result.bound_tests) {
    beyond += c.state == ExpectState::kFail;
    unsure += c.state == ExpectState::kInconclusive;
    const bool above =
        result.relation == Relation::kGreater || result.relation == Relation::kGreaterEqual;
    const double scale = c.bound != 0 ? std::fabs(c.bound) : 1;
    const double margin = (above ? c.measured - c.bound : c.bound - c.measured) / scale;
    if (!nearest || margin < nearest_margin) {
      nearest = &c;
      nearest_margin = margin;
    }
  }
  const std::size_t n = result.bound_tests.size();
  std::string count;
  if (beyond > 0 && n == 1)
    count = "beyond the bound: ";
  else if (beyond > 0)
    count = fmt::format("{} of {} values beyond the bound, nearest ", beyond, n);
  else if (unsure > 0 && n == 1)
    count = "inconclusive (the median misses, its interval reaches the bound): ";
  else if (unsure > 0)
    count = fmt::format(
        "{} of {} values inconclusive (the median misses, its interval reaches "
        "the bound), nearest ",
        unsure, n);
  else if (n > 1)
    count = fmt::format("{} values, nearest the bound ", n);
  return fmt::format("{}measured {}, bound {} {}", count,
                     value_text(nearest->measured, nearest->unit), relation_text(result.relation),
                     value_text(nearest->bound, nearest->unit));
}

}  // namespace gpuprobe
