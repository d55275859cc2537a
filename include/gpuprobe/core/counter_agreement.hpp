// Hardware counters beside a model, for the analyses: a row's counter values by name, one
// quantity measured from counters compared with the model's on every row that has both, the
// row flag where they differ and the one finding per quantity that says how it went.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "gpuprobe/core/finding_def.hpp"
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

// How a counter agreement came out: what its definition makes the finding from.
struct CounterAgreementOutcome {
  bool agree = true;
  std::size_t rows_off = 0;
  std::size_t rows_compared = 0;
  double tolerance = 0;  // %
  double deviation = 0;  // the worst row's, signed, %
  std::string unit;
  std::optional<double> counter;
  std::optional<double> model;
  std::vector<Param> point;  // the worst row's params
};
using CounterAgreementMaker = std::function<Finding(const CounterAgreementOutcome&)>;

// The fields every counter agreement's finding has; its point (the worst row's params) is the
// probe's.
namespace counter_agreement_fields {
constexpr Text<"agreement"> kAgreement;  // agree, differ
constexpr Value<"rows_off"> kRowsOff;
constexpr Value<"rows_compared"> kRowsCompared;
constexpr Value<"tolerance", "%"> kTolerance;
constexpr Value<"deviation", "%"> kDeviation;
constexpr ValueIn<"counter"> kCounter;
constexpr ValueIn<"model"> kModel;
}  // namespace counter_agreement_fields

// The sentence of every counter agreement: `what` names the quantity in running text ("load sectors
// per request (l1tex)"), `point` the row the outcome names ("stride 32, 4 B").
template <class View>
std::string counter_agreement_text(const View& f, std::string_view what, const std::string& point) {
  using namespace counter_agreement_fields;
  const double n = f.value(kRowsCompared);
  const std::string rows = fmt::format("{:g} row{}", n, n == 1 ? "" : "s");
  if (f[kAgreement] == "agree")
    return fmt::format(
        "counters: {} agree with the model within {:g}% on {} {} with counters (largest "
        "deviation {:+.1f}%, at {}: {} measured vs {} model)",
        what, f.value(kTolerance), n == 1 ? "the" : "all", rows, f.value(kDeviation), point,
        f[kCounter], f[kModel]);
  return fmt::format(
      "counters: {} differ from the model by more than {:g}% on {:g} of {} (flag {}); worst at "
      "{}: {} measured vs {} model ({:+.1f}%)",
      what, f.value(kTolerance), f.value(kRowsOff), rows, kCounterModelFlag, point, f[kCounter],
      f[kModel], f.value(kDeviation));
}

// Declares the finding `id` of one counter agreement in `list`: the quantity in running text, the
// params of the rows it compares (`point`: their handles) and how a sentence names such a row
// (`point_text`, reading those handles). Gives what CounterAgreement makes its finding with: a
// verdict when every compared row agrees, else the same finding as a warning.
template <class... H, class PointText>
CounterAgreementMaker define_counter_agreement(FindingList& list, std::string_view id,
                                               std::string_view what, Point<H...> point,
                                               PointText point_text) {
  using namespace counter_agreement_fields;
  const auto def = list.verdict_or_warning(
      id, params(), values(kRowsOff, kRowsCompared, kTolerance, kDeviation, kCounter, kModel),
      outcome(point, kAgreement),
      [what, point_text](const auto& f) { return counter_agreement_text(f, what, point_text(f)); });
  return [def, point](const CounterAgreementOutcome& o) {
    const auto make = [&](const auto&... given) {
      return o.agree ? def.make(given...) : def.make_warning(given...);
    };
    return make(kRowsOff(o.rows_off), kRowsCompared(o.rows_compared), kTolerance(o.tolerance),
                kDeviation(o.deviation), kCounter(o.unit, o.counter), kModel(o.unit, o.model),
                point(o.point), kAgreement(o.agree ? "agree" : "differ"));
  };
}

// One quantity measured from counters (sectors per request, ...) against the model's value of
// the same quantity, over the rows of one probe result.
//
// add() puts two values into the row's derived: `name` (the counter-measured value) and
// `name + "_vs_model"` (counter / model), both null where either side is unknown (a metric not
// collected, no model for the row). Where both are known the row is compared, and flagged
// kCounterModelFlag when they differ by more than kCounterModelTolerance.
//
// finding() gives, once rows were compared, one finding (its definition: define_counter_agreement)
// whatever the decision, so a
// quantity near the tolerance keeps its identity from run to run: outcome `agreement` "agree"
// (a verdict: every compared row within the tolerance) or "differ" (a warning: the model columns
// of those rows, and what is computed from them, rest on a count the hardware contradicts), with
// the row that deviates most (its params, in the outcome too); values: rows off, rows compared,
// the tolerance, that row's signed deviation and both numbers. nullopt when no row was compared
// (no counters, or none usable): then nothing is said.
class CounterAgreement {
 public:
  // make: the finding's definition (define_counter_agreement); unit: the quantity's unit.
  CounterAgreement(CounterAgreementMaker make, std::string unit);

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

 private:
  CounterAgreementMaker make_;
  std::string unit_;
  std::size_t compared_ = 0;
  std::size_t off_ = 0;
  double max_deviation_ = 0;  // |counter / model - 1| of the worst row
  std::optional<double> worst_counter_;
  std::optional<double> worst_model_;
  std::vector<Param> worst_params_;
};

}  // namespace gpuprobe
