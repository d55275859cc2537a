// Hardware counters beside a model, for the analyses: a row's counter values by name, one
// quantity measured from counters compared with the model's on every row that has both, the
// row flag where they differ and the one finding per quantity that says how it went.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuprobe/core/glossary.hpp"
#include "gpuprobe/core/result.hpp"

namespace gpuprobe {

// A counter value and the model's "disagree" when |counter / model - 1| exceeds this.
inline constexpr double kCounterModelTolerance = 0.05;
// The flag of a row where some counter-measured quantity disagrees with its model.
inline constexpr const char* kCounterModelFlag = "ctr-vs-model";

// The value of the counter `name` (the full CUPTI metric name) in `row`: nullopt when the row
// has no counters, the counter is not among them, or it could not be collected (null).
std::optional<double> counter_value(const Row& row, std::string_view name);

// a / b when both are known and b > 0, else nullopt.
std::optional<double> ratio_of(std::optional<double> a, std::optional<double> b);
// a + b when both are known, else nullopt.
std::optional<double> sum_of(std::optional<double> a, std::optional<double> b);

// Puts `value` into the row's model columns, replacing one of the same name: for a model value
// that is shown only beside its counter (rows without counters do not get it).
void set_model_value(Row& row, Quantity value);

// One quantity measured from counters (sectors per request, ...) against the model's value of
// the same quantity, over the rows of one probe result.
//
// add() puts two values into the row's derived: `name` (the counter-measured value) and
// `name + "_vs_model"` (counter / model), both null where either side is unknown (a metric not
// collected, no model for the row). Where both are known the row is compared, and flagged
// kCounterModelFlag when they differ by more than kCounterModelTolerance.
//
// finding() gives, once rows were compared, one finding "<id>" whatever the decision, so a
// quantity near the tolerance keeps its identity from run to run: outcome `agreement` "agree"
// (a verdict: every compared row within the tolerance) or "differ" (a warning: the model columns
// of those rows, and what is computed from them, rest on a count the hardware contradicts), with
// the row that deviates most (its params, in the outcome too); values: rows off, rows compared,
// the tolerance, that row's signed deviation and both numbers. nullopt when no row was compared
// (no counters, or none usable): then nothing is said.
class CounterCheck {
 public:
  // id: the finding id ("coalescing_counter_load_sectors"); unit: the quantity's unit.
  CounterCheck(std::string id, std::string unit);

  void add(Row& row, const std::string& name, std::optional<double> counter,
           std::optional<double> model);
  // The same against a model that bounds the quantity from both sides: a counter value within
  // [low, high] agrees; outside, it is compared with the nearer bound. `name + "_vs_model"` is
  // counter / low.
  void add_bounded(Row& row, const std::string& name, std::optional<double> counter,
                   std::optional<double> low, std::optional<double> high);

  std::optional<Finding> finding() const;

  std::size_t rows_compared() const { return compared_; }
  std::size_t rows_off() const { return off_; }

  // Registers the sentence of "<id>" (one for each agreement). `what` names the quantity in
  // running text ("load sectors per request (l1tex)"); `point` says which row the outcome names
  // ("stride 32, 4 B").
  static void add_phrasings(Glossary& glossary, const std::string& id, const std::string& what,
                            std::function<std::string(const Finding&)> point);

 private:
  std::string id_;
  std::string unit_;
  std::size_t compared_ = 0;
  std::size_t off_ = 0;
  double max_deviation_ = 0;  // |counter / model - 1| of the worst row
  std::optional<double> worst_counter_;
  std::optional<double> worst_model_;
  std::vector<Param> worst_params_;
};

}  // namespace gpuprobe
