// host-links' analysis (host-only): per-GPU samples of a concurrent run, slowdowns and losses,
// the aggregate, and the host link slower than its siblings', as findings.
#include "analysis.hpp"

#include "findings.hpp"
#include "gpuprobe/core/counter_agreement.hpp"  // ratio_of

#include <algorithm>
#include <map>
#include <stdexcept>
#include <tuple>

namespace gpuprobe::host_links {
namespace {

using Key = std::tuple<std::string, std::int64_t>;  // direction, bytes

// The rows of one (direction, bytes): each GPU's solo and concurrent row, the aggregate.
struct Group {
  std::map<std::int64_t, Row*> solo, concurrent;
  Row* aggregate = nullptr;
};

std::map<Key, Group> groups_of(ProbeResult& result) {
  std::map<Key, Group> groups;
  for (Row& row : result.rows) {
    const auto dir = text_param_of(row, "direction");
    const auto bytes = int_param_of(row, "bytes");
    const auto mode = text_param_of(row, "mode");
    if (!dir || !bytes || !mode || !metric_median(row, "bandwidth")) continue;
    Group& g = groups[{*dir, *bytes}];
    const auto gpu = int_param_of(row, "gpu");
    if (!gpu) {
      if (text_param_of(row, "gpu") == "all") g.aggregate = &row;
    } else if (*mode == "solo") {
      g.solo[*gpu] = &row;
    } else if (*mode == "concurrent") {
      g.concurrent[*gpu] = &row;
    }
  }
  return groups;
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

double bandwidth(const Row& row) {
  return *metric_median(row, "bandwidth");
}

double noise(const Row& row) {
  const Metric* m = find_metric(row, "bandwidth");
  return m ? m->stats.rel_noise : 0.0;
}

void add_fractions(ProbeResult& result) {
  for (Row& row : result.rows) {
    const auto limit = quantity_value(row.model, "raw_limit");
    if (const auto f = ratio_of(metric_median(row, "bandwidth"), limit))
      row.derived.push_back({"fraction_of_raw", "", *f});
  }
}

// Each concurrent row against its GPU's solo row; the aggregate against the solos summed.
void add_slowdowns(const Group& g) {
  double solo_sum = 0;
  for (const auto& [gpu, row] : g.solo)
    solo_sum += bandwidth(*row);
  for (const auto& [gpu, row] : g.concurrent) {
    const auto solo = g.solo.find(gpu);
    if (solo == g.solo.end()) continue;
    const double s = bandwidth(*solo->second), c = bandwidth(*row);
    row->derived.push_back({"solo_bandwidth", "GB/s", s});
    row->derived.push_back({"slowdown", "x", s / c});
    row->derived.push_back({"loss", "%", (1.0 - c / s) * 100.0});
  }
  if (g.aggregate && solo_sum > 0) {
    g.aggregate->derived.push_back({"solo_sum", "GB/s", solo_sum});
    g.aggregate->derived.push_back(
        {"loss", "%", (1.0 - bandwidth(*g.aggregate) / solo_sum) * 100.0});
  }
}

void add_slow_links(ProbeResult& result, const Key& key, const Group& g) {
  if (g.solo.size() < 2) return;
  bool any = false;
  std::vector<double> all;
  for (const auto& [gpu, row] : g.solo) {
    std::vector<double> others;
    double others_noise = 0;
    for (const auto& [other, other_row] : g.solo) {
      if (other == gpu) continue;
      others.push_back(bandwidth(*other_row));
      others_noise = std::max(others_noise, noise(*other_row));
    }
    all.push_back(bandwidth(*row));
    const SlowLinkDecision d = decide_slow_link(bandwidth(*row), noise(*row), others, others_noise);
    if (!d.slow) continue;
    any = true;
    result.findings.push_back(kSlowLink.make(kGpu(gpu), kDirection(std::get<0>(key)),
                                             kBytes(std::get<1>(key)), kBandwidth(bandwidth(*row)),
                                             kOthersMedian(d.others_median), kMargin(d.margin),
                                             kRatio(bandwidth(*row) / d.others_median)));
  }
  if (any) return;
  const auto [low, high] = std::minmax_element(all.begin(), all.end());
  result.findings.push_back(kLinksAlike.make(kDirection(std::get<0>(key)), kBytes(std::get<1>(key)),
                                             kLowest(*low), kHighest(*high), kGpus(all.size())));
}

void add_concurrent_loss(ProbeResult& result, const Key& key, const Group& g) {
  if (!g.aggregate) return;
  const Quantity* sum = find_quantity(g.aggregate->derived, "solo_sum");
  const Quantity* loss = find_quantity(g.aggregate->derived, "loss");
  if (!sum || !loss) return;
  EachValues per_gpu;
  std::optional<std::int64_t> worst;
  double worst_loss = 0;
  for (const auto& [gpu, row] : g.concurrent) {
    const Quantity* l = find_quantity(row->derived, "loss");
    if (!l || !l->value) continue;
    per_gpu.emplace_back(std::to_string(gpu), l->value);
    if (!worst || *l->value > worst_loss) {
      worst = gpu;
      worst_loss = *l->value;
    }
  }
  result.findings.push_back(kConcurrentLoss.make(
      kDirection(std::get<0>(key)), kBytes(std::get<1>(key)), kAggregate(bandwidth(*g.aggregate)),
      kSoloSum(sum->value), kLoss(loss->value), kLossGpu(std::move(per_gpu)), kWorstGpu(worst)));
}

// A GPU whose host buffer did not land on its NUMA node (derived gpu_node, host_node on solo
// rows): its link may be measured through the CPUs' interconnect.
void add_placement(ProbeResult& result, const std::map<Key, Group>& groups) {
  std::map<std::int64_t, std::pair<double, double>> misplaced;
  for (const auto& [key, g] : groups) {
    for (const auto& [gpu, row] : g.solo) {
      const auto gn = quantity_value(row->derived, "gpu_node");
      const auto hn = quantity_value(row->derived, "host_node");
      if (gn && hn && *gn != *hn) misplaced[gpu] = {*gn, *hn};
    }
  }
  for (const auto& [gpu, nodes] : misplaced)
    result.findings.push_back(
        kRemoteBuffer.make(kGpu(gpu), kGpuNode(nodes.first), kHostNode(nodes.second)));
}

}  // namespace

std::string lane_name(int gpu, const std::string& direction) {
  return "gpu" + std::to_string(gpu) + " " + direction;
}

SampleSet gpu_samples(const SampleSet& all, int gpu) {
  const std::string prefix = "gpu" + std::to_string(gpu) + " ";
  std::vector<std::size_t> mine;
  for (std::size_t i = 0; i < all.lanes.size(); ++i)
    if (all.lanes[i].name.rfind(prefix, 0) == 0) mine.push_back(i);
  if (mine.empty())
    throw std::invalid_argument("no lane of GPU " + std::to_string(gpu) + " in the operation");
  SampleSet out = lanes_subset(all, mine);
  for (LaneSamples& lane : out.lanes)
    lane.name = lane.name.substr(prefix.size());
  return out;
}

SlowLinkDecision decide_slow_link(double bandwidth, double noise, const std::vector<double>& others,
                                  double others_noise) {
  if (others.empty()) throw std::invalid_argument("no sibling to compare with");
  SlowLinkDecision d;
  d.others_median = median(others);
  const auto [low, high] = std::minmax_element(others.begin(), others.end());
  d.margin = std::max({*high - *low, 3.0 * noise * bandwidth, 3.0 * others_noise * d.others_median,
                       kAlikeWithin * d.others_median});
  d.slow = bandwidth < d.others_median - d.margin;
  return d;
}

void analyse(ProbeResult& result) {
  add_fractions(result);
  auto groups = groups_of(result);
  std::size_t gpus = 0;
  for (auto& [key, g] : groups) {
    add_slowdowns(g);
    add_slow_links(result, key, g);
    add_concurrent_loss(result, key, g);
    gpus = std::max(gpus, g.solo.size());
  }
  add_placement(result, groups);
  if (gpus == 1) result.findings.push_back(kOneGpu.make());
}

}  // namespace gpuprobe::host_links
