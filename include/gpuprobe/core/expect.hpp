// Expectations (--expect, --expect-file): bounds on a run's values written as text, checked
// against the plan before any GPU work and evaluated on the results with their noise (host-only).
//
//   transfer[memory=pinned,direction=h2d,bytes>=64MiB].bandwidth >= 50GB/s
//   coalescing.summary[element_bytes=4].baseline_bandwidth >= 0.8 * device.peak_dram_estimate_gbps
//   transfer.findings.transfer_pinned_fit[direction=h2d].latency < 10us
//
// The grammar is in README "Expectations".
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuprobe/core/result.hpp"

namespace gpuprobe {

// A condition on a param of the rows (summary rows, findings) a reference selects:
// "memory=pinned", "bytes>=64MiB". Numbers compare as numbers (sizes in bytes), text as text.
struct Selector {
  std::string key;
  Relation relation = Relation::kEqual;
  std::string text;              // the value as written
  std::optional<double> number;  // its number (bytes for a size) when it is one
};

// Where a value comes from.
enum class Source {
  kRows,        // probe[selectors].name: a metric (its median), derived, model or counter value
  kSummary,     // probe.summary[selectors].name
  kFinding,     // probe.findings.id[selectors].name
  kConditions,  // probe.conditions.name
  kDevice,      // device.name: a field of the device the subject was measured on
  kConstant,    // 50GB/s, 10us, 64MiB, 80%, 1.5
};

struct Reference {
  Source source = Source::kConstant;
  std::string probe;
  std::string finding_id;
  std::vector<Selector> selectors;
  std::string name;
  double constant = 0;  // kConstant: the number, in `unit`
  std::string unit;     // kConstant: the unit as written ("GB/s", "us", "B" for sizes, "" bare)
};

struct Expectation {
  std::string text;    // as given
  std::string origin;  // "--expect" or "FILE:LINE"
  Reference subject;   // what is checked: never a constant, never the device
  Relation bound = Relation::kGreaterEqual;
  double factor = 1;  // the bound is factor x reference
  Reference reference;
  std::optional<int> device;  // only this GPU's results (a GPU's reference file); nullopt: all
};

// Parses one expression. Throws UsageError naming the origin and the offending token.
Expectation parse_expectation(std::string_view text, const std::string& origin);
// An expectation file: one expression per line; '#' starts a comment. Throws UsageError
// (unreadable file, or a bad line, named FILE:LINE).
std::vector<Expectation> read_expectation_file(const std::string& path);

// A GPU's reference expectations: `dir`/<name as a file name>.txt ("NVIDIA H100 80GB HBM3" ->
// "nvidia-h100-80gb-hbm3.txt") when it exists, else `dir`/generic.txt (physical bounds for any
// GPU), restricted to the GPU's results. `file` is set to the path read. Throws UsageError when
// neither exists or a line is bad.
std::string expectation_file_name(const std::string& device_name);
std::vector<Expectation> reference_expectations(const DeviceInfo& device, const std::string& dir,
                                                std::string& file);

// Checks each subject (and a probe reference) against a plan (rows with params, no metrics):
// its probe must be planned, and row selectors must match a planned row. Throws UsageError naming
// the expectation and what matched nothing.
void validate_against_plan(const std::vector<Expectation>& expectations, const RunReport& plan);

// The expectations validate_against_plan accepts, in order (a reference file's bounds on probes or
// rows this run does not have are left out).
std::vector<Expectation> applicable_to_plan(const std::vector<Expectation>& expectations,
                                            const RunReport& plan);

// `value` in `from` expressed in `to`: the same unit, a bare number (taken in `to`), or units of
// one family (GB/s MB/s TB/s kB/s B/s; s ms us ns; B for sizes). nullopt when they do not convert.
std::optional<double> convert_unit(double value, const std::string& from, const std::string& to);
// A unit a constant may carry besides sizes: "" (bare), a rate, a time, "B", "%" or "x".
bool known_constant_unit(const std::string& unit);

// What a check covers (README "gpuprobe check"): it fails, rather than pass on nothing, when the
// run is none it can judge or a probe its reference file bounds has no ok result.
//
// Why `report` is no run a check can judge, or nullopt: another command's output (compare,
// fleet), a plan, no probe results, or no ok result. One line, without the file's name.
std::optional<std::string> not_checkable(const RunReport& report);

// Reference bounds (each for its GPU, `device`) split by whether the run has an ok result of
// every probe they read on that GPU: `checkable` in order; `unchecked` one line per GPU and probe
// ("GPU 0: 3 reference bound(s) on transfer not checked: transfer failed: REASON").
struct ReferenceCoverage {
  std::vector<Expectation> checkable;
  std::vector<std::string> unchecked;
};
ReferenceCoverage reference_coverage(const std::vector<Expectation>& reference,
                                     const RunReport& report);

std::vector<ExpectationResult> evaluate_expectations(const std::vector<Expectation>& expectations,
                                                     const RunReport& report);

// True when a result makes the run fail its expectations (fail, unmatched, error).
bool expectation_failed(const ExpectationResult& result);
// The lines a failed expectation prints: one per failed check ("what, expected, measured"), or
// one saying why it is unmatched or in error.
std::vector<std::string> expectation_failure_lines(const ExpectationResult& result);
// One line for check, the table and Markdown: "pass: EXPR: measured 54.85 GB/s, bound >= 49.1 GB/s
// [nvidia-h100-80gb-hbm3.txt:12]" (a reference file's name without its folder).
std::string expectation_summary(const ExpectationResult& result);
// What the values measured against the bound: the value nearest the bound (worst), with how many
// values there were and how many failed; the reason for an unmatched or erroneous expectation.
std::string expectation_outcome(const ExpectationResult& result);
// The line that closes a list of expectations: "19 bounds: 18 passed, 1 failed" ("…, 2
// inconclusive, …" when some are; unmatched and erroneous bounds count as failed).
std::string expectation_total(const std::vector<ExpectationResult>& results);

}  // namespace gpuprobe
