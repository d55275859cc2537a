// compare's findings: each declared once (id, kind, fields, sentence), and their builders.
#include "compare_findings.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "gpuprobe/core/finding_def.hpp"
#include "gpuprobe/core/units.hpp"

namespace gpuprobe {
namespace compare_findings {
namespace {

constexpr std::size_t kListed = 5;  // unmatched items named per probe, part and file

// ---- keys ------------------------------------------------------------------------------

constexpr Text<"probe"> kProbe;
constexpr Int<"a_device"> kADevice;
constexpr Int<"b_device"> kBDevice;
constexpr Text<"compared"> kCompared;  // compared_part_name: rows, summary, findings
constexpr Text<"item"> kItem;
constexpr Text<"quantity"> kQuantity;
constexpr Maybe<Flag<"regression">> kRegression;
constexpr Text<"side"> kSide;  // A, B
constexpr Text<"file"> kFile;
constexpr Text<"tool"> kTool;
constexpr Text<"version"> kVersion;
constexpr Text<"git"> kGit;
constexpr Text<"host"> kHost;
constexpr Text<"driver"> kDriver;
constexpr Text<"runtime"> kRuntime;
constexpr Text<"started_at"> kStartedAt;
constexpr Text<"command"> kCommand;
constexpr AnyParam<"schema_version"> kSchemaVersion;  // null: the side, not one file
constexpr Text<"a_name"> kAName;
constexpr Text<"b_name"> kBName;
constexpr Text<"name"> kName;
constexpr Text<"uuid"> kUuid;
constexpr Rest<"differences"> kDifferences;  // a_<what>, b_<what> pairs (null: absent there)
constexpr Text<"status"> kStatus;
constexpr Text<"a_status"> kAStatus;
constexpr Text<"a_reason"> kAReason;
constexpr Text<"b_status"> kBStatus;
constexpr Text<"b_reason"> kBReason;
constexpr Text<"listed"> kListedItems;
constexpr Text<"a_unit"> kAUnit;
constexpr Text<"b_unit"> kBUnit;
constexpr Value<"matched_rows"> kMatchedRows;
constexpr Value<"matched_summary_rows"> kMatchedSummaryRows;
constexpr Value<"matched_findings"> kMatchedFindings;
constexpr Value<"comparisons"> kComparisons;
constexpr Value<"faster"> kFaster;
constexpr Value<"slower"> kSlower;
constexpr Value<"same"> kSame;
constexpr Value<"higher"> kHigher;
constexpr Value<"lower"> kLower;
constexpr Value<"inconclusive"> kInconclusive;
constexpr Value<"undefined"> kUndefined;
// Summary values that are positions or time stamps: shown, never judged (absent in older files).
constexpr Maybe<Value<"positions">> kPositions;
constexpr Value<"only_in_a"> kOnlyInA;
constexpr Value<"only_in_b"> kOnlyInB;
constexpr Value<"threshold", "%"> kThreshold;
constexpr Value<"regressions"> kRegressions;
constexpr ValueIn<"a"> kA;
constexpr ValueIn<"b"> kB;
constexpr Value<"ratio", "x"> kRatio;
constexpr Value<"delta", "%"> kDelta;
constexpr Value<"ci_low", "x"> kCiLow;
constexpr Value<"ci_high", "x"> kCiHigh;
constexpr Value<"margin", "%"> kMargin;
constexpr Value<"not_held"> kNotHeld;
constexpr Value<"family"> kFamily;
constexpr Value<"a_results"> kAResults;
constexpr Value<"b_results"> kBResults;
constexpr Value<"rows"> kRows;
constexpr Value<"a_rows"> kARows;
constexpr Value<"b_rows"> kBRows;
constexpr Value<"items"> kItems;
constexpr Value<"unlisted"> kUnlisted;
constexpr Value<"ratio_min", "x"> kRatioMin;
constexpr Value<"ratio_max", "x"> kRatioMax;

FindingList compare_list;

// ---- words the sentences share -----------------------------------------------------------

// A count value as a whole number.
template <class View, class H>
std::size_t whole(const View& f, H h) {
  return static_cast<std::size_t>(f.value(h));
}

template <class View>
DevicePair pair_of(const View& f) {
  return {static_cast<int>(f.value(kADevice)), static_cast<int>(f.value(kBDevice))};
}

std::string or_unknown(const std::string& s) {
  return s.empty() ? "?" : s;
}

// "rows" -> "row(s)", "summary" -> "summary row(s)", "findings" -> "finding(s)".
std::string items_word(const std::string& part) {
  if (part == "summary") return "summary row(s)";
  if (part == "findings") return "finding(s)";
  return "row(s)";
}

// "metric", "summary value", "finding value".
std::string quantity_word(const std::string& part) {
  if (part == "summary") return "summary value";
  if (part == "findings") return "finding value";
  return "metric";
}

// "k 'x' vs 'y'; k only in A" from the a_<k>/b_<k> params (null: absent on that side); `quoted`
// puts the values in quotes.
std::string differences_text(const std::vector<Param>& params, bool quoted) {
  std::vector<std::string> parts;
  for (const auto& p : params) {
    if (p.key.rfind("a_", 0) != 0) continue;
    const std::string what = p.key.substr(2);
    const Param* q = find_param(params, "b_" + what);
    const bool in_a = !std::holds_alternative<std::monostate>(p.value);
    const bool in_b = q && !std::holds_alternative<std::monostate>(q->value);
    if (in_a && !in_b) {
      parts.push_back(fmt::format("{} only in A", what));
    } else if (!in_a && in_b) {
      parts.push_back(fmt::format("{} only in B", what));
    } else {
      const std::string x = scalar_text(p.value);
      const std::string y = q ? scalar_text(q->value) : std::string();
      parts.push_back(quoted ? fmt::format("{} '{}' vs '{}'", what, x, y)
                             : fmt::format("{} {} vs {}", what, x, y));
    }
  }
  return fmt::format("{}", fmt::join(parts, "; "));
}

// ---- verdicts ----------------------------------------------------------------------------

const auto kCounts = compare_list.verdict(
    "compare_counts", params(),
    values(kMatchedRows, kMatchedSummaryRows, kMatchedFindings, kComparisons, kFaster, kSlower,
           kSame, kHigher, kLower, kInconclusive, kUndefined, kPositions, kOnlyInA, kOnlyInB),
    [](const auto& f) {
      std::string matched = fmt::format("{} matched rows", whole(f, kMatchedRows));
      if (const std::size_t s = whole(f, kMatchedSummaryRows); s > 0)
        matched += fmt::format(", {} matched summary rows", s);
      if (const std::size_t n = whole(f, kMatchedFindings); n > 0)
        matched += fmt::format(", {} matched findings", n);
      std::string counts = fmt::format("{} faster, {} slower, {} same", whole(f, kFaster),
                                       whole(f, kSlower), whole(f, kSame));
      if (const std::size_t i = whole(f, kInconclusive); i > 0)
        counts += fmt::format(", {} inconclusive", i);
      if (whole(f, kHigher) + whole(f, kLower) > 0)
        counts += fmt::format(", {} higher, {} lower", whole(f, kHigher), whole(f, kLower));
      if (const std::size_t u = whole(f, kUndefined); u > 0) counts += fmt::format(", {} n/a", u);
      if (const auto p = f.maybe(kPositions); p && *p > 0)
        counts += fmt::format(", {} position(s) (not judged)", static_cast<std::size_t>(*p));
      return fmt::format("{}, {} comparisons: {}; {} row(s) only in A, {} only in B", matched,
                         whole(f, kComparisons), counts, whole(f, kOnlyInA), whole(f, kOnlyInB));
    });

const auto kRegressionThreshold = compare_list.verdict(
    "compare_regression_threshold", params(), values(kThreshold, kRegressions), [](const auto& f) {
      const std::string pct = format_number(f.value(kThreshold));
      const std::size_t n = whole(f, kRegressions);
      return n == 0 ? fmt::format("no regression beyond {}%", pct)
                    : fmt::format("{} regression(s) beyond {}%", n, pct);
    });

// "slower: transfer pinned h2d 64 MiB bandwidth: 54 GB/s -> 50 GB/s (0.93x, -7.0%, 95% interval
// 0.92x to 0.94x)": one compared value, `label` unless it is a regression.
template <class View>
std::string change_text(const View& f, const char* label, bool regression) {
  const DevicePair pair = pair_of(f);
  const auto ratio = f.maybe(kRatio), pct = f.maybe(kDelta);
  const auto lo = f.maybe(kCiLow), hi = f.maybe(kCiHigh);
  return fmt::format(
      "{}: {} {}{} {}: {} -> {} ({}{}{})", regression ? "regression" : label, f[kProbe],
      pair.a == pair.b ? "" : pair_text(pair) + " ", f[kItem], f[kQuantity], f[kA], f[kB],
      ratio ? format_number(*ratio) + "x" : "n/a", pct ? fmt::format(", {:+.1f}%", *pct) : "",
      lo && hi ? fmt::format(", 95% interval {}x to {}x", format_number(*lo), format_number(*hi))
               : "");
}

const auto kSlowdown = compare_list.verdict(
    "compare_slowdown",
    params(kProbe, kADevice, kBDevice, kCompared, kItem, kQuantity, kRegression),
    values(kA, kB, kRatio, kDelta, kCiLow, kCiHigh),
    [](const auto& f) { return change_text(f, "slower", f[kRegression] == "true"); });

const auto kImprovement = compare_list.verdict(
    "compare_improvement", params(kProbe, kADevice, kBDevice, kCompared, kItem, kQuantity),
    values(kA, kB, kRatio, kDelta, kCiLow, kCiHigh),
    [](const auto& f) { return change_text(f, "faster", false); });

const auto kInconclusiveFinding = compare_list.verdict(
    "compare_inconclusive", params(kProbe, kADevice, kBDevice, kCompared, kItem, kQuantity),
    values(kA, kB, kRatio, kDelta, kCiLow, kCiHigh, kMargin), [](const auto& f) {
      return change_text(f, "inconclusive", false) +
             fmt::format(": not clear of +-{}%", format_number(f.value(kMargin)));
    });

// ---- notes about the inputs ----------------------------------------------------------------

const auto kFileFinding = compare_list.note(
    "compare_file",
    params(kSide, kFile, kTool, kVersion, kGit, kHost, kDriver, kRuntime, kStartedAt, kCommand),
    values(), [](const auto& f) {
      return fmt::format(
          "{} = {}: {} {} ({}) on {}, driver {}, runtime {}, started {}; command: {}", f[kSide],
          f[kFile], f[kTool], f[kVersion], or_unknown(f[kGit]), or_unknown(f[kHost]), f[kDriver],
          f[kRuntime], or_unknown(f[kStartedAt]), f[kCommand]);
    });

const auto kSchema1Input =
    compare_list.note("compare_schema1_input", params(kSide, kFile), values(), [](const auto& f) {
      return fmt::format("{} ({}) is schema 1: its findings are prose and are not compared",
                         f[kSide], f[kFile]);
    });

const auto kBandFallback = compare_list.note(
    "compare_band_fallback", params(kSide, kFile, kSchemaVersion), values(kComparisons),
    [](const auto& f) {
      const bool file = !std::holds_alternative<std::monostate>(f.param(kSchemaVersion).value);
      return fmt::format(
          "{} {}{}: {} row metric comparison(s) used the noise band (K x rel_noise, at least "
          "0.5%) instead of the bootstrap interval",
          f[kSide] + (file ? " file" : " ="), f[kFile],
          file ? fmt::format(" (schema {}) has no samples", f[kSchemaVersion])
               : std::string(" has no samples for them"),
          whole(f, kComparisons));
    });

const auto kDifferentProducts =
    compare_list.note("compare_different_models", params(kADevice, kAName, kBDevice, kBName),
                      values(), [](const auto& f) {
                        return fmt::format("different GPU models: A GPU {} is {}, B GPU {} is {}",
                                           f[kADevice], f[kAName], f[kBDevice], f[kBName]);
                      });

const auto kSameGpu = compare_list.note(
    "compare_same_gpu", params(kADevice, kBDevice, kName, kUuid), values(), [](const auto& f) {
      return fmt::format("A GPU {} and B GPU {} are the same GPU ({}, {})", f[kADevice],
                         f[kBDevice], f[kName], f[kUuid]);
    });

const auto kSameProduct = compare_list.note(
    "compare_same_model", params(kADevice, kBDevice, kName), values(), [](const auto& f) {
      return fmt::format("A GPU {} and B GPU {} are two GPUs of the same model ({})", f[kADevice],
                         f[kBDevice], f[kName]);
    });

const auto kEnvironmentSame = compare_list.note(
    "compare_environment_same", "same driver, runtime, gpuprobe revision and host in both files");

const auto kEnvironmentDiffers = compare_list.note(
    "compare_environment_differs", params(kDifferences), values(), [](const auto& f) {
      return fmt::format("environment differs (A vs B): {}",
                         differences_text(f.items(kDifferences), false));
    });

// ---- notes about what was not compared ---------------------------------------------------

const auto kNotMeasured = compare_list.note(
    "compare_not_measured", params(kProbe, kSide, kStatus), values(), [](const auto& f) {
      return fmt::format("{}: {} in {} (no measurements) - not compared", f[kProbe], f[kStatus],
                         f[kSide]);
    });

const auto kOutsideDevices = compare_list.note(
    "compare_outside_devices", params(), values(kAResults, kBResults), [](const auto& f) {
      return fmt::format(
          "{} result(s) of A and {} of B are on GPUs outside --devices - not compared",
          whole(f, kAResults), whole(f, kBResults));
    });

const auto kRegressionsNotHeld = compare_list.note(
    "compare_regressions_not_held", params(), values(kNotHeld, kFamily, kThreshold),
    [](const auto& f) {
      return fmt::format(
          "{} row metric(s) slower beyond {}% are not counted as regressions: with {} row "
          "metrics judged by their intervals, none of them is far enough out to rule out noise "
          "at a family-wise 5% (Holm's step-down; docs/compare.md)",
          whole(f, kNotHeld), format_number(f.value(kThreshold)), whole(f, kFamily));
    });

template <class View>
std::string result_only_in_text(const View& f, const char* side) {
  return fmt::format("{} on {}: only in {} ({} rows, {}) - not compared", f[kProbe],
                     pair_text(pair_of(f)), side, whole(f, kRows), f[kStatus]);
}

const auto kResultOnlyInA =
    compare_list.note("compare_result_only_in_a", params(kProbe, kADevice, kBDevice, kStatus),
                      values(kRows), [](const auto& f) { return result_only_in_text(f, "A"); });
const auto kResultOnlyInB =
    compare_list.note("compare_result_only_in_b", params(kProbe, kADevice, kBDevice, kStatus),
                      values(kRows), [](const auto& f) { return result_only_in_text(f, "B"); });

// "failed in A (reason)" for a side whose status is not ok.
std::string not_ok_side(const std::string& status, const std::string& reason, const char* side) {
  return fmt::format("{} in {}{}", status, side, reason.empty() ? "" : " (" + reason + ")");
}

const auto kNotOk = compare_list.note(
    "compare_not_ok", params(kProbe, kADevice, kBDevice, kAStatus, kAReason, kBStatus, kBReason),
    values(kARows, kBRows), [](const auto& f) {
      std::vector<std::string> parts;
      if (f[kAStatus] != status_name(Status::kOk))
        parts.push_back(not_ok_side(f[kAStatus], f[kAReason], "A"));
      if (f[kBStatus] != status_name(Status::kOk))
        parts.push_back(not_ok_side(f[kBStatus], f[kBReason], "B"));
      return fmt::format("{} on {}: {} - not compared ({} rows in A, {} in B)", f[kProbe],
                         pair_text(pair_of(f)), fmt::join(parts, "; "), whole(f, kARows),
                         whole(f, kBRows));
    });

template <class View>
std::string only_in_text(const View& f, const char* side) {
  const std::size_t unlisted = whole(f, kUnlisted);
  return fmt::format("{} on {}: {} {} only in {}: {}{}", f[kProbe], pair_text(pair_of(f)),
                     whole(f, kItems), items_word(f[kCompared]), side, f[kListedItems],
                     unlisted > 0 ? fmt::format(" and {} more", unlisted) : "");
}

const auto kOnlyInAFinding = compare_list.note(
    "compare_only_in_a", params(kProbe, kADevice, kBDevice, kCompared, kListedItems),
    values(kItems, kUnlisted), [](const auto& f) { return only_in_text(f, "A"); });
const auto kOnlyInBFinding = compare_list.note(
    "compare_only_in_b", params(kProbe, kADevice, kBDevice, kCompared, kListedItems),
    values(kItems, kUnlisted), [](const auto& f) { return only_in_text(f, "B"); });

const auto kOutcomeChanged = compare_list.note(
    "compare_finding_outcome_changed", params(kProbe, kADevice, kBDevice, kListedItems),
    values(kItems, kUnlisted), [](const auto& f) {
      const std::size_t unlisted = whole(f, kUnlisted);
      return fmt::format("{} on {}: {} finding(s) in both files decided otherwise in B: {}{}",
                         f[kProbe], pair_text(pair_of(f)), whole(f, kItems), f[kListedItems],
                         unlisted > 0 ? fmt::format(" and {} more", unlisted) : "");
    });

const auto kWorkDiffers = compare_list.note(
    "compare_work_differs", params(kProbe, kADevice, kBDevice),
    values(kRows, kMatchedRows, kRatioMin, kRatioMax), [](const auto& f) {
      const std::string lo = format_number(f.value(kRatioMin));
      const std::string hi = format_number(f.value(kRatioMax));
      const std::string range = lo == hi ? lo + "x" : fmt::format("{}x to {}x", lo, hi);
      return fmt::format(
          "{} on {}: in {} of {} matched rows bandwidth x time (the bytes one timed unit moves) "
          "differs, B/A {}: the files timed different amounts of work for the same row params "
          "(a size that is not a row param?), so their time ratios do not compare like with "
          "like; compare bandwidth (--metric bandwidth)",
          f[kProbe], pair_text(pair_of(f)), whole(f, kRows), whole(f, kMatchedRows), range);
    });

const auto kRunParamsDiffer = compare_list.note(
    "compare_run_params_differ", params(kProbe, kDifferences), values(), [](const auto& f) {
      return fmt::format("{} run parameters differ (A vs B): {}", f[kProbe],
                         differences_text(f.items(kDifferences), true));
    });

const auto kMetricOneSide =
    compare_list.note("compare_metric_one_side", params(kProbe, kCompared, kQuantity, kSide),
                      values(kItems), [](const auto& f) {
                        const std::string part = f[kCompared];
                        return fmt::format("{}: {} '{}' only in {} ({} matched {}) - not compared",
                                           f[kProbe], quantity_word(part), f[kQuantity], f[kSide],
                                           whole(f, kItems), items_word(part));
                      });

const auto kUnitDiffers = compare_list.note(
    "compare_unit_differs", params(kProbe, kCompared, kQuantity, kAUnit, kBUnit), values(kItems),
    [](const auto& f) {
      const std::string part = f[kCompared];
      return fmt::format(
          "{}: {} '{}' has unit '{}' in A but '{}' in B ({} matched {}) - not compared", f[kProbe],
          quantity_word(part), f[kQuantity], f[kAUnit], f[kBUnit], whole(f, kItems),
          items_word(part));
    });

// ---- what the builders share ---------------------------------------------------------------

std::string side_text(char side) {
  return std::string(1, side);
}

std::vector<Param> difference_params(const std::vector<Difference>& differences) {
  std::vector<Param> out;
  for (const auto& d : differences) {
    out.push_back({"a_" + d.what, d.a, ""});
    out.push_back({"b_" + d.what, d.b, ""});
  }
  return out;
}

// "[a], [b]": the first kListed items.
std::string listed_text(const std::vector<std::string>& items) {
  std::vector<std::string> listed;
  for (std::size_t i = 0; i < items.size() && i < kListed; ++i)
    listed.push_back("[" + items[i] + "]");
  return fmt::format("{}", fmt::join(listed, ", "));
}

}  // namespace

// ---- builders --------------------------------------------------------------------------

Finding counts(const CompareOutcome& o) {
  return kCounts.make(kMatchedRows(o.matched_rows), kMatchedSummaryRows(o.matched_summary_rows),
                      kMatchedFindings(o.matched_findings), kComparisons(o.comparisons),
                      kFaster(o.faster), kSlower(o.slower), kSame(o.same), kHigher(o.higher),
                      kLower(o.lower), kInconclusive(o.inconclusive), kUndefined(o.undefined),
                      kPositions(o.positions), kOnlyInA(o.unmatched_a), kOnlyInB(o.unmatched_b));
}

Finding regression_threshold(double threshold_pct, std::size_t regressions) {
  return kRegressionThreshold.make(kThreshold(threshold_pct), kRegressions(regressions));
}

Finding change(const NotableChange& c) {
  const std::optional<double> ratio = c.comparison.ratio;
  const auto delta = ratio ? std::optional<double>((*ratio - 1.0) * 100.0) : std::nullopt;
  const auto given =
      std::tuple(kProbe(c.probe), kADevice(c.devices.a), kBDevice(c.devices.b),
                 kCompared(compared_part_name(c.part)), kItem(c.item), kQuantity(c.quantity),
                 kA(c.unit, c.comparison.a), kB(c.unit, c.comparison.b), kRatio(ratio),
                 kDelta(delta), kCiLow(c.comparison.ci_low), kCiHigh(c.comparison.ci_high));
  if (c.comparison.change == Change::kSlower)
    return kSlowdown.make(given, kRegression(std::optional<bool>(c.comparison.regression)));
  return kImprovement.make(given);
}

Finding inconclusive(const NotableChange& c, double margin) {
  const std::optional<double> ratio = c.comparison.ratio;
  return kInconclusiveFinding.make(
      kProbe(c.probe), kADevice(c.devices.a), kBDevice(c.devices.b),
      kCompared(compared_part_name(c.part)), kItem(c.item), kQuantity(c.quantity),
      kA(c.unit, c.comparison.a), kB(c.unit, c.comparison.b), kRatio(ratio),
      kDelta(ratio ? std::optional<double>((*ratio - 1.0) * 100.0) : std::nullopt),
      kCiLow(c.comparison.ci_low), kCiHigh(c.comparison.ci_high), kMargin(margin * 100.0));
}

Finding file(char side, const std::string& name, const RunReport& r) {
  return kFileFinding.make(
      kSide(side_text(side)), kFile(name), kTool(r.tool.name), kVersion(r.tool.version),
      kGit(r.tool.git), kHost(r.host.hostname), kDriver(format_cuda_version(r.host.driver_version)),
      kRuntime(format_cuda_version(r.host.runtime_version)), kStartedAt(r.started_at),
      kCommand(fmt::format("{}", fmt::join(r.command, " "))));
}

Finding schema1_input(char side, const std::string& name) {
  return kSchema1Input.make(kSide(side_text(side)), kFile(name));
}

Finding band_fallback(char side, const std::string& name, std::optional<int> schema_version,
                      std::size_t comparisons) {
  return kBandFallback.make(
      kSide(side_text(side)), kFile(name),
      kSchemaVersion(schema_version ? Scalar{std::int64_t{*schema_version}} : Scalar{}),
      kComparisons(comparisons));
}

Finding different_products(const DevicePair& pair, const std::string& a_name,
                           const std::string& b_name) {
  return kDifferentProducts.make(kADevice(pair.a), kAName(a_name), kBDevice(pair.b),
                                 kBName(b_name));
}

Finding same_gpu(const DevicePair& pair, const std::string& name, const std::string& uuid) {
  return kSameGpu.make(kADevice(pair.a), kBDevice(pair.b), kName(name), kUuid(uuid));
}

Finding same_product(const DevicePair& pair, const std::string& name) {
  return kSameProduct.make(kADevice(pair.a), kBDevice(pair.b), kName(name));
}

Finding environment(const std::vector<Difference>& differences) {
  if (differences.empty()) return kEnvironmentSame.make();
  return kEnvironmentDiffers.make(kDifferences(difference_params(differences)));
}

Finding not_measured(const ProbeResult& result, char side) {
  return kNotMeasured.make(kProbe(result.probe), kSide(side_text(side)),
                           kStatus(status_name(result.status)));
}

Finding regressions_not_held(std::size_t not_held, std::size_t family, double threshold_pct) {
  return kRegressionsNotHeld.make(kNotHeld(not_held), kFamily(family), kThreshold(threshold_pct));
}

Finding outside_devices(std::size_t a_results, std::size_t b_results) {
  return kOutsideDevices.make(kAResults(a_results), kBResults(b_results));
}

Finding result_only_in(const ProbeResult& result, char side, const DevicePair& pair) {
  const auto& def = side == 'A' ? kResultOnlyInA : kResultOnlyInB;
  return def.make(kProbe(result.probe), kADevice(pair.a), kBDevice(pair.b),
                  kStatus(status_name(result.status)), kRows(result.rows.size()));
}

Finding not_ok(const ProbeResult& a, const ProbeResult& b, const DevicePair& pair) {
  return kNotOk.make(kProbe(a.probe), kADevice(pair.a), kBDevice(pair.b),
                     kAStatus(status_name(a.status)), kAReason(a.reason),
                     kBStatus(status_name(b.status)), kBReason(b.reason), kARows(a.rows.size()),
                     kBRows(b.rows.size()));
}

Finding only_in(char side, const std::string& probe, const DevicePair& pair, ComparedPart part,
                const std::vector<std::string>& items) {
  const auto& def = side == 'A' ? kOnlyInAFinding : kOnlyInBFinding;
  return def.make(kProbe(probe), kADevice(pair.a), kBDevice(pair.b),
                  kCompared(compared_part_name(part)), kListedItems(listed_text(items)),
                  kItems(items.size()), kUnlisted(items.size() - std::min(items.size(), kListed)));
}

Finding outcome_changed(const std::string& probe, const DevicePair& pair,
                        const std::vector<std::string>& items) {
  return kOutcomeChanged.make(kProbe(probe), kADevice(pair.a), kBDevice(pair.b),
                              kListedItems(listed_text(items)), kItems(items.size()),
                              kUnlisted(items.size() - std::min(items.size(), kListed)));
}

Finding work_differs(const std::string& probe, const DevicePair& pair, std::size_t rows,
                     std::size_t matched_rows, double ratio_min, double ratio_max) {
  return kWorkDiffers.make(kProbe(probe), kADevice(pair.a), kBDevice(pair.b), kRows(rows),
                           kMatchedRows(matched_rows), kRatioMin(ratio_min), kRatioMax(ratio_max));
}

Finding run_params_differ(const std::string& probe, const std::vector<Difference>& differences) {
  return kRunParamsDiffer.make(kProbe(probe), kDifferences(difference_params(differences)));
}

Finding one_side(const std::string& probe, ComparedPart part, const std::string& quantity,
                 char side, std::size_t items) {
  return kMetricOneSide.make(kProbe(probe), kCompared(compared_part_name(part)),
                             kQuantity(quantity), kSide(side_text(side)), kItems(items));
}

Finding unit_differs(const std::string& probe, ComparedPart part, const std::string& quantity,
                     const std::string& a_unit, const std::string& b_unit, std::size_t items) {
  return kUnitDiffers.make(kProbe(probe), kCompared(compared_part_name(part)), kQuantity(quantity),
                           kAUnit(a_unit), kBUnit(b_unit), kItems(items));
}

}  // namespace compare_findings

Glossary compare_glossary() {
  Glossary g;
  g.add_term("", "derived.ci",
             {"95% ci",
              "95% interval of the ratio (hierarchical bootstrap); - : compared by the noise band "
              "(no samples)"});
  g.add_term("", "derived.detectable",
             {"detect", "the smallest change this comparison could call slower or faster"});
  g.add_findings(compare_findings::compare_list);
  return g;
}

}  // namespace gpuprobe
