// bank-conflicts' analysis: model columns, ratios to copy, stride slowdowns and cycles per
// request, summary rows, counters beside the model; the findings are built in findings.cpp.
#include "analysis.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string_view>
#include <utility>

#include "gpuprobe/core/counter_agreement.hpp"
#include "gpuprobe/models/bank_conflict_model.hpp"
#include "internal.hpp"

namespace gpuprobe::bank {
namespace {

using models::AccessOp;
using models::TileLayout;

AccessOp access_op(const std::string& op) {
  if (op == "load") return AccessOp::kLoad;
  if (op == "store") return AccessOp::kStore;
  throw std::invalid_argument("bank-conflicts: unknown op '" + op + "'");
}

std::optional<TileLayout> layout_of(const std::string& kernel) {
  if (kernel == "tiled") return TileLayout::kPlain;
  if (kernel == "padded") return TileLayout::kPadded;
  if (kernel == "swizzled") return TileLayout::kSwizzled;
  return std::nullopt;
}

// The model's slowdown of a stride row against stride 1 of the same op and width.
double model_slowdown(AccessOp op, std::uint64_t stride, int width) {
  return models::predict_stride_access(stride, width, op).wavefronts /
         models::predict_stride_access(1, width, op).wavefronts;
}

// ---- Counters ------------------------------------------------------------------------------

// Wavefronts per warp instruction of one op over the launch: null when either counter is
// missing or the kernel ran no such instruction (copy, naive).
std::optional<double> wavefronts_per_instruction(const Row& row, AccessOp op) {
  const bool load = op == AccessOp::kLoad;
  return ratio_of(counter_value(row, load ? kLoadWavefronts : kStoreWavefronts),
                  counter_value(row, load ? kLoadInstructions : kStoreInstructions));
}

// ---- Ladder --------------------------------------------------------------------------------

Ladder collect_ladder(ProbeResult& result) {
  Ladder l;
  for (auto& row : result.rows) {
    const auto kernel = text_param_of(row, "kernel");
    const Metric* bw = find_metric(row, "bandwidth");
    if (!kernel || !bw) continue;  // a stride row, or a planned one
    l.bandwidth[*kernel] = bw;
    l.rows.push_back(&row);
    l.size = int_param_of(row, "size").value_or(0);
  }
  return l;
}

// Each row's bandwidth relative to copy, and the summary rows of bandwidth ratios.
void add_ladder_ratios(ProbeResult& result, const Ladder& l) {
  const Metric* copy = l.of("copy");
  if (copy) {
    for (Row* row : l.rows)
      row->derived.push_back(
          {"relative_to_copy", "x", *metric_median(*row, "bandwidth") / copy->stats.median});
  }
  const std::pair<const char*, const char*> ratios[] = {{"padded", "tiled"},
                                                        {"padded", "copy"},
                                                        {"swizzled", "padded"},
                                                        {"tiled", "copy"},
                                                        {"naive", "copy"}};
  for (const auto& [b, a] : ratios) {
    const auto r = l.ratio(b, a);
    if (!r) continue;
    SummaryRow s;
    s.params = {{"comparison", fmt::format("{} ÷ {}", b, a), ""}, {"size", l.size, ""}};
    s.values = {{"bandwidth_ratio", "x", *r}};
    result.summary.push_back(std::move(s));
  }
}

// Counters: the tile's column reads (loads) and row writes (stores) beside the model's
// wavefronts per instruction; copy and naive run no shared instruction (null, not compared).
void ladder_counter_agreements(const Ladder& l, std::vector<Finding>& agreements) {
  CounterAgreement loads{kCounterLadderLoads, "wavefronts"};
  CounterAgreement stores{kCounterLadderStores, "wavefronts"};
  for (Row* row : l.rows) {
    if (!row->counters) continue;
    const auto layout = layout_of(text_param_of(*row, "kernel").value_or(""));
    const auto model = [&](models::TileAccess access) -> std::optional<double> {
      if (!layout) return std::nullopt;
      return models::predict_tile_access(*layout, access).wavefronts;
    };
    // The model's wavefronts beside the counters (the model columns show conflict ways only).
    set_model_value(*row, {"load_wavefronts_per_request", "wavefronts",
                           model(models::TileAccess::kColumnRead)});
    set_model_value(
        *row, {"store_wavefronts_per_request", "wavefronts", model(models::TileAccess::kRowWrite)});
    loads.add(*row, "load_wavefronts_per_request_counter",
              wavefronts_per_instruction(*row, AccessOp::kLoad),
              model(models::TileAccess::kColumnRead));
    stores.add(*row, "store_wavefronts_per_request_counter",
               wavefronts_per_instruction(*row, AccessOp::kStore),
               model(models::TileAccess::kRowWrite));
  }
  for (const CounterAgreement* c : {&loads, &stores}) {
    if (auto f = c->finding()) agreements.push_back(std::move(*f));
  }
}

void analyse_ladder(ProbeResult& result, const Inputs& in, std::vector<Finding>& verdicts,
                    std::vector<Finding>& agreements, std::vector<Finding>& notes) {
  const Ladder l = collect_ladder(result);
  if (l.rows.empty()) return;
  add_ladder_ratios(result, l);
  ladder_counter_agreements(l, agreements);
  ladder_verdicts(l, verdicts);
  ladder_notes(l, in, notes);
  // The two matrices against L2 (a note where they nearly fit).
  if (in.l2_bytes > 0 && l.size > 0)
    result.conditions.push_back({"working_set_over_l2", "x", working_set(l) / in.l2_bytes});
}

// ---- Stride sweep ----------------------------------------------------------------------------

// The sweep's measured rows, and the SM clock it ran at (sampled, else the rated maximum).
Sweep collect_sweep(ProbeResult& result, const Inputs& in) {
  Sweep sweep;
  for (auto& row : result.rows) {
    const auto op = text_param_of(row, "op");
    const auto width = int_param_of(row, "element_bytes");
    const auto stride = int_param_of(row, "stride");
    const Metric* time = find_metric(row, "time_per_instruction");
    const Metric* bw = find_metric(row, "bandwidth");
    if (!op || !width || !stride || !time || !bw) continue;
    const Group g{*op, static_cast<int>(*width)};
    if (std::find(sweep.groups.begin(), sweep.groups.end(), g) == sweep.groups.end())
      sweep.groups.push_back(g);
    sweep.points.push_back({&row, *op, g.width, static_cast<std::uint64_t>(*stride),
                            time->stats.median, bw->stats.median});
  }
  sweep.sampled = in.sweep_clock_before_mhz > 0 && in.sweep_clock_after_mhz > 0;
  sweep.clock_mhz = sweep.sampled ? (in.sweep_clock_before_mhz + in.sweep_clock_after_mhz) / 2
                                  : in.sm_clock_max_mhz;
  return sweep;
}

// Each row's slowdown and cycles per request, and its counters beside the model: wavefronts per
// instruction of the row's op beside the model's wavefronts_per_request. A load row's shared
// loads are all the loop's; a store row's shared stores include the conflict-free ones that zero
// the region first (at most 33 per warp against 2048 or more in the loop, so they move the ratio
// by under 2%).
void add_stride_columns(const Sweep& sweep, std::vector<Finding>& agreements) {
  CounterAgreement wavefronts{kCounterStride, "wavefronts"};
  for (const auto& p : sweep.points) {
    const StridePoint* base = sweep.base_of({p.op, p.width});
    p.row->derived.push_back(
        {"slowdown", "x", base ? std::optional<double>(p.time / base->time) : std::nullopt});
    p.row->derived.push_back({"cycles_per_request", "cycles", sweep.cycles(p.time)});
    if (!p.row->counters) continue;
    const AccessOp op = access_op(p.op);
    wavefronts.add(*p.row, "wavefronts_per_request_counter", wavefronts_per_instruction(*p.row, op),
                   models::predict_stride_access(p.stride, p.width, op).wavefronts);
  }
  if (auto f = wavefronts.finding()) agreements.push_back(std::move(*f));
}

// One group's slowdowns against its stride 1 `base`; tallies its rows against the model.
GroupSlowdowns group_slowdowns(const Sweep& sweep, const Group& g, const StridePoint& base,
                               Agreement& agreement) {
  const AccessOp op = access_op(g.op);
  GroupSlowdowns s;
  for (const auto& p : sweep.points) {
    if (!(Group{p.op, p.width} == g)) continue;
    const double slow = p.time / base.time;
    const double model = model_slowdown(op, p.stride, g.width);
    s.max_slow = std::max(s.max_slow, slow);
    s.max_model = std::max(s.max_model, model);
    if (p.stride != 1) {
      ++agreement.compared;
      const double off = std::fabs(slow / model - 1);
      if (off <= kModelTolerance)
        ++agreement.within;
      else
        agreement.misses.push_back({off, &p, slow, model});
    }
    if (p.stride % 2 == 1 && p.stride > 1) {
      s.odd_lo = std::min(s.odd_lo.value_or(slow), slow);
      s.odd_hi = std::max(s.odd_hi.value_or(slow), slow);
    } else if ((p.stride == 0 || p.stride == 2 || p.stride == 32) && !s.picked.count(p.stride)) {
      s.picked[p.stride] = {slow, model};
    }
  }
  return s;
}

// A summary row and a slowdowns verdict per group, in the order of the rows.
Agreement summarise_groups(ProbeResult& result, const Sweep& sweep,
                           std::vector<Finding>& verdicts) {
  Agreement agreement;
  for (const Group& g : sweep.groups) {
    const StridePoint* base = sweep.base_of(g);
    SummaryRow s;
    s.params = {{"op", g.op, ""}, {"element_bytes", static_cast<std::int64_t>(g.width), "B"}};
    if (!base) {
      s.values = {{"stride1_bandwidth", "GB/s", std::nullopt}};
      result.summary.push_back(std::move(s));
      continue;
    }
    agreement.any_base = true;
    const GroupSlowdowns slow = group_slowdowns(sweep, g, *base, agreement);
    s.values = {{"stride1_bandwidth", "GB/s", base->bandwidth},
                {"stride1_cycles_per_request", "cycles", sweep.cycles(base->time)},
                {"max_slowdown", "x", slow.max_slow},
                {"model_max_slowdown", "x", slow.max_model}};
    result.summary.push_back(std::move(s));
    if (auto f = stride_slowdowns(g, slow)) verdicts.push_back(std::move(*f));
  }
  return agreement;
}

void analyse_strides(ProbeResult& result, const Inputs& in, std::vector<Finding>& verdicts,
                     std::vector<Finding>& agreements, std::vector<Finding>& notes) {
  const Sweep sweep = collect_sweep(result, in);
  if (sweep.points.empty()) return;
  result.conditions.push_back({"stride_sweep_sm_clock", "MHz", sweep.clock_mhz});
  add_stride_columns(sweep, agreements);
  Agreement agreement = summarise_groups(result, sweep, verdicts);
  agreement_findings(agreement, verdicts, notes);
  sweep_notes(sweep, in, notes);
}

}  // namespace

std::vector<Quantity> ladder_model(const std::string& kernel) {
  const auto layout = layout_of(kernel);
  if (!layout)
    return {{"conflict_ways", "x", std::nullopt},
            {"load_conflict_ways", "x", std::nullopt},
            {"store_conflict_ways", "x", std::nullopt}};
  const auto load = models::predict_tile_access(*layout, models::TileAccess::kColumnRead);
  const auto store = models::predict_tile_access(*layout, models::TileAccess::kRowWrite);
  return {{"conflict_ways", "x", std::max(load.conflict_ways, store.conflict_ways)},
          {"load_conflict_ways", "x", load.conflict_ways},
          {"store_conflict_ways", "x", store.conflict_ways}};
}

std::vector<Quantity> stride_model(const std::string& op, std::uint64_t stride, int element_bytes) {
  const AccessOp o = access_op(op);
  const auto p = models::predict_stride_access(stride, element_bytes, o);
  return {{"conflict_ways", "x", p.conflict_ways},
          {"wavefronts_per_request", "wavefronts", p.wavefronts},
          {"predicted_slowdown", "x", model_slowdown(o, stride, element_bytes)}};
}

void analyse(ProbeResult& result, const Inputs& inputs) {
  // Counters beside the model (agree verdicts, differ warnings) follow the verdicts.
  std::vector<Finding> verdicts, agreements, notes;
  analyse_ladder(result, inputs, verdicts, agreements, notes);
  analyse_strides(result, inputs, verdicts, agreements, notes);
  result.findings.insert(result.findings.end(), verdicts.begin(), verdicts.end());
  result.findings.insert(result.findings.end(), agreements.begin(), agreements.end());
  result.findings.insert(result.findings.end(), notes.begin(), notes.end());
}

}  // namespace gpuprobe::bank
