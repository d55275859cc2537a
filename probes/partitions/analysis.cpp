// partitions' analysis (host-only): the GT200 model beside every row, aligned strides against
// padded ones and orders against row order (compare's rule), the counters' per-slice spread; the
// findings.
#include <algorithm>

#include "gpuprobe/core/counter_agreement.hpp"
#include "gpuprobe/models/partitions_model.hpp"
#include "internal.hpp"

namespace gpuprobe::partitions {
namespace {

void read_stride(Row& r, Derived& d) {
  const auto order = text_param_of(r, kOrder);
  const auto pad = int_param_of(r, kPad), stride = int_param_of(r, kStride);
  const auto streams = quantity_value(r.derived, kStreams),
             steps = quantity_value(r.derived, kSteps);
  const Metric* bw = find_metric(r, kBandwidth);
  if (!order || !pad || !stride || !streams || !steps || bw == nullptr || *stride <= 0) return;
  const models::Gt200Prediction p = models::gt200_streams(static_cast<std::uint64_t>(*stride),
                                                          static_cast<std::uint64_t>(*streams),
                                                          static_cast<std::uint64_t>(*steps));
  r.model.push_back({"gt200_partitions", "", p.partitions_hit});
  r.model.push_back({"gt200_slowdown", "x", p.slowdown});
  d.strides.push_back({&r, *order, *pad, *stride, bw, *streams, p.slowdown});
}

void read_transpose(Row& r, Derived& d) {
  const auto order = text_param_of(r, kOrder);
  const auto n = int_param_of(r, kSide);
  const auto wave = quantity_value(r.derived, kWaveBlocks);
  const Metric* bw = find_metric(r, kBandwidth);
  if (!order || !n || !wave || bw == nullptr || *n <= 0) return;
  const models::Gt200Transpose t = models::gt200_transpose(
      static_cast<std::uint64_t>(*n), *order == kDiagonal, static_cast<std::uint64_t>(*wave));
  r.model.push_back({"gt200_read_partitions", "", t.read_hit});
  r.model.push_back({"gt200_write_partitions", "", t.write_hit});
  r.model.push_back({"gt200_slowdown", "x", t.slowdown});
  d.transposes.push_back({&r, *order, *n, bw, t.slowdown, t.write_hit});
}

// Each aligned row (pad 0) against the padded row of its order whose stride is its own plus the
// smallest pad swept; the ratio (aligned / padded) and the model's into the aligned row.
void pair_padding(Derived& d) {
  for (std::size_t i = 0; i < d.strides.size(); ++i) {
    const StrideRow& al = d.strides[i];
    if (al.pad != 0) continue;
    std::optional<std::size_t> best;
    for (std::size_t j = 0; j < d.strides.size(); ++j) {
      const StrideRow& p = d.strides[j];
      // the same streams (the buffer cap can halve one row's and not its partner's): a loss from
      // fewer loads in flight is not camping
      if (p.pad <= 0 || p.order != al.order || p.stride != al.stride + p.pad ||
          p.streams != al.streams)
        continue;
      if (!best || p.pad < d.strides[*best].pad) best = j;
    }
    if (!best) continue;
    const StrideRow& pd = d.strides[*best];
    Pair pair{*best, i, compare_metric(*pd.bandwidth, *al.bandwidth, kNoiseK, std::nullopt)};
    al.row->derived.push_back({"vs_padded", "x", pair.cmp.ratio});
    al.row->model.push_back({"vs_padded", "x", pd.gt200_slowdown / al.gt200_slowdown});
    d.padding.push_back(pair);
  }
}

// Scatter against row order at the same (pad, stride); diagonal against row per side.
void pair_orders(Derived& d) {
  for (std::size_t i = 0; i < d.strides.size(); ++i) {
    const StrideRow& sc = d.strides[i];
    if (sc.order != kScatter) continue;
    for (std::size_t j = 0; j < d.strides.size(); ++j) {
      const StrideRow& r = d.strides[j];
      if (r.order != kRow || r.pad != sc.pad || r.stride != sc.stride) continue;
      Pair pair{j, i, compare_metric(*r.bandwidth, *sc.bandwidth, kNoiseK, std::nullopt)};
      sc.row->derived.push_back({"vs_row", "x", pair.cmp.ratio});
      d.orders.push_back(pair);
    }
  }
  for (std::size_t i = 0; i < d.transposes.size(); ++i) {
    const TransposeRow& dg = d.transposes[i];
    if (dg.order != kDiagonal) continue;
    for (std::size_t j = 0; j < d.transposes.size(); ++j) {
      const TransposeRow& r = d.transposes[j];
      if (r.order != kRow || r.n != dg.n) continue;
      Pair pair{j, i, compare_metric(*r.bandwidth, *dg.bandwidth, kNoiseK, std::nullopt)};
      dg.row->derived.push_back({"vs_row", "x", pair.cmp.ratio});
      dg.row->model.push_back({"vs_row", "x", r.gt200_slowdown / dg.gt200_slowdown});
      d.diagonals.push_back(pair);
    }
  }
}

// A row's counters: instances (sum / avg), spread (sum / max: the instances an even share would
// need to carry what the busiest carried) and imbalance (max / avg), for L2 slices and DRAM; the
// share of L2 sectors that crossed the fabric. Returns what the row had.
const char* add_counters(Row& r) {
  if (!r.counters) return kNone;
  const auto l2 = counter_value(r, kL2Sum), dram = counter_value(r, kDramSum);
  const auto l2max = counter_value(r, kL2Max), l2avg = counter_value(r, kL2Avg);
  const auto dmax = counter_value(r, kDramMax), davg = counter_value(r, kDramAvg);
  r.derived.push_back({"l2_sectors", "", l2});
  r.derived.push_back({"dram_bytes", "B", dram});
  r.derived.push_back({"fabric_share", "", ratio_of(counter_value(r, kFabric), l2)});
  const bool slices = l2max && l2avg && dmax && davg;
  if (slices) {
    r.derived.push_back({"l2_slices", "", ratio_of(l2, l2avg)});
    r.derived.push_back({"l2_spread", "", ratio_of(l2, l2max)});
    r.derived.push_back({"l2_imbalance", "x", ratio_of(l2max, l2avg)});
    r.derived.push_back({"dram_units", "", ratio_of(dram, davg)});
    r.derived.push_back({"dram_spread", "", ratio_of(dram, dmax)});
    r.derived.push_back({"dram_imbalance", "x", ratio_of(dmax, davg)});
  }
  return slices ? kPerSlice : l2 || dram ? kTotals : kNone;
}

}  // namespace

void analyse(ProbeResult& result) {
  Derived d;
  d.counters = kNone;
  for (Row& r : result.rows) {
    const auto mode = text_param_of(r, kMode);
    if (mode == kStrideMode)
      read_stride(r, d);
    else if (mode == kTransposeMode)
      read_transpose(r, d);
    const std::string had = add_counters(r);
    if (had == kPerSlice || (had == kTotals && d.counters == kNone)) d.counters = had;
  }
  pair_padding(d);
  pair_orders(d);
  add_findings(result, d);
}

}  // namespace gpuprobe::partitions
