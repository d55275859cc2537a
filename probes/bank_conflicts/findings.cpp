// bank-conflicts' findings (host-only), each declared once (id, kind, fields, sentence), and
// their builders: the ladder's verdicts and notes on copy, and the stride sweep's slowdowns,
// agreement with the model, and how the sweep ran; last, its words (add_words: the findings and
// the columns' short headers).
#include <fmt/format.h>

#include <algorithm>

#include "gpuprobe/core/counter_agreement.hpp"
#include "gpuprobe/core/decide.hpp"
#include "gpuprobe/core/finding_def.hpp"
#include "gpuprobe/models/bank_conflict_model.hpp"
#include "internal.hpp"

namespace gpuprobe::bank {
namespace {

using models::TileLayout;

// The keys of bank-conflicts' findings.
constexpr Int<"size"> kSize;
constexpr Text<"kernel"> kKernel;
constexpr Text<"outcome"> kOutcome;  // change_name: faster, slower, same, inconclusive, n/a
constexpr Text<"holds"> kHolds;      // yes, no, straddles
constexpr Text<"op"> kOp;
constexpr Size<"element_bytes"> kElementBytes;
constexpr Int<"stride"> kStride;
constexpr Flag<"sampled"> kSampled;
constexpr Value<"padded_bandwidth", "GB/s"> kPaddedBandwidth;
constexpr Value<"tiled_bandwidth", "GB/s"> kTiledBandwidth;
constexpr Value<"copy_bandwidth", "GB/s"> kCopyBandwidth;
constexpr Value<"padded_over_copy", "x"> kPaddedOverCopy;
constexpr Value<"tiled_over_copy", "x"> kTiledOverCopy;
constexpr Value<"padded_over_tiled", "x"> kPaddedOverTiled;
constexpr Value<"tiled_column_read_ways", "x"> kTiledColumnReadWays;
constexpr Value<"padded_column_read_ways", "x"> kPaddedColumnReadWays;
constexpr Value<"swizzled_bandwidth", "GB/s"> kSwizzledBandwidth;
constexpr Value<"swizzled_over_padded", "x"> kSwizzledOverPadded;
constexpr Value<"naive_over_copy", "x"> kNaiveOverCopy;
constexpr Value<"band", "%"> kBand;
constexpr Value<"copy_samples"> kCopySamples;
constexpr Value<"copy_min", "GB/s"> kCopyMin;
constexpr Value<"copy_max", "GB/s"> kCopyMax;
constexpr Value<"repeat_samples"> kRepeatSamples;
constexpr Value<"repeat_bandwidth", "GB/s"> kRepeatBandwidth;
constexpr Value<"repeat_over_copy", "x"> kRepeatOverCopy;
constexpr Value<"over_copy", "x"> kOverCopy;
constexpr Value<"working_set", "B"> kWorkingSet;
constexpr Value<"l2", "B"> kL2;
constexpr Value<"broadcast_slowdown", "x"> kBroadcastSlowdown;
constexpr Value<"broadcast_model", "x"> kBroadcastModel;
constexpr Value<"stride2_slowdown", "x"> kStride2Slowdown;
constexpr Value<"stride2_model", "x"> kStride2Model;
constexpr Value<"stride32_slowdown", "x"> kStride32Slowdown;
constexpr Value<"stride32_model", "x"> kStride32Model;
constexpr Value<"odd_slowdown_min", "x"> kOddSlowdownMin;
constexpr Value<"odd_slowdown_max", "x"> kOddSlowdownMax;
constexpr Value<"odd_model", "x"> kOddModel;
constexpr Value<"rows_within"> kRowsWithin;
constexpr Value<"rows_compared"> kRowsCompared;
constexpr Value<"tolerance", "%"> kTolerance;
constexpr Value<"slowdown", "x"> kSlowdown;
constexpr Value<"predicted_slowdown", "x"> kPredictedSlowdown;
constexpr Value<"off", "%"> kOff;
constexpr Value<"sm_count"> kSmCount;
constexpr Value<"blocks"> kBlocks;
constexpr Value<"blocks_per_sm"> kBlocksPerSm;
constexpr Value<"threads_per_block"> kThreadsPerBlock;
constexpr Value<"instructions_per_warp"> kInstructionsPerWarp;
constexpr Value<"launch_time_stride1", "s"> kLaunchTimeStride1;
constexpr Value<"sm_clock", "MHz"> kSmClock;

FindingList bank_findings;

// How `b` compares with `a` by `gpuprobe compare`'s rule (`order_of`: the bootstrap interval of
// the ratio against the 2% margin when both carry samples, else the noise band): "faster",
// "slower", "same", "inconclusive" or "n/a".
std::string outcome(const Metric& b, const Metric& a) {
  return change_name(order_of(b, a));
}

std::string outcome_words(const std::string& outcome) {
  if (outcome == "faster" || outcome == "slower") return outcome;
  if (outcome == "same") return "the same within noise";
  if (outcome == "inconclusive") return "not told apart by the noise (inconclusive)";
  return "not comparable";
}

// The source claim's decision: "yes", "no" or "straddles" (the noise reaches across the band).
std::string claim_words(const std::string& holds) {
  if (holds == "yes") return "holds";
  if (holds == "no") return "does not hold";
  return "undecided: the noise reaches across the band's edge";
}

const auto kPaddedVsTiled = bank_findings.verdict(
    "bank_padded_vs_tiled", params(kSize),
    values(kPaddedBandwidth, kTiledBandwidth, kCopyBandwidth, kPaddedOverCopy, kTiledOverCopy,
           kPaddedOverTiled, kTiledColumnReadWays, kPaddedColumnReadWays),
    outcome(kOutcome), [](const auto& f) {
      return fmt::format(
          "padded [32][33]: {:.0f} GB/s = {:.0f}% of copy ({:.0f} GB/s); tiled [32][32]: {:.0f} "
          "GB/s = {:.0f}% of copy; padded is {:.2f}x tiled, {} (model: column reads {:.0f}-way "
          "-> {:.0f}-way)",
          f.value(kPaddedBandwidth), 100 * f.value(kPaddedOverCopy), f.value(kCopyBandwidth),
          f.value(kTiledBandwidth), 100 * f.value(kTiledOverCopy), f.value(kPaddedOverTiled),
          outcome_words(f[kOutcome]), f.value(kTiledColumnReadWays),
          f.value(kPaddedColumnReadWays));
    });

const auto kSwizzledVsPadded = bank_findings.verdict(
    "bank_swizzled_vs_padded", params(kSize),
    values(kSwizzledBandwidth, kPaddedBandwidth, kSwizzledOverPadded), outcome(kOutcome),
    [](const auto& f) {
      return fmt::format("swizzled (XOR, no padding): {:.0f} GB/s = {:.3f}x padded, {}",
                         f.value(kSwizzledBandwidth), f.value(kSwizzledOverPadded),
                         outcome_words(f[kOutcome]));
    });

const auto kSourceClaim = bank_findings.verdict(
    "bank_source_claim", params(kSize), values(kNaiveOverCopy, kTiledOverCopy, kBand),
    outcome(kHolds), [](const auto& f) {
      return fmt::format(
          "source claim \"the first three (copy, naive, tiled) are basically the same\": naive "
          "{:.0f}%, tiled {:.0f}% of copy — {} on this GPU (measured, +-{:g}% band)",
          100 * f.value(kNaiveOverCopy), 100 * f.value(kTiledOverCopy), claim_words(f[kHolds]),
          f.value(kBand));
    });

const auto kCopyRepeat = bank_findings.note(
    "bank_copy_repeat", params(kSize),
    values(kCopySamples, kCopyMin, kCopyMax, kCopyBandwidth, kRepeatSamples, kRepeatBandwidth,
           kRepeatOverCopy),
    outcome(kOutcome), [](const auto& f) {
      std::string repeat = "copy was not measured again";
      if (f.maybe(kRepeatBandwidth))
        repeat = fmt::format(
            "copy again at the end: {:g} samples, median {:.0f} GB/s = {:.3f}x the first, {}",
            f.value(kRepeatSamples), f.value(kRepeatBandwidth), f.value(kRepeatOverCopy),
            outcome_words(f[kOutcome]));
      return fmt::format(
          "ladder: kernels measured one after another in the order copy, naive, tiled, padded, "
          "swizzled, then copy again (each after its own warm-up batch); copy, the baseline of "
          "relative_to_copy and of the ratios: {:g} samples, {:.0f}-{:.0f} GB/s (noise within "
          "this run, not the variation between runs); {}",
          f.value(kCopySamples), f.value(kCopyMin), f.value(kCopyMax), repeat);
    });

const auto kTransposeBeatsCopy = bank_findings.note(
    "bank_transpose_beats_copy", params(kKernel), values(kOverCopy), [](const auto& f) {
      return fmt::format(
          "ladder: {} ran at {:.2f}x copy, beyond the noise of both: in this run copy is not an "
          "upper bound for the transposes, so relative_to_copy is not a fraction of a roofline "
          "here",
          f[kKernel], f.value(kOverCopy));
    });

const auto kLadderFitsL2 = bank_findings.note(
    "bank_ladder_fits_l2", params(kSize), values(kWorkingSet, kL2), [](const auto& f) {
      return fmt::format(
          "ladder: the two matrices ({}) are not much larger than L2 ({}): copy and transposes "
          "may partly run from L2; use --size 8192 or more for DRAM behaviour",
          f[kWorkingSet], f[kL2]);
    });

const auto kStrideSlowdowns = bank_findings.verdict(
    "bank_stride_slowdowns", params(kOp, kElementBytes),
    values(kBroadcastSlowdown, kBroadcastModel, kStride2Slowdown, kStride2Model, kStride32Slowdown,
           kStride32Model, kOddSlowdownMin, kOddSlowdownMax, kOddModel),
    [](const auto& f) {
      std::vector<std::string> items;
      const auto add = [&](const char* words, auto slowdown, auto model) {
        if (f.maybe(slowdown))
          items.push_back(
              fmt::format("{} {:.2f}x ({:g})", words, f.value(slowdown), f.value(model)));
      };
      add("broadcast", kBroadcastSlowdown, kBroadcastModel);
      add("s2", kStride2Slowdown, kStride2Model);
      add("s32", kStride32Slowdown, kStride32Model);
      if (f.maybe(kOddSlowdownMin)) {
        const double lo = f.value(kOddSlowdownMin), hi = f.value(kOddSlowdownMax);
        // One value when every odd stride measured the same slowdown.
        items.push_back(lo == hi
                            ? fmt::format("odd {:.2f}x ({:g})", lo, f.value(kOddModel))
                            : fmt::format("odd {:.2f}-{:.2f}x ({:g})", lo, hi, f.value(kOddModel)));
      }
      return fmt::format("{}s, slowdown vs stride 1 measured (model): {}: {}", f[kOp],
                         f[kElementBytes], fmt::join(items, ", "));
    });

const auto kStrideModelAgreement = bank_findings.verdict(
    "bank_stride_model_agreement", params(), values(kRowsWithin, kRowsCompared, kTolerance),
    [](const auto& f) {
      return fmt::format(
          "stride sweep: measured slowdown within {:g}% of the model on {:g} of {:g} rows",
          f.value(kTolerance), f.value(kRowsWithin), f.value(kRowsCompared));
    });

const auto kStrideModelMiss = bank_findings.verdict(
    "bank_stride_model_miss", params(kOp, kElementBytes, kStride),
    values(kSlowdown, kPredictedSlowdown, kOff), [](const auto& f) {
      return fmt::format(
          "stride sweep, far from the model: {} {} stride {}: {:.2f}x vs {:g}x ({:.0f}% off)",
          f[kElementBytes], f[kOp], f[kStride], f.value(kSlowdown), f.value(kPredictedSlowdown),
          f.value(kOff));
    });

const auto kNoStride1 = bank_findings.note(
    "bank_no_stride1", "stride sweep: no stride 1 in --strides, so no slowdown is derived");

const auto kStrideShape = bank_findings.note(
    "bank_stride_shape", params(kOp, kElementBytes),
    values(kSmCount, kBlocks, kBlocksPerSm, kThreadsPerBlock, kInstructionsPerWarp,
           kLaunchTimeStride1),
    [](const auto& f) {
      const std::string launch =
          f.maybe(kLaunchTimeStride1)
              ? fmt::format("; {} per launch at stride 1", f[kLaunchTimeStride1])
              : std::string();
      return fmt::format(
          "stride kernel, {} {}: one wave on {:g} SMs, {:g} blocks ({:g}/SM) of {:g} threads x "
          "{:g} instructions per warp{}",
          f[kElementBytes], f[kOp], f.value(kSmCount), f.value(kBlocks), f.value(kBlocksPerSm),
          f.value(kThreadsPerBlock), f.value(kInstructionsPerWarp), launch);
    });

const auto kCyclesMethod =
    bank_findings.note("bank_cycles_method", params(kSampled), values(kSmClock), [](const auto& f) {
      return fmt::format(
          "cycles_per_request = time_per_instruction x the SM clock {} ({:.0f} MHz); the model "
          "expects 1 cycle per wavefront (32 banks x 4 B per clock per SM)",
          f[kSampled] == "true" ? "sampled in-kernel around the sweep"
                                : "rated maximum (not sampled)",
          f.value(kSmClock));
    });

const auto kCountersNotCollected =
    bank_findings.note("bank_counters_not_collected",
                       "no row has shared-memory counters in this run (--no-counters, or the GPU "
                       "refused them): the model's wavefronts per request stand unchecked; without "
                       "the counter pass, compare them with "
                       "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{ld,st} in Nsight Compute");

// The notes on copy, the baseline: its repeat, and transposes that beat it.
void copy_notes(const Ladder& l, const Metric& copy, const Inputs& in,
                std::vector<Finding>& notes) {
  // copy is the baseline of every ratio: when and how it was measured, and its repeat.
  const Metric* again = in.copy_repeat ? &*in.copy_repeat : nullptr;
  const auto n = [](const Metric* m) -> std::optional<double> {
    if (!m) return std::nullopt;
    return static_cast<double>(m->stats.n);
  };
  notes.push_back(kCopyRepeat.make(
      kSize(l.size), kCopySamples(n(&copy)), kCopyMin(copy.stats.min), kCopyMax(copy.stats.max),
      kCopyBandwidth(copy.stats.median), kRepeatSamples(n(again)),
      kRepeatBandwidth(again ? std::optional<double>(again->stats.median) : std::nullopt),
      kRepeatOverCopy(again ? std::optional<double>(again->stats.median / copy.stats.median)
                            : std::nullopt),
      kOutcome(again ? outcome(*again, copy) : "n/a")));
  for (const char* kernel : {"padded", "swizzled"}) {
    const Metric* m = l.of(kernel);
    if (m && outcome(*m, copy) == "faster")
      notes.push_back(kTransposeBeatsCopy.make(kKernel(kernel),
                                               kOverCopy(m->stats.median / copy.stats.median)));
  }
}

}  // namespace

const CounterAgreementMaker kCounterLadderLoads = define_counter_agreement(
    bank_findings, "bank_counter_ladder_loads", "ladder shared-load wavefronts per instruction",
    point(kKernel, kSize), [](const auto& f) { return f[kKernel]; });
const CounterAgreementMaker kCounterLadderStores = define_counter_agreement(
    bank_findings, "bank_counter_ladder_stores", "ladder shared-store wavefronts per instruction",
    point(kKernel, kSize), [](const auto& f) { return f[kKernel]; });
const CounterAgreementMaker kCounterStride = define_counter_agreement(
    bank_findings, "bank_counter_stride", "stride sweep shared wavefronts per instruction",
    point(kOp, kElementBytes, kStride), [](const auto& f) {
      return fmt::format("{} {}s stride {}", byte_words(f[kElementBytes]), f[kOp], f[kStride]);
    });

void ladder_verdicts(const Ladder& l, std::vector<Finding>& verdicts) {
  const auto size = kSize(l.size);
  const Metric* copy = l.of("copy");
  const Metric* tiled = l.of("tiled");
  const Metric* padded = l.of("padded");
  const Metric* swizzled = l.of("swizzled");
  const Metric* naive = l.of("naive");
  if (copy && tiled && padded) {
    const auto column_reads = [](TileLayout layout) {
      return models::predict_tile_access(layout, models::TileAccess::kColumnRead).conflict_ways;
    };
    verdicts.push_back(kPaddedVsTiled.make(
        size, kPaddedBandwidth(padded->stats.median), kTiledBandwidth(tiled->stats.median),
        kCopyBandwidth(copy->stats.median), kPaddedOverCopy(*l.ratio("padded", "copy")),
        kTiledOverCopy(*l.ratio("tiled", "copy")), kPaddedOverTiled(*l.ratio("padded", "tiled")),
        kTiledColumnReadWays(column_reads(TileLayout::kPlain)),
        kPaddedColumnReadWays(column_reads(TileLayout::kPadded)),
        kOutcome(outcome(*padded, *tiled))));
  }
  if (swizzled && padded) {
    verdicts.push_back(kSwizzledVsPadded.make(size, kSwizzledBandwidth(swizzled->stats.median),
                                              kPaddedBandwidth(padded->stats.median),
                                              kSwizzledOverPadded(*l.ratio("swizzled", "padded")),
                                              kOutcome(outcome(*swizzled, *padded))));
  }
  if (copy && naive && tiled) {
    const double naive_rel = *l.ratio("naive", "copy");
    const double tiled_rel = *l.ratio("tiled", "copy");
    // Holds when both ratios lie inside the band beyond noise, fails when either lies outside
    // it beyond noise, and is undecided when the noise straddles the band's edge.
    const BandDecision naive_in = band_decision(*naive, *copy, kClaimBand);
    const BandDecision tiled_in = band_decision(*tiled, *copy, kClaimBand);
    std::string holds = "straddles";
    if (naive_in == BandDecision::kOutside || tiled_in == BandDecision::kOutside) holds = "no";
    if (naive_in == BandDecision::kInside && tiled_in == BandDecision::kInside) holds = "yes";
    verdicts.push_back(kSourceClaim.make(size, kNaiveOverCopy(naive_rel), kTiledOverCopy(tiled_rel),
                                         kBand(kClaimBand * 100), kHolds(holds)));
  }
}

void ladder_notes(const Ladder& l, const Inputs& in, std::vector<Finding>& notes) {
  if (const Metric* copy = l.of("copy")) copy_notes(l, *copy, in, notes);
  if (in.l2_bytes > 0 && l.size > 0 && working_set(l) < 4 * in.l2_bytes)
    notes.push_back(
        kLadderFitsL2.make(kSize(l.size), kWorkingSet(working_set(l)), kL2(in.l2_bytes)));
}

std::optional<Finding> stride_slowdowns(const Group& g, const GroupSlowdowns& s) {
  if (s.picked.empty() && !s.odd_lo) return std::nullopt;
  // The measured slowdown and the model's at a stride, null where it was not measured.
  const auto at = [&](std::uint64_t stride, bool model) -> std::optional<double> {
    const auto it = s.picked.find(stride);
    if (it == s.picked.end()) return std::nullopt;
    return model ? it->second.second : it->second.first;
  };
  return kStrideSlowdowns.make(
      kOp(g.op), kElementBytes(g.width), kBroadcastSlowdown(at(0, false)),
      kBroadcastModel(at(0, true)), kStride2Slowdown(at(2, false)), kStride2Model(at(2, true)),
      kStride32Slowdown(at(32, false)), kStride32Model(at(32, true)), kOddSlowdownMin(s.odd_lo),
      kOddSlowdownMax(s.odd_hi), kOddModel(s.odd_lo ? std::optional<double>(1.0) : std::nullopt));
}

void agreement_findings(Agreement& a, std::vector<Finding>& verdicts, std::vector<Finding>& notes) {
  if (!a.any_base) {
    notes.push_back(kNoStride1.make());
    return;
  }
  if (a.compared == 0) return;
  verdicts.push_back(kStrideModelAgreement.make(kRowsWithin(a.within), kRowsCompared(a.compared),
                                                kTolerance(kModelTolerance * 100)));
  std::stable_sort(a.misses.begin(), a.misses.end(),
                   [](const Miss& x, const Miss& y) { return x.off > y.off; });
  for (std::size_t i = 0; i < a.misses.size() && i < kMissesShown; ++i) {
    const Miss& m = a.misses[i];
    const StridePoint& p = *m.point;
    verdicts.push_back(kStrideModelMiss.make(kOp(p.op), kElementBytes(p.width), kStride(p.stride),
                                             kSlowdown(m.slowdown), kPredictedSlowdown(m.model),
                                             kOff(m.off * 100)));
  }
}

void sweep_notes(const Sweep& sweep, const Inputs& in, std::vector<Finding>& notes) {
  for (const StrideShape& shape : in.shapes) {
    const StridePoint* base = sweep.base_of({shape.op, shape.element_bytes});
    const double per_sm = static_cast<double>(shape.blocks_per_sm) *
                          (shape.threads_per_block / models::kWarpSize) *
                          shape.instructions_per_warp;
    notes.push_back(kStrideShape.make(
        kOp(shape.op), kElementBytes(shape.element_bytes), kSmCount(in.sm_count),
        kBlocks(in.sm_count * shape.blocks_per_sm), kBlocksPerSm(shape.blocks_per_sm),
        kThreadsPerBlock(shape.threads_per_block),
        kInstructionsPerWarp(shape.instructions_per_warp),
        kLaunchTimeStride1(base ? std::optional<double>(base->time * per_sm) : std::nullopt)));
  }
  notes.push_back(kCyclesMethod.make(kSampled(sweep.sampled), kSmClock(sweep.clock_mhz)));
  if (std::ranges::none_of(sweep.points,
                           [](const StridePoint& p) { return p.row->counters.has_value(); }))
    notes.push_back(kCountersNotCollected.make());
}

namespace {

constexpr TermEntry kTerms[] = {
    // the columns' short headers and legend lines
    {"wavefronts_per_request_counter", "wf ctr",
     "counters: shared wavefronts / instructions of the row's op, one launch"},
    {"wavefronts_per_request_counter_vs_model", "wf c/m",
     "wf ctr / the model's wavefronts per request"},
    {"load_wavefronts_per_request_counter", "ld ctr",
     "counters: shared-load wavefronts / load instructions, one launch"},
    {"load_wavefronts_per_request_counter_vs_model", "ld c/m",
     "ld ctr / the model's wavefronts per column read"},
    {"store_wavefronts_per_request_counter", "st ctr",
     "counters: shared-store wavefronts / store instructions, one launch"},
    {"store_wavefronts_per_request_counter_vs_model", "st c/m",
     "st ctr / the model's wavefronts per row write"},
    {"load_wavefronts_per_request", "ld wf",
     "model: shared wavefronts per column read of the tile (with counters)"},
    {"store_wavefronts_per_request", "st wf",
     "model: shared wavefronts per row write of the tile (with counters)"},
    {"time_per_instruction", "t/instr", "time per warp-wide shared instruction per SM, median"},
    {"relative_to_copy", "vs copy", "bandwidth / bandwidth of copy"},
    {"slowdown", "slowdown", "time_per_instruction / that at stride 1 (same op, width)"},
    {"cycles_per_request", "cyc/req",
     "time_per_instruction x the SM clock sampled around the sweep"},
    {"conflict_ways", "ways",
     "model: n-way bank conflict (ladder: the larger of loads and stores)"},
    {"load_conflict_ways", "ld ways", "model: n-way conflict of the tile's loads"},
    {"store_conflict_ways", "st ways", "model: n-way conflict of the tile's stores"},
    {"wavefronts_per_request", "wf/req", "model: shared-memory wavefronts per warp instruction"},
    {"predicted_slowdown", "pred x", "model: wavefronts / wavefronts at stride 1 (same op, width)"},
    {"bandwidth_ratio", "ratio", "bandwidth of one kernel / that of the other"},
    {"stride1_bandwidth", "s1 GB/s", "bandwidth at stride 1"},
    {"stride1_cycles_per_request", "s1 cyc", "cycles_per_request at stride 1"},
    {"max_slowdown", "max x", "largest measured slowdown vs stride 1"},
    {"model_max_slowdown", "model x", "model: largest predicted slowdown"},
    {"element_bytes", "B", "element width, bytes"},
};

}  // namespace

void add_words(Glossary& g) {
  g.add_findings(bank_findings);
  g.add_terms("bank-conflicts", kTerms);
}

}  // namespace gpuprobe::bank
