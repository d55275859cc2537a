// Counter values beside model values: per-row derived pairs, the disagreement flag, and one
// finding per compared quantity.
#include "gpuprobe/core/counter_agreement.hpp"

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

CounterAgreement::CounterAgreement(CounterAgreementMaker make, std::string unit)
    : make_(std::move(make)), unit_(std::move(unit)) {}

void CounterAgreement::add(Row& row, const std::string& name, std::optional<double> counter,
                           std::optional<double> model) {
  add_bounded(row, name, counter, model, model);
}

void CounterAgreement::add_bounded(Row& row, const std::string& name, std::optional<double> counter,
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

std::optional<Finding> CounterAgreement::finding() const {
  if (compared_ == 0) return std::nullopt;
  // One identity whatever the decision: whether the rows agree is the outcome (with the row that
  // deviates most), so a quantity near the tolerance does not become another finding from run to
  // run. Disagreement is a warning: the model's columns of those rows (and what is computed from
  // them) rest on a count the hardware contradicts; the measured timing is not.
  CounterAgreementOutcome o;
  o.agree = off_ == 0;
  o.rows_off = off_;
  o.rows_compared = compared_;
  o.tolerance = kCounterModelTolerance * 100;
  o.deviation = (*worst_counter_ / *worst_model_ - 1) * 100;
  o.unit = unit_;
  o.counter = worst_counter_;
  o.model = worst_model_;
  o.point = worst_params_;
  return make_(o);
}

}  // namespace gpuprobe
