// peer's analysis (host-only): each copy path's peak, latency and share of the link's raw
// limit, as findings; its words (the findings and the columns' short headers).
#include "analysis.hpp"

#include "findings.hpp"
#include "gpuprobe/core/counter_agreement.hpp"  // ratio_of

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
  const auto limit = quantity_value(row.model, "raw_limit");
  return limit > 0.0 ? limit : std::nullopt;
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
  for (Row& row : result.rows)
    if (const auto f = ratio_of(metric_median(row, "bandwidth"), raw_limit_of(row)))
      row.derived.push_back({"fraction_of_raw", "", *f});
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
  result.findings.push_back(kPath.make(kSrc(src), kDst(dst), kMode(mode), kDirection(dir),
                                       kBandwidth(peak), kLatency(metric_median(*smallest, "time")),
                                       kLatencyBytes(bytes_of(smallest)), kRawLimit(limit),
                                       kFractionOfRaw(ratio_of(peak, limit)), kAt(bytes_of(&top))));
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

// The columns' short headers.
constexpr TermEntry kTerms[] = {
    {"fraction_of_raw", "of raw", "measured bandwidth / the link's raw limit (model)"},
    {"access_latency", "per load", "sm-latency: time per dependent load over the link"},
    {"bandwidth_gpu", "GPU GB/s",
     "patterns: the row's GPU's own traffic (received; sent for one-to-all) / the longest of its "
     "copies"},
    {"model.raw_limit", "raw GB/s",
     "model: the link's raw data rate for this path (both directions for bidir)"},
};

}  // namespace

void analyse(ProbeResult& result) {
  add_fractions(result);
  for (const auto& [key, rows] : paths_of(result, false))
    add_path_findings(result, key, rows);
  for (const auto& [key, rows] : paths_of(result, true))
    add_chase_finding(result, key, rows);
  const auto assumed = [](const Row& r) {  // link facts from elsewhere than NVML
    return text_param_of(r, "link_source").value_or("nvml") != "nvml";
  };
  if (std::ranges::any_of(result.rows, assumed)) result.findings.push_back(kLinkAssumed.make());
}

void add_words(Glossary& g) {
  g.add_findings(kFindings);
  g.add_terms("peer", kTerms);
}

}  // namespace gpuprobe::peer
