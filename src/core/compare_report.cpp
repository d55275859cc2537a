// gpuprobe compare's report: walks the matched results, classifies each common value and
// assembles the "compare <probe>" results, the "compare" overview and its findings.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "compare_findings.hpp"
#include "gpuprobe/core/compare.hpp"
#include "gpuprobe/core/errors.hpp"
#include "gpuprobe/core/json_io.hpp"
#include "gpuprobe/core/units.hpp"

namespace gpuprobe {
namespace {

namespace cf = compare_findings;

constexpr std::size_t kListedChanges = 3;       // slowdowns / improvements among the verdicts
constexpr std::size_t kListedInconclusive = 5;  // inconclusive comparisons named, widest first

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

const DeviceInfo* find_device(const RunReport& report, int index) {
  for (const auto& d : report.devices) {
    if (d.index == index) return &d;
  }
  return nullptr;
}

// What a file holds, for the "no rows in common" message: "transfer on GPU 0, all (planned)".
std::string contents_text(const RunReport& report) {
  std::vector<std::string> parts;
  for (const auto& r : report.results) {
    parts.push_back(r.device ? fmt::format("{} on GPU {}", r.probe, *r.device)
                             : fmt::format("{} ({})", r.probe, status_name(r.status)));
  }
  return parts.empty() ? "no results" : fmt::format("{}", fmt::join(parts, ", "));
}

double severity(const NotableChange& c) {
  return c.comparison.ratio && *c.comparison.ratio > 0 ? std::fabs(std::log(*c.comparison.ratio))
                                                       : 0.0;
}

// How wide an interval is, as the log of high / low (0 without one).
double width(const NotableChange& c) {
  const auto& x = c.comparison;
  return x.ci_low && x.ci_high && *x.ci_low > 0 ? std::log(*x.ci_high / *x.ci_low) : 0.0;
}

// Counts for one (probe, device pair): a line of the overview's summary table.
struct ProbeTally {
  std::string probe;
  DevicePair devices;
  std::size_t rows = 0, summary_rows = 0, findings = 0;
  std::size_t same = 0, faster = 0, slower = 0, higher = 0, lower = 0, undefined = 0;
  std::size_t inconclusive = 0;
  std::size_t regressions = 0;
  std::size_t only_a = 0, only_b = 0;  // rows
};

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

// A value not compared, counted per kind: on one side only, or with a unit per side.
struct Skipped {
  std::string probe;
  ComparedPart part = ComparedPart::kRows;
  std::string quantity;
  char side = 'A';  // one side only: where it is
  bool units_differ = false;
  std::string a_unit, b_unit;
  std::size_t items = 0;
  bool same_kind(const Skipped& o) const {
    return probe == o.probe && part == o.part && quantity == o.quantity && side == o.side &&
           units_differ == o.units_differ && a_unit == o.a_unit && b_unit == o.b_unit;
  }
};

// One side's names (metrics or values) of a matched item.
template <typename T>
std::vector<std::string> names_of(const std::vector<T>& items) {
  std::vector<std::string> out;
  for (const auto& x : items)
    out.push_back(x.name);
  return out;
}

// A file of one side, for the notes.
struct SideFile {
  std::string name;
  const RunReport* run = nullptr;
};

// How many of a side's files hold this row's metric with samples (the runs pooled into it): the
// same probe on the same device, a row with the same params, the metric with samples.
std::size_t runs_holding(const std::vector<SideFile>& files, const ProbeResult& result,
                         const Row& row, const std::string& metric) {
  const std::string key = params_key(row.params);
  std::size_t n = 0;
  for (const auto& f : files) {
    bool found = false;
    for (const auto& r : f.run->results) {
      if (found || r.probe != result.probe || r.device != result.device) continue;
      for (const auto& other : r.rows) {
        const Metric* m = find_metric(other, metric);
        if (m && !m->samples.empty() && params_key(other.params) == key) found = true;
      }
    }
    n += found;
  }
  return std::max<std::size_t>(n, 1);
}

class Comparer {
 public:
  // a and b: each side's report (pooled when it has several files); a_files, b_files: the files
  // behind them, in order.
  Comparer(const RunReport& a, const RunReport& b, const CompareOptions& options,
           std::vector<SideFile> a_files, std::vector<SideFile> b_files)
      : a_(a),
        b_(b),
        options_(options),
        a_files_(std::move(a_files)),
        b_files_(std::move(b_files)) {}

  CompareOutcome run();

 private:
  // Bootstraps every row metric that has samples on both sides, all at once (over threads).
  void bootstrap_all(const std::vector<ResultPairing>& pairings);
  void compare_pair(const ResultPairing& pairing);
  void compare_rows(const ResultPairing& pairing, ProbeTally& tally,
                    std::vector<ValueTable>& tables);
  void compare_summaries(const ResultPairing& pairing, ProbeTally& tally,
                         std::vector<ValueTable>& tables);
  void compare_findings(const ResultPairing& pairing, ProbeTally& tally,
                        std::vector<ValueTable>& tables);
  // Compares the common noiseless values of a matched summary row or finding.
  void compare_quantities(const ResultPairing& pairing, ComparedPart part, const std::string& item,
                          const std::vector<Param>& row_params, const std::vector<Quantity>& a,
                          const std::vector<Quantity>& b, ProbeTally& tally,
                          std::vector<ValueTable>& tables);
  // Records one classified value: counts, notable changes, a row in its table.
  struct Compared {
    ComparedPart part;
    std::string item;
    std::vector<Param> row_params;
    std::string quantity;
    std::string unit;
    ValueComparison comparison;
    std::optional<double> a_value, b_value;
  };
  void record(const ResultPairing& pairing, Compared value, ProbeTally& tally,
              std::vector<ValueTable>& tables);
  // The names to compare among A's and B's (metrics or values), counting the one-sided ones.
  std::vector<std::string> common_names(const std::string& probe, ComparedPart part,
                                        const std::vector<std::string>& a_names,
                                        const std::vector<std::string>& b_names);
  void skip(Skipped skipped);
  void note_unmatched(const ResultPairing& pairing, ComparedPart part, char side,
                      const std::vector<std::string>& items);
  void environment_notes(const std::vector<DevicePair>& pairs);
  void no_comparison() const;  // throws the UsageError that says why nothing was compared
  ProbeTally& tally_for(const std::string& probe, const DevicePair& devices);
  ProbeResult table_result(const ResultPairing& pairing, ValueTable table) const;
  ProbeResult overview(const std::vector<DevicePair>& pairs) const;
  std::string overview_method() const;
  std::vector<SummaryRow> overview_counts() const;  // per probe and device pair
  std::vector<Finding> overview_findings() const;   // compare's verdicts and notes
  // "A GPU 0: NVIDIA H100 80GB HBM3 vs B GPU 0: NVIDIA H200": the heading of a comparison.
  std::string subject_text(const DevicePair& p) const;
  std::vector<Param> option_params() const;

  // compare_band_fallback notes of one side: each file without samples, else the side.
  void band_fallback_notes(char side, const std::vector<SideFile>& files, const std::string& name,
                           std::size_t comparisons, std::vector<Finding>& out) const;
  ComparedSide compared_side(char side, const std::vector<SideFile>& files,
                             const RunReport& report) const;

  const RunReport& a_;
  const RunReport& b_;
  const CompareOptions& options_;
  const std::vector<SideFile> a_files_;
  const std::vector<SideFile> b_files_;
  bool findings_comparable_ = true;  // false when a file is schema 1 (prose findings)
  CompareOutcome out_;
  std::vector<ProbeTally> tallies_;
  std::vector<Finding> notes_;
  std::set<std::string> names_seen_;  // metrics and values in any matched item, either side
  std::vector<Skipped> skipped_;
  std::map<std::pair<const Metric*, const Metric*>, std::optional<RatioInterval>> intervals_;
};

std::string Comparer::subject_text(const DevicePair& p) const {
  auto side = [](const char* label, const RunReport& r, int index) {
    const DeviceInfo* d = find_device(r, index);
    return d ? fmt::format("{} GPU {}: {}", label, index, d->name)
             : fmt::format("{} GPU {}", label, index);
  };
  return fmt::format("{} vs {}", side("A", a_, p.a), side("B", b_, p.b));
}

ProbeTally& Comparer::tally_for(const std::string& probe, const DevicePair& devices) {
  for (auto& t : tallies_) {
    if (t.probe == probe && t.devices == devices) return t;
  }
  tallies_.push_back({});
  tallies_.back().probe = probe;
  tallies_.back().devices = devices;
  return tallies_.back();
}

void Comparer::skip(Skipped skipped) {
  for (auto& s : skipped_) {
    if (s.same_kind(skipped)) {
      ++s.items;
      return;
    }
  }
  skipped.items = 1;
  skipped_.push_back(std::move(skipped));
}

std::vector<std::string> Comparer::common_names(const std::string& probe, ComparedPart part,
                                                const std::vector<std::string>& a_names,
                                                const std::vector<std::string>& b_names) {
  auto has = [](const std::vector<std::string>& names, const std::string& n) {
    return std::find(names.begin(), names.end(), n) != names.end();
  };
  auto one_side = [&](const std::string& n, char side) {
    Skipped s;
    s.probe = probe;
    s.part = part;
    s.quantity = n;
    s.side = side;
    skip(std::move(s));
  };
  names_seen_.insert(a_names.begin(), a_names.end());
  names_seen_.insert(b_names.begin(), b_names.end());
  std::vector<std::string> out;
  if (options_.value_names.empty()) {
    for (const auto& n : a_names) {
      if (has(b_names, n))
        out.push_back(n);
      else
        one_side(n, 'A');
    }
    for (const auto& n : b_names) {
      if (!has(a_names, n)) one_side(n, 'B');
    }
    return out;
  }
  for (const auto& n : options_.value_names) {
    const bool in_a = has(a_names, n);
    const bool in_b = has(b_names, n);
    if (in_a && in_b)
      out.push_back(n);
    else if (in_a)
      one_side(n, 'A');
    else if (in_b)
      one_side(n, 'B');
  }
  return out;
}

void Comparer::record(const ResultPairing& pairing, Compared v, ProbeTally& tally,
                      std::vector<ValueTable>& tables) {
  const ValueComparison& c = v.comparison;
  ++out_.comparisons;
  switch (c.change) {
    case Change::kSame:
      ++tally.same, ++out_.same;
      break;
    case Change::kFaster:
      ++tally.faster, ++out_.faster;
      break;
    case Change::kSlower:
      ++tally.slower, ++out_.slower;
      break;
    case Change::kHigher:
      ++tally.higher, ++out_.higher;
      break;
    case Change::kLower:
      ++tally.lower, ++out_.lower;
      break;
    case Change::kInconclusive:
      ++tally.inconclusive, ++out_.inconclusive;
      break;
    case Change::kUndefined:
      ++tally.undefined, ++out_.undefined;
      break;
  }
  const NotableChange notable{pairing.a->probe, pairing.devices, v.part, v.item,
                              v.quantity,       v.unit,          c};
  if (c.regression) {
    ++tally.regressions;
    out_.regressions.push_back(notable);
  }
  if (c.change == Change::kSlower) out_.slowdowns.push_back(notable);
  if (c.change == Change::kFaster) out_.improvements.push_back(notable);
  if (c.change == Change::kInconclusive) out_.inconclusives.push_back(notable);

  const bool rows = v.part == ComparedPart::kRows;
  Row row;
  row.params = std::move(v.row_params);
  row.params.push_back({rows ? "metric" : "value", v.quantity, ""});
  row.params.push_back({"method", std::string(compare_method_name(c.method)), ""});
  row.params.push_back({"change", std::string(change_name(c.change)), ""});
  row.derived = {{"a", v.unit, v.a_value},
                 {"b", v.unit, v.b_value},
                 {"ratio", "x", c.ratio},
                 {"ci_low", "x", c.ci_low},
                 {"ci_high", "x", c.ci_high}};
  if (c.regression) row.flags.push_back("regression");
  // Rows: one table per metric; summary and finding values: one per unit.
  auto table = std::find_if(tables.begin(), tables.end(), [&](const ValueTable& t) {
    return t.part == v.part && t.unit == v.unit && (!rows || t.metric == v.quantity);
  });
  if (table == tables.end()) {
    tables.push_back({v.part, rows ? v.quantity : std::string(), v.unit, {}, false, false});
    table = std::prev(tables.end());
  }
  (c.method == CompareMethod::kBootstrap ? table->bootstrap : table->band) = true;
  table->rows.push_back(std::move(row));
}

void Comparer::note_unmatched(const ResultPairing& pairing, ComparedPart part, char side,
                              const std::vector<std::string>& items) {
  if (!items.empty())
    notes_.push_back(cf::only_in(side, pairing.a->probe, pairing.devices, part, items));
}

void Comparer::compare_rows(const ResultPairing& pairing, ProbeTally& tally,
                            std::vector<ValueTable>& tables) {
  const ProbeResult& ra = *pairing.a;
  const ProbeResult& rb = *pairing.b;
  const KeyMatch match = match_rows(ra.rows, rb.rows);
  std::size_t work_differs = 0;
  double work_min = 0, work_max = 0;
  for (const auto& [i, j] : match.matched) {
    const Row& x = ra.rows[i];
    const Row& y = rb.rows[j];
    ++tally.rows;
    ++out_.matched_rows;
    const auto names =
        common_names(ra.probe, ComparedPart::kRows, names_of(x.metrics), names_of(y.metrics));
    for (const auto& name : names) {
      const Metric* ma = find_metric(x, name);
      const Metric* mb = find_metric(y, name);
      if (ma->unit != mb->unit) {
        skip({ra.probe, ComparedPart::kRows, name, 'A', true, ma->unit, mb->unit, 0});
        continue;
      }
      const auto interval = intervals_.find({ma, mb});
      const ValueComparison c =
          compare_metric(*ma, *mb, interval == intervals_.end() ? std::nullopt : interval->second,
                         options_.noise_k, options_.fail_on_regression, options_.same_within);
      if (c.method == CompareMethod::kBand) {
        out_.band_only_a += ma->samples.empty() ? 1 : 0;
        out_.band_only_b += mb->samples.empty() ? 1 : 0;
      }
      record(pairing,
             {ComparedPart::kRows, params_text(x.params), x.params, name, ma->unit, c, c.a, c.b},
             tally, tables);
    }
    if (const auto w = work_ratio(x, y); w && std::fabs(*w - 1.0) > kWorkTolerance) {
      work_min = work_differs == 0 ? *w : std::min(work_min, *w);
      work_max = work_differs == 0 ? *w : std::max(work_max, *w);
      ++work_differs;
    }
  }
  std::vector<std::string> only_a, only_b;
  for (std::size_t i : match.only_a)
    only_a.push_back(params_text(ra.rows[i].params));
  for (std::size_t j : match.only_b)
    only_b.push_back(params_text(rb.rows[j].params));
  tally.only_a += only_a.size();
  tally.only_b += only_b.size();
  out_.unmatched_a += only_a.size();
  out_.unmatched_b += only_b.size();
  note_unmatched(pairing, ComparedPart::kRows, 'A', only_a);
  note_unmatched(pairing, ComparedPart::kRows, 'B', only_b);
  if (work_differs > 0) {
    notes_.push_back(cf::work_differs(ra.probe, pairing.devices, work_differs, match.matched.size(),
                                      work_min, work_max));
  }
}

void Comparer::compare_quantities(const ResultPairing& pairing, ComparedPart part,
                                  const std::string& item, const std::vector<Param>& row_params,
                                  const std::vector<Quantity>& a, const std::vector<Quantity>& b,
                                  ProbeTally& tally, std::vector<ValueTable>& tables) {
  const std::string& probe = pairing.a->probe;
  for (const auto& name : common_names(probe, part, names_of(a), names_of(b))) {
    const Quantity* qa = find_quantity(a, name);
    const Quantity* qb = find_quantity(b, name);
    if (qa->unit != qb->unit) {
      skip({probe, part, name, 'A', true, qa->unit, qb->unit, 0});
      continue;
    }
    const ValueComparison c = compare_quantity(*qa, *qb);
    record(pairing, {part, item, row_params, name, qa->unit, c, qa->value, qb->value}, tally,
           tables);
  }
}

void Comparer::compare_summaries(const ResultPairing& pairing, ProbeTally& tally,
                                 std::vector<ValueTable>& tables) {
  const ProbeResult& ra = *pairing.a;
  const ProbeResult& rb = *pairing.b;
  const KeyMatch match = match_summaries(ra.summary, rb.summary);
  for (const auto& [i, j] : match.matched) {
    const SummaryRow& x = ra.summary[i];
    ++tally.summary_rows;
    ++out_.matched_summary_rows;
    compare_quantities(pairing, ComparedPart::kSummary, "summary " + params_text(x.params),
                       x.params, x.values, rb.summary[j].values, tally, tables);
  }
  std::vector<std::string> only_a, only_b;
  for (std::size_t i : match.only_a)
    only_a.push_back(params_text(ra.summary[i].params));
  for (std::size_t j : match.only_b)
    only_b.push_back(params_text(rb.summary[j].params));
  note_unmatched(pairing, ComparedPart::kSummary, 'A', only_a);
  note_unmatched(pairing, ComparedPart::kSummary, 'B', only_b);
}

void Comparer::compare_findings(const ResultPairing& pairing, ProbeTally& tally,
                                std::vector<ValueTable>& tables) {
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
    ++tally.findings;
    ++out_.matched_findings;
    std::vector<Param> row_params{{"finding", x.id, ""}};
    row_params.insert(row_params.end(), x.params.begin(), x.params.end());
    compare_quantities(pairing, ComparedPart::kFindings, "finding " + item_text(x), row_params,
                       x.values, rb.findings[j].values, tally, tables);
  }
  std::vector<std::string> only_a, only_b;
  for (std::size_t i : match.only_a)
    only_a.push_back(item_text(ra.findings[i]));
  for (std::size_t j : match.only_b)
    only_b.push_back(item_text(rb.findings[j]));
  note_unmatched(pairing, ComparedPart::kFindings, 'A', only_a);
  note_unmatched(pairing, ComparedPart::kFindings, 'B', only_b);
  if (!changed.empty()) notes_.push_back(cf::outcome_changed(ra.probe, pairing.devices, changed));
}

void Comparer::bootstrap_all(const std::vector<ResultPairing>& pairings) {
  auto wanted = [&](const std::string& name) {
    return options_.value_names.empty() || std::find(options_.value_names.begin(), options_.value_names.end(),
                                                 name) != options_.value_names.end();
  };
  std::vector<std::pair<const Metric*, const Metric*>> keys;
  std::vector<RatioTask> tasks;
  for (const auto& p : pairings) {
    if (p.a->status != Status::kOk || p.b->status != Status::kOk) continue;
    for (const auto& [i, j] : match_rows(p.a->rows, p.b->rows).matched) {
      for (const auto& ma : p.a->rows[i].metrics) {
        const Metric* mb = find_metric(p.b->rows[j], ma.name);
        if (!wanted(ma.name) || !mb || mb->unit != ma.unit || ma.samples.empty() ||
            mb->samples.empty())
          continue;
        keys.emplace_back(&ma, mb);
        tasks.push_back({&ma.samples, &mb->samples,
                         runs_holding(a_files_, *p.a, p.a->rows[i], ma.name),
                         runs_holding(b_files_, *p.b, p.b->rows[j], ma.name)});
      }
    }
  }
  const auto intervals = bootstrap_ratios(tasks);
  for (std::size_t k = 0; k < keys.size(); ++k)
    intervals_[keys[k]] = intervals[k];
}

void Comparer::compare_pair(const ResultPairing& pairing) {
  const ProbeResult& ra = *pairing.a;
  const ProbeResult& rb = *pairing.b;
  ProbeTally& tally = tally_for(ra.probe, pairing.devices);
  if (ra.status != Status::kOk || rb.status != Status::kOk) {
    notes_.push_back(cf::not_ok(ra, rb, pairing.devices));
    return;
  }
  std::vector<ValueTable> tables;
  compare_rows(pairing, tally, tables);
  compare_summaries(pairing, tally, tables);
  if (findings_comparable_) compare_findings(pairing, tally, tables);

  // Run parameters that differ (a quick run against a full one, other sizes...).
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
  if (!differ.empty()) notes_.push_back(cf::run_params_differ(ra.probe, differ));

  // Tables in part order (rows, summary, findings), each in order of first appearance.
  std::stable_sort(tables.begin(), tables.end(), [](const ValueTable& x, const ValueTable& y) {
    return static_cast<int>(x.part) < static_cast<int>(y.part);
  });
  for (auto& table : tables)
    out_.report.results.push_back(table_result(pairing, std::move(table)));
}

std::vector<Param> Comparer::option_params() const {
  std::vector<Param> params{{"same_within", options_.same_within * 100.0, "%"},
                            {"margin", out_.margin * 100.0, "%"},
                            {"noise_k", options_.noise_k, ""}};
  if (options_.fail_on_regression)
    params.push_back({"fail_on_regression", *options_.fail_on_regression, "%"});
  else
    params.push_back({"fail_on_regression", std::monostate{}, "%"});
  params.push_back({"fail_on_inconclusive", options_.fail_on_inconclusive, ""});
  return params;
}

// The bootstrap rule in words, for method lines: "... same when the interval lies within
// +-2%, slower or faster when it lies wholly beyond that, else inconclusive".
std::string bootstrap_rule_text(double margin_pct, const std::string& changes) {
  return fmt::format(
      "95% interval of the ratio by a hierarchical bootstrap ({} resamples: rounds with "
      "replacement, then samples within them; fixed seed): same when it lies within +-{}%, {} "
      "when wholly beyond, else inconclusive",
      kBootstrapResamples, format_number(margin_pct), changes);
}

ProbeResult Comparer::table_result(const ResultPairing& pairing, ValueTable table) const {
  const DeviceInfo* da = find_device(a_, pairing.devices.a);
  const DeviceInfo* db = find_device(b_, pairing.devices.b);
  auto device_name = [](const DeviceInfo* d) { return d ? d->name : std::string("?"); };
  const bool rows = table.part == ComparedPart::kRows;
  ProbeResult r;
  r.probe = "compare " + pairing.a->probe;
  r.device = pairing.devices.a;
  r.subject = subject_text(pairing.devices);
  const Better better = better_for_unit(table.unit);
  const char* rule = better == Better::kLower    ? "lower is faster"
                     : better == Better::kHigher ? "higher is faster"
                                                 : "no better side: higher/lower";
  const std::string what =
      rows ? fmt::format("{} [{}]: ratio = B/A of the medians of all samples", table.metric,
                         table.unit)
           : fmt::format("{} values [{}]: ratio = B/A",
                         table.part == ComparedPart::kSummary ? "summary" : "finding", table.unit);
  std::vector<std::string> rules;
  if (table.bootstrap) {
    rules.push_back(bootstrap_rule_text(
        out_.margin * 100.0, better == Better::kNone ? "higher or lower" : "slower or faster"));
  }
  if (table.band) {
    const std::string band =
        rows ? fmt::format("max({}%, {} x the larger rel_noise)", kCompareNoiseFloor * 100,
                           format_number(options_.noise_k))
             : fmt::format("{}% (values without samples carry no noise)", kCompareNoiseFloor * 100);
    rules.push_back(fmt::format("{}same when |ratio - 1| <= {}",
                                rows ? "rows without samples (band): " : "", band));
  }
  if (!rows) rules.push_back("never a regression (derived from rows, which are checked)");
  r.method = fmt::format("{} GPU {} ({}) vs {} GPU {} ({}); {}, {}; {}", options_.a_name,
                         pairing.devices.a, device_name(da), options_.b_name, pairing.devices.b,
                         device_name(db), what, rule, fmt::join(rules, "; "));
  r.params = {{"compared", std::string(compared_part_name(table.part)), ""}};
  if (rows) r.params.push_back({"metric", table.metric, ""});
  r.params.push_back({"unit", table.unit, ""});
  r.params.push_back({"a_file", options_.a_name, ""});
  r.params.push_back({"a_device", std::int64_t{pairing.devices.a}, ""});
  r.params.push_back({"b_file", options_.b_name, ""});
  r.params.push_back({"b_device", std::int64_t{pairing.devices.b}, ""});
  for (auto& p : option_params())
    r.params.push_back(std::move(p));
  r.rows = std::move(table.rows);
  return r;
}

void Comparer::environment_notes(const std::vector<DevicePair>& pairs) {
  for (const auto& f : a_files_)
    notes_.push_back(cf::file('A', f.name, *f.run));
  for (const auto& f : b_files_)
    notes_.push_back(cf::file('B', f.name, *f.run));
  if (a_.schema_version < 2) notes_.push_back(cf::schema1_input('A', options_.a_name));
  if (b_.schema_version < 2) notes_.push_back(cf::schema1_input('B', options_.b_name));
  for (const auto& p : pairs) {
    const DeviceInfo* da = find_device(a_, p.a);
    const DeviceInfo* db = find_device(b_, p.b);
    if (!da || !db) continue;
    if (da->name != db->name)
      notes_.push_back(cf::different_models(p, da->name, db->name));
    else if (!da->uuid.empty() && da->uuid == db->uuid)
      notes_.push_back(cf::same_gpu(p, da->name, da->uuid));
    else if (!da->uuid.empty() && !db->uuid.empty())
      notes_.push_back(cf::same_model(p, da->name));
  }
  std::vector<cf::Difference> differ;
  auto check = [&](const char* what, const std::string& x, const std::string& y) {
    if (x != y) differ.push_back({what, x, y});
  };
  check("driver", format_cuda_version(a_.host.driver_version),
        format_cuda_version(b_.host.driver_version));
  check("runtime", format_cuda_version(a_.host.runtime_version),
        format_cuda_version(b_.host.runtime_version));
  check("gpuprobe", a_.tool.version, b_.tool.version);
  check("git", a_.tool.git, b_.tool.git);
  check("host", a_.host.hostname, b_.host.hostname);
  notes_.push_back(cf::environment(differ));
}

std::string Comparer::overview_method() const {
  const std::string pct = format_number(options_.fail_on_regression.value_or(0));
  return fmt::format(
      "rows matched by probe, device pair and row params (any order), summary rows by params, "
      "findings by id and params; ratio = B/A of the medians (of all samples) or values; row "
      "metrics with samples on both sides: {}; without samples (schema 1 and 2 files) and summary "
      "and finding values: same when |ratio - 1| <= max({}%, K x the larger rel_noise), K = {}; "
      "time (s): higher is slower; rates (/s): higher is faster; other units: higher/lower{}",
      bootstrap_rule_text(out_.margin * 100.0, "slower/faster (higher/lower)"),
      kCompareNoiseFloor * 100, format_number(options_.noise_k),
      options_.fail_on_regression
          ? fmt::format("; regression: a slower row metric wholly beyond {}% (band: its ratio); "
                        "summary and finding values never count",
                        pct)
          : std::string());
}

std::vector<SummaryRow> Comparer::overview_counts() const {
  std::vector<SummaryRow> out;
  const bool any_neutral = out_.higher + out_.lower > 0;
  for (const auto& t : tallies_) {
    SummaryRow s;
    s.params = {{"probe", t.probe, ""},
                {"a_device", std::int64_t{t.devices.a}, ""},
                {"b_device", std::int64_t{t.devices.b}, ""}};
    auto count = [&](const char* name, std::size_t v) {
      s.values.push_back({name, "", static_cast<double>(v)});
    };
    count("rows", t.rows);
    if (out_.matched_summary_rows > 0) count("summary_rows", t.summary_rows);
    if (out_.matched_findings > 0) count("findings", t.findings);
    count("faster", t.faster);
    count("slower", t.slower);
    count("same", t.same);
    if (out_.inconclusive > 0) count("inconclusive", t.inconclusive);
    if (any_neutral) {
      count("higher", t.higher);
      count("lower", t.lower);
    }
    if (out_.undefined > 0) count("n/a", t.undefined);
    if (options_.fail_on_regression) count("regressions", t.regressions);
    count("only_in_a", t.only_a);
    count("only_in_b", t.only_b);
    out.push_back(std::move(s));
  }
  return out;
}

std::vector<Finding> Comparer::overview_findings() const {
  std::vector<Finding> out{cf::counts(out_)};
  if (options_.fail_on_regression) {
    out.push_back(cf::regression_threshold(*options_.fail_on_regression, out_.regressions.size()));
  }
  for (std::size_t i = 0; i < out_.slowdowns.size() && i < kListedChanges; ++i)
    out.push_back(cf::change(out_.slowdowns[i]));
  for (std::size_t i = 0; i < out_.improvements.size() && i < kListedChanges; ++i)
    out.push_back(cf::change(out_.improvements[i]));
  for (std::size_t i = 0; i < out_.inconclusives.size() && i < kListedInconclusive; ++i)
    out.push_back(cf::inconclusive(out_.inconclusives[i], out_.margin));
  for (const auto& f : notes_)
    out.push_back(f);
  band_fallback_notes('A', a_files_, options_.a_name, out_.band_only_a, out);
  band_fallback_notes('B', b_files_, options_.b_name, out_.band_only_b, out);
  for (const auto& s : skipped_) {
    out.push_back(s.units_differ
                      ? cf::unit_differs(s.probe, s.part, s.quantity, s.a_unit, s.b_unit, s.items)
                      : cf::one_side(s.probe, s.part, s.quantity, s.side, s.items));
  }
  return out;
}

ProbeResult Comparer::overview(const std::vector<DevicePair>& pairs) const {
  ProbeResult r;
  r.probe = "compare";
  r.device = pairs.empty() ? std::optional<int>{} : std::optional<int>{pairs.front().a};
  std::vector<std::string> subjects;
  for (const auto& p : pairs)
    subjects.push_back(subject_text(p));
  r.subject =
      subjects.empty() ? std::string("no GPU pairs") : fmt::format("{}", fmt::join(subjects, "; "));
  r.method = overview_method();
  std::vector<std::string> pair_texts;
  for (const auto& p : pairs)
    pair_texts.push_back(fmt::format("{}:{}", p.a, p.b));
  r.params = {{"a_file", options_.a_name, ""},
              {"b_file", options_.b_name, ""},
              {"devices", fmt::format("{}", fmt::join(pair_texts, ",")), ""},
              {"metrics",
               options_.value_names.empty() ? std::string("all common")
                                        : fmt::format("{}", fmt::join(options_.value_names, ",")),
               ""}};
  for (auto& p : option_params())
    r.params.push_back(std::move(p));
  r.summary = overview_counts();
  r.findings = overview_findings();
  phrase_findings(r, compare_glossary());
  return r;
}

ComparedSide Comparer::compared_side(char side, const std::vector<SideFile>& files,
                                     const RunReport& report) const {
  ComparedSide out;
  out.label = std::string(1, side);
  for (const auto& f : files)
    out.files.push_back(f.name);
  out.tool = report.tool;
  out.host = report.host;
  out.started_at = report.started_at;
  out.devices = report.devices;
  return out;
}

// Whether any row metric of a run has samples.
bool has_samples(const RunReport& run) {
  for (const auto& r : run.results) {
    for (const auto& row : r.rows) {
      for (const auto& m : row.metrics) {
        if (!m.samples.empty()) return true;
      }
    }
  }
  return false;
}

void Comparer::band_fallback_notes(char side, const std::vector<SideFile>& files,
                                   const std::string& name, std::size_t comparisons,
                                   std::vector<Finding>& out) const {
  if (comparisons == 0) return;
  std::size_t named = 0;
  for (const auto& f : files) {
    if (has_samples(*f.run)) continue;
    out.push_back(cf::band_fallback(side, f.name, f.run->schema_version, comparisons));
    ++named;
  }
  // Every file has samples somewhere, but not for these metrics: name the side.
  if (named == 0) out.push_back(cf::band_fallback(side, name, std::nullopt, comparisons));
}

void Comparer::no_comparison() const {
  if (out_.matched_rows > 0) {
    throw UsageError(fmt::format("{} rows match but no metric is in both files' rows{}",
                                 out_.matched_rows,
                                 options_.value_names.empty() ? "" : " (check --metric)"));
  }
  std::string hint;
  const std::set<int> in_a = result_devices(a_);
  const std::set<int> in_b = result_devices(b_);
  if (options_.devices.empty() && !in_a.empty() && !in_b.empty() && in_a != in_b) {
    hint = fmt::format("; {} has GPU {}, {} has GPU {}: pair them with --devices A:B",
                       options_.a_name, device_list(in_a), options_.b_name, device_list(in_b));
  }
  throw UsageError(
      fmt::format("no rows in common: different probes or parameters? ({} holds {}; {} holds {}){}",
                  options_.a_name, contents_text(a_), options_.b_name, contents_text(b_), hint));
}

CompareOutcome Comparer::run() {
  if (!(options_.noise_k >= 0) || !std::isfinite(options_.noise_k))
    throw UsageError(fmt::format("--noise-k {}: give a number >= 0", options_.noise_k));
  if (options_.fail_on_regression &&
      (!(*options_.fail_on_regression >= 0) || !std::isfinite(*options_.fail_on_regression))) {
    throw UsageError(fmt::format("--fail-on-regression {}: give a percentage >= 0",
                                 *options_.fail_on_regression));
  }
  if (!(options_.same_within >= 0) || !std::isfinite(options_.same_within)) {
    throw UsageError(fmt::format("--same-within {}%: give a percentage >= 0",
                                 format_number(options_.same_within * 100.0)));
  }
  out_.threshold_pct = options_.fail_on_regression;
  out_.margin = decision_margin(options_.same_within, options_.fail_on_regression);
  findings_comparable_ = a_.schema_version >= 2 && b_.schema_version >= 2;
  const std::vector<DevicePair> pairs =
      device_pairs(a_, b_, options_.devices, options_.a_name, options_.b_name);
  environment_notes(pairs);

  const ResultMatch match = match_results(a_, b_, pairs);
  for (const auto& [result, side] : match.unmeasured)
    notes_.push_back(cf::not_measured(*result, side));
  // The overview lists probes in A's order, then those only in B.
  for (const auto& ra : a_.results) {
    for (const auto& p : match.pairs) {
      if (p.a == &ra) tally_for(ra.probe, p.devices);
    }
    for (const auto& lone : match.lone) {
      if (lone.result == &ra) tally_for(ra.probe, lone.devices);
    }
  }
  for (const auto& lone : match.lone) {
    ProbeTally& t = tally_for(lone.result->probe, lone.devices);
    const std::size_t n = lone.result->rows.size();
    (lone.side == 'A' ? t.only_a : t.only_b) += n;
    (lone.side == 'A' ? out_.unmatched_a : out_.unmatched_b) += n;
    notes_.push_back(cf::result_only_in(*lone.result, lone.side, lone.devices));
  }
  if (match.outside_a + match.outside_b > 0)
    notes_.push_back(cf::outside_devices(match.outside_a, match.outside_b));
  bootstrap_all(match.pairs);
  for (const auto& pairing : match.pairs)
    compare_pair(pairing);

  for (const auto& name : options_.value_names) {
    if (!names_seen_.count(name)) {
      throw UsageError(fmt::format(
          "--metric {}: no matched row, summary row or finding has this metric or value (they "
          "have: {})",
          name,
          names_seen_.empty() ? std::string("none")
                              : fmt::format("{}", fmt::join(names_seen_, ", "))));
    }
  }
  if (out_.comparisons == 0) no_comparison();

  auto worst_first = [](const NotableChange& x, const NotableChange& y) {
    return severity(x) > severity(y);
  };
  std::stable_sort(out_.regressions.begin(), out_.regressions.end(), worst_first);
  std::stable_sort(out_.slowdowns.begin(), out_.slowdowns.end(), worst_first);
  std::stable_sort(out_.improvements.begin(), out_.improvements.end(), worst_first);
  std::stable_sort(
      out_.inconclusives.begin(), out_.inconclusives.end(),
      [](const NotableChange& x, const NotableChange& y) { return width(x) > width(y); });

  out_.report.schema_version = kSchemaVersion;
  out_.report.host = a_.host;  // the header shows both sides (sides); these stay A's for scripts
  out_.report.devices = a_.devices;
  out_.report.sides = {compared_side('A', a_files_, a_), compared_side('B', b_files_, b_)};
  out_.report.results.push_back(overview(pairs));
  return std::move(out_);
}

}  // namespace

const char* compared_part_name(ComparedPart part) noexcept {
  switch (part) {
    case ComparedPart::kRows:
      return "rows";
    case ComparedPart::kSummary:
      return "summary";
    case ComparedPart::kFindings:
      return "findings";
  }
  return "rows";
}

CompareOutcome compare_reports(const RunReport& a, const RunReport& b,
                               const CompareOptions& options) {
  return Comparer(a, b, options, {{options.a_name, &a}}, {{options.b_name, &b}}).run();
}

CompareOutcome compare_sides(const CompareSide& a, const CompareSide& b, CompareOptions options) {
  for (const CompareSide* side : {&a, &b}) {
    if (side->runs.empty() || side->runs.size() != side->files.size())
      throw std::invalid_argument("compare_sides: a side needs one run per file, and a file");
  }
  options.a_name = side_name("A", a.files);
  options.b_name = side_name("B", b.files);
  auto files_of = [](const CompareSide& side) {
    std::vector<SideFile> out;
    for (std::size_t i = 0; i < side.files.size(); ++i)
      out.push_back({side.files[i], &side.runs[i]});
    return out;
  };
  // One file: compared as it is; several: pooled first.
  const RunReport pooled_a = a.runs.size() > 1 ? pool_runs(a.runs) : RunReport{};
  const RunReport pooled_b = b.runs.size() > 1 ? pool_runs(b.runs) : RunReport{};
  return Comparer(a.runs.size() > 1 ? pooled_a : a.runs.front(),
                  b.runs.size() > 1 ? pooled_b : b.runs.front(), options, files_of(a), files_of(b))
      .run();
}

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
