// `gpuprobe fleet`: per row the fleet's median and robust spread over many result files, and the
// members beyond it (median absolute deviation), as a report the usual renderers print.
#include "gpuprobe/core/fleet.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include "fleet_findings.hpp"
#include "gpuprobe/core/compare_match.hpp"

namespace gpuprobe {
namespace {

using namespace fleet_findings;

// 1.4826 x MAD estimates the standard deviation of normally distributed values.
constexpr double kMadToSigma = 1.4826;

// One member's value of one row's metric.
struct MemberValue {
  double value;
  std::size_t member;
  int device;
  std::string gpu;  // the GPU's identity: its UUID (a file's index where it has none)
};

// The values of one (probe, row, metric) across the fleet.
struct Group {
  std::vector<Param> params;  // the row's params and `metric`
  std::string unit;
  std::vector<MemberValue> values;
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

// The GPU a result was measured on: its product (the device name) and identity (UUID; without one,
// the GPU index in its file: each file a GPU of its own).
struct GpuOf {
  std::string product;
  std::string id;
};

GpuOf gpu_of(const FleetMember& m, int device) {
  for (const auto& d : m.report.devices)
    if (d.index == device)
      return {d.name.empty() ? "?" : d.name,
              d.uuid.empty() ? fmt::format("{}#{}", m.file, device) : d.uuid};
  return {"?", fmt::format("{}#{}", m.file, device)};
}

void add_result(Groups& groups, const ProbeResult& r, std::size_t member, const std::string& gpu,
                const FleetOptions& o) {
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
      it->second.values.push_back({m->stats.median, member, r.device.value_or(0), gpu});
    }
  }
}

// Who measured: host, GPU product, device index, UUID and file, as the fleet findings name them.
struct Who {
  std::string host, gpu = "?";
  int device = 0;
  std::string uuid, file;
};

Who who_of(const FleetMember& m, int device) {
  Who w{m.report.host.hostname, "?", device, "", m.file};
  for (const auto& d : m.report.devices)
    if (d.index == device) {
      w.gpu = d.name;
      w.uuid = d.uuid;
    }
  return w;
}

// One GPU's tally in one probe, over all its runs: its values, those beyond the fleet, and their
// deviations.
struct Tally {
  std::size_t member = 0;  // its first run, which names it
  int device = 0;
  std::set<std::size_t> runs;  // the files it was measured in
  std::size_t values = 0;
  std::vector<double> beyond;  // relative deviations (%) of the values beyond the fleet
};
using Tallies = std::map<std::string, Tally>;  // by GPU identity

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
  std::set<std::string> gpus;  // a row is judged among kFleetMinMembers GPUs or more, not runs
  for (const auto& x : g.values)
    gpus.insert(x.gpu);
  std::size_t beyond = 0;
  for (const auto& x : g.values) {
    const double d = x.value - med;
    const double rel = med != 0 ? std::fabs(d) / std::fabs(med) : 0;
    const double z = sigma > 0 ? std::fabs(d) / sigma : (d != 0 ? INFINITY : 0);
    auto [at, fresh] = tallies.try_emplace(x.gpu);
    Tally& t = at->second;
    if (fresh) std::tie(t.member, t.device) = std::pair(x.member, x.device);
    t.runs.insert(x.member);
    ++t.values;
    if (gpus.size() < kFleetMinMembers || z <= o.k || rel <= o.min_deviation) continue;
    ++beyond;
    t.beyond.push_back(100 * d / med);
    const Who w = who_of(members[x.member], x.device);
    // g.params: the row's params, then `metric`.
    std::vector<Param> row(g.params.begin(), g.params.end() - 1);
    notes.push_back(
        kBeyond.make(kHost(w.host), kGpu(w.gpu), kDevice(w.device), kUuid(w.uuid), kFile(w.file),
                     kRow(std::move(row)), kMetric(scalar_text(g.params.back().value)),
                     kValue(g.unit, x.value), kFleetMedian(g.unit, med), kDeviation(100 * d / med),
                     kRobustSigmas(sigma > 0 ? std::optional<double>(z) : std::nullopt),
                     kSide(d < 0 ? "low" : "high")));
  }
  Row row;
  row.params = g.params;
  row.derived = {
      {"fleet_median", g.unit, med},
      {"spread", "%", med != 0 ? std::optional<double>(100 * sigma / med) : std::nullopt},
      {"fleet_min", g.unit, *std::min_element(v.begin(), v.end())},
      {"fleet_max", g.unit, *std::max_element(v.begin(), v.end())},
      {"members", "", static_cast<double>(v.size())},
      {"gpus", "", static_cast<double>(gpus.size())},
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
    const Who w = who_of(members[t.member], t.device);
    out.push_back(kOutlier.make(kHost(w.host), kGpu(w.gpu), kDevice(w.device), kUuid(w.uuid),
                                kFile(w.file), kProbe(probe), kValuesBeyond(t.beyond.size()),
                                kValues(t.values), kRuns(t.runs.size()), kShare(100 * share),
                                kMedianDeviation(median_of(t.beyond)),
                                kMaxShare(100 * o.max_outlier_share)));
  }
  return out;
}

// One GPU product's part of the fleet: its rows, its GPUs (by identity) and GPU-runs, and the GPUs
// with an ok result of each probe. Outliers are judged within a part only.
struct ProductPart {
  Groups groups;
  std::set<std::string> gpus;
  std::size_t runs = 0;  // (file, GPU) pairs: seven runs of one GPU are one GPU with seven runs
  std::map<std::string, std::set<std::string>> gpus_per_probe;
};

std::map<std::string, ProductPart> split_by_product(const std::vector<FleetMember>& members,
                                                    const FleetOptions& options) {
  std::map<std::string, ProductPart> products;
  for (std::size_t i = 0; i < members.size(); ++i) {
    const FleetMember& m = members[i];
    for (const auto& d : m.report.devices) {
      const GpuOf g = gpu_of(m, d.index);
      products[g.product].gpus.insert(g.id);
      ++products[g.product].runs;
    }
    for (const auto& r : m.report.results) {
      if (r.status != Status::kOk) continue;
      const GpuOf g = gpu_of(m, r.device.value_or(0));
      ProductPart& part = products[g.product];
      if (part.gpus.insert(g.id).second) ++part.runs;  // a result without its device's facts
      add_result(part.groups, r, i, g.id, options);
      part.gpus_per_probe[r.probe].insert(g.id);
    }
  }
  return products;
}

// One probe's fleet result among one product's GPUs.
ProbeResult judge_probe(const std::string& probe,
                        const std::vector<std::pair<std::string, Group>>& probe_groups,
                        const std::string& product, const ProductPart& part,
                        const std::vector<FleetMember>& members, const FleetOptions& options) {
  ProbeResult r;
  r.probe = probe;
  r.status = Status::kOk;
  r.params = {{"gpu", product, ""}};
  r.subject = fmt::format("fleet of {} {} GPU{} ({} run{})", part.gpus.size(), product,
                          part.gpus.size() == 1 ? "" : "s", part.runs, part.runs == 1 ? "" : "s");
  Tallies tallies;
  std::vector<Finding> beyond;
  for (const auto& [key, g] : probe_groups)
    r.rows.push_back(judge(g, members, options, beyond, tallies));
  r.findings = outlier_gpus(probe, tallies, members, options);
  r.findings.insert(r.findings.end(), beyond.begin(), beyond.end());
  const auto with = part.gpus_per_probe.find(probe);
  const std::size_t results = with == part.gpus_per_probe.end() ? 0 : with->second.size();
  if (results < part.gpus.size())
    r.findings.push_back(
        kIncomplete.make(kProbe(probe), kGpu(product), kResults(results), kGpus(part.gpus.size())));
  return r;
}

}  // namespace

RunReport fleet_report(const std::vector<FleetMember>& members, const FleetOptions& options) {
  const std::map<std::string, ProductPart> products = split_by_product(members, options);
  RunReport out;
  std::size_t rows = 0, outliers = 0, gpus = 0, runs = 0;
  for (const auto& [product, part] : products) {
    gpus += part.gpus.size();
    runs += part.runs;
    const std::size_t first = out.results.size();
    for (const auto& [probe, probe_groups] : part.groups) {
      out.results.push_back(judge_probe(probe, probe_groups, product, part, members, options));
      const auto& r = out.results.back();
      rows += r.rows.size();
      outliers += static_cast<std::size_t>(
          std::count_if(r.findings.begin(), r.findings.end(),
                        [](const Finding& f) { return f.id == kOutlier.id(); }));
    }
    if (first < out.results.size())
      out.results[first].findings.insert(
          out.results[first].findings.begin(),
          kProductNote.make(kGpu(product), kGpus(part.gpus.size()), kRuns(part.runs)));
  }
  if (!out.results.empty()) {
    out.results.front().findings.insert(
        out.results.front().findings.begin(),
        kSummary.make(kFiles(members.size()), kGpus(gpus), kProducts(products.size()), kRuns(runs),
                      kRows(rows), kOutliers(outliers), kK(options.k),
                      kMinDeviation(100 * options.min_deviation),
                      kMaxShare(100 * options.max_outlier_share)));
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
