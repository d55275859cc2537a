// compare's first screen: what was compared, the verdict in one line, the headline changes ranked
// by their credible size, and the smallest change the comparison could detect (with the runs per
// side a 5% change would need).
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <fmt/format.h>

#include "gpuprobe/core/compare.hpp"
#include "gpuprobe/core/units.hpp"
#include "render_layout.hpp"

namespace gpuprobe {
namespace {

constexpr std::size_t kHeadlines = 6;   // headline changes listed
constexpr double kDetectTarget = 0.05;  // "how many runs to detect a 5% change"

std::string value_with_unit(double v, const std::string& unit) {
  if (unit == "s") return format_seconds(v);
  if (unit == "B") return format_bytes(v);
  return unit.empty() ? format_number(v) : fmt::format("{} {}", format_number(v), unit);
}

// "transfer memory=pinned direction=h2d bytes=64 MiB bandwidth" (with the GPU pair when not i:i).
std::string what_text(const NotableChange& c) {
  return fmt::format("{}{} {} {}", c.probe,
                     c.devices.a == c.devices.b ? "" : " (" + pair_text(c.devices) + ")", c.item,
                     c.quantity);
}

using RowKey = std::tuple<std::string, int, int, std::string>;  // probe, devices, item
RowKey row_key(const NotableChange& c) {
  return {c.probe, c.devices.a, c.devices.b, c.item};
}

// The rows that have a rate (a unit with /s): their time says the same thing again, and where a
// row's work differs between the files (sizes that scale with the GPU) it says it wrongly.
std::set<RowKey> rows_with_rates(const CompareOutcome& o) {
  std::set<RowKey> out;
  for (const auto& c : o.row_metrics) {
    if (better_for_unit(c.unit) == Better::kHigher) out.insert(row_key(c));
  }
  return out;
}

// A row metric the verdict and the headlines judge: a rate, or a time of a row without a rate.
bool headline_metric(const NotableChange& c, const std::set<RowKey>& rated) {
  const Better better = better_for_unit(c.unit);
  return better == Better::kHigher || (better == Better::kLower && !rated.count(row_key(c)));
}

bool judged_row_metric(const NotableChange& c) {
  return better_for_unit(c.unit) != Better::kNone && c.comparison.ratio && *c.comparison.ratio > 0;
}

bool credible_change(const NotableChange& c) {
  return judged_row_metric(c) &&
         (c.comparison.change == Change::kSlower || c.comparison.change == Change::kFaster);
}

// How large a change is at least, as |log ratio|: the end of the interval nearest no change
// (bootstrap), or the ratio less the band; 0 when the data allow no change.
double credible_effect(const NotableChange& c) {
  const ValueComparison& x = c.comparison;
  if (x.ci_low && x.ci_high && *x.ci_low > 0) {
    if (*x.ci_low > 1) return std::log(*x.ci_low);
    if (*x.ci_high < 1) return -std::log(*x.ci_high);
    return 0;
  }
  return std::max(0.0, std::fabs(std::log(*x.ratio)) - std::log1p(x.band));
}

// One side as items: "A = run-1.json.gz", host, build, driver, GPUs.
std::vector<std::string> side_items(const ComparedSide& side) {
  std::vector<std::string> gpus;
  for (const auto& d : side.devices)
    gpus.push_back(fmt::format("GPU {}: {}", d.index, d.name));
  const std::string files = side.files.size() == 1 ? side.files.front()
                                                   : fmt::format("{} runs: {}", side.files.size(),
                                                                 fmt::join(side.files, ", "));
  return {fmt::format("{} = {}", side.label, files),
          side.host.hostname.empty() ? std::string("?") : side.host.hostname,
          fmt::format("gpuprobe {} ({})", side.tool.version,
                      side.tool.git.empty() ? "?" : side.tool.git),
          fmt::format("driver {}", format_cuda_version(side.host.driver_version)),
          gpus.empty() ? std::string("no GPU") : fmt::format("{}", fmt::join(gpus, ", "))};
}

// The verdict: regressions beyond the threshold when there are, else the credible changes of row
// metrics, else "no change beyond noise".
std::string verdict_text(const CompareOutcome& o) {
  std::set<RowKey> slower, faster;
  const NotableChange* worst = nullptr;
  const std::set<RowKey> rated = rows_with_rates(o);
  for (const auto& c : o.row_metrics) {
    if (!credible_change(c) || !headline_metric(c, rated)) continue;
    (c.comparison.change == Change::kSlower ? slower : faster).insert(row_key(c));
    if (c.comparison.change == Change::kSlower &&
        (!worst || credible_effect(c) > credible_effect(*worst)))
      worst = &c;
  }
  const std::string margin = format_number(o.margin * 100.0);
  std::string changes;
  if (slower.empty() && faster.empty()) {
    changes = fmt::format("no change beyond noise in {} row{}", o.matched_rows,
                          o.matched_rows == 1 ? "" : "s");
  } else {
    changes = fmt::format("{} row(s) slower, {} faster beyond +-{}% (of {} rows)", slower.size(),
                          faster.size(), margin, o.matched_rows);
    if (worst)
      changes +=
          fmt::format("; worst {} {}x", what_text(*worst), format_number(*worst->comparison.ratio));
  }
  if (!o.threshold_pct) return changes;
  if (!o.regressions.empty()) return regression_summary(o);
  return fmt::format("no regression beyond {}%; {}", format_number(*o.threshold_pct), changes);
}

std::string headline_line(const NotableChange& c, std::size_t same_way, std::size_t rows) {
  const ValueComparison& x = c.comparison;
  const std::string interval =
      x.ci_low && x.ci_high
          ? fmt::format(" [{}–{}]", format_number(*x.ci_low), format_number(*x.ci_high))
          : "";
  return fmt::format("{} {}: {} -> {}, {}x{}; {} of {} {} rows {}", change_name(x.change),
                     what_text(c), value_with_unit(x.a, c.unit), value_with_unit(x.b, c.unit),
                     format_number(*x.ratio), interval, same_way, rows, c.probe,
                     change_name(x.change));
}

// The headline changes: one per row (its largest), largest credible change first, at most
// one per probe and direction before any second one.
std::vector<std::string> headlines(const CompareOutcome& o) {
  std::map<RowKey, const NotableChange*> best;
  const std::set<RowKey> rated = rows_with_rates(o);
  std::map<std::string, std::set<RowKey>> rows_of_probe;
  std::map<std::pair<std::string, Change>, std::set<RowKey>> changed;
  for (const auto& c : o.row_metrics) {
    rows_of_probe[c.probe].insert(row_key(c));
    if (!credible_change(c) || !headline_metric(c, rated)) continue;
    changed[{c.probe, c.comparison.change}].insert(row_key(c));
    const NotableChange*& b = best[row_key(c)];
    if (!b || credible_effect(c) > credible_effect(*b)) b = &c;
  }
  std::vector<const NotableChange*> ranked;
  for (const auto& [key, c] : best)
    ranked.push_back(c);
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const NotableChange* x, const NotableChange* y) {
                     return credible_effect(*x) > credible_effect(*y);
                   });
  // First the largest change of each probe (and of each direction), so that one probe's many
  // rows leave room for the others; then the next largest, up to kHeadlines; largest first.
  std::vector<const NotableChange*> chosen;
  std::set<std::pair<std::string, Change>> seen;
  for (const NotableChange* c : ranked) {
    if (chosen.size() < kHeadlines && seen.insert({c->probe, c->comparison.change}).second)
      chosen.push_back(c);
  }
  for (const NotableChange* c : ranked) {
    if (chosen.size() < kHeadlines && std::find(chosen.begin(), chosen.end(), c) == chosen.end())
      chosen.push_back(c);
  }
  std::stable_sort(chosen.begin(), chosen.end(),
                   [](const NotableChange* x, const NotableChange* y) {
                     return credible_effect(*x) > credible_effect(*y);
                   });
  std::vector<std::string> out;
  for (const NotableChange* c : chosen) {
    out.push_back(headline_line(*c, changed[{c->probe, c->comparison.change}].size(),
                                rows_of_probe[c->probe].size()));
  }
  if (ranked.size() > out.size())
    out.push_back(
        fmt::format("... and {} more changed row(s): see the tables", ranked.size() - out.size()));
  return out;
}

// Runs per side that would bring a row metric's smallest detectable change d (relative) down to
// the target: the interval's half-width h = log((1 + d) / (1 + margin)) is taken to shrink as
// 1/sqrt(runs), its square as 1/runs_a + 1/runs_b; nullopt when the margin leaves no room.
std::optional<double> runs_needed(double d, double margin, double runs_a, double runs_b) {
  const double target = std::log((1.0 + kDetectTarget) / (1.0 + margin));
  if (!(target > 0)) return std::nullopt;
  const double h = std::max(0.0, std::log((1.0 + d) / (1.0 + margin)));
  return std::max(1.0, std::ceil(2.0 * h * h / (target * target * (1.0 / runs_a + 1.0 / runs_b))));
}

double percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  const auto i = static_cast<std::size_t>(std::ceil(p * static_cast<double>(v.size())));
  return v[std::min(v.size() - 1, i == 0 ? 0 : i - 1)];
}

std::string detectable_text(const CompareOutcome& o) {
  std::vector<double> d;
  const NotableChange* widest = nullptr;
  for (const auto& c : o.row_metrics) {
    if (!judged_row_metric(c) || !c.comparison.detectable || !c.comparison.ci_low) continue;
    d.push_back(*c.comparison.detectable);
    if (!widest || *c.comparison.detectable > *widest->comparison.detectable) widest = &c;
  }
  if (d.empty()) return "no row metric has samples on both sides: compared by the noise band";
  auto pct = [](double x) { return format_number(x * 100.0, 2) + "%"; };
  const double runs_a =
      o.report.sides.size() == 2 ? static_cast<double>(o.report.sides[0].files.size()) : 1;
  const double runs_b =
      o.report.sides.size() == 2 ? static_cast<double>(o.report.sides[1].files.size()) : 1;
  std::string text = fmt::format(
      "the smallest change a row metric could show as slower or faster is {} (median of {}), at "
      "most {} "
      "for 90% of them, {} for the widest ({})",
      pct(percentile(d, 0.5)), d.size(), pct(percentile(d, 0.9)),
      pct(*widest->comparison.detectable), what_text(*widest));
  const auto n90 = runs_needed(percentile(d, 0.9), o.margin, runs_a, runs_b);
  const auto n_all = runs_needed(*widest->comparison.detectable, o.margin, runs_a, runs_b);
  const std::string now =
      runs_a == runs_b ? format_number(runs_a) : fmt::format("{} and {}", runs_a, runs_b);
  if (n90 && n_all) {
    text += fmt::format(
        "; to detect a 5% change in 90% of them, {} run(s) per side (now {}); in all, {} (taking "
        "the interval's half-width to shrink as 1/sqrt(runs))",
        format_number(*n90, 6), now, format_number(*n_all, 6));
  } else {
    text += fmt::format("; no number of runs detects 5% with a margin of +-{}%",
                        format_number(o.margin * 100.0));
  }
  return text;
}

void add(std::vector<std::string>& lines, const std::string& prefix, const std::string& text,
         std::size_t width, std::size_t indent) {
  for (auto& line : render_detail::wrap_text(prefix, text, width, indent))
    lines.push_back(std::move(line));
}

}  // namespace

std::string compare_lead(const CompareOutcome& o, std::size_t width) {
  std::vector<std::string> lines;
  for (const auto& side : o.report.sides) {
    for (auto& line : render_detail::wrap_items("", side_items(side), " · ", width, 4))
      lines.push_back(std::move(line));
  }
  add(lines, "verdict: ", verdict_text(o), width, 4);
  const std::vector<std::string> heads = headlines(o);
  lines.push_back(
      heads.empty()
          ? "headline changes: none (no row metric of time or a rate changed beyond the margin)"
          : "headline changes (row metrics of time or rates, largest credible change first):");
  for (const auto& h : heads)
    add(lines, "  ", h, width, 6);
  add(lines, "detectable: ", detectable_text(o), width, 4);
  if (o.positions > 0)
    add(lines, "not judged: ",
        fmt::format("{} summary value(s) that are positions or time stamps (start, end, *_at): "
                    "shown in the tables, change 'position'",
                    o.positions),
        width, 4);
  add(lines, "details: ",
      "every compared value by probe follows (ratio B/A, its 95% interval, the change, the "
      "smallest detectable change), then the counts per probe and the notes",
      width, 4);
  std::string out;
  for (const auto& l : lines)
    out += l + "\n";
  return out;
}

}  // namespace gpuprobe
