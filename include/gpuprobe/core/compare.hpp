// gpuprobe compare: two runs' rows, summary rows and findings matched (compare_match.hpp),
// classified B/A (compare_classify.hpp) and assembled into a report with findings as data.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "gpuprobe/core/compare_classify.hpp"
#include "gpuprobe/core/compare_match.hpp"
#include "gpuprobe/core/compare_pool.hpp"
#include "gpuprobe/core/glossary.hpp"
#include "gpuprobe/core/result.hpp"

namespace gpuprobe {

struct CompareOptions {
  // Metrics (and summary or finding values) to compare, by name; empty: every one present on
  // both sides of a matched pair.
  std::vector<std::string> value_names;
  // Percent; a "slower" row metric whose whole interval lies beyond it (band: whose ratio lies
  // beyond it) is a regression (flagged, and the CLI exits 4). nullopt: no check; nothing is
  // called a regression. Summary and finding values never are.
  std::optional<double> fail_on_regression;
  double noise_k = 3;  // band rule (no samples): band = K x the larger relative noise
  // Bootstrap rule: "same" when the ratio's interval lies within 1 +- m, m = min(same_within,
  // fail_on_regression / 100).
  double same_within = kDefaultSameWithin;
  bool fail_on_inconclusive = false;  // recorded in the params; the CLI exits 4 on any
  // Explicit pairs; empty: device i in A is compared with device i in B.
  std::vector<DevicePair> devices;
  // How the two inputs are named in findings and the method line (file names).
  std::string a_name = "A";
  std::string b_name = "B";
};

// What a compared value belongs to: a row's metric, a summary row's value, a finding's value.
enum class ComparedPart { kRows, kSummary, kFindings };
const char* compared_part_name(ComparedPart part) noexcept;  // "rows", "summary", "findings"

// One compared value worth reporting on its own (a regression, a slowdown, an improvement).
struct NotableChange {
  std::string probe;
  DevicePair devices;
  ComparedPart part = ComparedPart::kRows;
  // Which row, summary row or finding: "memory=pinned direction=h2d bytes=67108864",
  // "summary memory=pinned direction=h2d", "finding <id> direction=h2d".
  std::string item;
  std::string quantity;  // the metric's or value's name
  std::string unit;
  ValueComparison comparison;
};

struct CompareOutcome {
  // One result per (probe, device pair, metric) of rows, then per (probe, device pair, unit) of
  // summary values and of finding values, each named "compare <probe>" with a `compared` param
  // ("rows", "summary", "findings"); then one result "compare" carrying the counts per probe
  // and compare's findings.
  RunReport report;
  std::size_t matched_rows = 0;
  std::size_t matched_summary_rows = 0;
  std::size_t matched_findings = 0;
  std::size_t comparisons = 0;  // values compared: row metrics, summary and finding values
  std::size_t unmatched_a = 0;  // rows only in A (among the compared device pairs)
  std::size_t unmatched_b = 0;
  std::size_t same = 0, faster = 0, slower = 0, higher = 0, lower = 0, undefined = 0;
  std::size_t inconclusive = 0;
  std::size_t positions = 0;  // summary and finding values that are positions: shown, not judged
  std::optional<double> threshold_pct;  // --fail-on-regression
  double margin = kDefaultSameWithin;   // the bootstrap rule's decision margin m (relative)
  // Row metrics compared by the band because a side's metric had no samples, per side.
  std::size_t band_only_a = 0, band_only_b = 0;
  // Regressions beyond the threshold, worst first (empty without a threshold).
  std::vector<NotableChange> regressions;
  std::vector<NotableChange> slowdowns;      // every "slower" comparison, worst first
  std::vector<NotableChange> improvements;   // every "faster" comparison, best first
  std::vector<NotableChange> inconclusives;  // every "inconclusive" one, widest interval first
  // Every row metric compared, in compare order (the lead's headlines and what it could detect).
  std::vector<NotableChange> row_metrics;
};

// Compares B with A. Throws UsageError when a device pair names a GPU a file has no results
// for, when a requested metric appears nowhere matched, and when nothing matches at all.
CompareOutcome compare_reports(const RunReport& a, const RunReport& b,
                               const CompareOptions& options);

// One side of a comparison: its result files, in order, and what they hold.
struct CompareSide {
  std::vector<std::string> files;
  std::vector<RunReport> runs;  // one per file
};

// Compares side B with side A, each the pool of its runs (pool_runs in compare_pool.hpp) and named
// by side_name ("before.json", or "A (3 runs)" for several files; options.a_name and b_name are
// replaced). The notes name every file. Throws like compare_reports, and std::invalid_argument
// when a side has no run or files and runs differ in number.
CompareOutcome compare_sides(const CompareSide& a, const CompareSide& b, CompareOptions options);

// The stderr text for a failed check:
// "N regression(s) beyond X%: worst <probe> <item> <quantity> <ratio>x".
std::string regression_summary(const CompareOutcome& outcome);
// "N inconclusive comparison(s) (95% interval not clear of +-M%): widest <probe> <item>
// <quantity> <ratio>x [<low>x, <high>x]".
std::string inconclusive_summary(const CompareOutcome& outcome);

// The first screen of compare's text output, lines of at most `width` columns: what was compared
// (each side's files, host, gpuprobe build and GPUs), the verdict in one line, the headline changes
// (row metrics of time or rates, largest credible change first: the end of the 95% interval
// nearest no change) and the smallest change the comparison could detect, with the runs per side
// that would detect 5% (compare_lead.cpp).
std::string compare_lead(const CompareOutcome& outcome, std::size_t width = 120);

// The phrasings of compare's findings (ids "compare_*"); core_glossary() includes them.
Glossary compare_glossary();

}  // namespace gpuprobe
