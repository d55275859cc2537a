// partitions' findings (host-only), each declared once, built from what analysis.cpp derived:
// camping per order, the block order, the transposes, the counters, the strides with fewer streams.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "gpuprobe/core/samples.hpp"
#include "gpuprobe/core/stats.hpp"
#include "gpuprobe/core/units.hpp"
#include "internal.hpp"

namespace gpuprobe::partitions {
namespace {

constexpr Text<"order"> kOrderKey;
constexpr Int<"n"> kSideKey;
constexpr Text<"camping"> kCamping;
constexpr Ints<"camping_strides", "B"> kCampingStrides;
constexpr Size<"worst_stride"> kWorstStride;
constexpr Value<"pairs"> kPairs;
constexpr Value<"slower"> kSlower;
constexpr Value<"inconclusive"> kInconclusive;
constexpr Value<"worst_ratio", "x"> kWorstRatio;
constexpr Value<"detectable_max", "%"> kDetectMax;
constexpr Value<"detectable_median", "%"> kDetectMedian;
constexpr Value<"gt200_worst", "x"> kGt200Worst;
constexpr Value<"gt200_strides"> kGt200Strides;
constexpr Value<"faster"> kFaster;
constexpr Value<"same"> kSame;
constexpr Value<"lowest_ratio", "x"> kLowest;
constexpr Value<"highest_ratio", "x"> kHighest;
constexpr Value<"row_bandwidth", "GB/s"> kRowBw;
constexpr Value<"diagonal_bandwidth", "GB/s"> kDiagBw;
constexpr Value<"ratio", "x"> kRatio;
constexpr Value<"gt200_ratio", "x"> kGt200Ratio;
constexpr Value<"gt200_write_partitions"> kGt200Write;
constexpr Text<"decision"> kDecision;
constexpr Text<"counters"> kCountersKey;
constexpr Value<"l2_slices"> kL2Slices;
constexpr Value<"dram_units"> kDramUnits;
constexpr Value<"l2_imbalance_max", "x"> kL2Imb;
constexpr Value<"dram_imbalance_max", "x"> kDramImb;
constexpr Text<"l2_imbalance_at"> kL2At;
constexpr Text<"dram_imbalance_at"> kDramAt;
constexpr Value<"full_streams"> kFullStreams;
constexpr Value<"fewest_streams"> kFewest;
constexpr Size<"reduced_from"> kReducedFrom;

FindingList partitions_findings;

std::string sizes_text(const std::vector<std::string>& items) {
  std::vector<std::string> out;
  for (const std::string& s : items)
    out.push_back(format_bytes(std::stod(s)));
  return fmt::format("{}", fmt::join(out, ", "));
}

const auto kCampingFinding = partitions_findings.verdict(
    "partitions_camping", params(kOrderKey),
    values(kPairs, kSlower, kInconclusive, kWorstRatio, kDetectMax, kDetectMedian, kGt200Worst,
           kGt200Strides),
    outcome(kCamping, kCampingStrides, kWorstStride), [](const auto& f) {
      const std::string model = fmt::format(
          "the GT200 model (8 partitions of 256 B) predicted up to {:.1f}x slower at {:g} of "
          "them",
          f.value(kGt200Worst), f.value(kGt200Strides));
      if (f.value(kCamping) == std::string("found"))
        return fmt::format(
            "{} order: camping at {} of {:g} strides ({}): the aligned stride read at {:.2f}x the "
            "padded one at worst ({}); {}",
            f[kOrderKey], f.value(kSlower), f.value(kPairs), sizes_text(f.items(kCampingStrides)),
            f.value(kWorstRatio), f[kWorstStride], model);
      return fmt::format(
          "{} order: no camping over {:g} aligned strides: none read slower than its padded "
          "companion beyond noise ({:g} inconclusive; lowest ratio {:.2f}x at {}); a loss of "
          "{:.1f}% at any stride ({:.1f}% at the median one) would have been called; {}",
          f[kOrderKey], f.value(kPairs), f.value(kInconclusive), f.value(kWorstRatio),
          f[kWorstStride], f.value(kDetectMax), f.value(kDetectMedian), model);
    });

const auto kOrderFinding = partitions_findings.verdict(
    "partitions_block_order", params(),
    values(kPairs, kFaster, kSlower, kSame, kInconclusive, kLowest, kHighest), outcome(kDecision),
    [](const auto& f) {
      return fmt::format(
          "block order (stride sweep): scattered against row order at {:g} strides: {:g} "
          "faster, {:g} slower, {:g} same, {:g} inconclusive (ratios {:.2f}x to {:.2f}x): {}; "
          "the GT200 model predicts no difference with every block resident at once",
          f.value(kPairs), f.value(kFaster), f.value(kSlower), f.value(kSame),
          f.value(kInconclusive), f.value(kLowest), f.value(kHighest), f[kDecision]);
    });

const auto kTransposeFinding = partitions_findings.verdict(
    "partitions_transpose", params(kSideKey),
    values(kRowBw, kDiagBw, kRatio, kGt200Ratio, kGt200Write), outcome(kDecision),
    [](const auto& f) {
      return fmt::format(
          "transpose {}x{}: the diagonal block order ran at {:.2f}x the row order ({} vs {}): "
          "{}; the GT200 model predicted {:.2f}x (row order's first wave writing into {:g} of "
          "8 partitions), the seeds claimed the diagonal order removes camping and gains "
          "several-fold",
          f[kSideKey], f[kSideKey], f.value(kRatio), f[kDiagBw], f[kRowBw], f[kDecision],
          f.value(kGt200Ratio), f.value(kGt200Write));
    });

const auto kCountersFinding = partitions_findings.note(
    "partitions_counters", params(), values(kL2Slices, kDramUnits, kL2Imb, kDramImb),
    outcome(kCountersKey, kL2At, kDramAt), [](const auto& f) {
      if (f.value(kCountersKey) != std::string(kPerSlice))
        return std::string(
            "counters: only L2 and DRAM totals came back (no per-slice rollups): the spread over "
            "slices and channels is not measured");
      return fmt::format(
          "counters (per-slice, from CUPTI's max and avg over {:g} L2 slices and {:g} DRAM "
          "units): the busiest L2 slice carried at most {:.2f}x the mean ({}), the busiest "
          "DRAM unit {:.2f}x ({})",
          f.value(kL2Slices), f.value(kDramUnits), f.value(kL2Imb), f[kL2At], f.value(kDramImb),
          f[kDramAt]);
    });

const auto kReducedFinding = partitions_findings.note(
    "partitions_fewer_streams", params(), values(kFullStreams, kFewest), outcome(kReducedFrom),
    [](const auto& f) {
      return fmt::format(
          "from a stride of {} on the buffer cap left fewer streams ({:g} at the fewest, {:g} at "
          "full width), each reading further: bandwidth there falls with the bytes in flight "
          "for aligned and padded strides alike, so camping is judged between the two",
          f[kReducedFrom], f.value(kFewest), f.value(kFullStreams));
    });

void camping(ProbeResult& result, const Derived& d, const std::string& order) {
  std::vector<const Pair*> pairs;
  for (const Pair& p : d.padding)
    if (d.strides[p.b].order == order && p.cmp.ratio) pairs.push_back(&p);
  if (pairs.empty()) return;
  IntList slower;
  std::vector<double> detect;
  double inconclusive = 0, gt200_worst = 0, gt200_strides = 0;
  const Pair* worst = pairs.front();
  for (const Pair* p : pairs) {
    const StrideRow& al = d.strides[p->b];
    if (p->cmp.change == Change::kSlower) slower.push_back(al.stride);
    if (p->cmp.change == Change::kInconclusive) ++inconclusive;
    if (p->cmp.detectable) detect.push_back(*p->cmp.detectable * 100);
    if (*p->cmp.ratio < *worst->cmp.ratio) worst = p;
    gt200_worst = std::max(gt200_worst, al.gt200_slowdown);
    if (al.gt200_slowdown > 1.0) ++gt200_strides;
  }
  result.findings.push_back(kCampingFinding.make(
      kOrderKey(order), kPairs(pairs.size()), kSlower(slower.size()), kInconclusive(inconclusive),
      kWorstRatio(worst->cmp.ratio),
      kDetectMax(detect.empty() ? std::nullopt
                                : std::optional(*std::max_element(detect.begin(), detect.end()))),
      kDetectMedian(detect.empty() ? std::nullopt : std::optional(statistics_of(detect).median)),
      kGt200Worst(gt200_worst), kGt200Strides(gt200_strides),
      kCamping(slower.empty() ? "not found" : "found"), kCampingStrides(slower),
      kWorstStride(d.strides[worst->b].stride)));
}

void block_order(ProbeResult& result, const Derived& d) {
  if (d.orders.empty()) return;
  double faster = 0, slower = 0, same = 0, inconclusive = 0;
  double lo = 1e300, hi = 0;
  for (const Pair& p : d.orders) {
    faster += p.cmp.change == Change::kFaster;
    slower += p.cmp.change == Change::kSlower;
    same += p.cmp.change == Change::kSame;
    inconclusive += p.cmp.change == Change::kInconclusive;
    if (p.cmp.ratio) lo = std::min(lo, *p.cmp.ratio), hi = std::max(hi, *p.cmp.ratio);
  }
  const char* decision = faster + slower == 0 ? "the order makes no difference beyond noise"
                         : slower == 0        ? "scattered is faster at some strides"
                         : faster == 0        ? "scattered is slower at some strides"
                                              : "mixed";
  result.findings.push_back(kOrderFinding.make(
      kPairs(d.orders.size()), kFaster(faster), kSlower(slower), kSame(same),
      kInconclusive(inconclusive), kLowest(hi > 0 ? std::optional(lo) : std::nullopt),
      kHighest(hi > 0 ? std::optional(hi) : std::nullopt), kDecision(decision)));
}

void transposes(ProbeResult& result, const Derived& d) {
  for (const Pair& p : d.diagonals) {
    const TransposeRow& r = d.transposes[p.a];
    const TransposeRow& g = d.transposes[p.b];
    result.findings.push_back(kTransposeFinding.make(
        kSideKey(g.n), kRowBw(r.bandwidth->stats.median), kDiagBw(g.bandwidth->stats.median),
        kRatio(p.cmp.ratio), kGt200Ratio(r.gt200_slowdown / g.gt200_slowdown),
        kGt200Write(r.gt200_write), kDecision(change_name(p.cmp.change))));
  }
}

// "stride 2 MiB row" / "transpose 8192 diagonal": the row a counter extreme lies on.
std::string row_label(const Row& r) {
  const auto mode = text_param_of(r, kMode).value_or("?");
  const auto order = text_param_of(r, kOrder).value_or("?");
  if (mode == kStrideMode)
    return fmt::format("stride {} {}",
                       format_bytes(static_cast<double>(int_param_of(r, kStride).value_or(0))),
                       order);
  return fmt::format("transpose {} {}", int_param_of(r, kSide).value_or(0), order);
}

void counters(ProbeResult& result, const Derived& d) {
  if (d.counters == kNone) return;
  const Row* l2 = nullptr;
  const Row* dram = nullptr;
  const auto at = [](const Row* r, const char* name) {  // -1: no row, or no value
    return r ? quantity_value(r->derived, name).value_or(-1.0) : -1.0;
  };
  for (const Row& r : result.rows) {
    if (at(&r, "l2_imbalance") > at(l2, "l2_imbalance")) l2 = &r;
    if (at(&r, "dram_imbalance") > at(dram, "dram_imbalance")) dram = &r;
  }
  const auto val = [&](const Row* r, const char* name) {
    const double v = at(r, name);
    return v < 0 ? std::nullopt : std::optional(v);
  };
  result.findings.push_back(kCountersFinding.make(
      kL2Slices(val(l2, "l2_slices")), kDramUnits(val(dram, "dram_units")),
      kL2Imb(val(l2, "l2_imbalance")), kDramImb(val(dram, "dram_imbalance")),
      kCountersKey(d.counters == kPerSlice && l2 && dram ? kPerSlice : kTotals),
      kL2At(l2 ? row_label(*l2) : "n/a"), kDramAt(dram ? row_label(*dram) : "n/a")));
}

void fewer_streams(ProbeResult& result, const Derived& d) {
  double full = 0, fewest = 0;
  for (const StrideRow& s : d.strides)
    full = std::max(full, s.streams);
  std::optional<std::int64_t> from;
  for (const StrideRow& s : d.strides) {
    if (s.streams >= full) continue;
    if (!from || s.stride < *from) from = s.stride;
    if (fewest == 0 || s.streams < fewest) fewest = s.streams;
  }
  if (!from) return;
  result.findings.push_back(
      kReducedFinding.make(kFullStreams(full), kFewest(fewest), kReducedFrom(*from)));
}

}  // namespace

void add_findings(ProbeResult& result, const Derived& d) {
  for (const char* order : {kRow, kScatter})
    camping(result, d, order);
  block_order(result, d);
  transposes(result, d);
  counters(result, d);
  fewer_streams(result, d);
}

const FindingList& finding_list() {
  return partitions_findings;
}

}  // namespace gpuprobe::partitions
