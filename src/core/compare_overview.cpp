// compare's overview: the "compare" result with its method line, the counts per probe and device
// pair, and compare's findings (verdicts, then notes about the inputs and what was not compared).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "compare_findings.hpp"
#include "compare_steps.hpp"
#include "gpuprobe/core/units.hpp"

namespace gpuprobe::compare_steps {
namespace {

namespace cf = compare_findings;

constexpr std::size_t kListedChanges = 3;       // slowdowns / improvements among the verdicts
constexpr std::size_t kListedInconclusive = 5;  // inconclusive comparisons named, widest first

std::string overview_method(const CompareInputs& in) {
  const CompareOptions& o = in.options;
  const std::string pct = format_number(o.fail_on_regression.value_or(0));
  return fmt::format(
      "rows matched by probe, device pair and row params (any order), summary rows by params, "
      "findings by id and params; ratio = B/A of the medians (of all samples) or values; row "
      "metrics with samples on both sides: {}; without samples (schema 1 and 2 files) and summary "
      "and finding values: same when |ratio - 1| <= max({}%, K x the larger rel_noise), K = {}; "
      "time (s): higher is slower; rates (/s): higher is faster; other units: higher/lower{}",
      bootstrap_rule_text(in.margin * 100.0, "slower/faster (higher/lower)"),
      kCompareNoiseFloor * 100, format_number(o.noise_k),
      o.fail_on_regression
          ? fmt::format("; regression: a slower row metric wholly beyond {}% (band: its ratio); "
                        "summary and finding values never count",
                        pct)
          : std::string());
}

// The overview's summary rows: one per probe and device pair, with the counts that occur.
std::vector<SummaryRow> overview_counts(const CompareInputs& in, const CompareOutcome& total,
                                        const std::vector<ProbeTally>& tallies) {
  std::vector<SummaryRow> out;
  const bool any_neutral = total.higher + total.lower > 0;
  for (const auto& t : tallies) {
    SummaryRow s;
    s.params = {{"probe", t.probe, ""},
                {"a_device", std::int64_t{t.devices.a}, ""},
                {"b_device", std::int64_t{t.devices.b}, ""}};
    auto count = [&](const char* name, std::size_t v) {
      s.values.push_back({name, "", static_cast<double>(v)});
    };
    count("rows", t.rows);
    if (total.matched_summary_rows > 0) count("summary_rows", t.summary_rows);
    if (total.matched_findings > 0) count("findings", t.findings);
    count("faster", t.faster);
    count("slower", t.slower);
    count("same", t.same);
    if (total.inconclusive > 0) count("inconclusive", t.inconclusive);
    if (any_neutral) {
      count("higher", t.higher);
      count("lower", t.lower);
    }
    if (total.undefined > 0) count("n/a", t.undefined);
    if (total.positions > 0) count("positions", t.positions);
    if (in.options.fail_on_regression) count("regressions", t.regressions);
    count("only_in_a", t.only_a);
    count("only_in_b", t.only_b);
    out.push_back(std::move(s));
  }
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

// compare_band_fallback notes of one side: each file without samples, else the side.
void band_fallback_notes(char side, const std::vector<SideFile>& files, const std::string& name,
                         std::size_t comparisons, std::vector<Finding>& out) {
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

// compare's findings: the verdicts (counts, regressions, the largest changes, the widest
// inconclusives), then the notes, the band fallbacks and the values not compared.
std::vector<Finding> overview_findings(const CompareInputs& in, const OverviewParts& parts) {
  const CompareOutcome& total = parts.outcome;
  std::vector<Finding> out{cf::counts(total)};
  if (in.options.fail_on_regression) {
    out.push_back(
        cf::regression_threshold(*in.options.fail_on_regression, total.regressions.size()));
  }
  for (std::size_t i = 0; i < total.slowdowns.size() && i < kListedChanges; ++i)
    out.push_back(cf::change(total.slowdowns[i]));
  for (std::size_t i = 0; i < total.improvements.size() && i < kListedChanges; ++i)
    out.push_back(cf::change(total.improvements[i]));
  for (std::size_t i = 0; i < total.inconclusives.size() && i < kListedInconclusive; ++i)
    out.push_back(cf::inconclusive(total.inconclusives[i], total.margin));
  for (const auto& f : parts.notes)
    out.push_back(f);
  band_fallback_notes('A', in.a_files, in.options.a_name, total.band_only_a, out);
  band_fallback_notes('B', in.b_files, in.options.b_name, total.band_only_b, out);
  for (const auto& s : parts.skipped) {
    out.push_back(s.units_differ
                      ? cf::unit_differs(s.probe, s.part, s.quantity, s.a_unit, s.b_unit, s.items)
                      : cf::one_side(s.probe, s.part, s.quantity, s.side, s.items));
  }
  return out;
}

}  // namespace

std::vector<Finding> environment_notes(const CompareInputs& in,
                                       const std::vector<DevicePair>& pairs) {
  std::vector<Finding> notes;
  for (const auto& f : in.a_files)
    notes.push_back(cf::file('A', f.name, *f.run));
  for (const auto& f : in.b_files)
    notes.push_back(cf::file('B', f.name, *f.run));
  if (in.a.schema_version < 2) notes.push_back(cf::schema1_input('A', in.options.a_name));
  if (in.b.schema_version < 2) notes.push_back(cf::schema1_input('B', in.options.b_name));
  for (const auto& p : pairs) {
    const DeviceInfo* da = find_device(in.a, p.a);
    const DeviceInfo* db = find_device(in.b, p.b);
    if (!da || !db) continue;
    if (da->name != db->name)
      notes.push_back(cf::different_products(p, da->name, db->name));
    else if (!da->uuid.empty() && da->uuid == db->uuid)
      notes.push_back(cf::same_gpu(p, da->name, da->uuid));
    else if (!da->uuid.empty() && !db->uuid.empty())
      notes.push_back(cf::same_product(p, da->name));
  }
  std::vector<cf::Difference> differ;
  auto compare = [&](const char* what, const std::string& x, const std::string& y) {
    if (x != y) differ.push_back({what, x, y});
  };
  const RunReport& a = in.a;
  const RunReport& b = in.b;
  compare("driver", format_cuda_version(a.host.driver_version),
          format_cuda_version(b.host.driver_version));
  compare("runtime", format_cuda_version(a.host.runtime_version),
          format_cuda_version(b.host.runtime_version));
  compare("gpuprobe", a.tool.version, b.tool.version);
  compare("git", a.tool.git, b.tool.git);
  compare("host", a.host.hostname, b.host.hostname);
  notes.push_back(cf::environment(differ));
  return notes;
}

ProbeResult overview(const CompareInputs& in, const OverviewParts& parts) {
  const CompareOptions& o = in.options;
  ProbeResult r;
  r.probe = "compare";
  r.device = parts.pairs.empty() ? std::optional<int>{} : std::optional<int>{parts.pairs.front().a};
  std::vector<std::string> subjects;
  for (const auto& p : parts.pairs)
    subjects.push_back(subject_text(in, p));
  r.subject =
      subjects.empty() ? std::string("no GPU pairs") : fmt::format("{}", fmt::join(subjects, "; "));
  r.method = overview_method(in);
  std::vector<std::string> pair_texts;
  for (const auto& p : parts.pairs)
    pair_texts.push_back(fmt::format("{}:{}", p.a, p.b));
  r.params = {{"a_file", o.a_name, ""},
              {"b_file", o.b_name, ""},
              {"devices", fmt::format("{}", fmt::join(pair_texts, ",")), ""},
              {"metrics",
               o.value_names.empty() ? std::string("all common")
                                     : fmt::format("{}", fmt::join(o.value_names, ",")),
               ""}};
  for (auto& p : option_params(in))
    r.params.push_back(std::move(p));
  r.summary = overview_counts(in, parts.outcome, parts.tallies);
  r.findings = overview_findings(in, parts);
  phrase_findings(r, compare_glossary());
  return r;
}

}  // namespace gpuprobe::compare_steps
