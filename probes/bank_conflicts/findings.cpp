// bank-conflicts' finding builders (host-only): the ladder's verdicts and notes on copy, and the
// stride sweep's slowdowns, agreement with the model, and how the sweep ran.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "gpuprobe/core/decide.hpp"
#include "gpuprobe/models/bank_conflict_model.hpp"
#include "internal.hpp"

namespace gpuprobe::bank {
namespace {

using models::TileLayout;

// Params of one stride group.
std::vector<Param> group_params(const std::string& op, int width) {
  return {{"op", op, ""}, {"element_bytes", static_cast<std::int64_t>(width), "B"}};
}

}  // namespace

std::string outcome(const Metric& b, const Metric& a) {
  return change_name(order_of(b, a));
}

void ladder_verdicts(const Ladder& l, std::vector<Finding>& verdicts) {
  const Param size{"size", l.size, ""};
  const Metric* copy = l.of("copy");
  const Metric* tiled = l.of("tiled");
  const Metric* padded = l.of("padded");
  const Metric* swizzled = l.of("swizzled");
  const Metric* naive = l.of("naive");
  if (copy && tiled && padded) {
    const auto column_reads = [](TileLayout layout) {
      return models::predict_tile_access(layout, models::TileAccess::kColumnRead).conflict_ways;
    };
    verdicts.push_back(
        verdict("bank_padded_vs_tiled", {size},
                {{"padded_bandwidth", "GB/s", padded->stats.median},
                 {"tiled_bandwidth", "GB/s", tiled->stats.median},
                 {"copy_bandwidth", "GB/s", copy->stats.median},
                 {"padded_over_copy", "x", *l.ratio("padded", "copy")},
                 {"tiled_over_copy", "x", *l.ratio("tiled", "copy")},
                 {"padded_over_tiled", "x", *l.ratio("padded", "tiled")},
                 {"tiled_column_read_ways", "x", column_reads(TileLayout::kPlain)},
                 {"padded_column_read_ways", "x", column_reads(TileLayout::kPadded)}},
                {{"outcome", outcome(*padded, *tiled), ""}}));
  }
  if (swizzled && padded) {
    verdicts.push_back(verdict("bank_swizzled_vs_padded", {size},
                               {{"swizzled_bandwidth", "GB/s", swizzled->stats.median},
                                {"padded_bandwidth", "GB/s", padded->stats.median},
                                {"swizzled_over_padded", "x", *l.ratio("swizzled", "padded")}},
                               {{"outcome", outcome(*swizzled, *padded), ""}}));
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
    verdicts.push_back(verdict("bank_source_claim", {size},
                               {{"naive_over_copy", "x", naive_rel},
                                {"tiled_over_copy", "x", tiled_rel},
                                {"band", "%", kClaimBand * 100}},
                               {{"holds", holds, ""}}));
  }
}

void copy_notes(const Ladder& l, const Inputs& in, std::vector<Finding>& notes) {
  const Metric* copy = l.of("copy");
  if (!copy) return;
  // copy is the baseline of every ratio: when and how it was measured, and its repeat.
  const Metric* again = in.copy_repeat ? &*in.copy_repeat : nullptr;
  const auto n = [](const Metric* m) -> std::optional<double> {
    if (!m) return std::nullopt;
    return static_cast<double>(m->stats.n);
  };
  notes.push_back(note(
      "bank_copy_repeat", {{"size", l.size, ""}},
      {{"copy_samples", "", n(copy)},
       {"copy_min", "GB/s", copy->stats.min},
       {"copy_max", "GB/s", copy->stats.max},
       {"copy_bandwidth", "GB/s", copy->stats.median},
       {"repeat_samples", "", n(again)},
       {"repeat_bandwidth", "GB/s",
        again ? std::optional<double>(again->stats.median) : std::nullopt},
       {"repeat_over_copy", "x",
        again ? std::optional<double>(again->stats.median / copy->stats.median) : std::nullopt}},
      {{"outcome", again ? outcome(*again, *copy) : "n/a", ""}}));
  for (const char* kernel : {"padded", "swizzled"}) {
    const Metric* m = l.of(kernel);
    if (m && outcome(*m, *copy) == "faster")
      notes.push_back(note("bank_transpose_beats_copy", {{"kernel", std::string(kernel), ""}},
                           {{"over_copy", "x", m->stats.median / copy->stats.median}}));
  }
}

std::optional<Finding> stride_slowdowns(const Group& g, const GroupSlowdowns& s) {
  if (s.picked.empty() && !s.odd_lo) return std::nullopt;
  std::vector<Quantity> values;
  for (const auto& [stride, label] :
       {std::pair<std::uint64_t, const char*>{0, "broadcast"}, {2, "stride2"}, {32, "stride32"}}) {
    const auto it = s.picked.find(stride);
    const bool has = it != s.picked.end();
    values.push_back({fmt::format("{}_slowdown", label), "x",
                      has ? std::optional<double>(it->second.first) : std::nullopt});
    values.push_back({fmt::format("{}_model", label), "x",
                      has ? std::optional<double>(it->second.second) : std::nullopt});
  }
  values.push_back({"odd_slowdown_min", "x", s.odd_lo});
  values.push_back({"odd_slowdown_max", "x", s.odd_hi});
  values.push_back({"odd_model", "x", s.odd_lo ? std::optional<double>(1.0) : std::nullopt});
  return verdict("bank_stride_slowdowns", group_params(g.op, g.width), std::move(values));
}

void agreement_findings(Agreement& a, std::vector<Finding>& verdicts, std::vector<Finding>& notes) {
  if (!a.any_base) {
    notes.push_back(note("bank_no_stride1", {}, {}));
    return;
  }
  if (a.compared == 0) return;
  verdicts.push_back(verdict("bank_stride_model_agreement", {},
                             {{"rows_within", "", static_cast<double>(a.within)},
                              {"rows_compared", "", static_cast<double>(a.compared)},
                              {"tolerance", "%", kModelTolerance * 100}}));
  std::stable_sort(a.misses.begin(), a.misses.end(),
                   [](const Miss& x, const Miss& y) { return x.off > y.off; });
  for (std::size_t i = 0; i < a.misses.size() && i < kMissesShown; ++i) {
    const Miss& m = a.misses[i];
    const StridePoint& p = *m.point;
    auto params = group_params(p.op, p.width);
    params.push_back({"stride", static_cast<std::int64_t>(p.stride), ""});
    verdicts.push_back(verdict("bank_stride_model_miss", std::move(params),
                               {{"slowdown", "x", m.slowdown},
                                {"predicted_slowdown", "x", m.model},
                                {"off", "%", m.off * 100}}));
  }
}

void sweep_notes(const Sweep& sweep, const Inputs& in, std::vector<Finding>& notes) {
  for (const StrideShape& shape : in.shapes) {
    const StridePoint* base = sweep.base_of({shape.op, shape.element_bytes});
    const double per_sm = static_cast<double>(shape.blocks_per_sm) *
                          (shape.threads_per_block / models::kWarpSize) *
                          shape.instructions_per_warp;
    notes.push_back(note("bank_stride_shape", group_params(shape.op, shape.element_bytes),
                         {{"sm_count", "", static_cast<double>(in.sm_count)},
                          {"blocks", "", static_cast<double>(in.sm_count * shape.blocks_per_sm)},
                          {"blocks_per_sm", "", static_cast<double>(shape.blocks_per_sm)},
                          {"threads_per_block", "", static_cast<double>(shape.threads_per_block)},
                          {"instructions_per_warp", "", shape.instructions_per_warp},
                          {"launch_time_stride1", "s",
                           base ? std::optional<double>(base->time * per_sm) : std::nullopt}}));
  }
  notes.push_back(note("bank_cycles_method", {{"sampled", sweep.sampled, ""}},
                       {{"sm_clock", "MHz", sweep.clock_mhz}}));
}

}  // namespace gpuprobe::bank
