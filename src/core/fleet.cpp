// `gpuprobe fleet`: per row the fleet's median and robust spread over many result files, and the
// members beyond it (median absolute deviation), as a report the usual renderers print.
#include "gpuprobe/core/fleet.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "gpuprobe/core/compare_match.hpp"

namespace gpuprobe {
namespace {

// 1.4826 x MAD estimates the standard deviation of normally distributed values.
constexpr double kMadToSigma = 1.4826;

// One member's value of one row's metric.
struct Value {
  double value;
  std::size_t member;
  int device;
};

// The values of one (probe, row, metric) across the fleet.
struct Group {
  std::vector<Param> params;  // the row's params and `metric`
  std::string unit;
  std::vector<Value> values;
};

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::vector<std::string> metrics_of(const Row& row, const FleetOptions& o) {
  std::vector<std::string> out;
  for (const auto& m : row.metrics) {
    const bool wanted =
        o.value_names.empty()
            ? (!find_metric(row, "bandwidth") || m.name == "bandwidth")
            : std::find(o.value_names.begin(), o.value_names.end(), m.name) != o.value_names.end();
    if (wanted) out.push_back(m.name);
  }
  return out;
}

// probe -> (row key + metric -> group), in the order rows are first seen.
using Groups = std::map<std::string, std::vector<std::pair<std::string, Group>>>;

void add_result(Groups& groups, const ProbeResult& r, std::size_t member, const FleetOptions& o) {
  auto& probe_groups = groups[r.probe];
  for (const auto& row : r.rows) {
    for (const auto& name : metrics_of(row, o)) {
      const Metric* m = find_metric(row, name);
      const std::string key = params_key(row.params) + "|" + name;
      auto it = std::find_if(probe_groups.begin(), probe_groups.end(),
                             [&key](const auto& g) { return g.first == key; });
      if (it == probe_groups.end()) {
        Group g;
        g.params = row.params;
        g.params.push_back({"metric", name, ""});
        g.unit = m->unit;
        probe_groups.emplace_back(key, std::move(g));
        it = std::prev(probe_groups.end());
      }
      it->second.values.push_back({m->stats.median, member, r.device.value_or(0)});
    }
  }
}

// The member's host and GPU, for an outlier's params.
std::vector<Param> member_params(const FleetMember& m, int device) {
  std::string gpu = "?";
  for (const auto& d : m.report.devices)
    if (d.index == device) gpu = d.name;
  return {{"host", m.report.host.hostname, ""},
          {"gpu", gpu, ""},
          {"device", static_cast<std::int64_t>(device), ""},
          {"file", m.file, ""}};
}

// One GPU's tally in one probe: its values, those beyond the fleet, and their deviations.
struct Tally {
  std::size_t values = 0;
  std::vector<double> beyond;  // relative deviations (%) of the values beyond the fleet
};
using Tallies = std::map<std::pair<std::size_t, int>, Tally>;  // (member, device)

// One row of the fleet table; its values beyond the fleet become notes and tallies.
Row judge(const Group& g, const std::vector<FleetMember>& members, const FleetOptions& o,
          std::vector<Finding>& notes, Tallies& tallies) {
  std::vector<double> v;
  for (const auto& x : g.values)
    v.push_back(x.value);
  const double med = median_of(v);
  std::vector<double> dev;
  for (double x : v)
    dev.push_back(std::fabs(x - med));
  const double sigma = kMadToSigma * median_of(dev);
  std::size_t beyond = 0;
  for (const auto& x : g.values) {
    const double d = x.value - med;
    const double rel = med != 0 ? std::fabs(d) / std::fabs(med) : 0;
    const double z = sigma > 0 ? std::fabs(d) / sigma : (d != 0 ? INFINITY : 0);
    Tally& t = tallies[{x.member, x.device}];
    ++t.values;
    if (v.size() < kFleetMinMembers || z <= o.k || rel <= o.min_deviation) continue;
    ++beyond;
    t.beyond.push_back(100 * d / med);
    std::vector<Param> params = member_params(members[x.member], x.device);
    params.insert(params.end(), g.params.begin(), g.params.end());
    notes.push_back(
        note("fleet_beyond", std::move(params),
             {{"value", g.unit, x.value},
              {"fleet_median", g.unit, med},
              {"deviation", "%", 100 * d / med},
              {"robust_sigmas", "", sigma > 0 ? std::optional<double>(z) : std::nullopt}},
             {{"side", std::string(d < 0 ? "low" : "high"), ""}}));
  }
  Row row;
  row.params = g.params;
  row.derived = {
      {"fleet_median", g.unit, med},
      {"spread", "%", med != 0 ? std::optional<double>(100 * sigma / med) : std::nullopt},
      {"fleet_min", g.unit, *std::min_element(v.begin(), v.end())},
      {"fleet_max", g.unit, *std::max_element(v.begin(), v.end())},
      {"members", "", static_cast<double>(v.size())},
      {"beyond", "", static_cast<double>(beyond)}};
  return row;
}

// The GPUs of one probe with more than max_outlier_share of their values beyond the fleet.
std::vector<Finding> outlier_gpus(const std::string& probe, const Tallies& tallies,
                                  const std::vector<FleetMember>& members, const FleetOptions& o) {
  std::vector<Finding> out;
  for (const auto& [who, t] : tallies) {
    const double share = static_cast<double>(t.beyond.size()) / static_cast<double>(t.values);
    if (t.beyond.empty() || share <= o.max_outlier_share) continue;
    std::vector<Param> params = member_params(members[who.first], who.second);
    params.push_back({"probe", probe, ""});
    out.push_back(warning("fleet_outlier", std::move(params),
                          {{"values_beyond", "", static_cast<double>(t.beyond.size())},
                           {"values", "", static_cast<double>(t.values)},
                           {"share", "%", 100 * share},
                           {"median_deviation", "%", median_of(t.beyond)},
                           {"max_share", "%", 100 * o.max_outlier_share}}));
  }
  return out;
}

}  // namespace

RunReport fleet_report(const std::vector<FleetMember>& members, const FleetOptions& options) {
  Groups groups;
  std::map<std::string, std::size_t> results_per_probe;
  std::size_t gpus = 0;
  for (std::size_t i = 0; i < members.size(); ++i) {
    gpus += members[i].report.devices.size();
    for (const auto& r : members[i].report.results) {
      if (r.status != Status::kOk) continue;
      add_result(groups, r, i, options);
      ++results_per_probe[r.probe];
    }
  }
  RunReport out;
  std::size_t rows = 0, outliers = 0;
  for (const auto& [probe, probe_groups] : groups) {
    ProbeResult r;
    r.probe = probe;
    r.status = Status::kOk;
    r.subject = fmt::format("fleet of {} GPUs in {} files", gpus, members.size());
    Tallies tallies;
    std::vector<Finding> beyond;
    for (const auto& [key, g] : probe_groups)
      r.rows.push_back(judge(g, members, options, beyond, tallies));
    r.findings = outlier_gpus(probe, tallies, members, options);
    outliers += r.findings.size();
    r.findings.insert(r.findings.end(), beyond.begin(), beyond.end());
    rows += r.rows.size();
    if (results_per_probe[probe] < gpus)
      r.findings.push_back(note("fleet_incomplete", {{"probe", probe, ""}},
                                {{"results", "", static_cast<double>(results_per_probe[probe])},
                                 {"gpus", "", static_cast<double>(gpus)}}));
    out.results.push_back(std::move(r));
  }
  if (!out.results.empty()) {
    out.results.front().findings.insert(
        out.results.front().findings.begin(),
        verdict("fleet_summary", {},
                {{"files", "", static_cast<double>(members.size())},
                 {"gpus", "", static_cast<double>(gpus)},
                 {"rows", "", static_cast<double>(rows)},
                 {"outliers", "", static_cast<double>(outliers)},
                 {"k", "", options.k},
                 {"min_deviation", "%", 100 * options.min_deviation},
                 {"max_share", "%", 100 * options.max_outlier_share}}));
  }
  const Glossary words = fleet_glossary();
  for (auto& r : out.results)
    phrase_findings(r, words);
  return out;
}

std::size_t fleet_outlier_count(const RunReport& report) {
  std::size_t n = 0;
  for (const auto& r : report.results)
    for (const auto& f : r.findings)
      n += f.id == "fleet_outlier";
  return n;
}

}  // namespace gpuprobe
