// compare's tally step: counts the classified values per probe and in all, collects the notable
// ones (regressions, slowdowns, improvements, inconclusives) worst first, and words the exit
// decisions (regression_summary, inconclusive_summary).
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "compare_steps.hpp"
#include "gpuprobe/core/units.hpp"

namespace gpuprobe {
namespace compare_steps {
namespace {

double severity(const NotableChange& c) {
  return c.comparison.ratio && *c.comparison.ratio > 0 ? std::fabs(std::log(*c.comparison.ratio))
                                                       : 0.0;
}

// How wide an interval is, as the log of high / low (0 without one).
double width(const NotableChange& c) {
  const auto& x = c.comparison;
  return x.ci_low && x.ci_high && *x.ci_low > 0 ? std::log(*x.ci_high / *x.ci_low) : 0.0;
}

// The count of a change among a tally's or the outcome's counts (they share the names).
template <typename Counts>
std::size_t& counter_of(Counts& counts, Change change) {
  switch (change) {
    case Change::kSame:
      return counts.same;
    case Change::kFaster:
      return counts.faster;
    case Change::kSlower:
      return counts.slower;
    case Change::kHigher:
      return counts.higher;
    case Change::kLower:
      return counts.lower;
    case Change::kInconclusive:
      return counts.inconclusive;
    case Change::kPosition:
      return counts.positions;
    case Change::kUndefined:
      break;
  }
  return counts.undefined;
}

}  // namespace

ProbeTally& tally_for(std::vector<ProbeTally>& tallies, const std::string& probe,
                      const DevicePair& devices) {
  for (auto& t : tallies) {
    if (t.probe == probe && t.devices == devices) return t;
  }
  tallies.push_back({});
  tallies.back().probe = probe;
  tallies.back().devices = devices;
  return tallies.back();
}

void tally_lone(const LoneResult& lone, ProbeTally& tally, CompareOutcome& out) {
  const std::size_t n = lone.result->rows.size();
  (lone.side == 'A' ? tally.only_a : tally.only_b) += n;
  (lone.side == 'A' ? out.unmatched_a : out.unmatched_b) += n;
}

void tally_pair(const std::string& probe, const DevicePair& devices, const PairComparison& pair,
                ProbeTally& tally, CompareOutcome& out) {
  tally.rows += pair.rows;
  tally.summary_rows += pair.summary_rows;
  tally.findings += pair.findings;
  out.matched_rows += pair.rows;
  out.matched_summary_rows += pair.summary_rows;
  out.matched_findings += pair.findings;
  tally.only_a += pair.only_a;
  tally.only_b += pair.only_b;
  out.unmatched_a += pair.only_a;
  out.unmatched_b += pair.only_b;
  out.band_only_a += pair.band_only_a;
  out.band_only_b += pair.band_only_b;
  for (const ComparedValue& v : pair.values) {
    const ValueComparison& c = v.comparison;
    ++out.comparisons;
    ++counter_of(tally, c.change);
    ++counter_of(out, c.change);
    const NotableChange notable{probe, devices, v.part, v.item, v.quantity, v.unit, c};
    if (c.regression) {
      ++tally.regressions;
      out.regressions.push_back(notable);
    }
    if (c.change == Change::kSlower) out.slowdowns.push_back(notable);
    if (c.change == Change::kFaster) out.improvements.push_back(notable);
    if (c.change == Change::kInconclusive) out.inconclusives.push_back(notable);
    if (v.part == ComparedPart::kRows) out.row_metrics.push_back(notable);
  }
}

void sort_notables(CompareOutcome& out) {
  auto worst_first = [](const NotableChange& x, const NotableChange& y) {
    return severity(x) > severity(y);
  };
  std::stable_sort(out.regressions.begin(), out.regressions.end(), worst_first);
  std::stable_sort(out.slowdowns.begin(), out.slowdowns.end(), worst_first);
  std::stable_sort(out.improvements.begin(), out.improvements.end(), worst_first);
  std::stable_sort(
      out.inconclusives.begin(), out.inconclusives.end(),
      [](const NotableChange& x, const NotableChange& y) { return width(x) > width(y); });
}

}  // namespace compare_steps

std::string inconclusive_summary(const CompareOutcome& outcome) {
  const std::string pct = format_number(outcome.margin * 100.0);
  if (outcome.inconclusives.empty())
    return fmt::format("no inconclusive comparison (95% interval not clear of +-{}%)", pct);
  const NotableChange& w = outcome.inconclusives.front();
  const ValueComparison& c = w.comparison;
  auto x = [](const std::optional<double>& v) { return v ? format_number(*v) : std::string("?"); };
  return fmt::format(
      "{} inconclusive comparison(s) (95% interval not clear of +-{}%): widest {}{} {} {} {}x "
      "[{}x, {}x]",
      outcome.inconclusives.size(), pct, w.probe,
      w.devices.a == w.devices.b ? "" : " (" + pair_text(w.devices) + ")", w.item, w.quantity,
      x(c.ratio), x(c.ci_low), x(c.ci_high));
}

std::string regression_summary(const CompareOutcome& outcome) {
  const std::string pct = format_number(outcome.threshold_pct.value_or(0));
  if (outcome.regressions.empty()) return fmt::format("no regression beyond {}%", pct);
  const NotableChange& w = outcome.regressions.front();
  return fmt::format("{} regression(s) beyond {}%: worst {}{} {} {} {}x",
                     outcome.regressions.size(), pct, w.probe,
                     w.devices.a == w.devices.b ? "" : " (" + pair_text(w.devices) + ")", w.item,
                     w.quantity, w.comparison.ratio ? format_number(*w.comparison.ratio) : "n/a");
}

}  // namespace gpuprobe
