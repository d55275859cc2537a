// gpuprobe compare, host-only: matches two runs' rows, classifies B/A per metric, builds a report.
#include "gpuprobe/core/compare.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "gpuprobe/core/errors.hpp"
#include "gpuprobe/core/json_io.hpp"
#include "gpuprobe/core/units.hpp"

namespace gpuprobe {
namespace {

// Interim: compare's conclusions as findings carrying their sentence.
void push_verdict(ProbeResult& r, std::string text) {
  r.findings.push_back({"compare_verdict", FindingKind::kVerdict, {}, {}, std::move(text)});
}
void push_note(ProbeResult& r, std::string text) {
  r.findings.push_back({"compare_note", FindingKind::kNote, {}, {}, std::move(text)});
}

constexpr std::size_t kListedUnmatched = 5;  // unmatched rows named per probe and file
constexpr std::size_t kListedChanges = 3;    // regressions / improvements in the verdict

// Parameter values as matching sees them: 64 and 64.0 are the same, "64" (text) is not.
std::string canonical(const Scalar& value) {
  struct Visitor {
    std::string operator()(std::monostate) const { return "null"; }
    std::string operator()(bool b) const { return b ? "true" : "false"; }
    std::string operator()(std::int64_t i) const { return fmt::format("{}", i); }
    std::string operator()(double d) const {
      if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9e15)
        return fmt::format("{}", static_cast<std::int64_t>(d));
      return fmt::format("{}", d);
    }
    std::string operator()(const std::string& s) const { return "\"" + s + "\""; }
  };
  return std::visit(Visitor{}, value);
}

// A row's identity: its params, sorted by key, so that the order in the file does not matter.
std::string row_key(const std::vector<Param>& params) {
  std::vector<std::pair<std::string, std::string>> items;
  for (const auto& p : params)
    items.emplace_back(p.key, canonical(p.value));
  std::sort(items.begin(), items.end());
  std::string key;
  for (const auto& [k, v] : items)
    key += k + "\x1f" + v + "\x1e";
  return key;
}

std::string params_text(const std::vector<Param>& params) {
  std::vector<std::string> parts;
  for (const auto& p : params)
    parts.push_back(fmt::format("{}={}", p.key, scalar_text(p.value)));
  return fmt::format("{}", fmt::join(parts, " "));
}

std::string value_text(double value, const std::string& unit) {
  if (unit == "s") return format_seconds(value);
  if (unit == "B") return format_bytes(value);
  return unit.empty() ? format_number(value) : fmt::format("{} {}", format_number(value), unit);
}

std::string pair_text(const DevicePair& p) {
  return p.a == p.b ? fmt::format("GPU {}", p.a) : fmt::format("GPU {} vs {}", p.a, p.b);
}

const DeviceInfo* find_device(const RunReport& report, int index) {
  for (const auto& d : report.devices) {
    if (d.index == index) return &d;
  }
  return nullptr;
}

std::set<int> result_devices(const RunReport& report) {
  std::set<int> out;
  for (const auto& r : report.results) {
    if (r.device) out.insert(*r.device);
  }
  return out;
}

std::string device_list(const std::set<int>& devices) {
  if (devices.empty()) return "none";
  return fmt::format("{}", fmt::join(devices, ", "));
}

// What a file holds, for the "no rows in common" message: "coalescing (GPU 0), all (GPU 0)".
std::string contents_text(const RunReport& report) {
  std::vector<std::string> parts;
  for (const auto& r : report.results) {
    parts.push_back(r.device ? fmt::format("{} on GPU {}", r.probe, *r.device)
                             : fmt::format("{} ({})", r.probe, status_name(r.status)));
  }
  return parts.empty() ? "no results" : fmt::format("{}", fmt::join(parts, ", "));
}

double severity(const RowChange& c) {
  return c.comparison.ratio && *c.comparison.ratio > 0 ? std::fabs(std::log(*c.comparison.ratio))
                                                       : 0.0;
}

std::string change_text(const RowChange& c) {
  const MetricComparison& m = c.comparison;
  const std::string ratio = m.ratio ? format_number(*m.ratio) + "x" : "n/a";
  const std::string pct = m.ratio ? fmt::format(", {:+.1f}%", (*m.ratio - 1.0) * 100.0) : "";
  return fmt::format("{} {}{} {}: {} -> {} ({}{})", c.probe,
                     c.devices.a == c.devices.b ? "" : pair_text(c.devices) + " ", c.params,
                     c.metric, value_text(m.a, c.unit), value_text(m.b, c.unit), ratio, pct);
}

// Counts for one (probe, device pair): a line of the summary table.
struct ProbeTally {
  std::string probe;
  DevicePair devices;
  std::size_t rows = 0;
  std::size_t same = 0, faster = 0, slower = 0, higher = 0, lower = 0, undefined = 0;
  std::size_t regressions = 0;
  std::size_t only_a = 0, only_b = 0;
  // Rows whose bandwidth x time (the bytes one timed unit moves) differs between A and B.
  std::size_t work_differs = 0;
  double work_ratio_min = 0, work_ratio_max = 0;
};

// bandwidth x time is the amount of work behind one timed unit; for rows with the same params
// it should be the same in both files. Returns B/A of it, or nullopt when a row lacks either.
std::optional<double> work_ratio(const Row& ra, const Row& rb) {
  auto work = [](const Row& r) -> std::optional<double> {
    const Metric* t = find_metric(r, "time");
    const Metric* bw = find_metric(r, "bandwidth");
    if (!t || !bw || t->unit != "s" || metric_direction(bw->unit) != Direction::kHigherIsBetter)
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

// The rows of one metric of one compared pair of results: becomes one "compare <probe>" result.
struct MetricTable {
  std::string metric;
  std::string unit;
  std::vector<Row> rows;
};

class Comparer {
 public:
  Comparer(const RunReport& a, const RunReport& b, const CompareOptions& options)
      : a_(a), b_(b), options_(options) {}

  CompareOutcome run();

 private:
  struct Pairing {
    const ProbeResult* a;
    const ProbeResult* b;
    DevicePair devices;
  };

  std::vector<DevicePair> effective_pairs() const;
  std::vector<Pairing> pair_results(const std::vector<DevicePair>& pairs);
  void compare_pair(const Pairing& pairing);
  void compare_row(const Pairing& pairing, const Row& ra, const Row& rb,
                   std::vector<MetricTable>& tables, ProbeTally& tally);
  ProbeTally& tally_for(const std::string& probe, const DevicePair& devices);
  void note_unmatched(const std::string& probe, const DevicePair& devices, const char* side,
                      const std::vector<const Row*>& rows);
  void environment_notes(const std::vector<DevicePair>& pairs);
  ProbeResult overview(const std::vector<DevicePair>& pairs) const;
  // "A GPU 0: NVIDIA H100 80GB HBM3 vs B GPU 0: NVIDIA H200": the heading of a comparison.
  std::string subject_text(const DevicePair& p) const;

  const RunReport& a_;
  const RunReport& b_;
  const CompareOptions& options_;
  CompareOutcome out_;
  std::vector<ProbeTally> tallies_;
  std::vector<std::string> notes_;
  std::set<std::string> metrics_seen_;                  // in any matched row, either side
  std::map<std::string, std::size_t> metric_one_side_;  // "probe: metric only in A" -> n
};

std::string Comparer::subject_text(const DevicePair& p) const {
  auto side = [](const char* label, const RunReport& r, int index) {
    const DeviceInfo* d = find_device(r, index);
    return d ? fmt::format("{} GPU {}: {}", label, index, d->name)
             : fmt::format("{} GPU {}", label, index);
  };
  return fmt::format("{} vs {}", side("A", a_, p.a), side("B", b_, p.b));
}

std::vector<DevicePair> Comparer::effective_pairs() const {
  const std::set<int> in_a = result_devices(a_);
  const std::set<int> in_b = result_devices(b_);
  if (options_.devices.empty()) {
    std::vector<DevicePair> pairs;
    for (int d : in_a)
      pairs.push_back({d, d});
    return pairs;
  }
  for (const auto& p : options_.devices) {
    if (!in_a.count(p.a)) {
      throw UsageError(fmt::format("--devices {}:{}: {} has no results for GPU {} (it has GPU {})",
                                   p.a, p.b, options_.a_name, p.a, device_list(in_a)));
    }
    if (!in_b.count(p.b)) {
      throw UsageError(fmt::format("--devices {}:{}: {} has no results for GPU {} (it has GPU {})",
                                   p.a, p.b, options_.b_name, p.b, device_list(in_b)));
    }
  }
  return options_.devices;
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

std::vector<Comparer::Pairing> Comparer::pair_results(const std::vector<DevicePair>& pairs) {
  std::vector<Pairing> out;
  std::vector<bool> b_used(b_.results.size(), false);
  std::set<int> b_scope;
  for (const auto& p : pairs)
    b_scope.insert(p.b);
  std::size_t out_of_scope_a = 0;
  for (const auto& ra : a_.results) {
    if (!ra.device) {
      notes_.push_back(fmt::format("{}: {} in A (no measurements) - not compared", ra.probe,
                                   status_name(ra.status)));
      continue;
    }
    bool in_scope = false;
    for (const auto& p : pairs) {
      if (p.a != *ra.device) continue;
      in_scope = true;
      const ProbeResult* partner = nullptr;
      for (std::size_t i = 0; i < b_.results.size(); ++i) {
        const ProbeResult& rb = b_.results[i];
        if (!b_used[i] && rb.probe == ra.probe && rb.device == p.b) {
          b_used[i] = true;
          partner = &rb;
          break;
        }
      }
      if (partner) {
        tally_for(ra.probe, p);  // the summary lists probes in A's order
        out.push_back({&ra, partner, p});
        continue;
      }
      ProbeTally& t = tally_for(ra.probe, p);
      t.only_a += ra.rows.size();
      out_.unmatched_a += ra.rows.size();
      notes_.push_back(fmt::format("{} on {}: only in A ({} rows, {}) - not compared", ra.probe,
                                   pair_text(p), ra.rows.size(), status_name(ra.status)));
    }
    if (!in_scope) ++out_of_scope_a;
  }
  std::size_t out_of_scope_b = 0;
  for (std::size_t i = 0; i < b_.results.size(); ++i) {
    const ProbeResult& rb = b_.results[i];
    if (b_used[i]) continue;
    if (!rb.device) {
      notes_.push_back(fmt::format("{}: {} in B (no measurements) - not compared", rb.probe,
                                   status_name(rb.status)));
      continue;
    }
    if (!b_scope.count(*rb.device)) {
      ++out_of_scope_b;
      continue;
    }
    DevicePair p{*rb.device, *rb.device};
    for (const auto& q : pairs) {
      if (q.b == *rb.device) p = q;
    }
    ProbeTally& t = tally_for(rb.probe, p);
    t.only_b += rb.rows.size();
    out_.unmatched_b += rb.rows.size();
    notes_.push_back(fmt::format("{} on {}: only in B ({} rows, {}) - not compared", rb.probe,
                                 pair_text(p), rb.rows.size(), status_name(rb.status)));
  }
  if (out_of_scope_a + out_of_scope_b > 0) {
    notes_.push_back(
        fmt::format("{} result(s) of A and {} of B are on GPUs outside --devices - not compared",
                    out_of_scope_a, out_of_scope_b));
  }
  return out;
}

void Comparer::note_unmatched(const std::string& probe, const DevicePair& devices, const char* side,
                              const std::vector<const Row*>& rows) {
  if (rows.empty()) return;
  std::vector<std::string> listed;
  for (std::size_t i = 0; i < rows.size() && i < kListedUnmatched; ++i)
    listed.push_back("[" + params_text(rows[i]->params) + "]");
  const std::string more = rows.size() > kListedUnmatched
                               ? fmt::format(" and {} more", rows.size() - kListedUnmatched)
                               : "";
  notes_.push_back(fmt::format("{} on {}: {} row(s) only in {}: {}{}", probe, pair_text(devices),
                               rows.size(), side, fmt::join(listed, ", "), more));
}

void Comparer::compare_row(const Pairing& pairing, const Row& ra, const Row& rb,
                           std::vector<MetricTable>& tables, ProbeTally& tally) {
  const std::string& probe = pairing.a->probe;
  std::vector<std::pair<const Metric*, const Metric*>> metrics;
  auto one_side = [&](const std::string& name, const std::string& side) {
    ++metric_one_side_[fmt::format("{}: metric '{}' only in {}", probe, name, side)];
  };
  for (const auto& m : ra.metrics)
    metrics_seen_.insert(m.name);
  for (const auto& m : rb.metrics)
    metrics_seen_.insert(m.name);
  if (options_.metrics.empty()) {
    for (const auto& m : ra.metrics) {
      if (const Metric* mb = find_metric(rb, m.name))
        metrics.emplace_back(&m, mb);
      else
        one_side(m.name, "A");
    }
    for (const auto& m : rb.metrics) {
      if (!find_metric(ra, m.name)) one_side(m.name, "B");
    }
  } else {
    for (const auto& name : options_.metrics) {
      const Metric* ma = find_metric(ra, name);
      const Metric* mb = find_metric(rb, name);
      if (ma && mb)
        metrics.emplace_back(ma, mb);
      else if (ma)
        one_side(name, "A");
      else if (mb)
        one_side(name, "B");
    }
  }

  for (const auto& [ma, mb] : metrics) {
    if (ma->unit != mb->unit) {
      ++metric_one_side_[fmt::format("{}: metric '{}' has unit '{}' in A but '{}' in B", probe,
                                     ma->name, ma->unit, mb->unit)];
      continue;
    }
    const MetricComparison c =
        compare_metric(*ma, *mb, options_.noise_k, options_.fail_on_regression);
    ++out_.comparisons;
    switch (c.verdict) {
      case Verdict::kSame:
        ++tally.same, ++out_.same;
        break;
      case Verdict::kFaster:
        ++tally.faster, ++out_.faster;
        break;
      case Verdict::kSlower:
        ++tally.slower, ++out_.slower;
        break;
      case Verdict::kHigher:
        ++tally.higher, ++out_.higher;
        break;
      case Verdict::kLower:
        ++tally.lower, ++out_.lower;
        break;
      case Verdict::kUndefined:
        ++tally.undefined, ++out_.undefined;
        break;
    }
    RowChange change{probe, pairing.devices, params_text(ra.params), ma->name, ma->unit, c};
    if (c.regression) {
      ++tally.regressions;
      out_.regressions.push_back(change);
    }
    if (c.verdict == Verdict::kSlower) out_.slowdowns.push_back(change);
    if (c.verdict == Verdict::kFaster) out_.improvements.push_back(change);

    Row row;
    row.params = ra.params;
    row.params.push_back({"metric", ma->name, ""});
    row.params.push_back({"verdict", std::string(verdict_name(c.verdict)), ""});
    row.derived = {{"a", ma->unit, c.a}, {"b", ma->unit, c.b}, {"ratio", "x", c.ratio}};
    if (c.regression) row.flags.push_back("regression");
    auto table = std::find_if(tables.begin(), tables.end(),
                              [&](const MetricTable& t) { return t.metric == ma->name; });
    if (table == tables.end()) {
      tables.push_back({ma->name, ma->unit, {}});
      table = std::prev(tables.end());
    }
    table->rows.push_back(std::move(row));
  }

  if (const auto w = work_ratio(ra, rb); w && std::fabs(*w - 1.0) > kWorkTolerance) {
    tally.work_ratio_min = tally.work_differs == 0 ? *w : std::min(tally.work_ratio_min, *w);
    tally.work_ratio_max = tally.work_differs == 0 ? *w : std::max(tally.work_ratio_max, *w);
    ++tally.work_differs;
  }
}

void Comparer::compare_pair(const Pairing& pairing) {
  const ProbeResult& ra = *pairing.a;
  const ProbeResult& rb = *pairing.b;
  ProbeTally& tally = tally_for(ra.probe, pairing.devices);
  if (ra.status != Status::kOk || rb.status != Status::kOk) {
    auto side = [](const ProbeResult& r, const std::string& name) {
      if (r.status == Status::kOk) return std::string();
      return fmt::format("{} in {}{}", status_name(r.status), name,
                         r.reason.empty() ? "" : " (" + r.reason + ")");
    };
    std::vector<std::string> parts;
    for (const auto& s : {side(ra, "A"), side(rb, "B")}) {
      if (!s.empty()) parts.push_back(s);
    }
    notes_.push_back(fmt::format("{} on {}: {} - not compared ({} rows in A, {} in B)", ra.probe,
                                 pair_text(pairing.devices), fmt::join(parts, "; "), ra.rows.size(),
                                 rb.rows.size()));
    return;
  }

  // B's rows by key, in file order; each is used at most once.
  std::map<std::string, std::vector<std::size_t>> b_rows;
  for (std::size_t i = 0; i < rb.rows.size(); ++i)
    b_rows[row_key(rb.rows[i].params)].push_back(i);
  std::map<std::string, std::size_t> next;
  std::vector<bool> b_used(rb.rows.size(), false);
  std::vector<const Row*> only_a;
  std::vector<MetricTable> tables;
  for (const auto& row : ra.rows) {
    const std::string key = row_key(row.params);
    auto it = b_rows.find(key);
    std::size_t& n = next[key];
    if (it == b_rows.end() || n >= it->second.size()) {
      only_a.push_back(&row);
      continue;
    }
    const std::size_t j = it->second[n++];
    b_used[j] = true;
    ++tally.rows;
    ++out_.matched_rows;
    compare_row(pairing, row, rb.rows[j], tables, tally);
  }
  std::vector<const Row*> only_b;
  for (std::size_t i = 0; i < rb.rows.size(); ++i) {
    if (!b_used[i]) only_b.push_back(&rb.rows[i]);
  }
  tally.only_a += only_a.size();
  tally.only_b += only_b.size();
  out_.unmatched_a += only_a.size();
  out_.unmatched_b += only_b.size();
  note_unmatched(ra.probe, pairing.devices, "A", only_a);
  note_unmatched(ra.probe, pairing.devices, "B", only_b);
  if (tally.work_differs > 0) {
    const std::string range =
        format_number(tally.work_ratio_min) == format_number(tally.work_ratio_max)
            ? format_number(tally.work_ratio_min) + "x"
            : fmt::format("{}x to {}x", format_number(tally.work_ratio_min),
                          format_number(tally.work_ratio_max));
    notes_.push_back(fmt::format(
        "{} on {}: in {} of {} matched rows bandwidth x time (the bytes one timed unit moves) "
        "differs, B/A {}: the files timed different amounts of work for the same row params "
        "(a size that is not a row param?), so their time ratios do not compare like with "
        "like; compare bandwidth (--metric bandwidth)",
        ra.probe, pair_text(pairing.devices), tally.work_differs, tally.rows, range));
  }

  // Run parameters that differ (a quick run against a full one, other sizes...).
  std::vector<std::string> differ;
  for (const auto& p : ra.params) {
    const Param* q = find_param(rb.params, p.key);
    if (!q) {
      differ.push_back(fmt::format("{} only in A", p.key));
    } else if (canonical(p.value) != canonical(q->value)) {
      differ.push_back(
          fmt::format("{} '{}' vs '{}'", p.key, scalar_text(p.value), scalar_text(q->value)));
    }
  }
  for (const auto& q : rb.params) {
    if (!find_param(ra.params, q.key)) differ.push_back(fmt::format("{} only in B", q.key));
  }
  if (!differ.empty()) {
    notes_.push_back(
        fmt::format("{} run parameters differ (A vs B): {}", ra.probe, fmt::join(differ, "; ")));
  }

  const DeviceInfo* da = find_device(a_, pairing.devices.a);
  const DeviceInfo* db = find_device(b_, pairing.devices.b);
  auto device_name = [](const DeviceInfo* d) { return d ? d->name : std::string("?"); };
  for (auto& table : tables) {
    ProbeResult r;
    r.probe = "compare " + ra.probe;
    r.device = pairing.devices.a;
    r.subject = subject_text(pairing.devices);
    const Direction dir = metric_direction(table.unit);
    const char* rule = dir == Direction::kLowerIsBetter    ? "lower is faster"
                       : dir == Direction::kHigherIsBetter ? "higher is faster"
                                                           : "no better direction: higher/lower";
    r.method = fmt::format(
        "{} GPU {} ({}) vs {} GPU {} ({}); {} [{}]: ratio = B/A of the medians, {}; same when "
        "|ratio - 1| <= max({}%, {} x the larger rel_noise)",
        options_.a_name, pairing.devices.a, device_name(da), options_.b_name, pairing.devices.b,
        device_name(db), table.metric, table.unit, rule, kCompareNoiseFloor * 100,
        format_number(options_.noise_k));
    r.params = {{"metric", table.metric, ""},     {"unit", table.unit, ""},
                {"a_file", options_.a_name, ""},  {"a_device", std::int64_t{pairing.devices.a}, ""},
                {"b_file", options_.b_name, ""},  {"b_device", std::int64_t{pairing.devices.b}, ""},
                {"noise_k", options_.noise_k, ""}};
    if (options_.fail_on_regression)
      r.params.push_back({"fail_on_regression", *options_.fail_on_regression, "%"});
    else
      r.params.push_back({"fail_on_regression", std::monostate{}, "%"});
    r.rows = std::move(table.rows);
    out_.report.results.push_back(std::move(r));
  }
}

void Comparer::environment_notes(const std::vector<DevicePair>& pairs) {
  auto identity = [](const char* label, const std::string& file, const RunReport& r) {
    return fmt::format(
        "{} = {}: {} {} ({}) on {}, driver {}, runtime {}, started {}; command: {}", label, file,
        r.tool.name, r.tool.version, r.tool.git.empty() ? "?" : r.tool.git,
        r.host.hostname.empty() ? "?" : r.host.hostname, format_cuda_version(r.host.driver_version),
        format_cuda_version(r.host.runtime_version), r.started_at.empty() ? "?" : r.started_at,
        fmt::join(r.command, " "));
  };
  notes_.push_back(identity("A", options_.a_name, a_));
  notes_.push_back(identity("B", options_.b_name, b_));

  std::vector<std::string> b_devices;
  for (const auto& d : b_.devices)
    b_devices.push_back(fmt::format("GPU {}: {} ({})", d.index, d.name, d.uuid));
  notes_.push_back(fmt::format(
      "devices of B: {}",
      b_devices.empty() ? "none listed" : fmt::format("{}", fmt::join(b_devices, "; "))));

  for (const auto& p : pairs) {
    const DeviceInfo* da = find_device(a_, p.a);
    const DeviceInfo* db = find_device(b_, p.b);
    if (!da || !db) continue;
    if (da->name != db->name) {
      notes_.push_back(fmt::format("different GPU models: A GPU {} is {}, B GPU {} is {}", p.a,
                                   da->name, p.b, db->name));
    } else if (!da->uuid.empty() && da->uuid == db->uuid) {
      notes_.push_back(fmt::format("A GPU {} and B GPU {} are the same GPU ({}, {})", p.a, p.b,
                                   da->name, da->uuid));
    } else if (!da->uuid.empty() && !db->uuid.empty()) {
      notes_.push_back(fmt::format("A GPU {} and B GPU {} are two GPUs of the same model ({})", p.a,
                                   p.b, da->name));
    }
  }
  std::vector<std::string> differ;
  auto check = [&](const char* what, const std::string& x, const std::string& y) {
    if (x != y) differ.push_back(fmt::format("{} {} vs {}", what, x, y));
  };
  check("driver", format_cuda_version(a_.host.driver_version),
        format_cuda_version(b_.host.driver_version));
  check("runtime", format_cuda_version(a_.host.runtime_version),
        format_cuda_version(b_.host.runtime_version));
  check("gpuprobe", a_.tool.version, b_.tool.version);
  check("git", a_.tool.git, b_.tool.git);
  check("host", a_.host.hostname, b_.host.hostname);
  if (differ.empty()) {
    notes_.push_back("same driver, runtime, gpuprobe revision and host in both files");
  } else {
    notes_.push_back(fmt::format("environment differs (A vs B): {}", fmt::join(differ, "; ")));
  }
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
  const std::string pct = format_number(options_.fail_on_regression.value_or(0));
  r.method = fmt::format(
      "rows matched by probe, device pair and row params (in any order); per metric ratio = "
      "B/A of the medians; same when |ratio - 1| <= max({}%, K x the larger rel_noise), K = {}; "
      "time (s): higher is slower; rates (/s): higher is faster; other units: higher/lower{}",
      kCompareNoiseFloor * 100, format_number(options_.noise_k),
      options_.fail_on_regression ? fmt::format("; a regression is slower by more than {}%", pct)
                                  : std::string());
  std::vector<std::string> pair_texts;
  for (const auto& p : pairs)
    pair_texts.push_back(fmt::format("{}:{}", p.a, p.b));
  r.params = {{"a_file", options_.a_name, ""},
              {"b_file", options_.b_name, ""},
              {"devices", fmt::format("{}", fmt::join(pair_texts, ",")), ""},
              {"metrics",
               options_.metrics.empty() ? std::string("all common")
                                        : fmt::format("{}", fmt::join(options_.metrics, ",")),
               ""},
              {"noise_k", options_.noise_k, ""}};
  if (options_.fail_on_regression)
    r.params.push_back({"fail_on_regression", *options_.fail_on_regression, "%"});
  else
    r.params.push_back({"fail_on_regression", std::monostate{}, "%"});

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
    count("faster", t.faster);
    count("slower", t.slower);
    count("same", t.same);
    if (any_neutral) {
      count("higher", t.higher);
      count("lower", t.lower);
    }
    if (out_.undefined > 0) count("n/a", t.undefined);
    if (options_.fail_on_regression) count("regressions", t.regressions);
    count("only_in_a", t.only_a);
    count("only_in_b", t.only_b);
    r.summary.push_back(std::move(s));
  }

  std::string counts = fmt::format("{} faster, {} slower, {} same within noise", out_.faster,
                                   out_.slower, out_.same);
  if (any_neutral) counts += fmt::format(", {} higher, {} lower", out_.higher, out_.lower);
  if (out_.undefined > 0) counts += fmt::format(", {} n/a", out_.undefined);
  push_verdict(
      r,
      fmt::format("{} matched rows, {} comparisons: {}; {} row(s) only in A, {} only in B",
                  out_.matched_rows, out_.comparisons, counts, out_.unmatched_a, out_.unmatched_b));
  if (options_.fail_on_regression) {
    push_verdict(r, out_.regressions.empty()
                        ? fmt::format("no regression beyond {}%", pct)
                        : fmt::format("{} regression(s) beyond {}%", out_.regressions.size(), pct));
  }
  for (std::size_t i = 0; i < out_.slowdowns.size() && i < kListedChanges; ++i) {
    const RowChange& c = out_.slowdowns[i];
    push_verdict(r, fmt::format("{}: {}", c.comparison.regression ? "regression" : "slower",
                                change_text(c)));
  }
  for (std::size_t i = 0; i < out_.improvements.size() && i < kListedChanges; ++i)
    push_verdict(r, "faster: " + change_text(out_.improvements[i]));
  for (const auto& text : notes_)
    push_note(r, text);
  for (const auto& [text, n] : metric_one_side_)
    push_note(r, fmt::format("{} ({} matched row(s)) - not compared", text, n));
  return r;
}

CompareOutcome Comparer::run() {
  if (!(options_.noise_k >= 0) || !std::isfinite(options_.noise_k))
    throw UsageError(fmt::format("--noise-k {}: give a number >= 0", options_.noise_k));
  if (options_.fail_on_regression &&
      (!(*options_.fail_on_regression >= 0) || !std::isfinite(*options_.fail_on_regression))) {
    throw UsageError(fmt::format("--fail-on-regression {}: give a percentage >= 0",
                                 *options_.fail_on_regression));
  }
  out_.threshold_pct = options_.fail_on_regression;
  const std::vector<DevicePair> pairs = effective_pairs();
  environment_notes(pairs);
  for (const auto& pairing : pair_results(pairs))
    compare_pair(pairing);

  for (const auto& name : options_.metrics) {
    if (!metrics_seen_.count(name)) {
      throw UsageError(
          fmt::format("--metric {}: no matched row has this metric (they have: {})", name,
                      metrics_seen_.empty() ? std::string("none")
                                            : fmt::format("{}", fmt::join(metrics_seen_, ", "))));
    }
  }
  if (out_.matched_rows == 0) {
    std::string hint;
    const std::set<int> in_a = result_devices(a_);
    const std::set<int> in_b = result_devices(b_);
    if (options_.devices.empty() && !in_a.empty() && !in_b.empty() && in_a != in_b) {
      hint = fmt::format("; {} has GPU {}, {} has GPU {}: pair them with --devices A:B",
                         options_.a_name, device_list(in_a), options_.b_name, device_list(in_b));
    }
    throw UsageError(fmt::format(
        "no rows in common: different probes or parameters? ({} holds {}; {} holds {}){}",
        options_.a_name, contents_text(a_), options_.b_name, contents_text(b_), hint));
  }
  if (out_.comparisons == 0) {
    throw UsageError(fmt::format("{} rows match but no metric is in both files' rows{}",
                                 out_.matched_rows,
                                 options_.metrics.empty() ? "" : " (check --metric)"));
  }

  auto worst_first = [](const RowChange& x, const RowChange& y) {
    return severity(x) > severity(y);
  };
  std::stable_sort(out_.regressions.begin(), out_.regressions.end(), worst_first);
  std::stable_sort(out_.slowdowns.begin(), out_.slowdowns.end(), worst_first);
  std::stable_sort(out_.improvements.begin(), out_.improvements.end(), worst_first);

  out_.report.schema_version = kSchemaVersion;
  out_.report.host = a_.host;
  out_.report.devices = a_.devices;
  out_.report.results.push_back(overview(pairs));
  return std::move(out_);
}

}  // namespace

Direction metric_direction(const std::string& unit) {
  if (unit == "s") return Direction::kLowerIsBetter;
  if (unit.find("/s") != std::string::npos) return Direction::kHigherIsBetter;
  return Direction::kNone;
}

const char* verdict_name(Verdict verdict) noexcept {
  switch (verdict) {
    case Verdict::kSame:
      return "same";
    case Verdict::kFaster:
      return "faster";
    case Verdict::kSlower:
      return "slower";
    case Verdict::kHigher:
      return "higher";
    case Verdict::kLower:
      return "lower";
    case Verdict::kUndefined:
      return "n/a";
  }
  return "n/a";
}

MetricComparison compare_metric(const Metric& a, const Metric& b, double noise_k,
                                std::optional<double> threshold_pct) {
  MetricComparison c;
  c.a = a.stats.median;
  c.b = b.stats.median;
  const double noise = std::max(std::fabs(a.stats.rel_noise), std::fabs(b.stats.rel_noise));
  c.band = std::max(kCompareNoiseFloor, noise_k * noise);
  if (!std::isfinite(c.a) || !std::isfinite(c.b) || c.a < 0 || c.b < 0) return c;
  if (c.a == 0) {
    if (c.b == 0) c.verdict = Verdict::kSame;  // 0 -> 0: nothing changed, no ratio
    return c;
  }
  const double ratio = c.b / c.a;
  c.ratio = ratio;
  const double change = ratio - 1.0;
  if (std::fabs(change) <= c.band) {
    c.verdict = Verdict::kSame;
    return c;
  }
  switch (metric_direction(a.unit)) {
    case Direction::kLowerIsBetter:
      c.verdict = change > 0 ? Verdict::kSlower : Verdict::kFaster;
      break;
    case Direction::kHigherIsBetter:
      c.verdict = change < 0 ? Verdict::kSlower : Verdict::kFaster;
      break;
    case Direction::kNone:
      c.verdict = change > 0 ? Verdict::kHigher : Verdict::kLower;
      break;
  }
  c.regression =
      threshold_pct && c.verdict == Verdict::kSlower && std::fabs(change) * 100.0 > *threshold_pct;
  return c;
}

CompareOutcome compare_reports(const RunReport& a, const RunReport& b,
                               const CompareOptions& options) {
  return Comparer(a, b, options).run();
}

std::string regression_summary(const CompareOutcome& outcome) {
  const std::string pct = format_number(outcome.threshold_pct.value_or(0));
  if (outcome.regressions.empty()) return fmt::format("no regression beyond {}%", pct);
  const RowChange& w = outcome.regressions.front();
  return fmt::format("{} regression(s) beyond {}%: worst {}{} {} {} {}x",
                     outcome.regressions.size(), pct, w.probe,
                     w.devices.a == w.devices.b ? "" : " (" + pair_text(w.devices) + ")", w.params,
                     w.metric, w.comparison.ratio ? format_number(*w.comparison.ratio) : "n/a");
}

std::vector<DevicePair> parse_device_pairs(const std::string& text) {
  auto bad = [&](const std::string& why) {
    return UsageError(fmt::format(
        "--devices '{}': {}; give A:B device indices, e.g. 0:1 (or a list 0:1,2:3)", text, why));
  };
  auto index = [&](std::string_view token) {
    int v = -1;
    const auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), v);
    if (token.empty() || ec != std::errc{} || end != token.data() + token.size() || v < 0)
      throw bad(fmt::format("'{}' is not a device index", token));
    return v;
  };
  std::vector<DevicePair> pairs;
  std::string_view rest = text;
  if (rest.empty()) throw bad("empty");
  while (true) {
    const std::size_t comma = rest.find(',');
    const std::string_view item = rest.substr(0, comma);
    const std::size_t colon = item.find(':');
    if (colon == std::string_view::npos) throw bad(fmt::format("'{}' has no ':'", item));
    const DevicePair p{index(item.substr(0, colon)), index(item.substr(colon + 1))};
    if (std::find(pairs.begin(), pairs.end(), p) == pairs.end()) pairs.push_back(p);
    if (comma == std::string_view::npos) break;
    rest = rest.substr(comma + 1);
  }
  return pairs;
}

double parse_percent(const std::string& flag, const std::string& text) {
  const auto share = parse_share(text);  // "5" and "5%" both mean 5 percent
  if (!share)
    throw UsageError(fmt::format("{} '{}': give a percentage >= 0, e.g. 5 or 5%", flag, text));
  return share->value;
}

}  // namespace gpuprobe
