// The steps of compare's report (private to core), run in this order by compare_report.cpp:
// classify the matched items of each pair of results (compare_pair.cpp), tally what was
// classified (compare_tally.cpp), render each pair's value tables (compare_tables.cpp) and the
// "compare" overview with its notes and verdicts (compare_overview.cpp).
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "gpuprobe/core/compare.hpp"

namespace gpuprobe::compare_steps {

// A file of one side, for the notes.
struct SideFile {
  std::string name;
  const RunReport* run = nullptr;
};

// What every step reads: both sides (each pooled when it has several files), the files behind
// them in order, and the options.
struct CompareInputs {
  const RunReport& a;
  const RunReport& b;
  const CompareOptions& options;
  std::vector<SideFile> a_files;
  std::vector<SideFile> b_files;
  double margin = kDefaultSameWithin;  // the bootstrap rule's decision margin (relative)
};

// --- classify (compare_pair.cpp) ---

// The bootstrap interval of each row metric with samples on both sides, by its two metrics.
using Intervals = std::map<std::pair<const Metric*, const Metric*>, std::optional<RatioInterval>>;

// Bootstraps every row metric that has samples on both sides, all at once (over threads).
Intervals bootstrap_all(const CompareInputs& in, const std::vector<ResultPairing>& pairings);

// One classified value: a row's metric, or a summary row's or finding's value.
struct ComparedValue {
  ComparedPart part = ComparedPart::kRows;
  std::string item;  // which row, summary row or finding, as NotableChange::item
  std::vector<Param> row_params;
  std::string quantity;  // the metric's or value's name
  std::string unit;
  ValueComparison comparison;
  std::optional<double> a_value, b_value;
};

// A value not compared, counted per kind: on one side only, or with a unit per side.
struct Skipped {
  std::string probe;
  ComparedPart part = ComparedPart::kRows;
  std::string quantity;
  char side = 'A';  // one side only: where it is
  bool units_differ = false;
  std::string a_unit, b_unit;
  std::size_t items = 1;
  bool same_kind(const Skipped& o) const;
};
// Adds `skipped` to `kinds`: to the entry of its kind, else as a new one at the end.
void add_skipped(std::vector<Skipped>& kinds, Skipped skipped);

// What classifying one pair of results found.
struct PairComparison {
  std::vector<ComparedValue> values;  // rows' metrics, then summary values, then finding values
  std::vector<Finding> notes;         // items on one side only, changed outcomes, run params...
  std::vector<Skipped> skipped;
  std::set<std::string> names_seen;  // metrics and values in any matched item, either side
  std::size_t rows = 0, summary_rows = 0, findings = 0;  // matched
  std::size_t only_a = 0, only_b = 0;                    // rows on one side only
  std::size_t band_only_a = 0, band_only_b = 0;  // row metrics by the band: a side lacked samples
};

// Matches the rows, summary rows and findings of one pair of results and classifies each
// common value (findings only when `findings_comparable`). A pair whose results are not both ok
// is not compared: one note says why.
PairComparison compare_pair(const CompareInputs& in, const ResultPairing& pairing,
                            const Intervals& intervals, bool findings_comparable);

// --- tally (compare_tally.cpp) ---

// Counts for one (probe, device pair): a line of the overview's summary table.
struct ProbeTally {
  std::string probe;
  DevicePair devices;
  std::size_t rows = 0, summary_rows = 0, findings = 0;
  std::size_t same = 0, faster = 0, slower = 0, higher = 0, lower = 0, undefined = 0;
  std::size_t inconclusive = 0;
  std::size_t positions = 0;  // positions and time stamps: shown, not judged
  std::size_t regressions = 0;
  std::size_t only_a = 0, only_b = 0;  // rows
};

// The tally of (probe, device pair), added at the end when there is none yet.
ProbeTally& tally_for(std::vector<ProbeTally>& tallies, const std::string& probe,
                      const DevicePair& devices);
// A result on one side only: all its rows counted as unmatched.
void tally_lone(const LoneResult& lone, ProbeTally& tally, CompareOutcome& out);
// Adds one pair's counts and classified values to its tally and the outcome's totals, and its
// notable values (regressions, slowdowns, improvements, inconclusives) to the outcome's lists.
void tally_pair(const std::string& probe, const DevicePair& devices, const PairComparison& pair,
                ProbeTally& tally, CompareOutcome& out);
// Orders the notable lists: worst (largest |log ratio|) first, inconclusives widest first.
void sort_notables(CompareOutcome& out);

// --- render (compare_tables.cpp, compare_overview.cpp) ---

// The device of a report with this index, or nullptr.
const DeviceInfo* find_device(const RunReport& report, int index);
// "A GPU 0: NVIDIA H100 80GB HBM3 vs B GPU 0: NVIDIA H200": the heading of a comparison.
std::string subject_text(const CompareInputs& in, const DevicePair& pair);
// The options as params of every result compare makes.
std::vector<Param> option_params(const CompareInputs& in);
// The bootstrap rule in words, for method lines: "... same when the interval lies within
// +-2%, slower or faster when it lies wholly beyond that, else inconclusive".
std::string bootstrap_rule_text(double margin_pct, const std::string& changes);

// The "compare <probe>" results of one pair: one per row metric, then one per unit of summary
// values and of finding values, each in order of first appearance.
std::vector<ProbeResult> value_tables(const CompareInputs& in, const ResultPairing& pairing,
                                      std::vector<ComparedValue> values);

// Notes about the inputs: each file, schema-1 files, the GPU products of each pair and the
// environment (driver, runtime, gpuprobe, git, host).
std::vector<Finding> environment_notes(const CompareInputs& in,
                                       const std::vector<DevicePair>& pairs);

// What the overview is built from besides the inputs.
struct OverviewParts {
  const std::vector<DevicePair>& pairs;
  const CompareOutcome& outcome;
  const std::vector<ProbeTally>& tallies;
  const std::vector<Finding>& notes;
  const std::vector<Skipped>& skipped;
};
// The "compare" result: the counts per probe and compare's findings, phrased.
ProbeResult overview(const CompareInputs& in, const OverviewParts& parts);

}  // namespace gpuprobe::compare_steps
