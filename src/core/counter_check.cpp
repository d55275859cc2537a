// Counter values beside model values: per-row derived pairs, the disagreement flag, and one
// finding per compared quantity with its sentences.
#include "gpuprobe/core/counter_check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace gpuprobe {

std::optional<double> counter_value(const Row& row, std::string_view name) {
  if (!row.counters) return std::nullopt;
  for (const auto& q : *row.counters) {
    if (q.name == name) return q.value;
  }
  return std::nullopt;
}

std::optional<double> ratio_of(std::optional<double> a, std::optional<double> b) {
  if (!a || !b || !(*b > 0)) return std::nullopt;
  return *a / *b;
}

std::optional<double> sum_of(std::optional<double> a, std::optional<double> b) {
  if (!a || !b) return std::nullopt;
  return *a + *b;
}

void set_model_value(Row& row, Quantity value) {
  for (auto& q : row.model) {
    if (q.name == value.name) {
      q = std::move(value);
      return;
    }
  }
  row.model.push_back(std::move(value));
}

CounterCheck::CounterCheck(std::string id, std::string unit)
    : id_(std::move(id)), unit_(std::move(unit)) {}

void CounterCheck::add(Row& row, const std::string& name, std::optional<double> counter,
                       std::optional<double> model) {
  add_bounded(row, name, counter, model, model);
}

void CounterCheck::add_bounded(Row& row, const std::string& name, std::optional<double> counter,
                               std::optional<double> low, std::optional<double> high) {
  const std::optional<double> ratio = counter ? ratio_of(counter, low) : std::nullopt;
  row.derived.push_back({name, unit_, counter});
  row.derived.push_back({name + "_vs_model", "x", ratio});
  if (!ratio || !high || !(*high > 0)) return;
  ++compared_;
  // Inside [low, high] the model accounts for the value; outside, measured against the nearer end.
  const double bound = *counter > *high ? *high : *low;
  const double deviation =
      *counter >= *low && *counter <= *high ? 0.0 : std::fabs(*counter / bound - 1);
  if (deviation > kCounterModelTolerance) {
    ++off_;
    if (std::find(row.flags.begin(), row.flags.end(), kCounterModelFlag) == row.flags.end())
      row.flags.push_back(kCounterModelFlag);
  }
  if (compared_ == 1 || deviation > max_deviation_) {
    max_deviation_ = deviation;
    worst_counter_ = counter;
    worst_model_ = bound;
    worst_params_ = row.params;
  }
}

std::optional<Finding> CounterCheck::finding() const {
  if (compared_ == 0) return std::nullopt;
  const double tolerance = kCounterModelTolerance * 100;
  const double signed_deviation = (*worst_counter_ / *worst_model_ - 1) * 100;
  // One identity whatever the decision: whether the rows agree is the outcome (with the row that
  // deviates most), so a quantity near the tolerance does not become another finding from run to
  // run. Disagreement is a warning: the model's columns of those rows (and what is computed from
  // them) rest on a count the hardware contradicts; the measured timing is not.
  std::vector<Param> outcome = worst_params_;
  outcome.push_back({"agreement", std::string(off_ == 0 ? "agree" : "differ"), ""});
  std::vector<Quantity> values = {{"rows_off", "", static_cast<double>(off_)},
                                  {"rows_compared", "", static_cast<double>(compared_)},
                                  {"tolerance", "%", tolerance},
                                  {"deviation", "%", signed_deviation},
                                  {"counter", unit_, worst_counter_},
                                  {"model", unit_, worst_model_}};
  if (off_ == 0) return verdict(id_, {}, std::move(values), std::move(outcome));
  return warning(id_, {}, std::move(values), std::move(outcome));
}

namespace {

std::string rows_text(double n) {
  return fmt::format("{:g} row{}", n, n == 1 ? "" : "s");
}

}  // namespace

void CounterCheck::add_phrasings(Glossary& g, const std::string& id, const std::string& what,
                                 std::function<std::string(const Finding&)> point) {
  g.add_phrasing(id, [what, point](const Finding& f) {
    const double n = value_of(f, "rows_compared");
    if (param_text_of(f, "agreement") == "agree") {
      return fmt::format(
          "counters: {} agree with the model within {:g}% on {} {} with counters (largest "
          "deviation {:+.1f}%, at {}: {} measured vs {} model)",
          what, value_of(f, "tolerance"), n == 1 ? "the" : "all", rows_text(n),
          value_of(f, "deviation"), point(f), value_text(f, "counter"), value_text(f, "model"));
    }
    return fmt::format(
        "counters: {} differ from the model by more than {:g}% on {:g} of {} (flag {}); worst "
        "at {}: {} measured vs {} model ({:+.1f}%)",
        what, value_of(f, "tolerance"), value_of(f, "rows_off"), rows_text(n), kCounterModelFlag,
        point(f), value_text(f, "counter"), value_text(f, "model"), value_of(f, "deviation"));
  });
}

}  // namespace gpuprobe
