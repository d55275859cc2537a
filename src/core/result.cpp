// Lookups and text helpers over the result model.
#include "gpuprobe/core/result.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "gpuprobe/core/units.hpp"

namespace gpuprobe {

const char* status_name(Status status) noexcept {
  switch (status) {
    case Status::kOk:
      return "ok";
    case Status::kFailed:
      return "failed";
    case Status::kSkipped:
      return "skipped";
    case Status::kPlanned:
      return "planned";
  }
  return "unknown";
}

const char* counter_state_name(CounterState state) noexcept {
  switch (state) {
    case CounterState::kCollected:
      return "collected";
    case CounterState::kOff:
      return "off";
    case CounterState::kRefused:
      return "refused";
    case CounterState::kNone:
      return "none";
  }
  return "off";
}

std::optional<CounterState> counter_state_from_name(const std::string& name) {
  for (auto state : {CounterState::kCollected, CounterState::kOff, CounterState::kRefused,
                     CounterState::kNone}) {
    if (name == counter_state_name(state)) return state;
  }
  return std::nullopt;
}

const char* finding_kind_name(FindingKind kind) noexcept {
  switch (kind) {
    case FindingKind::kVerdict:
      return "verdict";
    case FindingKind::kNote:
      return "note";
    case FindingKind::kWarning:
      return "warning";
  }
  return "note";
}

std::optional<FindingKind> finding_kind_from_name(const std::string& name) {
  for (auto kind : {FindingKind::kVerdict, FindingKind::kNote, FindingKind::kWarning}) {
    if (name == finding_kind_name(kind)) return kind;
  }
  return std::nullopt;
}

const Param* find_param(const std::vector<Param>& params, const std::string& key) {
  for (const auto& p : params) {
    if (p.key == key) return &p;
  }
  return nullptr;
}

const Metric* find_metric(const Row& row, const std::string& name) {
  for (const auto& m : row.metrics) {
    if (m.name == name) return &m;
  }
  return nullptr;
}

const Quantity* find_quantity(const std::vector<Quantity>& values, const std::string& name) {
  for (const auto& q : values) {
    if (q.name == name) return &q;
  }
  return nullptr;
}

const Finding* find_finding(const ProbeResult& result, const std::string& id) {
  for (const auto& f : result.findings) {
    if (f.id == id) return &f;
  }
  return nullptr;
}

namespace {

const Scalar* param_value(const std::vector<Param>& params, std::string_view key) {
  for (const auto& p : params) {
    if (p.key == key) return &p.value;
  }
  return nullptr;
}

}  // namespace

std::optional<std::int64_t> int_param_of(const std::vector<Param>& params, std::string_view key) {
  const Scalar* v = param_value(params, key);
  if (!v || !std::holds_alternative<std::int64_t>(*v)) return std::nullopt;
  return std::get<std::int64_t>(*v);
}

std::optional<std::string> text_param_of(const std::vector<Param>& params, std::string_view key) {
  const Scalar* v = param_value(params, key);
  if (!v || !std::holds_alternative<std::string>(*v)) return std::nullopt;
  return std::get<std::string>(*v);
}

std::optional<double> number_param_of(const std::vector<Param>& params, std::string_view key) {
  const Scalar* v = param_value(params, key);
  if (v && std::holds_alternative<std::int64_t>(*v))
    return static_cast<double>(std::get<std::int64_t>(*v));
  if (v && std::holds_alternative<double>(*v)) return std::get<double>(*v);
  return std::nullopt;
}

std::optional<std::int64_t> int_param_of(const Row& row, std::string_view key) {
  return int_param_of(row.params, key);
}

std::optional<std::string> text_param_of(const Row& row, std::string_view key) {
  return text_param_of(row.params, key);
}

std::optional<double> number_param_of(const Row& row, std::string_view key) {
  return number_param_of(row.params, key);
}

std::optional<double> metric_median(const Row& row, std::string_view name) {
  for (const auto& m : row.metrics) {
    if (m.name == name) return m.stats.median;
  }
  return std::nullopt;
}

std::optional<double> quantity_value(const std::vector<Quantity>& values, std::string_view name) {
  for (const auto& q : values) {
    if (q.name == name) return q.value;
  }
  return std::nullopt;
}

Row unmeasured_row(std::vector<Param> params, std::vector<std::string> flags) {
  Row row;
  row.params = std::move(params);
  row.flags = std::move(flags);
  return row;
}

std::optional<TextList> list_items_of(const std::vector<Param>& params, std::string_view key) {
  for (const auto& p : params) {
    if (p.key != key) continue;
    if (const auto* ints = std::get_if<IntList>(&p.value)) {
      TextList out;
      for (const auto i : *ints)
        out.push_back(fmt::format("{}", i));
      return out;
    }
    if (const auto* texts = std::get_if<TextList>(&p.value)) return *texts;
    return TextList{scalar_text(p.value)};
  }
  return std::nullopt;
}

std::string scalar_text(const Scalar& value) {
  struct Visitor {
    std::string operator()(std::monostate) const { return ""; }
    std::string operator()(bool b) const { return b ? "true" : "false"; }
    std::string operator()(std::int64_t i) const { return fmt::format("{}", i); }
    std::string operator()(double d) const { return format_number(d); }
    std::string operator()(const std::string& s) const { return s; }
    std::string operator()(const IntList& l) const { return fmt::format("{}", fmt::join(l, ",")); }
    std::string operator()(const TextList& l) const { return fmt::format("{}", fmt::join(l, ",")); }
  };
  return std::visit(Visitor{}, value);
}

bool is_decision_key(const std::string& key) {
  // agreement: counter agreements; outcome: bank-conflicts' comparisons, overlap's; holds: a source
  // claim; result: zerocopy's break-even; winner, effect, hurts, residual: l2-persist's window
  // decisions; slowdown: overlap's copies started together.
  static const char* const kKeys[] = {"agreement", "outcome", "holds",    "result",  "winner",
                                      "effect",    "hurts",   "residual", "slowdown"};
  return std::find(std::begin(kKeys), std::end(kKeys), key) != std::end(kKeys);
}

void order_findings(std::vector<Finding>& findings) {
  const auto rank = [](FindingKind k) {
    return k == FindingKind::kVerdict ? 0 : k == FindingKind::kWarning ? 1 : 2;
  };
  std::stable_sort(findings.begin(), findings.end(), [&rank](const Finding& a, const Finding& b) {
    return rank(a.kind) < rank(b.kind);
  });
}

}  // namespace gpuprobe
