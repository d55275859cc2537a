// gpuprobe compare's report: checks the options, matches the results of both sides and runs the
// steps (compare_steps.hpp) over each pair: classify, tally, value tables; then the overview.
#include <cmath>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "compare_findings.hpp"
#include "compare_steps.hpp"
#include "gpuprobe/core/compare.hpp"
#include "gpuprobe/core/errors.hpp"
#include "gpuprobe/core/json_io.hpp"
#include "gpuprobe/core/units.hpp"

namespace gpuprobe {
namespace {

namespace cf = compare_findings;
using namespace compare_steps;

// What a file holds, for the "no rows in common" message: "transfer on GPU 0, all (planned)".
std::string contents_text(const RunReport& report) {
  std::vector<std::string> parts;
  for (const auto& r : report.results) {
    parts.push_back(r.device ? fmt::format("{} on GPU {}", r.probe, *r.device)
                             : fmt::format("{} ({})", r.probe, status_name(r.status)));
  }
  return parts.empty() ? "no results" : fmt::format("{}", fmt::join(parts, ", "));
}

void validate_options(const CompareOptions& o) {
  if (!(o.noise_k >= 0) || !std::isfinite(o.noise_k))
    throw UsageError(fmt::format("--noise-k {}: give a number >= 0", o.noise_k));
  if (o.fail_on_regression &&
      (!(*o.fail_on_regression >= 0) || !std::isfinite(*o.fail_on_regression))) {
    throw UsageError(
        fmt::format("--fail-on-regression {}: give a percentage >= 0", *o.fail_on_regression));
  }
  if (!(o.same_within >= 0) || !std::isfinite(o.same_within)) {
    throw UsageError(fmt::format("--same-within {}%: give a percentage >= 0",
                                 format_number(o.same_within * 100.0)));
  }
}

// Throws when a --metric name is in no matched item, or when nothing was compared (saying why).
void validate_compared(const CompareInputs& in, const CompareOutcome& out,
                       const std::set<std::string>& names_seen) {
  const CompareOptions& o = in.options;
  for (const auto& name : o.value_names) {
    if (!names_seen.count(name)) {
      throw UsageError(fmt::format(
          "--metric {}: no matched row, summary row or finding has this metric or value (they "
          "have: {})",
          name,
          names_seen.empty() ? std::string("none")
                             : fmt::format("{}", fmt::join(names_seen, ", "))));
    }
  }
  if (out.comparisons > 0) return;
  if (out.matched_rows > 0) {
    throw UsageError(fmt::format("{} rows match but no metric is in both files' rows{}",
                                 out.matched_rows,
                                 o.value_names.empty() ? "" : " (check --metric)"));
  }
  std::string hint;
  const std::set<int> in_a = result_devices(in.a);
  const std::set<int> in_b = result_devices(in.b);
  if (o.devices.empty() && !in_a.empty() && !in_b.empty() && in_a != in_b) {
    hint = fmt::format("; {} has GPU {}, {} has GPU {}: pair them with --devices A:B", o.a_name,
                       device_list(in_a), o.b_name, device_list(in_b));
  }
  throw UsageError(
      fmt::format("no rows in common: different probes or parameters? ({} holds {}; {} holds {}){}",
                  o.a_name, contents_text(in.a), o.b_name, contents_text(in.b), hint));
}

// The tallies in the overview's order: probes in A's order, then those only in B; results on
// one side only counted, and noted.
std::vector<ProbeTally> tallies_in_order(const CompareInputs& in, const ResultMatch& match,
                                         CompareOutcome& out, std::vector<Finding>& notes) {
  std::vector<ProbeTally> tallies;
  for (const auto& ra : in.a.results) {
    for (const auto& p : match.pairs) {
      if (p.a == &ra) tally_for(tallies, ra.probe, p.devices);
    }
    for (const auto& lone : match.lone) {
      if (lone.result == &ra) tally_for(tallies, ra.probe, lone.devices);
    }
  }
  for (const auto& lone : match.lone) {
    tally_lone(lone, tally_for(tallies, lone.result->probe, lone.devices), out);
    notes.push_back(cf::result_only_in(*lone.result, lone.side, lone.devices));
  }
  return tallies;
}

ComparedSide compared_side(char side, const std::vector<SideFile>& files, const RunReport& report) {
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

// The gate's regressions held to the family of every row metric judged by its interval, across
// all pairs (hold_regressions_to_family); a note counts those that did not hold.
void hold_to_family(const CompareInputs& in, std::vector<PairComparison>& compared,
                    std::vector<Finding>& notes) {
  if (!in.options.fail_on_regression) return;
  std::vector<FamilyMember> family;
  for (auto& pair : compared)
    for (auto& v : pair.values)
      if (v.part == ComparedPart::kRows && v.comparison.method == CompareMethod::kBootstrap &&
          v.comparison.ratio)
        family.push_back({&v.comparison, &v.unit});
  const std::size_t cleared = hold_regressions_to_family(family, *in.options.fail_on_regression);
  if (cleared > 0)
    notes.push_back(
        cf::regressions_not_held(cleared, family.size(), *in.options.fail_on_regression));
}

// a and b: each side's report (pooled when it has several files); a_files, b_files: the files
// behind them, in order.
CompareOutcome compare(const RunReport& a, const RunReport& b, const CompareOptions& options,
                       std::vector<SideFile> a_files, std::vector<SideFile> b_files) {
  validate_options(options);
  const CompareInputs in{a,
                         b,
                         options,
                         std::move(a_files),
                         std::move(b_files),
                         decision_margin(options.same_within, options.fail_on_regression)};
  CompareOutcome out;
  out.threshold_pct = in.options.fail_on_regression;
  out.margin = in.margin;
  const std::vector<DevicePair> pairs =
      device_pairs(in.a, in.b, in.options.devices, in.options.a_name, in.options.b_name);
  std::vector<Finding> notes = environment_notes(in, pairs);
  const ResultMatch match = match_results(in.a, in.b, pairs);
  for (const auto& [result, side] : match.unmeasured)
    notes.push_back(cf::not_measured(*result, side));
  std::vector<ProbeTally> tallies = tallies_in_order(in, match, out, notes);
  if (match.outside_a + match.outside_b > 0)
    notes.push_back(cf::outside_devices(match.outside_a, match.outside_b));

  const Intervals intervals = bootstrap_all(in, match.pairs);
  const bool findings_comparable = in.a.schema_version >= 2 && in.b.schema_version >= 2;
  std::vector<Skipped> skipped;
  std::set<std::string> names_seen;
  std::vector<PairComparison> compared;
  for (const auto& pairing : match.pairs)
    compared.push_back(compare_pair(in, pairing, intervals, findings_comparable));
  hold_to_family(in, compared, notes);
  for (std::size_t i = 0; i < match.pairs.size(); ++i) {
    const ResultPairing& pairing = match.pairs[i];
    PairComparison& pair = compared[i];
    const std::string& probe = pairing.a->probe;
    tally_pair(probe, pairing.devices, pair, tally_for(tallies, probe, pairing.devices), out);
    notes.insert(notes.end(), pair.notes.begin(), pair.notes.end());
    for (auto& s : pair.skipped)
      add_skipped(skipped, std::move(s));
    names_seen.insert(pair.names_seen.begin(), pair.names_seen.end());
    for (auto& table : value_tables(in, pairing, std::move(pair.values)))
      out.report.results.push_back(std::move(table));
  }
  validate_compared(in, out, names_seen);
  sort_notables(out);

  out.report.schema_version = kSchemaVersion;
  out.report.host = in.a.host;  // the header shows both sides (sides); these stay A's for scripts
  out.report.devices = in.a.devices;
  out.report.sides = {compared_side('A', in.a_files, in.a), compared_side('B', in.b_files, in.b)};
  out.report.results.push_back(overview(in, {pairs, out, tallies, notes, skipped}));
  return out;
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
  return compare(a, b, options, {{options.a_name, &a}}, {{options.b_name, &b}});
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
  return compare(a.runs.size() > 1 ? pooled_a : a.runs.front(),
                 b.runs.size() > 1 ? pooled_b : b.runs.front(), options, files_of(a), files_of(b));
}

}  // namespace gpuprobe
