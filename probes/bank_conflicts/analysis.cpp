// bank-conflicts' analysis: model columns, ratios to copy, stride slowdowns against the model,
// cycles per request, summary rows, findings, and their sentences.
#include "analysis.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>
#include <string_view>
#include <utility>

#include "gpuprobe/core/compare.hpp"
#include "gpuprobe/core/counter_check.hpp"
#include "gpuprobe/models/bank_conflict_model.hpp"

namespace gpuprobe::bank {
namespace {

using models::AccessOp;
using models::TileLayout;

constexpr double kClaimBand = 0.10;       // "basically the same": within 10% of copy
constexpr double kModelTolerance = 0.10;  // a stride row "agrees" within 10% of the model
constexpr std::size_t kMissesShown = 3;

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

std::optional<std::string> text_param(const Row& row, const char* key) {
  const Param* p = find_param(row.params, key);
  if (!p || !std::holds_alternative<std::string>(p->value)) return std::nullopt;
  return std::get<std::string>(p->value);
}

std::optional<std::int64_t> int_param(const Row& row, const char* key) {
  const Param* p = find_param(row.params, key);
  if (!p || !std::holds_alternative<std::int64_t>(p->value)) return std::nullopt;
  return std::get<std::int64_t>(p->value);
}

// How `b` compares with `a` by the noise band of `gpuprobe compare` (K = 3, the rule it uses for
// metrics without samples; this note keeps it whether or not the metrics carry samples):
// "faster", "slower", "same", or "n/a".
std::string outcome(const Metric& b, const Metric& a) {
  const double noise = std::max(std::fabs(a.stats.rel_noise), std::fabs(b.stats.rel_noise));
  return change_name(
      compare_values(a.stats.median, b.stats.median, a.unit, noise, 3.0, std::nullopt).change);
}

// Words for an outcome in running text.
std::string outcome_words(const std::string& outcome) {
  if (outcome == "faster" || outcome == "slower") return outcome;
  if (outcome == "same") return "the same within noise";
  return "not comparable";
}

// ---- Counters ------------------------------------------------------------------------------

// The shared-memory counters the probe collects (its counter_metrics(), full CUPTI names), over
// one launch of the row's kernel.
constexpr std::string_view kLoadInstructions = "smsp__inst_executed_op_shared_ld.sum";
constexpr std::string_view kStoreInstructions = "smsp__inst_executed_op_shared_st.sum";
constexpr std::string_view kLoadWavefronts = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum";
constexpr std::string_view kStoreWavefronts =
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum";

// Wavefronts per warp instruction of one op over the launch: null when either counter is
// missing or the kernel ran no such instruction (copy, naive).
std::optional<double> wavefronts_per_instruction(const Row& row, AccessOp op) {
  const bool load = op == AccessOp::kLoad;
  return ratio_of(counter_value(row, load ? kLoadWavefronts : kStoreWavefronts),
                  counter_value(row, load ? kLoadInstructions : kStoreInstructions));
}

bool any_counters(const std::vector<Row*>& rows) {
  return std::any_of(rows.begin(), rows.end(), [](const Row* r) { return r->counters; });
}

// ---- Ladder --------------------------------------------------------------------------------

struct Ladder {
  std::map<std::string, const Metric*> bandwidth;  // by kernel
  std::vector<Row*> rows;
  std::int64_t size = 0;
  const Metric* of(const char* kernel) const {
    const auto it = bandwidth.find(kernel);
    return it == bandwidth.end() ? nullptr : it->second;
  }
};

void analyse_ladder(ProbeResult& result, const Inputs& in, std::vector<Finding>& verdicts,
                    std::vector<Finding>& checks, std::vector<Finding>& notes) {
  Ladder l;
  for (auto& row : result.rows) {
    const auto kernel = text_param(row, "kernel");
    const Metric* bw = find_metric(row, "bandwidth");
    if (!kernel || !bw) continue;  // a stride row, or a planned one
    l.bandwidth[*kernel] = bw;
    l.rows.push_back(&row);
    l.size = int_param(row, "size").value_or(0);
  }
  if (l.rows.empty()) return;
  const Param size{"size", l.size, ""};

  const Metric* copy = l.of("copy");
  if (copy) {
    for (Row* row : l.rows)
      row->derived.push_back({"relative_to_copy", "x",
                              find_metric(*row, "bandwidth")->stats.median / copy->stats.median});
  }
  const auto ratio = [&](const char* b, const char* a) -> std::optional<double> {
    const Metric* mb = l.of(b);
    const Metric* ma = l.of(a);
    if (!ma || !mb) return std::nullopt;
    return mb->stats.median / ma->stats.median;
  };
  const std::pair<const char*, const char*> ratios[] = {{"padded", "tiled"},
                                                        {"padded", "copy"},
                                                        {"swizzled", "padded"},
                                                        {"tiled", "copy"},
                                                        {"naive", "copy"}};
  for (const auto& [b, a] : ratios) {
    const auto r = ratio(b, a);
    if (!r) continue;
    SummaryRow s;
    s.params = {{"comparison", fmt::format("{} ÷ {}", b, a), ""}, size};
    s.values = {{"bandwidth_ratio", "x", *r}};
    result.summary.push_back(std::move(s));
  }

  // Counters: the tile's column reads (loads) and row writes (stores) beside the model's
  // wavefronts per instruction; copy and naive run no shared instruction (null, not compared).
  CounterCheck loads{"bank_counter_ladder_loads", "wavefronts"};
  CounterCheck stores{"bank_counter_ladder_stores", "wavefronts"};
  for (Row* row : l.rows) {
    if (!row->counters) continue;
    const auto layout = layout_of(text_param(*row, "kernel").value_or(""));
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
  for (const CounterCheck* c : {&loads, &stores}) {
    if (auto f = c->finding()) checks.push_back(std::move(*f));
  }

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
                 {"padded_over_copy", "x", *ratio("padded", "copy")},
                 {"tiled_over_copy", "x", *ratio("tiled", "copy")},
                 {"padded_over_tiled", "x", *ratio("padded", "tiled")},
                 {"tiled_column_read_ways", "x", column_reads(TileLayout::kPlain)},
                 {"padded_column_read_ways", "x", column_reads(TileLayout::kPadded)}},
                {{"outcome", outcome(*padded, *tiled), ""}}));
  }
  if (swizzled && padded) {
    verdicts.push_back(verdict("bank_swizzled_vs_padded", {size},
                               {{"swizzled_bandwidth", "GB/s", swizzled->stats.median},
                                {"padded_bandwidth", "GB/s", padded->stats.median},
                                {"swizzled_over_padded", "x", *ratio("swizzled", "padded")}},
                               {{"outcome", outcome(*swizzled, *padded), ""}}));
  }
  if (copy && naive && tiled) {
    const double naive_rel = *ratio("naive", "copy");
    const double tiled_rel = *ratio("tiled", "copy");
    const bool holds =
        std::fabs(naive_rel - 1) <= kClaimBand && std::fabs(tiled_rel - 1) <= kClaimBand;
    verdicts.push_back(verdict("bank_source_claim", {size},
                               {{"naive_over_copy", "x", naive_rel},
                                {"tiled_over_copy", "x", tiled_rel},
                                {"band", "%", kClaimBand * 100}},
                               {{"holds", holds, ""}}));
  }

  if (copy) {
    // copy is the baseline of every ratio: when and how it was measured, and its repeat.
    const Metric* again = in.copy_repeat ? &*in.copy_repeat : nullptr;
    const auto n = [](const Metric* m) -> std::optional<double> {
      if (!m) return std::nullopt;
      return static_cast<double>(m->stats.n);
    };
    notes.push_back(note(
        "bank_copy_repeat", {size},
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

  const double working_set = 2.0 * static_cast<double>(l.size) * static_cast<double>(l.size) * 4;
  if (in.l2_bytes > 0 && l.size > 0) {
    result.conditions.push_back({"working_set_over_l2", "x", working_set / in.l2_bytes});
    if (working_set < 4 * in.l2_bytes)
      notes.push_back(note("bank_ladder_fits_l2", {size},
                           {{"working_set", "B", working_set}, {"l2", "B", in.l2_bytes}}));
  }
}

// ---- Stride sweep ----------------------------------------------------------------------------

struct StridePoint {
  Row* row;
  std::string op;
  int width;
  std::uint64_t stride;
  double time;  // median seconds per warp-wide shared instruction per SM
  double bandwidth;
};

struct Group {
  std::string op;
  int width;
  bool operator==(const Group&) const = default;
};

void analyse_strides(ProbeResult& result, const Inputs& in, std::vector<Finding>& verdicts,
                     std::vector<Finding>& checks, std::vector<Finding>& notes) {
  std::vector<StridePoint> points;
  std::vector<Group> groups;  // in the order of the rows
  for (auto& row : result.rows) {
    const auto op = text_param(row, "op");
    const auto width = int_param(row, "element_bytes");
    const auto stride = int_param(row, "stride");
    const Metric* time = find_metric(row, "time_per_instruction");
    const Metric* bw = find_metric(row, "bandwidth");
    if (!op || !width || !stride || !time || !bw) continue;
    const Group g{*op, static_cast<int>(*width)};
    if (std::find(groups.begin(), groups.end(), g) == groups.end()) groups.push_back(g);
    points.push_back({&row, *op, g.width, static_cast<std::uint64_t>(*stride), time->stats.median,
                      bw->stats.median});
  }
  if (points.empty()) return;

  const bool sampled = in.sweep_clock_before_mhz > 0 && in.sweep_clock_after_mhz > 0;
  const double clock_mhz =
      sampled ? (in.sweep_clock_before_mhz + in.sweep_clock_after_mhz) / 2 : in.sm_clock_max_mhz;
  result.conditions.push_back({"stride_sweep_sm_clock", "MHz", clock_mhz});
  const auto cycles = [&](double seconds) -> std::optional<double> {
    if (!(clock_mhz > 0)) return std::nullopt;
    return seconds * clock_mhz * 1e6;
  };
  const auto base_of = [&](const Group& g) -> const StridePoint* {
    for (const auto& p : points) {
      if (p.op == g.op && p.width == g.width && p.stride == 1) return &p;
    }
    return nullptr;
  };

  // Counters: wavefronts per instruction of the row's op beside the model's
  // wavefronts_per_request. A load row's shared loads are all the loop's; a store row's shared
  // stores include the conflict-free ones that zero the region first (at most 33 per warp
  // against 2048 or more in the loop, so they move the ratio by under 2%).
  CounterCheck wavefronts{"bank_counter_stride", "wavefronts"};
  std::vector<Row*> rows;
  for (const auto& p : points) {
    const StridePoint* base = base_of({p.op, p.width});
    p.row->derived.push_back(
        {"slowdown", "x", base ? std::optional<double>(p.time / base->time) : std::nullopt});
    p.row->derived.push_back({"cycles_per_request", "cycles", cycles(p.time)});
    rows.push_back(p.row);
    if (!p.row->counters) continue;
    const AccessOp op = access_op(p.op);
    wavefronts.add(*p.row, "wavefronts_per_request_counter", wavefronts_per_instruction(*p.row, op),
                   models::predict_stride_access(p.stride, p.width, op).wavefronts);
  }
  if (auto f = wavefronts.finding()) checks.push_back(std::move(*f));

  struct Miss {
    double off;
    const StridePoint* point;
    double slowdown;
    double model;
  };
  std::vector<Miss> misses;
  std::size_t compared = 0, within = 0;
  bool any_base = false;
  for (const Group& g : groups) {
    const StridePoint* base = base_of(g);
    SummaryRow s;
    s.params = {{"op", g.op, ""}, {"element_bytes", static_cast<std::int64_t>(g.width), "B"}};
    if (!base) {
      s.values = {{"stride1_bandwidth", "GB/s", std::nullopt}};
      result.summary.push_back(std::move(s));
      continue;
    }
    any_base = true;
    const AccessOp op = access_op(g.op);
    double max_slow = 0, max_model = 0;
    std::optional<double> odd_lo, odd_hi;
    std::map<std::uint64_t, std::pair<double, double>> picked;  // stride 0, 2, 32
    for (const auto& p : points) {
      if (!(Group{p.op, p.width} == g)) continue;
      const double slow = p.time / base->time;
      const double model = model_slowdown(op, p.stride, g.width);
      max_slow = std::max(max_slow, slow);
      max_model = std::max(max_model, model);
      if (p.stride != 1) {
        ++compared;
        const double off = std::fabs(slow / model - 1);
        if (off <= kModelTolerance)
          ++within;
        else
          misses.push_back({off, &p, slow, model});
      }
      if (p.stride % 2 == 1 && p.stride > 1) {
        odd_lo = std::min(odd_lo.value_or(slow), slow);
        odd_hi = std::max(odd_hi.value_or(slow), slow);
      } else if ((p.stride == 0 || p.stride == 2 || p.stride == 32) && !picked.count(p.stride)) {
        picked[p.stride] = {slow, model};
      }
    }
    s.values = {{"stride1_bandwidth", "GB/s", base->bandwidth},
                {"stride1_cycles_per_request", "cycles", cycles(base->time)},
                {"max_slowdown", "x", max_slow},
                {"model_max_slowdown", "x", max_model}};
    result.summary.push_back(std::move(s));

    if (picked.empty() && !odd_lo) continue;
    std::vector<Quantity> values;
    for (const auto& [stride, label] : {std::pair<std::uint64_t, const char*>{0, "broadcast"},
                                        {2, "stride2"},
                                        {32, "stride32"}}) {
      const auto it = picked.find(stride);
      const bool has = it != picked.end();
      values.push_back({fmt::format("{}_slowdown", label), "x",
                        has ? std::optional<double>(it->second.first) : std::nullopt});
      values.push_back({fmt::format("{}_model", label), "x",
                        has ? std::optional<double>(it->second.second) : std::nullopt});
    }
    values.push_back({"odd_slowdown_min", "x", odd_lo});
    values.push_back({"odd_slowdown_max", "x", odd_hi});
    values.push_back({"odd_model", "x", odd_lo ? std::optional<double>(1.0) : std::nullopt});
    verdicts.push_back(
        verdict("bank_stride_slowdowns",
                {{"op", g.op, ""}, {"element_bytes", static_cast<std::int64_t>(g.width), "B"}},
                std::move(values)));
  }

  if (!any_base) {
    notes.push_back(note("bank_no_stride1", {}, {}));
  } else if (compared > 0) {
    verdicts.push_back(verdict("bank_stride_model_agreement", {},
                               {{"rows_within", "", static_cast<double>(within)},
                                {"rows_compared", "", static_cast<double>(compared)},
                                {"tolerance", "%", kModelTolerance * 100}}));
    std::stable_sort(misses.begin(), misses.end(),
                     [](const Miss& a, const Miss& b) { return a.off > b.off; });
    for (std::size_t i = 0; i < misses.size() && i < kMissesShown; ++i) {
      const StridePoint& p = *misses[i].point;
      verdicts.push_back(verdict("bank_stride_model_miss",
                                 {{"op", p.op, ""},
                                  {"element_bytes", static_cast<std::int64_t>(p.width), "B"},
                                  {"stride", static_cast<std::int64_t>(p.stride), ""}},
                                 {{"slowdown", "x", misses[i].slowdown},
                                  {"predicted_slowdown", "x", misses[i].model},
                                  {"off", "%", misses[i].off * 100}}));
    }
  }

  for (const StrideShape& shape : in.shapes) {
    const StridePoint* base = base_of({shape.op, shape.element_bytes});
    const double per_sm = static_cast<double>(shape.blocks_per_sm) *
                          (shape.threads_per_block / models::kWarpSize) *
                          shape.instructions_per_warp;
    notes.push_back(note("bank_stride_shape",
                         {{"op", shape.op, ""},
                          {"element_bytes", static_cast<std::int64_t>(shape.element_bytes), "B"}},
                         {{"sm_count", "", static_cast<double>(in.sm_count)},
                          {"blocks", "", static_cast<double>(in.sm_count * shape.blocks_per_sm)},
                          {"blocks_per_sm", "", static_cast<double>(shape.blocks_per_sm)},
                          {"threads_per_block", "", static_cast<double>(shape.threads_per_block)},
                          {"instructions_per_warp", "", shape.instructions_per_warp},
                          {"launch_time_stride1", "s",
                           base ? std::optional<double>(base->time * per_sm) : std::nullopt}}));
  }
  notes.push_back(
      note("bank_cycles_method", {{"sampled", sampled, ""}}, {{"sm_clock", "MHz", clock_mhz}}));
  if (!any_counters(rows)) notes.push_back(note("bank_counters_not_collected", {}, {}));
}

// "1.00x (1)" for a slowdown and its model.
std::string measured_vs_model(const Finding& f, const std::string& label) {
  return fmt::format("{:.2f}x ({:g})", value_of(f, label + "_slowdown"),
                     value_of(f, label + "_model"));
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
  std::vector<Finding> verdicts, checks, notes;
  analyse_ladder(result, inputs, verdicts, checks, notes);
  analyse_strides(result, inputs, verdicts, checks, notes);
  result.findings.insert(result.findings.end(), verdicts.begin(), verdicts.end());
  result.findings.insert(result.findings.end(), checks.begin(), checks.end());
  result.findings.insert(result.findings.end(), notes.begin(), notes.end());
}

void add_words(Glossary& g) {
  g.add_phrasing("bank_padded_vs_tiled", [](const Finding& f) {
    return fmt::format(
        "padded [32][33]: {:.0f} GB/s = {:.0f}% of copy ({:.0f} GB/s); tiled [32][32]: {:.0f} "
        "GB/s = {:.0f}% of copy; padded is {:.2f}x tiled, {} (model: column reads {:.0f}-way -> "
        "{:.0f}-way)",
        value_of(f, "padded_bandwidth"), 100 * value_of(f, "padded_over_copy"),
        value_of(f, "copy_bandwidth"), value_of(f, "tiled_bandwidth"),
        100 * value_of(f, "tiled_over_copy"), value_of(f, "padded_over_tiled"),
        outcome_words(param_text_of(f, "outcome")), value_of(f, "tiled_column_read_ways"),
        value_of(f, "padded_column_read_ways"));
  });
  g.add_phrasing("bank_swizzled_vs_padded", [](const Finding& f) {
    return fmt::format("swizzled (XOR, no padding): {:.0f} GB/s = {:.3f}x padded, {}",
                       value_of(f, "swizzled_bandwidth"), value_of(f, "swizzled_over_padded"),
                       outcome_words(param_text_of(f, "outcome")));
  });
  g.add_phrasing("bank_source_claim", [](const Finding& f) {
    return fmt::format(
        "source claim \"the first three (copy, naive, tiled) are basically the same\": naive "
        "{:.0f}%, tiled {:.0f}% of copy — {} on this GPU (measured, +-{:g}% band)",
        100 * value_of(f, "naive_over_copy"), 100 * value_of(f, "tiled_over_copy"),
        param_text_of(f, "holds") == "true" ? "holds" : "does not hold", value_of(f, "band"));
  });
  g.add_phrasing("bank_copy_repeat", [](const Finding& f) {
    std::string repeat = "copy was not measured again";
    if (optional_value_of(f, "repeat_bandwidth"))
      repeat = fmt::format(
          "copy again at the end: {:g} samples, median {:.0f} GB/s = {:.3f}x the "
          "first, {}",
          value_of(f, "repeat_samples"), value_of(f, "repeat_bandwidth"),
          value_of(f, "repeat_over_copy"), outcome_words(param_text_of(f, "outcome")));
    return fmt::format(
        "ladder: kernels measured one after another in the order copy, naive, tiled, padded, "
        "swizzled, then copy again (each after its own warm-up batch); copy, the baseline of "
        "relative_to_copy and of the ratios: {:g} samples, {:.0f}-{:.0f} GB/s (noise within this "
        "run, not the variation between runs); {}",
        value_of(f, "copy_samples"), value_of(f, "copy_min"), value_of(f, "copy_max"), repeat);
  });
  g.add_phrasing("bank_transpose_beats_copy", [](const Finding& f) {
    return fmt::format(
        "ladder: {} ran at {:.2f}x copy, beyond the noise of both: in this run copy is not an "
        "upper bound for the transposes, so relative_to_copy is not a fraction of a roofline here",
        param_text_of(f, "kernel"), value_of(f, "over_copy"));
  });
  g.add_phrasing("bank_ladder_fits_l2", [](const Finding& f) {
    return fmt::format(
        "ladder: the two matrices ({}) are not much larger than L2 ({}): copy and transposes may "
        "partly run from L2; use --size 8192 or more for DRAM behaviour",
        value_text(f, "working_set"), value_text(f, "l2"));
  });
  g.add_phrasing("bank_stride_slowdowns", [](const Finding& f) {
    std::vector<std::string> items;
    for (const auto& [label, words] :
         {std::pair<std::string, std::string>{"broadcast", "broadcast"},
          {"stride2", "s2"},
          {"stride32", "s32"}}) {
      if (optional_value_of(f, label + "_slowdown"))
        items.push_back(fmt::format("{} {}", words, measured_vs_model(f, label)));
    }
    if (optional_value_of(f, "odd_slowdown_min")) {
      const double lo = value_of(f, "odd_slowdown_min");
      const double hi = value_of(f, "odd_slowdown_max");
      // One value when every odd stride measured the same slowdown.
      items.push_back(
          lo == hi ? fmt::format("odd {:.2f}x ({:g})", lo, value_of(f, "odd_model"))
                   : fmt::format("odd {:.2f}-{:.2f}x ({:g})", lo, hi, value_of(f, "odd_model")));
    }
    return fmt::format("{}s, slowdown vs stride 1 measured (model): {}: {}", param_text_of(f, "op"),
                       param_text_of(f, "element_bytes"), fmt::join(items, ", "));
  });
  g.add_phrasing("bank_stride_model_agreement", [](const Finding& f) {
    return fmt::format(
        "stride sweep: measured slowdown within {:g}% of the model on {:g} of {:g} "
        "rows",
        value_of(f, "tolerance"), value_of(f, "rows_within"), value_of(f, "rows_compared"));
  });
  g.add_phrasing("bank_stride_model_miss", [](const Finding& f) {
    return fmt::format(
        "stride sweep, far from the model: {} {} stride {}: {:.2f}x vs {:g}x ({:.0f}% "
        "off)",
        param_text_of(f, "element_bytes"), param_text_of(f, "op"), param_text_of(f, "stride"),
        value_of(f, "slowdown"), value_of(f, "predicted_slowdown"), value_of(f, "off"));
  });
  g.add_phrasing("bank_no_stride1", [](const Finding&) {
    return std::string("stride sweep: no stride 1 in --strides, so no slowdown is derived");
  });
  g.add_phrasing("bank_stride_shape", [](const Finding& f) {
    std::string launch;
    if (optional_value_of(f, "launch_time_stride1"))
      launch = fmt::format("; {} per launch at stride 1", value_text(f, "launch_time_stride1"));
    return fmt::format(
        "stride kernel, {} {}: one wave on {:g} SMs, {:g} blocks ({:g}/SM) of {:g} threads x {:g} "
        "instructions per warp{}",
        param_text_of(f, "element_bytes"), param_text_of(f, "op"), value_of(f, "sm_count"),
        value_of(f, "blocks"), value_of(f, "blocks_per_sm"), value_of(f, "threads_per_block"),
        value_of(f, "instructions_per_warp"), launch);
  });
  g.add_phrasing("bank_cycles_method", [](const Finding& f) {
    return fmt::format(
        "cycles_per_request = time_per_instruction x the SM clock {} ({:.0f} MHz); the model "
        "expects 1 cycle per wavefront (32 banks x 4 B per clock per SM)",
        param_text_of(f, "sampled") == "true" ? "sampled in-kernel around the sweep"
                                              : "rated maximum (not sampled)",
        value_of(f, "sm_clock"));
  });
  g.add_phrasing("bank_counters_not_collected", [](const Finding&) {
    return std::string(
        "no row has shared-memory counters in this run (--no-counters, or the GPU refused "
        "them): the model's wavefronts per request stand unchecked; without the counter pass, "
        "compare them with l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{ld,st} in Nsight "
        "Compute");
  });

  CounterCheck::add_phrasings(g, "bank_counter_ladder_loads",
                              "ladder shared-load wavefronts per instruction",
                              [](const Finding& f) { return param_text_of(f, "kernel"); });
  CounterCheck::add_phrasings(g, "bank_counter_ladder_stores",
                              "ladder shared-store wavefronts per instruction",
                              [](const Finding& f) { return param_text_of(f, "kernel"); });
  CounterCheck::add_phrasings(
      g, "bank_counter_stride", "stride sweep shared wavefronts per instruction",
      [](const Finding& f) {
        // Row params read back from JSON carry no unit: the width is said in bytes either way.
        std::string width = param_text_of(f, "element_bytes");
        if (width.find('B') == std::string::npos) width += " B";
        return fmt::format("{} {}s stride {}", width, param_text_of(f, "op"),
                           param_text_of(f, "stride"));
      });

  const char* p = "bank-conflicts";
  g.add_term(p, "wavefronts_per_request_counter",
             {"wf ctr", "counters: shared wavefronts / instructions of the row's op, one launch"});
  g.add_term(p, "wavefronts_per_request_counter_vs_model",
             {"wf c/m", "wf ctr / the model's wavefronts per request"});
  g.add_term(p, "load_wavefronts_per_request_counter",
             {"ld ctr", "counters: shared-load wavefronts / load instructions, one launch"});
  g.add_term(p, "load_wavefronts_per_request_counter_vs_model",
             {"ld c/m", "ld ctr / the model's wavefronts per column read"});
  g.add_term(p, "store_wavefronts_per_request_counter",
             {"st ctr", "counters: shared-store wavefronts / store instructions, one launch"});
  g.add_term(p, "store_wavefronts_per_request_counter_vs_model",
             {"st c/m", "st ctr / the model's wavefronts per row write"});
  g.add_term(p, "load_wavefronts_per_request",
             {"ld wf", "model: shared wavefronts per column read of the tile (with counters)"});
  g.add_term(p, "store_wavefronts_per_request",
             {"st wf", "model: shared wavefronts per row write of the tile (with counters)"});
  g.add_term(p, "time_per_instruction",
             {"t/instr", "time per warp-wide shared instruction per SM, median"});
  g.add_term(p, "relative_to_copy", {"vs copy", "bandwidth / bandwidth of copy"});
  g.add_term(p, "slowdown",
             {"slowdown", "time_per_instruction / that at stride 1 (same op, width)"});
  g.add_term(p, "cycles_per_request",
             {"cyc/req", "time_per_instruction x the SM clock sampled around the sweep"});
  g.add_term(p, "conflict_ways",
             {"ways", "model: n-way bank conflict (ladder: the larger of loads and stores)"});
  g.add_term(p, "load_conflict_ways", {"ld ways", "model: n-way conflict of the tile's loads"});
  g.add_term(p, "store_conflict_ways", {"st ways", "model: n-way conflict of the tile's stores"});
  g.add_term(p, "wavefronts_per_request",
             {"wf/req", "model: shared-memory wavefronts per warp instruction"});
  g.add_term(p, "predicted_slowdown",
             {"pred x", "model: wavefronts / wavefronts at stride 1 (same op, width)"});
  g.add_term(p, "bandwidth_ratio", {"ratio", "bandwidth of one kernel / that of the other"});
  g.add_term(p, "stride1_bandwidth", {"s1 GB/s", "bandwidth at stride 1"});
  g.add_term(p, "stride1_cycles_per_request", {"s1 cyc", "cycles_per_request at stride 1"});
  g.add_term(p, "max_slowdown", {"max x", "largest measured slowdown vs stride 1"});
  g.add_term(p, "model_max_slowdown", {"model x", "model: largest predicted slowdown"});
  g.add_term(p, "element_bytes", {"B", "element width, bytes"});
}

}  // namespace gpuprobe::bank
