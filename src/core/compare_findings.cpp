// compare's findings: each id's builder (params and values) and its phrasing, side by side.
#include "compare_findings.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "gpuprobe/core/units.hpp"

namespace gpuprobe {
namespace compare_findings {
namespace {

constexpr std::size_t kListed = 5;  // unmatched items named per probe, part and file

Param text_param(std::string key, std::string value) {
  return {std::move(key), std::move(value), ""};
}
Param int_param(std::string key, std::int64_t value) {
  return {std::move(key), value, ""};
}
Quantity count_value(std::string name, std::size_t n) {
  return {std::move(name), "", static_cast<double>(n)};
}
std::string side_text(char side) {
  return std::string(1, side);
}

std::vector<Param> pair_params(const std::string& probe, const DevicePair& pair) {
  return {text_param("probe", probe), int_param("a_device", pair.a), int_param("b_device", pair.b)};
}

// A compared value's numbers: A, B, the ratio, its change in percent and its 95% interval (null
// where compared by the band).
std::vector<Quantity> change_values(const NotableChange& c) {
  const std::optional<double> ratio = c.comparison.ratio;
  return {{"a", c.unit, c.comparison.a},
          {"b", c.unit, c.comparison.b},
          {"ratio", "x", ratio},
          {"delta", "%", ratio ? std::optional<double>((*ratio - 1.0) * 100.0) : std::nullopt},
          {"ci_low", "x", c.comparison.ci_low},
          {"ci_high", "x", c.comparison.ci_high}};
}

// ", 95% interval 0.89x to 0.91x" when the finding has one, else "".
std::string interval_text(const Finding& f) {
  const Quantity* lo = find_quantity(f.values, "ci_low");
  const Quantity* hi = find_quantity(f.values, "ci_high");
  if (!lo || !hi || !lo->value || !hi->value) return "";
  return fmt::format(", 95% interval {}x to {}x", format_number(*lo->value),
                     format_number(*hi->value));
}

// ---- reading a finding back, for the phrasings ------------------------------------------

std::size_t count_of(const Finding& f, const std::string& name) {
  return static_cast<std::size_t>(value_of(f, name));
}

int int_of(const Finding& f, const std::string& key) {
  const Param* p = find_param(f.params, key);
  const auto* i = p ? std::get_if<std::int64_t>(&p->value) : nullptr;
  return i ? static_cast<int>(*i) : 0;
}

DevicePair pair_of(const Finding& f) {
  return {int_of(f, "a_device"), int_of(f, "b_device")};
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

// "k 'x' vs 'y'; k only in A" from a_<k>/b_<k> params (null: absent on that side); `quoted`
// puts the values in quotes.
std::string differences_text(const Finding& f, bool quoted) {
  std::vector<std::string> parts;
  for (const auto& p : f.params) {
    if (p.key.rfind("a_", 0) != 0) continue;
    const std::string what = p.key.substr(2);
    const Param* q = find_param(f.params, "b_" + what);
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

std::vector<Param> difference_params(const std::vector<Difference>& differences) {
  std::vector<Param> out;
  for (const auto& d : differences) {
    out.push_back({"a_" + d.what, d.a, ""});
    out.push_back({"b_" + d.what, d.b, ""});
  }
  return out;
}

}  // namespace

// ---- builders --------------------------------------------------------------------------

Finding counts(const CompareOutcome& o) {
  return verdict(
      "compare_counts", {},
      {count_value("matched_rows", o.matched_rows),
       count_value("matched_summary_rows", o.matched_summary_rows),
       count_value("matched_findings", o.matched_findings),
       count_value("comparisons", o.comparisons), count_value("faster", o.faster),
       count_value("slower", o.slower), count_value("same", o.same),
       count_value("higher", o.higher), count_value("lower", o.lower),
       count_value("inconclusive", o.inconclusive), count_value("undefined", o.undefined),
       count_value("positions", o.positions), count_value("only_in_a", o.unmatched_a),
       count_value("only_in_b", o.unmatched_b)});
}

Finding regression_threshold(double threshold_pct, std::size_t regressions) {
  return verdict("compare_regression_threshold", {},
                 {{"threshold", "%", threshold_pct}, count_value("regressions", regressions)});
}

Finding change(const NotableChange& c) {
  const bool slower = c.comparison.change == Change::kSlower;
  std::vector<Param> params = pair_params(c.probe, c.devices);
  params.push_back(text_param("compared", compared_part_name(c.part)));
  params.push_back(text_param("item", c.item));
  params.push_back(text_param("quantity", c.quantity));
  if (slower) params.push_back({"regression", c.comparison.regression, ""});
  return verdict(slower ? "compare_slowdown" : "compare_improvement", std::move(params),
                 change_values(c));
}

Finding inconclusive(const NotableChange& c, double margin) {
  std::vector<Param> params = pair_params(c.probe, c.devices);
  params.push_back(text_param("compared", compared_part_name(c.part)));
  params.push_back(text_param("item", c.item));
  params.push_back(text_param("quantity", c.quantity));
  std::vector<Quantity> values = change_values(c);
  values.push_back({"margin", "%", margin * 100.0});
  return verdict("compare_inconclusive", std::move(params), std::move(values));
}

Finding file(char side, const std::string& name, const RunReport& r) {
  return note("compare_file",
              {text_param("side", side_text(side)), text_param("file", name),
               text_param("tool", r.tool.name), text_param("version", r.tool.version),
               text_param("git", r.tool.git), text_param("host", r.host.hostname),
               text_param("driver", format_cuda_version(r.host.driver_version)),
               text_param("runtime", format_cuda_version(r.host.runtime_version)),
               text_param("started_at", r.started_at),
               text_param("command", fmt::format("{}", fmt::join(r.command, " ")))},
              {});
}

Finding schema1_input(char side, const std::string& name) {
  return note("compare_schema1_input",
              {text_param("side", side_text(side)), text_param("file", name)}, {});
}

Finding band_fallback(char side, const std::string& name, std::optional<int> schema_version,
                      std::size_t comparisons) {
  std::vector<Param> params{text_param("side", side_text(side)), text_param("file", name)};
  params.push_back(schema_version ? Param{"schema_version", std::int64_t{*schema_version}, ""}
                                  : Param{"schema_version", std::monostate{}, ""});
  return note("compare_band_fallback", std::move(params),
              {count_value("comparisons", comparisons)});
}

Finding different_models(const DevicePair& pair, const std::string& a_name,
                         const std::string& b_name) {
  return note("compare_different_models",
              {int_param("a_device", pair.a), text_param("a_name", a_name),
               int_param("b_device", pair.b), text_param("b_name", b_name)},
              {});
}

Finding same_gpu(const DevicePair& pair, const std::string& name, const std::string& uuid) {
  return note("compare_same_gpu",
              {int_param("a_device", pair.a), int_param("b_device", pair.b),
               text_param("name", name), text_param("uuid", uuid)},
              {});
}

Finding same_model(const DevicePair& pair, const std::string& name) {
  return note(
      "compare_same_model",
      {int_param("a_device", pair.a), int_param("b_device", pair.b), text_param("name", name)}, {});
}

Finding environment(const std::vector<Difference>& differences) {
  if (differences.empty()) return note("compare_environment_same", {}, {});
  return note("compare_environment_differs", difference_params(differences), {});
}

Finding not_measured(const ProbeResult& result, char side) {
  return note("compare_not_measured",
              {text_param("probe", result.probe), text_param("side", side_text(side)),
               text_param("status", status_name(result.status))},
              {});
}

Finding outside_devices(std::size_t a_results, std::size_t b_results) {
  return note("compare_outside_devices", {},
              {count_value("a_results", a_results), count_value("b_results", b_results)});
}

Finding result_only_in(const ProbeResult& result, char side, const DevicePair& pair) {
  std::vector<Param> params = pair_params(result.probe, pair);
  params.push_back(text_param("status", status_name(result.status)));
  return note(side == 'A' ? "compare_result_only_in_a" : "compare_result_only_in_b",
              std::move(params), {count_value("rows", result.rows.size())});
}

Finding not_ok(const ProbeResult& a, const ProbeResult& b, const DevicePair& pair) {
  std::vector<Param> params = pair_params(a.probe, pair);
  params.push_back(text_param("a_status", status_name(a.status)));
  params.push_back(text_param("a_reason", a.reason));
  params.push_back(text_param("b_status", status_name(b.status)));
  params.push_back(text_param("b_reason", b.reason));
  return note("compare_not_ok", std::move(params),
              {count_value("a_rows", a.rows.size()), count_value("b_rows", b.rows.size())});
}

Finding only_in(char side, const std::string& probe, const DevicePair& pair, ComparedPart part,
                const std::vector<std::string>& items) {
  std::vector<std::string> listed;
  for (std::size_t i = 0; i < items.size() && i < kListed; ++i)
    listed.push_back("[" + items[i] + "]");
  std::vector<Param> params = pair_params(probe, pair);
  params.push_back(text_param("compared", compared_part_name(part)));
  params.push_back(text_param("listed", fmt::format("{}", fmt::join(listed, ", "))));
  return note(
      side == 'A' ? "compare_only_in_a" : "compare_only_in_b", std::move(params),
      {count_value("items", items.size()), count_value("unlisted", items.size() - listed.size())});
}

Finding outcome_changed(const std::string& probe, const DevicePair& pair,
                        const std::vector<std::string>& items) {
  std::vector<std::string> listed;
  for (std::size_t i = 0; i < items.size() && i < kListed; ++i)
    listed.push_back("[" + items[i] + "]");
  std::vector<Param> params = pair_params(probe, pair);
  params.push_back(text_param("listed", fmt::format("{}", fmt::join(listed, ", "))));
  return note(
      "compare_finding_outcome_changed", std::move(params),
      {count_value("items", items.size()), count_value("unlisted", items.size() - listed.size())});
}

Finding work_differs(const std::string& probe, const DevicePair& pair, std::size_t rows,
                     std::size_t matched_rows, double ratio_min, double ratio_max) {
  return note("compare_work_differs", pair_params(probe, pair),
              {count_value("rows", rows),
               count_value("matched_rows", matched_rows),
               {"ratio_min", "x", ratio_min},
               {"ratio_max", "x", ratio_max}});
}

Finding run_params_differ(const std::string& probe, const std::vector<Difference>& differences) {
  std::vector<Param> params{text_param("probe", probe)};
  for (auto& p : difference_params(differences))
    params.push_back(std::move(p));
  return note("compare_run_params_differ", std::move(params), {});
}

Finding one_side(const std::string& probe, ComparedPart part, const std::string& quantity,
                 char side, std::size_t items) {
  return note("compare_metric_one_side",
              {text_param("probe", probe), text_param("compared", compared_part_name(part)),
               text_param("quantity", quantity), text_param("side", side_text(side))},
              {count_value("items", items)});
}

Finding unit_differs(const std::string& probe, ComparedPart part, const std::string& quantity,
                     const std::string& a_unit, const std::string& b_unit, std::size_t items) {
  return note("compare_unit_differs",
              {text_param("probe", probe), text_param("compared", compared_part_name(part)),
               text_param("quantity", quantity), text_param("a_unit", a_unit),
               text_param("b_unit", b_unit)},
              {count_value("items", items)});
}

}  // namespace compare_findings

// ---- phrasings -------------------------------------------------------------------------

namespace {

// Verdicts: counts, the threshold, slowdowns, improvements and inconclusive comparisons; the
// interval column's term.
void add_change_phrasings(Glossary& g) {
  using namespace compare_findings;
  g.add_term("", "derived.ci",
             {"95% ci",
              "95% interval of the ratio (hierarchical bootstrap); - : compared by the "
              "noise band (no samples)"});
  g.add_term("", "derived.detectable",
             {"detect", "the smallest change this comparison could call slower or faster"});
  g.add_phrasing("compare_counts", [](const Finding& f) {
    std::string matched = fmt::format("{} matched rows", count_of(f, "matched_rows"));
    if (const std::size_t s = count_of(f, "matched_summary_rows"); s > 0)
      matched += fmt::format(", {} matched summary rows", s);
    if (const std::size_t n = count_of(f, "matched_findings"); n > 0)
      matched += fmt::format(", {} matched findings", n);
    std::string counts = fmt::format("{} faster, {} slower, {} same", count_of(f, "faster"),
                                     count_of(f, "slower"), count_of(f, "same"));
    if (const std::size_t i = count_of(f, "inconclusive"); i > 0)
      counts += fmt::format(", {} inconclusive", i);
    if (count_of(f, "higher") + count_of(f, "lower") > 0)
      counts += fmt::format(", {} higher, {} lower", count_of(f, "higher"), count_of(f, "lower"));
    if (const std::size_t u = count_of(f, "undefined"); u > 0) counts += fmt::format(", {} n/a", u);
    if (const Quantity* p = find_quantity(f.values, "positions"); p && p->value && *p->value > 0)
      counts += fmt::format(", {} position(s) (not judged)", count_of(f, "positions"));
    return fmt::format("{}, {} comparisons: {}; {} row(s) only in A, {} only in B", matched,
                       count_of(f, "comparisons"), counts, count_of(f, "only_in_a"),
                       count_of(f, "only_in_b"));
  });
  g.add_phrasing("compare_regression_threshold", [](const Finding& f) {
    const std::string pct = format_number(value_of(f, "threshold"));
    const std::size_t n = count_of(f, "regressions");
    return n == 0 ? fmt::format("no regression beyond {}%", pct)
                  : fmt::format("{} regression(s) beyond {}%", n, pct);
  });
  auto change_phrasing = [](const char* label) {
    return [label](const Finding& f) {
      const Param* regression = find_param(f.params, "regression");
      const bool is_regression = regression && std::holds_alternative<bool>(regression->value) &&
                                 std::get<bool>(regression->value);
      const DevicePair pair = pair_of(f);
      const auto ratio = optional_value_of(f, "ratio");
      const auto pct = optional_value_of(f, "delta");
      std::string text =
          fmt::format("{}: {} {}{} {}: {} -> {} ({}{}{})", is_regression ? "regression" : label,
                      param_text_of(f, "probe"), pair.a == pair.b ? "" : pair_text(pair) + " ",
                      param_text_of(f, "item"), param_text_of(f, "quantity"), value_text(f, "a"),
                      value_text(f, "b"), ratio ? format_number(*ratio) + "x" : "n/a",
                      pct ? fmt::format(", {:+.1f}%", *pct) : "", interval_text(f));
      if (find_quantity(f.values, "margin"))
        text += fmt::format(": not clear of +-{}%", format_number(value_of(f, "margin")));
      return text;
    };
  };
  g.add_phrasing("compare_slowdown", change_phrasing("slower"));
  g.add_phrasing("compare_improvement", change_phrasing("faster"));
  g.add_phrasing("compare_inconclusive", change_phrasing("inconclusive"));
}

// Notes about the inputs: files, schemas, GPUs, environment.
void add_input_phrasings(Glossary& g) {
  using namespace compare_findings;
  g.add_phrasing("compare_file", [](const Finding& f) {
    return fmt::format("{} = {}: {} {} ({}) on {}, driver {}, runtime {}, started {}; command: {}",
                       param_text_of(f, "side"), param_text_of(f, "file"), param_text_of(f, "tool"),
                       param_text_of(f, "version"), or_unknown(param_text_of(f, "git")),
                       or_unknown(param_text_of(f, "host")), param_text_of(f, "driver"),
                       param_text_of(f, "runtime"), or_unknown(param_text_of(f, "started_at")),
                       param_text_of(f, "command"));
  });
  g.add_phrasing("compare_schema1_input", [](const Finding& f) {
    return fmt::format("{} ({}) is schema 1: its findings are prose and are not compared",
                       param_text_of(f, "side"), param_text_of(f, "file"));
  });
  g.add_phrasing("compare_band_fallback", [](const Finding& f) {
    const Param* schema = find_param(f.params, "schema_version");
    const bool file = schema && !std::holds_alternative<std::monostate>(schema->value);
    return fmt::format(
        "{} {}{}: {} row metric comparison(s) used the noise band (K x rel_noise, at least 0.5%) "
        "instead of the bootstrap interval",
        file ? param_text_of(f, "side") + " file" : param_text_of(f, "side") + " =",
        param_text_of(f, "file"),
        file ? fmt::format(" (schema {}) has no samples", scalar_text(schema->value))
             : std::string(" has no samples for them"),
        count_of(f, "comparisons"));
  });
  g.add_phrasing("compare_different_models", [](const Finding& f) {
    return fmt::format("different GPU models: A GPU {} is {}, B GPU {} is {}",
                       param_text_of(f, "a_device"), param_text_of(f, "a_name"),
                       param_text_of(f, "b_device"), param_text_of(f, "b_name"));
  });
  g.add_phrasing("compare_same_gpu", [](const Finding& f) {
    return fmt::format("A GPU {} and B GPU {} are the same GPU ({}, {})",
                       param_text_of(f, "a_device"), param_text_of(f, "b_device"),
                       param_text_of(f, "name"), param_text_of(f, "uuid"));
  });
  g.add_phrasing("compare_same_model", [](const Finding& f) {
    return fmt::format("A GPU {} and B GPU {} are two GPUs of the same model ({})",
                       param_text_of(f, "a_device"), param_text_of(f, "b_device"),
                       param_text_of(f, "name"));
  });
  g.add_phrasing("compare_environment_same", [](const Finding&) {
    return std::string("same driver, runtime, gpuprobe revision and host in both files");
  });
  g.add_phrasing("compare_environment_differs", [](const Finding& f) {
    return fmt::format("environment differs (A vs B): {}", differences_text(f, false));
  });
}

// Notes about what was not compared.
void add_skip_phrasings(Glossary& g) {
  using namespace compare_findings;
  g.add_phrasing("compare_not_measured", [](const Finding& f) {
    return fmt::format("{}: {} in {} (no measurements) - not compared", param_text_of(f, "probe"),
                       param_text_of(f, "status"), param_text_of(f, "side"));
  });
  g.add_phrasing("compare_outside_devices", [](const Finding& f) {
    return fmt::format("{} result(s) of A and {} of B are on GPUs outside --devices - not compared",
                       count_of(f, "a_results"), count_of(f, "b_results"));
  });
  auto result_only_in_phrasing = [](const char* side) {
    return [side](const Finding& f) {
      return fmt::format("{} on {}: only in {} ({} rows, {}) - not compared",
                         param_text_of(f, "probe"), pair_text(pair_of(f)), side,
                         count_of(f, "rows"), param_text_of(f, "status"));
    };
  };
  g.add_phrasing("compare_result_only_in_a", result_only_in_phrasing("A"));
  g.add_phrasing("compare_result_only_in_b", result_only_in_phrasing("B"));
  g.add_phrasing("compare_not_ok", [](const Finding& f) {
    std::vector<std::string> parts;
    for (const char* side : {"a", "b"}) {
      const std::string status = param_text_of(f, fmt::format("{}_status", side));
      if (status == status_name(Status::kOk)) continue;
      const std::string reason = param_text_of(f, fmt::format("{}_reason", side));
      parts.push_back(fmt::format("{} in {}{}", status, side[0] == 'a' ? "A" : "B",
                                  reason.empty() ? "" : " (" + reason + ")"));
    }
    return fmt::format("{} on {}: {} - not compared ({} rows in A, {} in B)",
                       param_text_of(f, "probe"), pair_text(pair_of(f)), fmt::join(parts, "; "),
                       count_of(f, "a_rows"), count_of(f, "b_rows"));
  });
  auto only_in_phrasing = [](const char* side) {
    return [side](const Finding& f) {
      const std::size_t unlisted = count_of(f, "unlisted");
      return fmt::format("{} on {}: {} {} only in {}: {}{}", param_text_of(f, "probe"),
                         pair_text(pair_of(f)), count_of(f, "items"),
                         items_word(param_text_of(f, "compared")), side, param_text_of(f, "listed"),
                         unlisted > 0 ? fmt::format(" and {} more", unlisted) : "");
    };
  };
  g.add_phrasing("compare_finding_outcome_changed", [](const Finding& f) {
    const std::size_t unlisted = count_of(f, "unlisted");
    return fmt::format("{} on {}: {} finding(s) in both files decided otherwise in B: {}{}",
                       param_text_of(f, "probe"), pair_text(pair_of(f)), count_of(f, "items"),
                       param_text_of(f, "listed"),
                       unlisted > 0 ? fmt::format(" and {} more", unlisted) : "");
  });
  g.add_phrasing("compare_only_in_a", only_in_phrasing("A"));
  g.add_phrasing("compare_only_in_b", only_in_phrasing("B"));
  g.add_phrasing("compare_work_differs", [](const Finding& f) {
    const std::string lo = format_number(value_of(f, "ratio_min"));
    const std::string hi = format_number(value_of(f, "ratio_max"));
    const std::string range = lo == hi ? lo + "x" : fmt::format("{}x to {}x", lo, hi);
    return fmt::format(
        "{} on {}: in {} of {} matched rows bandwidth x time (the bytes one timed unit moves) "
        "differs, B/A {}: the files timed different amounts of work for the same row params "
        "(a size that is not a row param?), so their time ratios do not compare like with "
        "like; compare bandwidth (--metric bandwidth)",
        param_text_of(f, "probe"), pair_text(pair_of(f)), count_of(f, "rows"),
        count_of(f, "matched_rows"), range);
  });
  g.add_phrasing("compare_run_params_differ", [](const Finding& f) {
    return fmt::format("{} run parameters differ (A vs B): {}", param_text_of(f, "probe"),
                       differences_text(f, true));
  });
  g.add_phrasing("compare_metric_one_side", [](const Finding& f) {
    const std::string part = param_text_of(f, "compared");
    return fmt::format("{}: {} '{}' only in {} ({} matched {}) - not compared",
                       param_text_of(f, "probe"), quantity_word(part), param_text_of(f, "quantity"),
                       param_text_of(f, "side"), count_of(f, "items"), items_word(part));
  });
  g.add_phrasing("compare_unit_differs", [](const Finding& f) {
    const std::string part = param_text_of(f, "compared");
    return fmt::format(
        "{}: {} '{}' has unit '{}' in A but '{}' in B ({} matched {}) - not "
        "compared",
        param_text_of(f, "probe"), quantity_word(part), param_text_of(f, "quantity"),
        param_text_of(f, "a_unit"), param_text_of(f, "b_unit"), count_of(f, "items"),
        items_word(part));
  });
}

}  // namespace

Glossary compare_glossary() {
  Glossary g;
  add_change_phrasings(g);
  add_input_phrasings(g);
  add_skip_phrasings(g);
  return g;
}

}  // namespace gpuprobe
