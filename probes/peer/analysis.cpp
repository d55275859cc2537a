// peer's analysis (host-only): each copy path's peak, latency and share of the link's raw
// limit, as findings.
#include "analysis.hpp"

#include "findings.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <tuple>
#include <vector>

namespace gpuprobe::peer {
namespace {

using PathKey = std::tuple<std::int64_t, std::int64_t, std::string, std::string>;
using Rows = std::vector<const Row*>;

std::optional<double> raw_limit_of(const Row& row) {
  const Quantity* q = find_quantity(row.model, "raw_limit");
  if (!q || !q->value || *q->value <= 0) return std::nullopt;
  return q->value;
}

std::int64_t bytes_of(const Row* row) {
  return *int_param_of(*row, "bytes");
}

// The rows of each path (src, dst, mode, direction) over its size sweep: the pointer chases' (a
// chain of loads: its number is access_latency) or the copies' (bandwidth and time).
std::map<PathKey, Rows> paths_of(const ProbeResult& result, bool chases) {
  std::map<PathKey, Rows> paths;
  for (const Row& row : result.rows) {
    const auto src = int_param_of(row, "src"), dst = int_param_of(row, "dst");
    const auto mode = text_param_of(row, "mode"), dir = text_param_of(row, "direction");
    const bool measured = chases ? metric_median(row, "access_latency").has_value()
                                 : metric_median(row, "bandwidth") && metric_median(row, "time");
    if (src && dst && mode && dir && int_param_of(row, "bytes") && measured &&
        (*mode == "sm-latency") == chases)
      paths[{*src, *dst, *mode, *dir}].push_back(&row);
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

// A copy path's peak (the highest median bandwidth) and latency (the median time at its smallest
// size).
void add_path_findings(ProbeResult& result, const PathKey& key, const Rows& rows) {
  const auto& [src, dst, mode, dir] = key;
  const Row& top = **std::ranges::max_element(
      rows, {}, [](const Row* r) { return *metric_median(*r, "bandwidth"); });
  const Row* smallest = *std::ranges::min_element(rows, {}, bytes_of);
  const double peak = *metric_median(top, "bandwidth");
  const auto limit = raw_limit_of(top);
  result.findings.push_back(kPath.make(
      kSrc(src), kDst(dst), kMode(mode), kDirection(dir), kBandwidth(peak),
      kLatency(metric_median(*smallest, "time")), kLatencyBytes(bytes_of(smallest)),
      kRawLimit(limit), kFractionOfRaw(limit ? std::optional<double>(peak / *limit) : std::nullopt),
      kAt(bytes_of(&top))));
  if (limit && peak > *limit)
    result.findings.push_back(kAboveModel.make(kSrc(src), kDst(dst), kMode(mode), kDirection(dir),
                                               kBandwidth(peak), kRawLimit(*limit),
                                               kLink(text_param_of(top, "link").value_or(""))));
}

// A pointer chase's ns per load at its smallest and largest chain.
void add_chase_finding(ProbeResult& result, const PathKey& key, const Rows& rows) {
  const Row* small = *std::ranges::min_element(rows, {}, bytes_of);
  const Row* large = *std::ranges::max_element(rows, {}, bytes_of);
  result.findings.push_back(kChase.make(
      kSrc(std::get<0>(key)), kDst(std::get<1>(key)),
      kLatency(metric_median(*small, "access_latency")), kLatencyBytes(bytes_of(small)),
      kLatencyLargest(metric_median(*large, "access_latency")), kLargestBytes(bytes_of(large))));
}

}  // namespace

void analyse(ProbeResult& result) {
  add_fractions(result);
  for (const auto& [key, rows] : paths_of(result, false))
    add_path_findings(result, key, rows);
  for (const auto& [key, rows] : paths_of(result, true))
    add_chase_finding(result, key, rows);
  const bool assumed = std::any_of(result.rows.begin(), result.rows.end(), [](const Row& r) {
    const auto source = text_param_of(r, "link_source");
    return source && *source != "nvml";
  });
  if (assumed) result.findings.push_back(kLinkAssumed.make());
}

}  // namespace gpuprobe::peer
