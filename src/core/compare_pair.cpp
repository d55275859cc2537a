// compare's classify step: matches the rows, summary rows and findings of one pair of results and
// decides same/faster/slower/higher/lower/inconclusive for each common value (bootstrapped
// intervals for row metrics with samples, all pairs at once), noting what is not compared.
#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <variant>
#include <vector>

#include <fmt/format.h>

#include "compare_findings.hpp"
#include "compare_steps.hpp"

namespace gpuprobe::compare_steps {
namespace {

namespace cf = compare_findings;

// bandwidth x time is the amount of work behind one timed unit; for rows with the same params
// it should be the same in both files. Returns B/A of it, or nullopt when a row lacks either.
std::optional<double> work_ratio(const Row& ra, const Row& rb) {
  auto work = [](const Row& r) -> std::optional<double> {
    const Metric* t = find_metric(r, "time");
    const Metric* bw = find_metric(r, "bandwidth");
    if (!t || !bw || t->unit != "s" || better_for_unit(bw->unit) != Better::kHigher)
      return std::nullopt;
    const double w = t->stats.median * bw->stats.median;
    return std::isfinite(w) && w > 0 ? std::optional<double>(w) : std::nullopt;
  };
  const auto wa = work(ra);
  const auto wb = work(rb);
  if (!wa || !wb) return std::nullopt;
  return *wb / *wa;
}

// Tolerance for work_ratio: medians of samples mapped by a monotonic function agree up to
// the averaging of two middle samples, so only a clear difference counts.
constexpr double kWorkTolerance = 0.02;

// How a matched finding's decision changed from A to B ("agreement agree -> differ"), or "" when
// it did not (is_decision_key: where an extreme lies is not a decision). An entry on one side
// only counts as changed to or from "-".
std::string outcome_change(const Finding& a, const Finding& b) {
  std::vector<std::string> parts;
  auto text = [](const std::vector<Param>& ps, const std::string& key) {
    const Param* p = find_param(ps, key);
    return p ? scalar_text(p->value) : std::string("-");
  };
  std::vector<std::string> keys;
  for (const auto* side : {&a.outcome, &b.outcome})
    for (const auto& p : *side)
      if (is_decision_key(p.key) && std::find(keys.begin(), keys.end(), p.key) == keys.end())
        keys.push_back(p.key);
  for (const auto& key : keys) {
    const std::string x = text(a.outcome, key), y = text(b.outcome, key);
    if (x != y) parts.push_back(fmt::format("{} {} -> {}", key, x, y));
  }
  return fmt::format("{}", fmt::join(parts, ", "));
}

// One side's names (metrics or values) of a matched item.
template <typename T>
std::vector<std::string> names_of(const std::vector<T>& items) {
  std::vector<std::string> out;
  for (const auto& x : items)
    out.push_back(x.name);
  return out;
}

// The names to compare among A's and B's (metrics or values): every common one, or those of
// --metric; the one-sided ones are counted as skipped.
std::vector<std::string> common_names(const CompareInputs& in, const std::string& probe,
                                      ComparedPart part, const std::vector<std::string>& a_names,
                                      const std::vector<std::string>& b_names,
                                      PairComparison& out) {
  auto has = [](const std::vector<std::string>& names, const std::string& n) {
    return std::find(names.begin(), names.end(), n) != names.end();
  };
  auto one_side = [&](const std::string& n, char side) {
    add_skipped(out.skipped, {probe, part, n, side, false, {}, {}, 1});
  };
  out.names_seen.insert(a_names.begin(), a_names.end());
  out.names_seen.insert(b_names.begin(), b_names.end());
  std::vector<std::string> names;
  const bool all = in.options.value_names.empty();
  for (const auto& n : all ? a_names : in.options.value_names) {
    const bool in_a = has(a_names, n);
    const bool in_b = has(b_names, n);
    if (in_a && in_b)
      names.push_back(n);
    else if (in_a)
      one_side(n, 'A');
    else if (in_b)
      one_side(n, 'B');
  }
  if (all) {
    for (const auto& n : b_names) {
      if (!has(a_names, n)) one_side(n, 'B');
    }
  }
  return names;
}

void note_unmatched(const ResultPairing& pairing, ComparedPart part, char side,
                    const std::vector<std::string>& items, PairComparison& out) {
  if (!items.empty())
    out.notes.push_back(cf::only_in(side, pairing.a->probe, pairing.devices, part, items));
}

// Notes the items found on one side only (named by `text`); returns how many per side.
template <typename T, typename Text>
std::pair<std::size_t, std::size_t> note_one_sided(const ResultPairing& pairing, ComparedPart part,
                                                   const KeyMatch& match, const std::vector<T>& a,
                                                   const std::vector<T>& b, Text text,
                                                   PairComparison& out) {
  std::vector<std::string> only_a, only_b;
  for (std::size_t i : match.only_a)
    only_a.push_back(text(a[i]));
  for (std::size_t j : match.only_b)
    only_b.push_back(text(b[j]));
  note_unmatched(pairing, part, 'A', only_a, out);
  note_unmatched(pairing, part, 'B', only_b, out);
  return {only_a.size(), only_b.size()};
}

// Rows whose work (bandwidth x time) differs between the files, as one note.
struct WorkDiffers {
  std::size_t rows = 0;
  double min = 0, max = 0;
  void add(const Row& x, const Row& y) {
    if (const auto w = work_ratio(x, y); w && std::fabs(*w - 1.0) > kWorkTolerance) {
      min = rows == 0 ? *w : std::min(min, *w);
      max = rows == 0 ? *w : std::max(max, *w);
      ++rows;
    }
  }
};

// Classifies the common metrics of one matched row.
void compare_row(const CompareInputs& in, const std::string& probe, const Row& x, const Row& y,
                 const Intervals& intervals, PairComparison& out) {
  for (const auto& name : common_names(in, probe, ComparedPart::kRows, names_of(x.metrics),
                                       names_of(y.metrics), out)) {
    const Metric* ma = find_metric(x, name);
    const Metric* mb = find_metric(y, name);
    if (ma->unit != mb->unit) {
      add_skipped(out.skipped,
                  {probe, ComparedPart::kRows, name, 'A', true, ma->unit, mb->unit, 1});
      continue;
    }
    const auto interval = intervals.find({ma, mb});
    const ValueComparison c =
        compare_metric(*ma, *mb, interval == intervals.end() ? std::nullopt : interval->second,
                       in.options.noise_k, in.options.fail_on_regression, in.options.same_within);
    if (c.method == CompareMethod::kBand) {
      out.band_only_a += ma->samples.empty() ? 1 : 0;
      out.band_only_b += mb->samples.empty() ? 1 : 0;
    }
    out.values.push_back(
        {ComparedPart::kRows, params_text(x.params), x.params, name, ma->unit, c, c.a, c.b});
  }
}

void compare_rows(const CompareInputs& in, const ResultPairing& pairing, const Intervals& intervals,
                  PairComparison& out) {
  const ProbeResult& ra = *pairing.a;
  const ProbeResult& rb = *pairing.b;
  const KeyMatch match = match_rows(ra.rows, rb.rows);
  WorkDiffers work;
  for (const auto& [i, j] : match.matched) {
    ++out.rows;
    compare_row(in, ra.probe, ra.rows[i], rb.rows[j], intervals, out);
    work.add(ra.rows[i], rb.rows[j]);
  }
  const auto [only_a, only_b] = note_one_sided(
      pairing, ComparedPart::kRows, match, ra.rows, rb.rows,
      [](const Row& r) { return params_text(r.params); }, out);
  out.only_a += only_a;
  out.only_b += only_b;
  if (work.rows > 0) {
    out.notes.push_back(cf::work_differs(ra.probe, pairing.devices, work.rows, match.matched.size(),
                                         work.min, work.max));
  }
}

// Compares the common noiseless values of a matched summary row or finding.
void compare_quantities(const CompareInputs& in, const std::string& probe, ComparedPart part,
                        const std::string& item, const std::vector<Param>& row_params,
                        const std::vector<Quantity>& a, const std::vector<Quantity>& b,
                        PairComparison& out) {
  for (const auto& name : common_names(in, probe, part, names_of(a), names_of(b), out)) {
    const Quantity* qa = find_quantity(a, name);
    const Quantity* qb = find_quantity(b, name);
    if (qa->unit != qb->unit) {
      add_skipped(out.skipped, {probe, part, name, 'A', true, qa->unit, qb->unit, 1});
      continue;
    }
    ValueComparison c = compare_quantity(*qa, *qb);
    if (is_position_value(name)) c.change = Change::kPosition;  // shown, never judged
    out.values.push_back({part, item, row_params, name, qa->unit, c, qa->value, qb->value});
  }
}

void compare_summaries(const CompareInputs& in, const ResultPairing& pairing, PairComparison& out) {
  const ProbeResult& ra = *pairing.a;
  const ProbeResult& rb = *pairing.b;
  const KeyMatch match = match_summaries(ra.summary, rb.summary);
  for (const auto& [i, j] : match.matched) {
    const SummaryRow& x = ra.summary[i];
    ++out.summary_rows;
    compare_quantities(in, ra.probe, ComparedPart::kSummary, "summary " + params_text(x.params),
                       x.params, x.values, rb.summary[j].values, out);
  }
  note_one_sided(
      pairing, ComparedPart::kSummary, match, ra.summary, rb.summary,
      [](const SummaryRow& s) { return params_text(s.params); }, out);
}

void compare_findings(const CompareInputs& in, const ResultPairing& pairing, PairComparison& out) {
  const ProbeResult& ra = *pairing.a;
  const ProbeResult& rb = *pairing.b;
  auto item_text = [](const Finding& f) {
    return f.params.empty() ? f.id : f.id + " " + params_text(f.params);
  };
  const KeyMatch match = match_findings(ra.findings, rb.findings);
  std::vector<std::string> changed;
  for (const auto& [i, j] : match.matched) {
    const Finding& x = ra.findings[i];
    if (const std::string c = outcome_change(x, rb.findings[j]); !c.empty())
      changed.push_back(item_text(x) + ": " + c);
    ++out.findings;
    std::vector<Param> row_params{{"finding", x.id, ""}};
    row_params.insert(row_params.end(), x.params.begin(), x.params.end());
    compare_quantities(in, ra.probe, ComparedPart::kFindings, "finding " + item_text(x), row_params,
                       x.values, rb.findings[j].values, out);
  }
  note_one_sided(pairing, ComparedPart::kFindings, match, ra.findings, rb.findings, item_text, out);
  if (!changed.empty())
    out.notes.push_back(cf::outcome_changed(ra.probe, pairing.devices, changed));
}

// Run parameters that differ (a quick run against a full one, other sizes...).
void note_run_params(const ProbeResult& ra, const ProbeResult& rb, PairComparison& out) {
  std::vector<cf::Difference> differ;
  for (const auto& p : ra.params) {
    const Param* q = find_param(rb.params, p.key);
    if (!q)
      differ.push_back({p.key, p.value, std::monostate{}});
    else if (canonical_scalar(p.value) != canonical_scalar(q->value))
      differ.push_back({p.key, p.value, q->value});
  }
  for (const auto& q : rb.params) {
    if (!find_param(ra.params, q.key)) differ.push_back({q.key, std::monostate{}, q.value});
  }
  if (!differ.empty()) out.notes.push_back(cf::run_params_differ(ra.probe, differ));
}

// How many of a side's files hold a row's metric with samples (the runs pooled into it): the
// same probe on the same device, a row with the same params, the metric with samples. Counted
// once for every file of the side, so that pooling many files stays linear in their size.
using HoldingKey = std::tuple<std::string, std::optional<int>, std::string, std::string>;
using Holding = std::map<HoldingKey, std::size_t>;

Holding runs_holding(const std::vector<SideFile>& files) {
  Holding out;
  for (const auto& f : files) {
    std::set<HoldingKey> in_file;
    for (const auto& r : f.run->results) {
      for (const auto& row : r.rows) {
        std::string key;  // made once for a row, and only when one of its metrics has samples
        for (const auto& m : row.metrics) {
          if (m.samples.empty()) continue;
          if (key.empty()) key = params_key(row.params);
          in_file.insert({r.probe, r.device, key, m.name});
        }
      }
    }
    for (const auto& k : in_file)
      ++out[k];
  }
  return out;
}

std::size_t runs_of(const Holding& holding, const ProbeResult& result, const Row& row,
                    const std::string& metric) {
  const auto it = holding.find({result.probe, result.device, params_key(row.params), metric});
  return std::max<std::size_t>(it == holding.end() ? 0 : it->second, 1);
}

}  // namespace

bool Skipped::same_kind(const Skipped& o) const {
  return probe == o.probe && part == o.part && quantity == o.quantity && side == o.side &&
         units_differ == o.units_differ && a_unit == o.a_unit && b_unit == o.b_unit;
}

void add_skipped(std::vector<Skipped>& kinds, Skipped skipped) {
  for (auto& s : kinds) {
    if (s.same_kind(skipped)) {
      s.items += skipped.items;
      return;
    }
  }
  kinds.push_back(std::move(skipped));
}

Intervals bootstrap_all(const CompareInputs& in, const std::vector<ResultPairing>& pairings) {
  const auto& wanted_names = in.options.value_names;
  auto wanted = [&](const std::string& name) {
    return wanted_names.empty() ||
           std::find(wanted_names.begin(), wanted_names.end(), name) != wanted_names.end();
  };
  std::vector<std::pair<const Metric*, const Metric*>> keys;
  std::vector<RatioTask> tasks;
  const Holding a_holding = runs_holding(in.a_files);
  const Holding b_holding = runs_holding(in.b_files);
  for (const auto& p : pairings) {
    if (p.a->status != Status::kOk || p.b->status != Status::kOk) continue;
    for (const auto& [i, j] : match_rows(p.a->rows, p.b->rows).matched) {
      for (const auto& ma : p.a->rows[i].metrics) {
        const Metric* mb = find_metric(p.b->rows[j], ma.name);
        if (!wanted(ma.name) || !mb || mb->unit != ma.unit || ma.samples.empty() ||
            mb->samples.empty())
          continue;
        keys.emplace_back(&ma, mb);
        tasks.push_back({&ma.samples, &mb->samples, runs_of(a_holding, *p.a, p.a->rows[i], ma.name),
                         runs_of(b_holding, *p.b, p.b->rows[j], ma.name)});
      }
    }
  }
  BootstrapOptions options;
  options.centred = true;  // compare's interval always holds its ratio
  const auto intervals = bootstrap_ratios(tasks, options);
  Intervals out;
  for (std::size_t k = 0; k < keys.size(); ++k)
    out[keys[k]] = intervals[k];
  return out;
}

PairComparison compare_pair(const CompareInputs& in, const ResultPairing& pairing,
                            const Intervals& intervals, bool findings_comparable) {
  PairComparison out;
  const ProbeResult& ra = *pairing.a;
  const ProbeResult& rb = *pairing.b;
  if (ra.status != Status::kOk || rb.status != Status::kOk) {
    out.notes.push_back(cf::not_ok(ra, rb, pairing.devices));
    return out;
  }
  compare_rows(in, pairing, intervals, out);
  compare_summaries(in, pairing, out);
  if (findings_comparable) compare_findings(in, pairing, out);
  note_run_params(ra, rb, out);
  return out;
}

}  // namespace gpuprobe::compare_steps
