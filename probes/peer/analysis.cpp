// peer's analysis (host-only): the pair sweep, and each copy path's peak, latency and share of
// the link's raw limit, as findings.
#include "analysis.hpp"

#include "findings.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <tuple>

namespace gpuprobe::peer {
namespace {

using PathKey = std::tuple<std::int64_t, std::int64_t, std::string, std::string>;

// What one copy path (src, dst, mode, direction) came to over its size sweep.
struct Path {
  const Row* peak = nullptr;      // the highest median bandwidth
  const Row* smallest = nullptr;  // the smallest size: its median time is the latency
};

std::optional<double> raw_limit_of(const Row& row) {
  const Quantity* q = find_quantity(row.model, "raw_limit");
  if (!q || !q->value || *q->value <= 0) return std::nullopt;
  return q->value;
}

std::map<PathKey, Path> paths_of(const ProbeResult& result) {
  std::map<PathKey, Path> paths;
  for (const Row& row : result.rows) {
    const auto src = int_param_of(row, "src"), dst = int_param_of(row, "dst");
    const auto mode = text_param_of(row, "mode"), dir = text_param_of(row, "direction");
    const auto bytes = int_param_of(row, "bytes");
    const auto bw = metric_median(row, "bandwidth");
    if (!src || !dst || !mode || !dir || !bytes || !bw || !metric_median(row, "time")) continue;
    if (*mode == "sm-latency") continue;  // a chain of loads: its number is access_latency
    Path& p = paths[{*src, *dst, *mode, *dir}];
    if (!p.peak || *bw > *metric_median(*p.peak, "bandwidth")) p.peak = &row;
    if (!p.smallest || *bytes < *int_param_of(*p.smallest, "bytes")) p.smallest = &row;
  }
  return paths;
}

void add_fractions(ProbeResult& result) {
  for (Row& row : result.rows) {
    const auto limit = raw_limit_of(row);
    const auto bw = metric_median(row, "bandwidth");
    if (limit && bw) row.derived.push_back({"fraction_of_raw", "", *bw / *limit});
  }
}

void add_path_findings(ProbeResult& result, const PathKey& key, const Path& path) {
  const auto& [src, dst, mode, dir] = key;
  const double peak = *metric_median(*path.peak, "bandwidth");
  const auto limit = raw_limit_of(*path.peak);
  result.findings.push_back(
      kPath.make(kSrc(src), kDst(dst), kMode(mode), kDirection(dir), kBandwidth(peak),
                 kLatency(metric_median(*path.smallest, "time")),
                 kLatencyBytes(*int_param_of(*path.smallest, "bytes")), kRawLimit(limit),
                 kFractionOfRaw(limit ? std::optional<double>(peak / *limit) : std::nullopt),
                 kAt(*int_param_of(*path.peak, "bytes"))));
  if (limit && peak > *limit)
    result.findings.push_back(
        kAboveModel.make(kSrc(src), kDst(dst), kMode(mode), kDirection(dir), kBandwidth(peak),
                         kRawLimit(*limit), kLink(text_param_of(*path.peak, "link").value_or(""))));
}

// sm-latency rows per (src, dst): the chase's ns per load at its smallest and largest chain.
void add_chase_findings(ProbeResult& result) {
  std::map<std::pair<std::int64_t, std::int64_t>, std::pair<const Row*, const Row*>> chains;
  for (const Row& row : result.rows) {
    const auto src = int_param_of(row, "src"), dst = int_param_of(row, "dst");
    const auto bytes = int_param_of(row, "bytes");
    if (text_param_of(row, "mode") != "sm-latency" || !src || !dst || !bytes ||
        !metric_median(row, "access_latency"))
      continue;
    auto& [small, large] = chains[{*src, *dst}];
    if (!small || *bytes < *int_param_of(*small, "bytes")) small = &row;
    if (!large || *bytes > *int_param_of(*large, "bytes")) large = &row;
  }
  for (const auto& [pair, rows] : chains) {
    const auto& [small, large] = rows;
    result.findings.push_back(kChase.make(kSrc(pair.first), kDst(pair.second),
                                          kLatency(metric_median(*small, "access_latency")),
                                          kLatencyBytes(*int_param_of(*small, "bytes")),
                                          kLatencyLargest(metric_median(*large, "access_latency")),
                                          kLargestBytes(*int_param_of(*large, "bytes"))));
  }
}

}  // namespace

std::vector<std::pair<int, int>> ordered_pairs(const std::vector<int>& devices) {
  std::vector<int> unique;
  for (const int d : devices)
    if (std::find(unique.begin(), unique.end(), d) == unique.end()) unique.push_back(d);
  std::vector<std::pair<int, int>> pairs;
  for (const int src : unique)
    for (const int dst : unique)
      if (src != dst) pairs.emplace_back(src, dst);
  return pairs;
}

void analyse(ProbeResult& result) {
  add_fractions(result);
  for (const auto& [key, path] : paths_of(result))
    add_path_findings(result, key, path);
  add_chase_findings(result);
  const bool assumed = std::any_of(result.rows.begin(), result.rows.end(), [](const Row& r) {
    const auto source = text_param_of(r, "link_source");
    return source && *source != "nvml";
  });
  if (assumed) result.findings.push_back(kLinkAssumed.make());
}

}  // namespace gpuprobe::peer
