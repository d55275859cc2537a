// coalescing's findings (host-only), each declared once (id, kind, fields, sentence), and their
// builders: offset classes and their costs, strides against both models, the extremes, the
// sizing, the counters, and the plan's notes; last, its words (add_words: the findings and the
// columns' short headers).
#include <fmt/format.h>

#include <algorithm>
#include <ranges>
#include <string_view>

#include "gpuprobe/core/compare_classify.hpp"
#include "gpuprobe/core/counter_agreement.hpp"
#include "gpuprobe/core/decide.hpp"
#include "gpuprobe/core/finding_def.hpp"
#include "internal.hpp"

namespace gpuprobe::coalescing {
namespace {

// The keys of coalescing's findings.
constexpr Text<"pattern"> kPattern;      // offset, stride
constexpr Maybe<Int<"offset">> kOffset;  // a row's (or a dropped point's) offset or stride: one
constexpr Maybe<Int<"stride">> kStride;
constexpr Size<"element_bytes"> kElementBytes;
constexpr Ints<"offsets"> kOffsets;
constexpr Ints<"strides"> kStrides;
constexpr Ints<"elements"> kElements;
constexpr Ints<"widths"> kWidths;
constexpr Value<"count"> kCount;
constexpr Value<"sectors_per_request", "sectors"> kSectorsPerRequest;
constexpr Value<"lines_per_request", "lines"> kLinesPerRequest;
constexpr Value<"baseline_sectors", "sectors"> kBaselineSectors;
constexpr Value<"baseline_lines", "lines"> kBaselineLines;
constexpr Value<"relative_mean", "x"> kRelativeMean;
constexpr Value<"relative_min", "x"> kRelativeMin;
constexpr Value<"relative_max", "x"> kRelativeMax;
constexpr Value<"model_relative", "x"> kModelRelative;
constexpr Value<"model_dram_min", "x"> kModelDramMin;
constexpr Value<"model_dram_max", "x"> kModelDramMax;
constexpr Value<"fetch_bytes", "B"> kFetchBytes;
constexpr Value<"sectors", "sectors"> kSectors;
constexpr Value<"fewer_sectors", "sectors"> kFewerSectors;
constexpr Value<"lines", "lines"> kLines;
constexpr Value<"fewer_lines", "lines"> kFewerLines;
constexpr Value<"ratio", "x"> kRatio;
constexpr Value<"ratio_min", "x"> kRatioMin;
constexpr Value<"ratio_max", "x"> kRatioMax;
constexpr Value<"holds_up_to", "elements"> kHoldsUpTo;
constexpr Value<"holds_up_to_spacing", "B"> kHoldsUpToSpacing;
constexpr Value<"short_from", "elements"> kShortFrom;
constexpr Value<"short_from_spacing", "B"> kShortFromSpacing;
constexpr Value<"lowest_ratio", "x"> kLowestRatio;
constexpr Value<"lowest_at", "elements"> kLowestAt;
constexpr Value<"shortfall", "%"> kShortfall;
constexpr Value<"worst_bandwidth", "GB/s"> kWorstBandwidth;
constexpr Value<"best_bandwidth", "GB/s"> kBestBandwidth;
constexpr Value<"worst_alike", "points"> kWorstAlike;
constexpr Value<"best_alike", "points"> kBestAlike;
constexpr Value<"baseline_min", "GB/s"> kBaselineMin;
constexpr Value<"baseline_max", "GB/s"> kBaselineMax;
constexpr Value<"highest", "GB/s"> kHighest;
constexpr Value<"lowest", "GB/s"> kLowest;
constexpr Value<"highest_alike", "points"> kHighestAlike;
constexpr Value<"lowest_alike", "points"> kLowestAlike;
constexpr Value<"peak_estimate", "GB/s"> kPeakEstimate;
constexpr Value<"l2_size", "B"> kL2Size;
constexpr Value<"model_fetch_bytes", "B"> kModelFetchBytes;
constexpr Value<"l2_fetch_granularity", "B"> kL2FetchGranularity;
constexpr Value<"memory_cap", "B"> kMemoryCap;
constexpr Value<"memory_cap_share", "%"> kMemoryCapShare;
constexpr Value<"min_working_set", "x"> kMinWorkingSet;
constexpr Value<"default_elements", "elements"> kDefaultElements;
constexpr Value<"l2_multiple", "x"> kL2Multiple;
constexpr Value<"bytes_per_direction", "B"> kBytesPerDirection;
constexpr Value<"working_set_over_l2", "x"> kWorkingSetOverL2;

// One headline stride of a width beside both models: measured and predicted relative bandwidth
// (null where not measured), and (but for stride 2) the stride its role names ("sector_stride").
struct Stride2 : ValueGroup<Stride2, Value<"relative_stride_2", "x">, Value<"model_stride_2", "x">,
                            Value<"model_dram_stride_2", "x">> {
  static constexpr Value<"relative_stride_2", "x"> relative{};
  static constexpr Value<"model_stride_2", "x"> model{};
  static constexpr Value<"model_dram_stride_2", "x"> model_dram{};
};
template <FieldKey Role>
struct StrideRole
    : ValueGroup<StrideRole<Role>, Value<Role, "elements">, Value<join<"relative_", Role>(), "x">,
                 Value<join<"model_", Role>(), "x">, Value<join<"model_dram_", Role>(), "x">> {
  static constexpr Value<Role, "elements"> stride{};
  static constexpr Value<join<"relative_", Role>(), "x"> relative{};
  static constexpr Value<join<"model_", Role>(), "x"> model{};
  static constexpr Value<join<"model_dram_", Role>(), "x"> model_dram{};
};
constexpr Stride2 kStride2;
constexpr StrideRole<"sector_stride"> kSectorStride;
constexpr StrideRole<"fetch_stride"> kFetchStride;
constexpr StrideRole<"largest_stride"> kLargestStride;

// The params (outcome entries) naming one extreme point: "worst_pattern", "worst_at", ...
template <FieldKey P>
struct ExtremeKeys {
  static constexpr Text<join<P, "_pattern">()> pattern{};
  static constexpr Int<join<P, "_at">()> at{};
  static constexpr Size<join<P, "_element_bytes">()> element_bytes{};
  static constexpr Maybe<Text<join<P, "_alike_with">()>> alike_with{};
};
constexpr ExtremeKeys<"worst"> kWorst;
constexpr ExtremeKeys<"best"> kBest;
constexpr ExtremeKeys<"highest"> kHighestAt;
constexpr ExtremeKeys<"lowest"> kLowestAt_;

FindingList coalescing_findings;

// "offset 4, 4 B", and the points alike to it within noise when there are any.
template <class View, FieldKey P>
std::string point_text(const View& f, ExtremeKeys<P> k) {
  const std::string alike = f[k.alike_with];
  return fmt::format("{} {}, {}{}", f[k.pattern], f[k.at], f[k.element_bytes],
                     alike.empty() ? ""
                                   : fmt::format("; alike within noise or {:g}%: {}",
                                                 kDefaultSameWithin * 100, alike));
}

// "1 line", "2 lines".
std::string counted(double n, const char* what) {
  return fmt::format("{:g} {}{}", n, what, n == 1 ? "" : "s");
}

// A list param's items for a sentence: "1, 2, 4".
template <class View, class H>
std::string spaced(const View& f, H h) {
  return fmt::format("{}", fmt::join(f.items(h), ", "));
}

// " (0.86-0.93x)", or "" when both ends print the same.
std::string range_text(double lo, double hi) {
  const std::string a = fmt::format("{:.2f}", lo), b = fmt::format("{:.2f}", hi);
  return a == b ? "" : fmt::format(" ({}-{}x)", a, b);
}

// "offset 4" or "stride 32": the pattern and where on it a point lies.
template <class View>
std::string at_text(const View& f) {
  return fmt::format("{} {}", f[kPattern], f.has(kOffset) ? f[kOffset] : f[kStride]);
}

const auto kOffsetClass = coalescing_findings.verdict(
    "coalescing_offset_class", params(kElementBytes, kOffsets),
    values(kCount, kSectorsPerRequest, kLinesPerRequest, kBaselineSectors, kBaselineLines,
           kRelativeMean, kRelativeMin, kRelativeMax, kModelRelative, kModelDramMin, kModelDramMax,
           kFetchBytes),
    [](const auto& f) {
      const double n = f.value(kCount);
      const double sectors = f.value(kSectorsPerRequest), lines = f.value(kLinesPerRequest);
      const double bs = f.value(kBaselineSectors), bl = f.value(kBaselineLines);
      std::string who;
      if (n <= 6) {
        who = fmt::format("offset{} {}", n == 1 ? "" : "s", spaced(f, kOffsets));
      } else {
        const char* how = sectors > bs ? "not 32-B aligned"
                          : lines > bl ? "32-B but not 128-B aligned"
                                       : "128-B aligned";
        who = fmt::format("{:g} offsets {}", n, how);
      }
      const double dram_lo = f.value(kModelDramMin), dram_hi = f.value(kModelDramMax);
      const std::string dram = dram_hi - dram_lo < 0.005
                                   ? fmt::format("{:.2f}x", dram_hi)
                                   : fmt::format("{:.2f}-{:.2f}x", dram_lo, dram_hi);
      // Offset 0 standing for its own class needs no comparison with itself.
      const std::string baseline =
          f[kOffsets] == "0"
              ? ""
              : fmt::format("; offset 0: {}, {}", counted(bs, "sector"), counted(bl, "line"));
      return fmt::format(
          "{} {} ({}, {} per warp load{}): {:.2f}x offset 0{}; model: sectors {:.2f}x, DRAM "
          "({:g}-B fetches) {}",
          f[kElementBytes], who, counted(sectors, "sector"), counted(lines, "line"), baseline,
          f.value(kRelativeMean), range_text(f.value(kRelativeMin), f.value(kRelativeMax)),
          f.value(kModelRelative), f.value(kFetchBytes), dram);
    });

const auto kOffsetSectorCost = coalescing_findings.verdict(
    "coalescing_offset_sector_cost", params(kElementBytes),
    values(kSectors, kFewerSectors, kLines, kRatio), [](const auto& f) {
      return fmt::format("{} offsets, measured: {:g} vs {:g} sectors with {} each {:.2f}x",
                         f[kElementBytes], f.value(kSectors), f.value(kFewerSectors),
                         counted(f.value(kLines), "line"), f.value(kRatio));
    });

const auto kOffsetLineCost = coalescing_findings.verdict(
    "coalescing_offset_line_cost", params(kElementBytes),
    values(kLines, kFewerLines, kSectors, kRatio), [](const auto& f) {
      return fmt::format("{} offsets, measured: {:g} vs {:g} lines with {} each {:.2f}x",
                         f[kElementBytes], f.value(kLines), f.value(kFewerLines),
                         counted(f.value(kSectors), "sector"), f.value(kRatio));
    });

const auto kStridesFinding = coalescing_findings.verdict(
    "coalescing_strides", params(kElementBytes),
    values(kFetchBytes, kStride2, kSectorStride, kFetchStride, kLargestStride), [](const auto& f) {
      struct Shown {
        double stride, relative, model, dram;
      };
      std::vector<Shown> shown;
      const auto add = [&](double stride, auto role) {
        if (const auto r = f.maybe(role.relative))
          shown.push_back({stride, *r, f.value(role.model), f.value(role.model_dram)});
      };
      add(2.0, kStride2);
      add(f.value(kSectorStride.stride), kSectorStride);
      add(f.value(kFetchStride.stride), kFetchStride);
      add(f.value(kLargestStride.stride), kLargestStride);
      std::ranges::sort(shown, {}, &Shown::stride);
      std::vector<std::string> parts;
      for (std::size_t i = 0; i < shown.size(); ++i) {
        if (i > 0 && shown[i].stride == shown[i - 1].stride) continue;
        parts.push_back(fmt::format("{:.2f}x at {}{:.0f} ({:.2f}x, {:.2f}x)", shown[i].relative,
                                    parts.empty() ? "stride " : "", shown[i].stride, shown[i].model,
                                    shown[i].dram));
      }
      return fmt::format("{} strides, measured (sector model, DRAM model with {:g}-B fetches): {}",
                         f[kElementBytes], f.value(kFetchBytes), fmt::join(parts, ", "));
    });

const auto kDramModelHolds = coalescing_findings.verdict(
    "coalescing_stride_dram_model_holds", params(kElementBytes), values(kRatioMin, kRatioMax),
    [](const auto& f) {
      return fmt::format("{} strides: measured/DRAM model {:.2f}-{:.2f}x at every stride",
                         f[kElementBytes], f.value(kRatioMin), f.value(kRatioMax));
    });

const auto kLeavesDramModel = coalescing_findings.verdict(
    "coalescing_stride_leaves_dram_model", params(kElementBytes),
    values(kRatioMin, kRatioMax, kHoldsUpTo, kHoldsUpToSpacing, kShortFrom, kShortFromSpacing,
           kLowestRatio, kLowestAt, kShortfall),
    [](const auto& f) {
      // With no stride before the shortfall: "measured more than 10% below the DRAM model from
      // ...".
      const std::string holds =
          f.maybe(kHoldsUpTo)
              ? fmt::format(
                    "measured/DRAM model {:.2f}-{:.2f}x up to stride {:.0f} (elements {:.0f} B "
                    "apart), more than {:.0f}% below it",
                    f.value(kRatioMin), f.value(kRatioMax), f.value(kHoldsUpTo),
                    f.value(kHoldsUpToSpacing), f.value(kShortfall))
              : fmt::format("measured more than {:.0f}% below the DRAM model", f.value(kShortfall));
      return fmt::format(
          "{} strides: {} from stride {:.0f} ({:.0f} B apart), down to {:.2f}x at stride {:.0f}: a "
          "loss the model does not explain",
          f[kElementBytes], holds, f.value(kShortFrom), f.value(kShortFromSpacing),
          f.value(kLowestRatio), f.value(kLowestAt));
    });

const auto kWorstBest = coalescing_findings.verdict(
    "coalescing_worst_best", params(),
    values(kWorstBandwidth, kBestBandwidth, kRatio, kWorstAlike, kBestAlike),
    outcome(kWorst.pattern, kWorst.at, kWorst.element_bytes, kWorst.alike_with, kBest.pattern,
            kBest.at, kBest.element_bytes, kBest.alike_with),
    [](const auto& f) {
      return fmt::format("worst/best measured: {:.1f} GB/s ({}) vs {:.1f} GB/s ({}) = {:.3f}x",
                         f.value(kWorstBandwidth), point_text(f, kWorst), f.value(kBestBandwidth),
                         point_text(f, kBest), f.value(kRatio));
    });

const auto kImpliedDram = coalescing_findings.verdict(
    "coalescing_implied_dram", params(),
    values(kFetchBytes, kBaselineMin, kBaselineMax, kHighest, kLowest, kHighestAlike, kLowestAlike,
           kPeakEstimate),
    outcome(kHighestAt.pattern, kHighestAt.at, kHighestAt.element_bytes, kHighestAt.alike_with,
            kLowestAt_.pattern, kLowestAt_.at, kLowestAt_.element_bytes, kLowestAt_.alike_with),
    [](const auto& f) {
      const auto lo = f.maybe(kBaselineMin), hi = f.maybe(kBaselineMax);
      const auto peak = f.maybe(kPeakEstimate);
      return fmt::format(
          "implied DRAM traffic (bandwidth x DRAM-model bytes per useful byte, {:g}-B fetches): "
          "{}highest {:.0f} GB/s ({}), lowest {:.0f} GB/s ({}){}; the model's predictions "
          "assume it is the same everywhere",
          f.value(kFetchBytes),
          lo && hi
              ? fmt::format("{:.0f}-{:.0f} GB/s for the aligned unit-stride copies, ", *lo, *hi)
              : std::string(),
          f.value(kHighest), point_text(f, kHighestAt), f.value(kLowest), point_text(f, kLowestAt_),
          peak ? fmt::format(" (est. peak {:.0f} GB/s)", *peak) : "");
    });

const auto kNoBaseline = coalescing_findings.warning(
    "coalescing_no_baseline", params(kPattern, kOffset, kStride, kElementBytes), values(),
    [](const auto& f) {
      return fmt::format("{} of {} was not measured: no relative bandwidth for those rows",
                         at_text(f), f[kElementBytes]);
    });

const auto kL2SizeAssumed = coalescing_findings.note(
    "coalescing_l2_size_assumed", params(), values(kL2Size), [](const auto& f) {
      return fmt::format("the driver reports no L2 size: sized as if it were {}", f[kL2Size]);
    });

const auto kFetchNotReported = coalescing_findings.note(
    "coalescing_fetch_not_reported", params(), values(kModelFetchBytes), [](const auto& f) {
      return fmt::format(
          "the driver reports no L2 fetch granularity: the DRAM model uses {:g}-B fetches (the "
          "sector)",
          f.value(kModelFetchBytes));
    });

const auto kFetchAdjusted = coalescing_findings.note(
    "coalescing_fetch_adjusted", params(), values(kL2FetchGranularity, kModelFetchBytes),
    [](const auto& f) {
      return fmt::format(
          "the driver reports an L2 fetch granularity of {:g} B: the DRAM model uses {:g} B (a "
          "power of two from 32 to 128)",
          f.value(kL2FetchGranularity), f.value(kModelFetchBytes));
    });

const auto kDropped = coalescing_findings.warning(
    "coalescing_dropped", params(kPattern, kOffset, kStride, kElementBytes),
    values(kMemoryCap, kMemoryCapShare, kMinWorkingSet), [](const auto& f) {
      return fmt::format(
          "{} at {} dropped: its input span does not fit the memory cap of {} ({:.0f}% of free "
          "memory) with a working set of at least {:g}x L2",
          at_text(f), f[kElementBytes], f[kMemoryCap], f.value(kMemoryCapShare),
          f.value(kMinWorkingSet));
    });

const auto kClamped = coalescing_findings.note(
    "coalescing_clamped", params(kElementBytes, kStrides, kElements),
    values(kDefaultElements, kMemoryCap, kMinWorkingSet), [](const auto& f) {
      const TextList strides = f.items(kStrides), elements = f.items(kElements);
      std::vector<std::string> items;
      for (std::size_t i = 0; i < std::min(strides.size(), elements.size()); ++i)
        items.push_back(fmt::format("{} (N = {})", strides[i], elements[i]));
      return fmt::format(
          "{} strides {} ran with fewer elements than the default {:.0f} so the input span fits "
          "the memory cap of {}; their working set stays >= {:g}x L2 (flag 'clamped')",
          f[kElementBytes], fmt::join(items, ", "), f.value(kDefaultElements), f[kMemoryCap],
          f.value(kMinWorkingSet));
    });

const auto kSizing = coalescing_findings.note(
    "coalescing_sizing", params(kWidths, kElements),
    values(kL2Multiple, kL2Size, kBytesPerDirection, kWorkingSetOverL2), [](const auto& f) {
      const auto ws = f.maybe(kWorkingSetOverL2);
      return fmt::format(
          "sizing: N = {} elements for widths {} B ({} per direction, {:g}x the {} L2); offsets "
          "read N + offset elements, strides (N - 1) x stride + 1{}",
          spaced(f, kElements), spaced(f, kWidths), f[kBytesPerDirection], f.value(kL2Multiple),
          f[kL2Size],
          ws ? fmt::format("; the smallest working set (distinct sectors in + out per launch) "
                           "is {:.1f}x L2",
                           *ws)
             : "");
    });

const auto kBaselineAdded = coalescing_findings.note(
    "coalescing_baseline_added", params(kPattern, kWidths), values(), [](const auto& f) {
      const std::string pattern = f[kPattern];
      return fmt::format(
          "{} {} was not asked for and was measured as the baseline of widths {} B (flag "
          "'baseline')",
          pattern, pattern == "offset" ? 0 : 1, spaced(f, kWidths));
    });

const auto kModel = coalescing_findings.note(
    "coalescing_model",
    "model: sectors_per_request / lines_per_request = distinct 32-B sectors / 128-B lines "
    "one warp's load touches (stores are aligned and unit-stride); "
    "predicted_relative_bandwidth counts load + store sectors per request, as L1 sends them "
    "to L2 (lines are shown, not used in a prediction); predicted_relative_bandwidth_dram "
    "counts distinct G-byte DRAM fetch blocks (G = the L2 fetch granularity) per run of "
    "warps, loads + stores: a block neighbouring warps share is fetched once, an element "
    "alone in its block costs G bytes");

const auto kImpliedDramMeaning = coalescing_findings.note(
    "coalescing_implied_dram_meaning",
    "implied_dram_bandwidth = bandwidth x DRAM-model bytes per useful byte: the DRAM traffic rate "
    "the measurement implies if the model's byte count is right; the model assumes it is the same "
    "at every point, so where it moves, something the model does not count (DRAM row locality, "
    "bank/channel interleaving, read/write turnaround, TLB reach) is at work; which one, this "
    "probe cannot tell");

const auto kPlanFetch = coalescing_findings.note(
    "coalescing_plan_fetch", params(), values(kModelFetchBytes), [](const auto& f) {
      return fmt::format(
          "--plan has no device: predicted_relative_bandwidth_dram uses {:g}-B fetches (the "
          "sector); a run uses the device's L2 fetch granularity (cudaLimitMaxL2FetchGranularity; "
          "an H100 reports 64 B), which lowers it for strides that put elements 64 B or more apart",
          f.value(kModelFetchBytes));
    });

const auto kPlanSizing = coalescing_findings.note(
    "coalescing_plan_sizing", params(), values(kL2Multiple, kMemoryCapShare), [](const auto& f) {
      return fmt::format(
          "sizes are chosen on the device: N x element bytes >= {:g}x L2 per direction at offset "
          "0 / stride 1 (--l2-multiple); large strides may run with a smaller N or be dropped to "
          "stay within {:.0f}% of free device memory",
          f.value(kL2Multiple), f.value(kMemoryCapShare));
    });

// Counters beside the model: the row a finding names is its worst (or, agreeing, its most
// deviating) row. (Row params read back from JSON carry no unit: the width is said in bytes
// either way.)
// One counter agreement of the rows, each named by (pattern, offset or stride, element_bytes).
CounterAgreementMaker row_counter_agreement(std::string_view id, std::string_view what) {
  return define_counter_agreement(
      coalescing_findings, id, what, point(kPattern, kOffset, kStride, kElementBytes),
      [](const auto& f) {
        return fmt::format("{}, {}", at_text(f), byte_words(f[kElementBytes]));
      });
}

}  // namespace

const CounterAgreementMaker kCounterLoadSectors = row_counter_agreement(
    "coalescing_counter_load_sectors", "global-load sectors per request (l1tex)");
const CounterAgreementMaker kCounterStoreSectors = row_counter_agreement(
    "coalescing_counter_store_sectors", "global-store sectors per request (l1tex)");
const CounterAgreementMaker kCounterL2Sectors = row_counter_agreement(
    "coalescing_counter_l2_sectors", "L2 read sectors from L1 per load request");
const CounterAgreementMaker kCounterDramRead = row_counter_agreement(
    "coalescing_counter_dram_read",
    "DRAM bytes read per useful byte (model: each shared 64-B block fetched once to once per "
    "request)");
const CounterAgreementMaker kCounterDramWrite = row_counter_agreement(
    "coalescing_counter_dram_write",
    "DRAM bytes written per useful byte (in the range + written back after it)");

namespace {

// The verdict on one offset class against offset 0's sectors `bs` and lines `bl`.
Finding offset_class_finding(int w, const OffsetClass& c, double bs, double bl, int fetch) {
  const auto of = [&](auto f) {  // a vector, not a view: clang 14 cannot use libstdc++ 12's views
    std::vector<decltype(f(*c.members.front()))> out;
    for (const Measured* m : c.members)
      out.push_back(f(*m));
    return out;
  };
  const auto [lo, hi] = std::ranges::minmax(of(rel));
  const auto [dram_lo, dram_hi] = std::ranges::minmax(of(dram_rel));
  return kOffsetClass.make(
      kElementBytes(w), kOffsets(int_list(of([](const Measured& m) { return m.param; }))),
      kCount(c.members.size()), kSectorsPerRequest(c.sectors), kLinesPerRequest(c.lines),
      kBaselineSectors(bs), kBaselineLines(bl), kRelativeMean(mean_of(c.members, rel)),
      kRelativeMin(lo), kRelativeMax(hi), kModelRelative(model_rel(*c.members.front())),
      kModelDramMin(dram_lo), kModelDramMax(dram_hi), kFetchBytes(fetch));
}

// The measured cost of one more sector (same lines) or line (same sectors), over every pair.
void offset_cost_findings(int w, const std::vector<const OffsetClass*>& ordered,
                          std::vector<Finding>& out) {
  for (const auto* a : ordered) {
    for (const auto* b : ordered) {
      const double ratio = mean_of(a->members, rel) / mean_of(b->members, rel);
      if (a->lines == b->lines && a->sectors > b->sectors) {
        out.push_back(kOffsetSectorCost.make(kElementBytes(w), kSectors(a->sectors),
                                             kFewerSectors(b->sectors), kLines(a->lines),
                                             kRatio(ratio)));
      } else if (a->sectors == b->sectors && a->lines > b->lines) {
        out.push_back(kOffsetLineCost.make(kElementBytes(w), kLines(a->lines),
                                           kFewerLines(b->lines), kSectors(a->sectors),
                                           kRatio(ratio)));
      }
    }
  }
}

// The headline strides of one width (sorted by stride) beside both models; nullopt when none
// of them was measured.
std::optional<Finding> strides_finding(int w, const std::vector<const Measured*>& group,
                                       int fetch) {
  // 2, the strides from which each lane has its own sector and its own fetch block, the largest.
  const auto sector = static_cast<std::uint64_t>(std::max(1, models::kSectorBytes / w));
  const auto block = static_cast<std::uint64_t>(std::max(1, fetch / w));
  const std::uint64_t largest = group.back()->param;
  bool any = false;
  // The measured and the two models' relative bandwidth at a stride, null where not measured.
  const auto at = [&](std::uint64_t stride) {
    const auto it = std::ranges::find(group, stride, &Measured::param);
    const Measured* m = stride > 1 && it != group.end() ? *it : nullptr;
    any = any || m;
    using V = std::optional<double>;
    if (!m) return std::tuple<V, V, V>{};
    return std::tuple<V, V, V>{rel(*m), model_rel(*m), dram_rel(*m)};
  };
  const auto role = [&](std::uint64_t stride) {
    return std::tuple_cat(std::tuple<std::optional<double>>{static_cast<double>(stride)},
                          at(stride));
  };
  Finding f = kStridesFinding.make(kElementBytes(w), kFetchBytes(fetch), kStride2(at(2)),
                                   kSectorStride(role(sector)), kFetchStride(role(block)),
                                   kLargestStride(role(largest)));
  if (!any) return std::nullopt;
  return f;
}

// Measured / DRAM model, by stride (sorted): the first stride below kModelShortfall and what
// precedes it, or that the model holds at every stride.
Finding dram_model_finding(int w, const std::vector<const Measured*>& group) {
  double lo = kInf, hi = 0;
  const Measured* last_ok = nullptr;
  const Measured* first_short = nullptr;
  const Measured* lowest = nullptr;
  auto ratio = [](const Measured& m) { return rel(m) / dram_rel(m); };
  for (const auto* m : group) {
    if (m->param <= 1) continue;
    const double r = ratio(*m);
    if (!lowest || r < ratio(*lowest)) lowest = m;
    if (first_short) continue;
    if (r < kModelShortfall) {
      first_short = m;
      continue;
    }
    lo = std::min(lo, r);
    hi = std::max(hi, r);
    last_ok = m;
  }
  if (!first_short) return kDramModelHolds.make(kElementBytes(w), kRatioMin(lo), kRatioMax(hi));
  auto ok = [&](double v) { return last_ok ? std::optional<double>(v) : std::nullopt; };
  const auto wd = static_cast<double>(w);
  return kLeavesDramModel.make(
      kElementBytes(w), kRatioMin(ok(lo)), kRatioMax(ok(hi)),
      kHoldsUpTo(ok(last_ok ? static_cast<double>(last_ok->param) : 0)),
      kHoldsUpToSpacing(ok(last_ok ? static_cast<double>(last_ok->param) * wd : 0)),
      kShortFrom(first_short->param),
      kShortFromSpacing(static_cast<double>(first_short->param) * wd), kLowestRatio(ratio(*lowest)),
      kLowestAt(lowest->param), kShortfall((1 - kModelShortfall) * 100));
}

// An extreme's params (in the outcome): the first point of its alike set in sweep order names
// it, so points the noise cannot tell apart do not take turns; with more than one, the others as
// "<prefix>_alike_with" ("offset 16, 16 B; stride 1, 16 B").
template <FieldKey P>
auto extreme_given(ExtremeKeys<P> k, const std::vector<Measured>& measured,
                   const std::vector<std::size_t>& alike) {
  const Measured& first = measured[alike.front()];
  std::optional<std::string> others;
  for (std::size_t i = 1; i < alike.size(); ++i) {
    const Measured& m = measured[alike[i]];
    others = fmt::format("{}{}{} {}, {} B", others.value_or(""), others ? "; " : "",
                         pattern_name(m.pattern), m.param, m.width);
  }
  return std::tuple(k.pattern(pattern_name(first.pattern)), k.at(first.param),
                    k.element_bytes(first.width), k.alike_with(others));
}

// Where on a pattern a point lies: its pattern, and its offset or its stride.
auto at_given(CopyPattern pattern, std::uint64_t param) {
  const bool offset = pattern == CopyPattern::kOffset;
  const std::optional<std::int64_t> at = static_cast<std::int64_t>(param);
  return std::tuple(kPattern(pattern_name(pattern)), kOffset(offset ? at : std::nullopt),
                    kStride(offset ? std::nullopt : at));
}

// The notes on the L2 size and fetch granularity the driver did (not) report.
void device_findings(const RunFacts& facts, std::vector<Finding>& out) {
  const Sizing& z = facts.sizing;
  const double fetch = facts.fetch_bytes;
  if (z.l2_assumed) out.push_back(kL2SizeAssumed.make(kL2Size(z.l2_bytes)));
  if (!facts.reported_fetch) {
    out.push_back(kFetchNotReported.make(kModelFetchBytes(fetch)));
  } else if (static_cast<double>(*facts.reported_fetch) != fetch) {
    out.push_back(
        kFetchAdjusted.make(kL2FetchGranularity(*facts.reported_fetch), kModelFetchBytes(fetch)));
  }
}

// The points dropped for the memory cap, and the strides run with a smaller N, per width.
void cap_findings(const Sizing& z, std::vector<Finding>& out) {
  for (const auto& d : z.dropped) {
    out.push_back(kDropped.make(at_given(d.pattern, d.param), kElementBytes(d.element_bytes),
                                kMemoryCap(z.memory_cap), kMemoryCapShare(kMemoryCapFraction * 100),
                                kMinWorkingSet(kClampedMinWorkingSet)));
  }
  for (const auto& [w, n] : z.default_elements) {
    std::vector<std::uint64_t> strides, elements;
    for (const auto& c : z.clamped) {
      if (c.element_bytes != w) continue;
      strides.push_back(c.stride);
      elements.push_back(c.elements);
    }
    if (strides.empty()) continue;
    out.push_back(kClamped.make(kElementBytes(w), kStrides(int_list(strides)),
                                kElements(int_list(elements)), kDefaultElements(n),
                                kMemoryCap(z.memory_cap), kMinWorkingSet(kClampedMinWorkingSet)));
  }
}

}  // namespace

void offset_findings(int w, OffsetClasses c, int fetch, std::vector<Finding>& out) {
  auto& classes = c.classes;
  // Offset 0 stands for its own class when no other offset measured has it.
  if (c.zero && !classes.count({c.bs, c.bl}))
    classes[{c.bs, c.bl}] = OffsetClass{c.bs, c.bl, {c.zero}};
  std::vector<const OffsetClass*> ordered;  // most sectors first, then most lines
  for (auto it = classes.rbegin(); it != classes.rend(); ++it)
    ordered.push_back(&it->second);
  for (const auto* k : ordered)
    out.push_back(offset_class_finding(w, *k, c.bs, c.bl, fetch));
  offset_cost_findings(w, ordered, out);
}

void stride_findings(int w, std::vector<const Measured*> group, int fetch,
                     std::vector<Finding>& out) {
  std::sort(group.begin(), group.end(),
            [](const Measured* a, const Measured* b) { return a->param < b->param; });
  auto strides = strides_finding(w, group, fetch);
  if (!strides) return;
  out.push_back(std::move(*strides));
  out.push_back(dram_model_finding(w, group));
}

Finding no_baseline_warning(CopyPattern pattern, int w) {
  return kNoBaseline.make(at_given(pattern, baseline_param(pattern)), kElementBytes(w));
}

void extreme_findings(const std::vector<Measured>& measured, const RunFacts& facts,
                      std::vector<Finding>& out) {
  if (measured.empty()) return;
  // Bandwidths, and the DRAM traffic each implies under the DRAM model (flat where it holds).
  std::vector<Metric> bandwidth, implied;
  std::optional<double> base_lo, base_hi;
  for (const auto& m : measured) {
    bandwidth.push_back(*m.bandwidth);
    implied.push_back(scaled_metric(*m.bandwidth, implied_dram_gbps(m) / m.median_gbps, "GB/s"));
    if (m.param == baseline_param(m.pattern)) {
      base_lo = std::min(base_lo.value_or(kInf), implied_dram_gbps(m));
      base_hi = std::max(base_hi.value_or(0), implied_dram_gbps(m));
    }
  }
  const ExtremeSets bw = extremes_of(bandwidth);
  if (measured.size() > 1) {
    out.push_back(kWorstBest.make(extreme_given(kWorst, measured, bw.low),
                                  extreme_given(kBest, measured, bw.high),
                                  kWorstBandwidth(bw.low_value), kBestBandwidth(bw.high_value),
                                  kRatio(bw.low_value / bw.high_value), kWorstAlike(bw.low.size()),
                                  kBestAlike(bw.high.size())));
  }
  const ExtremeSets dram = extremes_of(implied);
  out.push_back(kImpliedDram.make(
      extreme_given(kHighestAt, measured, dram.high), extreme_given(kLowestAt_, measured, dram.low),
      kFetchBytes(facts.fetch_bytes), kBaselineMin(base_lo), kBaselineMax(base_hi),
      kHighest(dram.high_value), kLowest(dram.low_value), kHighestAlike(dram.high.size()),
      kLowestAlike(dram.low.size()),
      kPeakEstimate(facts.peak_dram_gbps > 0 ? std::optional<double>(facts.peak_dram_gbps)
                                             : std::nullopt)));
}

void note_findings(const ProbeResult& result, const RunFacts& facts, std::optional<double> min_ws,
                   std::vector<Finding>& out) {
  const Sizing& z = facts.sizing;
  device_findings(facts, out);
  cap_findings(z, out);
  std::vector<std::uint64_t> widths, default_n;
  for (const auto& [w, n] : z.default_elements) {
    widths.push_back(static_cast<std::uint64_t>(w));
    default_n.push_back(n);
  }
  out.push_back(kSizing.make(kWidths(int_list(widths)), kElements(int_list(default_n)),
                             kL2Multiple(z.l2_multiple), kL2Size(z.l2_bytes),
                             kBytesPerDirection(z.out_bytes), kWorkingSetOverL2(min_ws)));
  for (CopyPattern pattern : {CopyPattern::kOffset, CopyPattern::kStride}) {
    std::vector<std::uint64_t> added;  // the widths whose baseline was not asked for
    for (const auto& row : result.rows) {
      const Key k = row_key(row);
      if (k.pattern == pattern && std::ranges::find(row.flags, "baseline") != row.flags.end())
        added.push_back(static_cast<std::uint64_t>(k.width));
    }
    if (!added.empty())
      out.push_back(kBaselineAdded.make(kPattern(pattern_name(pattern)), kWidths(int_list(added))));
  }
  out.push_back(kModel.make());
  out.push_back(kImpliedDramMeaning.make());
}

void add_plan_findings(ProbeResult& result, std::uint64_t l2_multiple) {
  result.findings.push_back(kPlanFetch.make(kModelFetchBytes(models::kSectorBytes)));
  result.findings.push_back(
      kPlanSizing.make(kL2Multiple(l2_multiple), kMemoryCapShare(kMemoryCapFraction * 100)));
  result.findings.push_back(kModel.make());
}

namespace {

constexpr TermEntry kTerms[] = {
    // the columns' short headers and legend lines
    {"sectors_per_request_counter", "sec ctr",
     "counters: global-load sectors / load requests (l1tex), one launch"},
    {"sectors_per_request_counter_vs_model", "sec c/m",
     "sec ctr / the model's sectors per warp load"},
    {"store_sectors_per_request_counter", "st ctr",
     "counters: global-store sectors / store requests (l1tex), one launch"},
    {"store_sectors_per_request_counter_vs_model", "st c/m",
     "st ctr / the model's sectors per warp store (unit-stride, aligned)"},
    {"l2_sectors_per_request_counter", "L2 ctr",
     "counters: L2 sectors read by L1 / load requests: what L1 sends on"},
    {"l2_sectors_per_request_counter_vs_model", "L2 c/m", "L2 ctr / m.L2 sec"},
    {"l1_hit_sectors_per_request_counter", "L1 hit",
     "counters: load sectors that hit in L1 / load requests"},
    {"l2_sectors_per_request", "L2 sec",
     "model: sectors per warp load less the L1 hits counted (what L1 sends on)"},
    {"dram_read_bytes_per_useful_byte_counter", "rd ctr",
     "counters: DRAM bytes read / useful bytes read (N x width)"},
    {"dram_read_bytes_per_useful_byte_counter_vs_model", "rd c/m",
     "rd ctr / m.rd (agrees anywhere from m.rd to m.rd max)"},
    {"dram_read_bytes_per_useful_byte", "rd",
     "model: load fetch-block bytes per useful byte, a shared block fetched once"},
    {"dram_read_bytes_per_useful_byte_refetch", "rd max",
     "model: the same, a shared block fetched once per request touching it"},
    {"shared_blocks_refetched", "refetch",
     "(rd ctr - m.rd) / (m.rd max - m.rd): share of shared blocks fetched twice"},
    {"dram_write_bytes_per_useful_byte_counter", "wr ctr",
     "counters: DRAM bytes written in the launch's range + written back after it / N x width"},
    {"dram_write_bytes_per_useful_byte_counter_vs_model", "wr c/m", "wr ctr / m.wr"},
    {"dram_write_bytes_per_useful_byte", "wr",
     "model: store fetch-block bytes per useful byte written"},
    {"store_sectors_per_request", "st sec",
     "model: distinct 32-B sectors one warp store touches (with counters)"},
    {"element_bytes", "width", "element width in bytes"},
    {"relative_bandwidth", "rel", "bandwidth / that of offset 0 or stride 1 at the same width"},
    {"working_set_over_l2", "ws/L2", "distinct sectors in + out per launch x 32 B / L2 size"},
    {"implied_dram_bandwidth", "DRAM bw", "bandwidth x DRAM-model bytes per useful byte, GB/s"},
    {"sectors_per_request", "sec/req", "model: distinct 32-B sectors one warp load touches"},
    {"lines_per_request", "lin/req", "model: distinct 128-B lines one warp load touches"},
    {"sector_efficiency", "sec eff", "model: useful load bytes / loaded sector bytes"},
    {"predicted_relative_bandwidth", "rel",
     "model: baseline ld+st sectors per request / this point's"},
    {"predicted_relative_bandwidth_dram", "DRAM rel",
     "model: baseline DRAM fetch-block bytes per warp / this point's"},
    {"baseline_bandwidth", "base", "bandwidth of offset 0 / stride 1, GB/s"},
    {"misaligned_mean_relative", "misalign",
     "mean rel of offsets that load more sectors than offset 0"},
    {"model_misaligned_relative", "mdl mis", "sector model for those offsets"},
    {"model_dram_misaligned_relative", "DRAM mis", "DRAM model for those offsets"},
    {"line_misaligned_mean_relative", "line mis",
     "mean rel of 32-B aligned offsets touching more lines than offset 0"},
    {"line_aligned_mean_relative", "aligned",
     "mean rel of other offsets with offset 0's sectors and lines"},
    {"worst_relative_bandwidth", "worst", "lowest rel of the sweep"},
    {"worst_at", "at", "offset or stride of the worst rel, elements"},
    {"model_at_worst", "mdl@w", "sector model at the worst point"},
    {"model_dram_at_worst", "DRAM@w", "DRAM model at the worst point"},
};

}  // namespace

void add_words(Glossary& g) {
  g.add_findings(coalescing_findings);
  g.add_terms("coalescing", kTerms);
}

}  // namespace gpuprobe::coalescing
