// coalescing's analysis: model columns, relative and implied DRAM bandwidth, summary rows,
// offset classes, stride curves, findings, and their sentences.
#include "analysis.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>
#include <stdexcept>
#include <string_view>

#include "gpuprobe/core/counter_check.hpp"
#include "gpuprobe/core/units.hpp"

namespace gpuprobe::coalescing {
namespace {

using models::CopyPrediction;

// Measured / DRAM model below this: the finding says the model no longer explains the loss.
constexpr double kModelShortfall = 0.9;
constexpr double kInf = std::numeric_limits<double>::infinity();

// A measured row, read by name.
struct Measured {
  Row* row;
  CopyPattern pattern;
  int width;
  std::uint64_t param;
  double median_gbps;
  CopyPrediction model;
  std::optional<double> working_set_over_l2;
  std::optional<double> relative;  // nullopt: no baseline row of the same pattern and width
};

std::int64_t int_param(const std::vector<Param>& params, const std::string& key) {
  const Param* p = find_param(params, key);
  if (!p || !std::holds_alternative<std::int64_t>(p->value))
    throw std::invalid_argument(fmt::format("coalescing row without integer param '{}'", key));
  return std::get<std::int64_t>(p->value);
}

// Pattern, width and offset|stride of a row, from its params.
struct Key {
  CopyPattern pattern;
  int width;
  std::uint64_t param;
};

Key row_key(const Row& row) {
  const Param* p = find_param(row.params, "pattern");
  if (!p) throw std::invalid_argument("coalescing row without param 'pattern'");
  const CopyPattern pattern = pattern_from_name(scalar_text(p->value));
  return {pattern, static_cast<int>(int_param(row.params, "element_bytes")),
          static_cast<std::uint64_t>(int_param(row.params, pattern_name(pattern)))};
}

// Useful bytes one warp moves: 32 elements read and 32 written.
double useful_bytes_per_warp(int width) {
  return 2.0 * models::kWarpLanes * width;
}

// DRAM bytes per second the measurement implies if the DRAM model's traffic is right.
double implied_dram_gbps(const Measured& m) {
  return m.median_gbps * m.model.dram_bytes_per_warp / useful_bytes_per_warp(m.width);
}

template <typename F>
double mean_of(const std::vector<const Measured*>& v, F f) {
  double sum = 0;
  for (const auto* m : v)
    sum += f(*m);
  return sum / static_cast<double>(v.size());
}

double rel(const Measured& m) {
  return m.relative.value_or(0);
}

std::string join_numbers(const std::vector<std::uint64_t>& values) {
  return fmt::format("{}", fmt::join(values, ","));
}

Param width_param(int width) {
  return {"element_bytes", static_cast<std::int64_t>(width), "B"};
}

// Non-zero offsets of one width that touch the same sectors and lines per warp load.
struct OffsetClass {
  double sectors = 0;
  double lines = 0;
  std::vector<const Measured*> members;
};

// The offsets of one width grouped by the sectors and lines of their warp loads, each group's
// measured mean, and the measured cost of one more sector (same lines) or line (same sectors).
void offset_findings(int w, const std::vector<const Measured*>& group, int fetch, SummaryRow& s,
                     std::vector<Finding>& out) {
  const CopyPrediction base = models::predict_copy(CopyPattern::kOffset, w, 0, fetch);
  const double bs = base.load_sectors_per_request;
  const double bl = base.load_lines_per_request;
  std::map<std::pair<double, double>, OffsetClass> classes;
  const Measured* zero = nullptr;
  for (const auto* m : group) {
    if (m->param == 0) {
      zero = m;
      continue;
    }
    OffsetClass& c = classes[{m->model.load_sectors_per_request, m->model.load_lines_per_request}];
    c.sectors = m->model.load_sectors_per_request;
    c.lines = m->model.load_lines_per_request;
    c.members.push_back(m);
  }
  if (classes.empty()) return;

  std::vector<const Measured*> mis, line_mis, line_aligned;
  for (const auto& [key, c] : classes) {
    auto& into = c.sectors > bs ? mis : (c.lines > bl ? line_mis : line_aligned);
    into.insert(into.end(), c.members.begin(), c.members.end());
  }
  if (!mis.empty()) {
    s.values.push_back({"misaligned_mean_relative", "x", mean_of(mis, rel)});
    s.values.push_back({"model_misaligned_relative", "x", mean_of(mis, [](const Measured& m) {
                          return m.model.predicted_relative_bandwidth;
                        })});
    s.values.push_back({"model_dram_misaligned_relative", "x", mean_of(mis, [](const Measured& m) {
                          return m.model.predicted_relative_bandwidth_dram;
                        })});
  }
  if (!line_mis.empty())
    s.values.push_back({"line_misaligned_mean_relative", "x", mean_of(line_mis, rel)});
  if (!line_aligned.empty())
    s.values.push_back({"line_aligned_mean_relative", "x", mean_of(line_aligned, rel)});

  // Offset 0 stands for its own class when no other offset measured has it.
  if (zero && !classes.count({bs, bl})) classes[{bs, bl}] = OffsetClass{bs, bl, {zero}};
  std::vector<const OffsetClass*> ordered;  // most sectors first, then most lines
  for (auto it = classes.rbegin(); it != classes.rend(); ++it)
    ordered.push_back(&it->second);

  for (const auto* c : ordered) {
    std::vector<std::uint64_t> offsets;
    double lo = kInf, hi = 0, dram_lo = kInf, dram_hi = 0;
    for (const auto* m : c->members) {
      offsets.push_back(m->param);
      lo = std::min(lo, rel(*m));
      hi = std::max(hi, rel(*m));
      dram_lo = std::min(dram_lo, m->model.predicted_relative_bandwidth_dram);
      dram_hi = std::max(dram_hi, m->model.predicted_relative_bandwidth_dram);
    }
    out.push_back(
        verdict("coalescing_offset_class", {width_param(w), {"offsets", join_numbers(offsets), ""}},
                {{"count", "", static_cast<double>(c->members.size())},
                 {"sectors_per_request", "sectors", c->sectors},
                 {"lines_per_request", "lines", c->lines},
                 {"baseline_sectors", "sectors", bs},
                 {"baseline_lines", "lines", bl},
                 {"relative_mean", "x", mean_of(c->members, rel)},
                 {"relative_min", "x", lo},
                 {"relative_max", "x", hi},
                 {"model_relative", "x", c->members.front()->model.predicted_relative_bandwidth},
                 {"model_dram_min", "x", dram_lo},
                 {"model_dram_max", "x", dram_hi},
                 {"fetch_bytes", "B", static_cast<double>(fetch)}}));
  }
  for (const auto* a : ordered) {
    for (const auto* b : ordered) {
      const double ratio = mean_of(a->members, rel) / mean_of(b->members, rel);
      if (a->lines == b->lines && a->sectors > b->sectors) {
        out.push_back(verdict("coalescing_offset_sector_cost", {width_param(w)},
                              {{"sectors", "sectors", a->sectors},
                               {"fewer_sectors", "sectors", b->sectors},
                               {"lines", "lines", a->lines},
                               {"ratio", "x", ratio}}));
      } else if (a->sectors == b->sectors && a->lines > b->lines) {
        out.push_back(verdict("coalescing_offset_line_cost", {width_param(w)},
                              {{"lines", "lines", a->lines},
                               {"fewer_lines", "lines", b->lines},
                               {"sectors", "sectors", a->sectors},
                               {"ratio", "x", ratio}}));
      }
    }
  }
}

// Headline strides of one width beside both models, and where the measurement leaves the
// DRAM model.
void stride_findings(int w, std::vector<const Measured*> group, int fetch,
                     std::vector<Finding>& out) {
  std::sort(group.begin(), group.end(),
            [](const Measured* a, const Measured* b) { return a->param < b->param; });
  const std::uint64_t largest = group.back()->param;
  // 2, the strides from which each lane has its own sector and its own fetch block, the largest.
  const std::pair<const char*, std::uint64_t> roles[] = {
      {"stride_2", 2},
      {"sector_stride", static_cast<std::uint64_t>(std::max(1, models::kSectorBytes / w))},
      {"fetch_stride", static_cast<std::uint64_t>(std::max(1, fetch / w))},
      {"largest_stride", largest}};
  std::vector<Quantity> values = {{"fetch_bytes", "B", static_cast<double>(fetch)}};
  bool any = false;
  for (const auto& [role, stride] : roles) {
    const std::string name = role;
    const auto it = std::find_if(group.begin(), group.end(),
                                 [&](const Measured* m) { return m->param == stride; });
    const Measured* m = stride > 1 && it != group.end() ? *it : nullptr;
    any = any || m;
    const std::string suffix = name == "stride_2" ? "_stride_2" : "_" + name;
    if (name != "stride_2") values.push_back({name, "elements", static_cast<double>(stride)});
    auto of = [&](double v) { return m ? std::optional<double>(v) : std::nullopt; };
    values.push_back({"relative" + suffix, "x", of(m ? rel(*m) : 0)});
    values.push_back({"model" + suffix, "x", of(m ? m->model.predicted_relative_bandwidth : 0)});
    values.push_back(
        {"model_dram" + suffix, "x", of(m ? m->model.predicted_relative_bandwidth_dram : 0)});
  }
  if (!any) return;
  out.push_back(verdict("coalescing_strides", {width_param(w)}, std::move(values)));

  // Measured / DRAM model, by stride: the first stride below kModelShortfall and what precedes it.
  double lo = kInf, hi = 0;
  const Measured* last_ok = nullptr;
  const Measured* first_short = nullptr;
  const Measured* lowest = nullptr;
  auto ratio = [](const Measured& m) { return rel(m) / m.model.predicted_relative_bandwidth_dram; };
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
  if (!first_short) {
    out.push_back(verdict("coalescing_stride_dram_model_holds", {width_param(w)},
                          {{"ratio_min", "x", lo}, {"ratio_max", "x", hi}}));
    return;
  }
  auto ok = [&](double v) { return last_ok ? std::optional<double>(v) : std::nullopt; };
  const auto wd = static_cast<double>(w);
  out.push_back(verdict(
      "coalescing_stride_leaves_dram_model", {width_param(w)},
      {{"ratio_min", "x", ok(lo)},
       {"ratio_max", "x", ok(hi)},
       {"holds_up_to", "elements", ok(last_ok ? static_cast<double>(last_ok->param) : 0)},
       {"holds_up_to_spacing", "B", ok(last_ok ? static_cast<double>(last_ok->param) * wd : 0)},
       {"short_from", "elements", static_cast<double>(first_short->param)},
       {"short_from_spacing", "B", static_cast<double>(first_short->param) * wd},
       {"lowest_ratio", "x", ratio(*lowest)},
       {"lowest_at", "elements", static_cast<double>(lowest->param)},
       {"shortfall", "%", (1 - kModelShortfall) * 100}}));
}

// The params naming one point in a finding about two points ("worst_pattern", "worst_at", ...).
void add_point_params(std::vector<Param>& params, const std::string& prefix, const Measured& m) {
  params.push_back({prefix + "_pattern", std::string(pattern_name(m.pattern)), ""});
  params.push_back({prefix + "_at", static_cast<std::int64_t>(m.param), ""});
  params.push_back({prefix + "_element_bytes", static_cast<std::int64_t>(m.width), "B"});
}

std::string point_text(const Finding& f, const std::string& prefix) {
  return fmt::format("{} {}, {}", param_text_of(f, prefix + "_pattern"),
                     param_text_of(f, prefix + "_at"), param_text_of(f, prefix + "_element_bytes"));
}

// The findings about the sizing (from what the probe decided) and the model's fetch block.
void sizing_findings(const RunFacts& facts, std::optional<double> min_ws,
                     std::vector<Finding>& out) {
  const Sizing& z = facts.sizing;
  const double fetch = facts.fetch_bytes;
  if (z.l2_assumed)
    out.push_back(note("coalescing_l2_size_assumed", {},
                       {{"l2_size", "B", static_cast<double>(z.l2_bytes)}}));
  if (!facts.reported_fetch) {
    out.push_back(note("coalescing_fetch_not_reported", {}, {{"model_fetch_bytes", "B", fetch}}));
  } else if (static_cast<double>(*facts.reported_fetch) != fetch) {
    out.push_back(note("coalescing_fetch_adjusted", {},
                       {{"l2_fetch_granularity", "B", static_cast<double>(*facts.reported_fetch)},
                        {"model_fetch_bytes", "B", fetch}}));
  }
  const std::vector<Quantity> cap = {{"memory_cap", "B", static_cast<double>(z.memory_cap)},
                                     {"memory_cap_share", "%", kMemoryCapFraction * 100},
                                     {"min_working_set", "x", kClampedMinWorkingSet}};
  for (const auto& d : z.dropped) {
    out.push_back(warning("coalescing_dropped",
                          {{"pattern", std::string(pattern_name(d.pattern)), ""},
                           {pattern_name(d.pattern), static_cast<std::int64_t>(d.param), ""},
                           width_param(d.element_bytes)},
                          cap));
  }
  std::vector<std::uint64_t> widths, default_n;
  for (const auto& [w, n] : z.default_elements) {
    widths.push_back(static_cast<std::uint64_t>(w));
    default_n.push_back(n);
  }
  for (const auto& [w, n] : z.default_elements) {
    std::vector<std::uint64_t> strides, elements;
    for (const auto& c : z.clamped) {
      if (c.element_bytes != w) continue;
      strides.push_back(c.stride);
      elements.push_back(c.elements);
    }
    if (strides.empty()) continue;
    out.push_back(note("coalescing_clamped",
                       {width_param(w),
                        {"strides", join_numbers(strides), ""},
                        {"elements", join_numbers(elements), ""}},
                       {{"default_elements", "elements", static_cast<double>(n)},
                        {"memory_cap", "B", static_cast<double>(z.memory_cap)},
                        {"min_working_set", "x", kClampedMinWorkingSet}}));
  }
  out.push_back(
      note("coalescing_sizing",
           {{"widths", join_numbers(widths), ""}, {"elements", join_numbers(default_n), ""}},
           {{"l2_multiple", "x", static_cast<double>(z.l2_multiple)},
            {"l2_size", "B", static_cast<double>(z.l2_bytes)},
            {"bytes_per_direction", "B", static_cast<double>(z.out_bytes)},
            {"working_set_over_l2", "x", min_ws}}));
}

// "offset 0 was not asked for" notes, from the rows' `baseline` flags.
void baseline_findings(const ProbeResult& result, std::vector<Finding>& out) {
  for (CopyPattern pattern : {CopyPattern::kOffset, CopyPattern::kStride}) {
    std::vector<std::uint64_t> widths;
    for (const auto& row : result.rows) {
      const Key k = row_key(row);
      if (k.pattern == pattern &&
          std::find(row.flags.begin(), row.flags.end(), "baseline") != row.flags.end())
        widths.push_back(static_cast<std::uint64_t>(k.width));
    }
    if (widths.empty()) continue;
    out.push_back(note(
        "coalescing_baseline_added",
        {{"pattern", std::string(pattern_name(pattern)), ""}, {"widths", join_numbers(widths), ""}},
        {}));
  }
}

// ---- Counters ------------------------------------------------------------------------------

// Counters the probe collects (its counter_metrics(), full CUPTI names), over one launch of the
// row's copy kernel (N elements read, N written).
constexpr std::string_view kLoadRequests = "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum";
constexpr std::string_view kLoadSectors = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum";
constexpr std::string_view kStoreRequests = "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum";
constexpr std::string_view kStoreSectors = "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum";
constexpr std::string_view kL2ReadSectors = "lts__t_sectors_srcunit_tex_op_read.sum";
constexpr std::string_view kDramRead = "dram__bytes_read.sum";
constexpr std::string_view kDramWrite = "dram__bytes_write.sum";

// N of a row's launch, as the probe sized it: the clamped N of a clamped stride, else the
// width's default; nullopt when the sizing does not say (then no DRAM bytes per useful byte).
std::optional<std::uint64_t> elements_of(const Sizing& z, const Measured& m) {
  if (m.pattern == CopyPattern::kStride) {
    for (const auto& c : z.clamped) {
      if (c.element_bytes == m.width && c.stride == m.param) return c.elements;
    }
  }
  for (const auto& [w, n] : z.default_elements) {
    if (w == m.width) return n;
  }
  return std::nullopt;
}

// The counter checks of the rows that have counters, in the order their findings come.
struct CounterChecks {
  CounterCheck load{"coalescing_counter_load_sectors", "sectors"};
  CounterCheck store{"coalescing_counter_store_sectors", "sectors"};
  CounterCheck l2{"coalescing_counter_l2_sectors", "sectors"};
  CounterCheck dram{"coalescing_counter_dram", "B/B"};
};

// Counter-measured sectors per request (loads, stores, loads as L2 sees them) and DRAM bytes per
// useful byte beside the model's, on a row with counters.
void add_counter_columns(const Measured& m, const Sizing& z, CounterChecks& checks) {
  Row& row = *m.row;
  // The model values these are compared with that the row's model columns do not show yet.
  const double dram_model = m.model.dram_bytes_per_warp / useful_bytes_per_warp(m.width);
  set_model_value(row, {"store_sectors_per_request", "sectors", m.model.store_sectors_per_request});
  set_model_value(row, {"dram_bytes_per_useful_byte", "B/B", dram_model});
  const auto ld_requests = counter_value(row, kLoadRequests);
  checks.load.add(row, "sectors_per_request_counter",
                  ratio_of(counter_value(row, kLoadSectors), ld_requests),
                  m.model.load_sectors_per_request);
  checks.store.add(row, "store_sectors_per_request_counter",
                   ratio_of(counter_value(row, kStoreSectors), counter_value(row, kStoreRequests)),
                   m.model.store_sectors_per_request);
  checks.l2.add(row, "l2_sectors_per_request_counter",
                ratio_of(counter_value(row, kL2ReadSectors), ld_requests),
                m.model.load_sectors_per_request);
  const auto n = elements_of(z, m);
  const std::optional<double> useful =
      n ? std::optional<double>(2.0 * static_cast<double>(*n) * m.width) : std::nullopt;
  checks.dram.add(
      row, "dram_bytes_per_useful_byte_counter",
      ratio_of(sum_of(counter_value(row, kDramRead), counter_value(row, kDramWrite)), useful),
      dram_model);
}

}  // namespace

const char* pattern_name(CopyPattern pattern) {
  return pattern == CopyPattern::kOffset ? "offset" : "stride";
}

CopyPattern pattern_from_name(const std::string& name) {
  if (name == "offset") return CopyPattern::kOffset;
  if (name == "stride") return CopyPattern::kStride;
  throw std::invalid_argument("unknown coalescing pattern '" + name + "'");
}

std::uint64_t baseline_param(CopyPattern pattern) {
  return pattern == CopyPattern::kOffset ? 0 : 1;
}

std::vector<Param> row_params(CopyPattern pattern, int element_bytes, std::uint64_t param) {
  return {{"pattern", std::string(pattern_name(pattern)), ""},
          {pattern_name(pattern), static_cast<std::int64_t>(param), ""},
          width_param(element_bytes)};
}

void add_model(ProbeResult& result, int fetch_bytes) {
  for (auto& row : result.rows) {
    const Key k = row_key(row);
    const CopyPrediction m = models::predict_copy(k.pattern, k.width, k.param, fetch_bytes);
    row.model = {{"sectors_per_request", "sectors", m.load_sectors_per_request},
                 {"lines_per_request", "lines", m.load_lines_per_request},
                 {"sector_efficiency", "%", m.sector_efficiency},
                 {"predicted_relative_bandwidth", "x", m.predicted_relative_bandwidth},
                 {"predicted_relative_bandwidth_dram", "x", m.predicted_relative_bandwidth_dram}};
  }
}

void analyse(ProbeResult& result, const RunFacts& facts) {
  const int fetch = facts.fetch_bytes;
  add_model(result, fetch);
  std::vector<Measured> measured;
  std::vector<int> widths;  // in the order the rows came
  for (auto& row : result.rows) {
    const Metric* bw = find_metric(row, "bandwidth");
    if (!bw) continue;  // a planned row
    const Key k = row_key(row);
    const Quantity* ws = find_quantity(row.derived, "working_set_over_l2");
    measured.push_back({&row, k.pattern, k.width, k.param, bw->stats.median,
                        models::predict_copy(k.pattern, k.width, k.param, fetch),
                        ws ? ws->value : std::nullopt, std::nullopt});
    if (std::find(widths.begin(), widths.end(), k.width) == widths.end()) widths.push_back(k.width);
  }

  // Relative bandwidth to the baseline of the same (pattern, width).
  std::map<std::pair<CopyPattern, int>, double> baseline_gbps;
  for (const auto& m : measured) {
    if (m.param == baseline_param(m.pattern)) baseline_gbps[{m.pattern, m.width}] = m.median_gbps;
  }
  std::optional<double> min_ws;
  for (auto& m : measured) {
    const auto it = baseline_gbps.find({m.pattern, m.width});
    if (it != baseline_gbps.end() && it->second > 0) m.relative = m.median_gbps / it->second;
    m.row->derived = {{"relative_bandwidth", "x", m.relative}};
    if (m.working_set_over_l2) {
      m.row->derived.push_back({"working_set_over_l2", "x", m.working_set_over_l2});
      min_ws = std::min(min_ws.value_or(kInf), *m.working_set_over_l2);
    }
    m.row->derived.push_back({"implied_dram_bandwidth", "GB/s", implied_dram_gbps(m)});
  }
  CounterChecks checks;
  for (const auto& m : measured) {
    if (m.row->counters) add_counter_columns(m, facts.sizing, checks);
  }

  // Summary and findings per (pattern, width).
  std::vector<Finding> verdicts, notes;
  for (CopyPattern pattern : {CopyPattern::kOffset, CopyPattern::kStride}) {
    for (int w : widths) {
      std::vector<const Measured*> group;
      for (const auto& m : measured) {
        if (m.pattern == pattern && m.width == w) group.push_back(&m);
      }
      if (group.empty()) continue;
      SummaryRow s;
      s.params = {{"pattern", std::string(pattern_name(pattern)), ""}, width_param(w)};
      const auto base = baseline_gbps.find({pattern, w});
      if (base == baseline_gbps.end() || base->second <= 0) {
        s.values.push_back({"baseline_bandwidth", "GB/s", std::nullopt});
        notes.push_back(warning(
            "coalescing_no_baseline",
            {{"pattern", std::string(pattern_name(pattern)), ""},
             {pattern_name(pattern), static_cast<std::int64_t>(baseline_param(pattern)), ""},
             width_param(w)},
            {}));
        result.summary.push_back(std::move(s));
        continue;
      }
      s.values.push_back({"baseline_bandwidth", "GB/s", base->second});
      if (pattern == CopyPattern::kOffset) {
        offset_findings(w, group, fetch, s, verdicts);
      } else {
        stride_findings(w, group, fetch, verdicts);
      }
      const Measured* low = group.front();
      for (const auto* m : group) {
        if (rel(*m) < rel(*low)) low = m;
      }
      s.values.push_back({"worst_relative_bandwidth", "x", low->relative});
      s.values.push_back({"worst_at", "elements", static_cast<double>(low->param)});
      s.values.push_back({"model_at_worst", "x", low->model.predicted_relative_bandwidth});
      s.values.push_back(
          {"model_dram_at_worst", "x", low->model.predicted_relative_bandwidth_dram});
      result.summary.push_back(std::move(s));
    }
  }

  if (!measured.empty()) {
    const Measured* best = &measured.front();
    const Measured* worst = best;
    const Measured* hi = best;
    const Measured* lo = best;
    std::optional<double> base_lo, base_hi;
    for (const auto& m : measured) {
      if (m.median_gbps > best->median_gbps) best = &m;
      if (m.median_gbps < worst->median_gbps) worst = &m;
      const double g = implied_dram_gbps(m);
      if (g > implied_dram_gbps(*hi)) hi = &m;
      if (g < implied_dram_gbps(*lo)) lo = &m;
      if (m.param == baseline_param(m.pattern)) {
        base_lo = std::min(base_lo.value_or(kInf), g);
        base_hi = std::max(base_hi.value_or(0), g);
      }
    }
    if (best != worst) {
      std::vector<Param> params;
      add_point_params(params, "worst", *worst);
      add_point_params(params, "best", *best);
      verdicts.push_back(verdict("coalescing_worst_best", {},
                                 {{"worst_bandwidth", "GB/s", worst->median_gbps},
                                  {"best_bandwidth", "GB/s", best->median_gbps},
                                  {"ratio", "x", worst->median_gbps / best->median_gbps}},
                                 std::move(params)));
    }
    // The DRAM traffic rate each point implies under the DRAM model: flat where the model holds.
    std::vector<Param> params;
    add_point_params(params, "highest", *hi);
    add_point_params(params, "lowest", *lo);
    verdicts.push_back(verdict(
        "coalescing_implied_dram", {},
        {{"fetch_bytes", "B", static_cast<double>(fetch)},
         {"baseline_min", "GB/s", base_lo},
         {"baseline_max", "GB/s", base_hi},
         {"highest", "GB/s", implied_dram_gbps(*hi)},
         {"lowest", "GB/s", implied_dram_gbps(*lo)},
         {"peak_estimate", "GB/s",
          facts.peak_dram_gbps > 0 ? std::optional<double>(facts.peak_dram_gbps) : std::nullopt}},
        std::move(params)));
  }

  // Counters beside the model: agreement verdicts and disagreement warnings, after the verdicts.
  for (const CounterCheck* c : {&checks.load, &checks.store, &checks.l2, &checks.dram}) {
    if (auto f = c->finding()) verdicts.push_back(std::move(*f));
  }

  // Conditions, then the notes: sizing, baselines added, what the columns mean.
  if (min_ws) result.conditions.push_back({"working_set_over_l2", "x", min_ws});
  result.conditions.push_back({"memory_cap", "B", static_cast<double>(facts.sizing.memory_cap)});
  if (facts.reported_fetch)
    result.conditions.push_back(
        {"l2_fetch_granularity", "B", static_cast<double>(*facts.reported_fetch)});
  result.conditions.push_back({"model_fetch_bytes", "B", static_cast<double>(fetch)});
  sizing_findings(facts, min_ws, notes);
  baseline_findings(result, notes);
  notes.push_back(note("coalescing_model", {}, {}));
  notes.push_back(note("coalescing_implied_dram_meaning", {}, {}));
  result.findings.insert(result.findings.end(), verdicts.begin(), verdicts.end());
  result.findings.insert(result.findings.end(), notes.begin(), notes.end());
}

void add_plan_findings(ProbeResult& result, std::uint64_t l2_multiple) {
  result.findings.push_back(
      note("coalescing_plan_fetch", {},
           {{"model_fetch_bytes", "B", static_cast<double>(models::kSectorBytes)}}));
  result.findings.push_back(note("coalescing_plan_sizing", {},
                                 {{"l2_multiple", "x", static_cast<double>(l2_multiple)},
                                  {"memory_cap_share", "%", kMemoryCapFraction * 100}}));
  result.findings.push_back(note("coalescing_model", {}, {}));
}

namespace {

// "1 line", "2 lines".
std::string count_of(double n, const char* what) {
  return fmt::format("{:g} {}{}", n, what, n == 1 ? "" : "s");
}

// "1,2,4" -> "1, 2, 4".
std::string spaced(const std::string& list) {
  std::string out;
  for (char c : list) {
    out += c;
    if (c == ',') out += ' ';
  }
  return out;
}

// " (0.86-0.93x)", or "" when both ends print the same.
std::string range_text(double lo, double hi) {
  const std::string a = fmt::format("{:.2f}", lo), b = fmt::format("{:.2f}", hi);
  return a == b ? "" : fmt::format(" ({}-{}x)", a, b);
}

std::string offset_class_text(const Finding& f) {
  const double n = value_of(f, "count");
  const double sectors = value_of(f, "sectors_per_request");
  const double lines = value_of(f, "lines_per_request");
  const double bs = value_of(f, "baseline_sectors");
  const double bl = value_of(f, "baseline_lines");
  const std::string offsets = param_text_of(f, "offsets");
  std::string who;
  if (n <= 6) {
    who = fmt::format("offset{} {}", n == 1 ? "" : "s", spaced(offsets));
  } else {
    const char* how = sectors > bs ? "not 32-B aligned"
                      : lines > bl ? "32-B but not 128-B aligned"
                                   : "128-B aligned";
    who = fmt::format("{:g} offsets {}", n, how);
  }
  const double dram_lo = value_of(f, "model_dram_min"), dram_hi = value_of(f, "model_dram_max");
  const std::string dram = dram_hi - dram_lo < 0.005
                               ? fmt::format("{:.2f}x", dram_hi)
                               : fmt::format("{:.2f}-{:.2f}x", dram_lo, dram_hi);
  // Offset 0 standing for its own class needs no comparison with itself.
  const std::string baseline =
      offsets == "0"
          ? ""
          : fmt::format("; offset 0: {}, {}", count_of(bs, "sector"), count_of(bl, "line"));
  return fmt::format(
      "{} {} ({}, {} per warp load{}): {:.2f}x offset 0{}; model: sectors {:.2f}x, DRAM ({:g}-B "
      "fetches) {}",
      param_text_of(f, "element_bytes"), who, count_of(sectors, "sector"), count_of(lines, "line"),
      baseline, value_of(f, "relative_mean"),
      range_text(value_of(f, "relative_min"), value_of(f, "relative_max")),
      value_of(f, "model_relative"), value_of(f, "fetch_bytes"), dram);
}

std::string strides_text(const Finding& f) {
  struct Shown {
    double stride, relative, model, dram;
  };
  std::vector<Shown> shown;
  for (const char* role : {"stride_2", "sector_stride", "fetch_stride", "largest_stride"}) {
    const std::string name = role;
    const std::string suffix = name == "stride_2" ? "_stride_2" : "_" + name;
    const auto r = optional_value_of(f, "relative" + suffix);
    if (!r) continue;
    shown.push_back({name == "stride_2" ? 2.0 : value_of(f, name), *r,
                     value_of(f, "model" + suffix), value_of(f, "model_dram" + suffix)});
  }
  std::sort(shown.begin(), shown.end(),
            [](const Shown& a, const Shown& b) { return a.stride < b.stride; });
  std::vector<std::string> parts;
  for (std::size_t i = 0; i < shown.size(); ++i) {
    if (i > 0 && shown[i].stride == shown[i - 1].stride) continue;
    parts.push_back(fmt::format("{:.2f}x at {}{:.0f} ({:.2f}x, {:.2f}x)", shown[i].relative,
                                parts.empty() ? "stride " : "", shown[i].stride, shown[i].model,
                                shown[i].dram));
  }
  return fmt::format("{} strides, measured (sector model, DRAM model with {:g}-B fetches): {}",
                     param_text_of(f, "element_bytes"), value_of(f, "fetch_bytes"),
                     fmt::join(parts, ", "));
}

std::string leaves_model_text(const Finding& f) {
  // With no stride before the shortfall: "measured more than 10% below the DRAM model from ...".
  const std::string holds =
      optional_value_of(f, "holds_up_to")
          ? fmt::format(
                "measured/DRAM model {:.2f}-{:.2f}x up to stride {:.0f} (elements {:.0f} B "
                "apart), more than {:.0f}% below it",
                value_of(f, "ratio_min"), value_of(f, "ratio_max"), value_of(f, "holds_up_to"),
                value_of(f, "holds_up_to_spacing"), value_of(f, "shortfall"))
          : fmt::format("measured more than {:.0f}% below the DRAM model",
                        value_of(f, "shortfall"));
  return fmt::format(
      "{} strides: {} from stride {:.0f} ({:.0f} B apart), down to {:.2f}x at "
      "stride {:.0f}: a loss the model does not explain",
      param_text_of(f, "element_bytes"), holds, value_of(f, "short_from"),
      value_of(f, "short_from_spacing"), value_of(f, "lowest_ratio"), value_of(f, "lowest_at"));
}

}  // namespace

void add_words(Glossary& g) {
  g.add_phrasing("coalescing_offset_class", offset_class_text);
  g.add_phrasing("coalescing_offset_sector_cost", [](const Finding& f) {
    return fmt::format("{} offsets, measured: {:g} vs {:g} sectors with {} each {:.2f}x",
                       param_text_of(f, "element_bytes"), value_of(f, "sectors"),
                       value_of(f, "fewer_sectors"), count_of(value_of(f, "lines"), "line"),
                       value_of(f, "ratio"));
  });
  g.add_phrasing("coalescing_offset_line_cost", [](const Finding& f) {
    return fmt::format("{} offsets, measured: {:g} vs {:g} lines with {} each {:.2f}x",
                       param_text_of(f, "element_bytes"), value_of(f, "lines"),
                       value_of(f, "fewer_lines"), count_of(value_of(f, "sectors"), "sector"),
                       value_of(f, "ratio"));
  });
  g.add_phrasing("coalescing_strides", strides_text);
  g.add_phrasing("coalescing_stride_dram_model_holds", [](const Finding& f) {
    return fmt::format("{} strides: measured/DRAM model {:.2f}-{:.2f}x at every stride",
                       param_text_of(f, "element_bytes"), value_of(f, "ratio_min"),
                       value_of(f, "ratio_max"));
  });
  g.add_phrasing("coalescing_stride_leaves_dram_model", leaves_model_text);
  g.add_phrasing("coalescing_worst_best", [](const Finding& f) {
    return fmt::format("worst/best measured: {:.1f} GB/s ({}) vs {:.1f} GB/s ({}) = {:.3f}x",
                       value_of(f, "worst_bandwidth"), point_text(f, "worst"),
                       value_of(f, "best_bandwidth"), point_text(f, "best"), value_of(f, "ratio"));
  });
  g.add_phrasing("coalescing_implied_dram", [](const Finding& f) {
    const auto lo = optional_value_of(f, "baseline_min");
    const auto hi = optional_value_of(f, "baseline_max");
    const auto peak = optional_value_of(f, "peak_estimate");
    return fmt::format(
        "implied DRAM traffic (bandwidth x DRAM-model bytes per useful byte, {:g}-B fetches): "
        "{}highest {:.0f} GB/s ({}), lowest {:.0f} GB/s ({}){}; the model's predictions assume it "
        "is the same everywhere",
        value_of(f, "fetch_bytes"),
        lo && hi ? fmt::format("{:.0f}-{:.0f} GB/s for the aligned unit-stride copies, ", *lo, *hi)
                 : std::string(),
        value_of(f, "highest"), point_text(f, "highest"), value_of(f, "lowest"),
        point_text(f, "lowest"), peak ? fmt::format(" (est. peak {:.0f} GB/s)", *peak) : "");
  });
  g.add_phrasing("coalescing_no_baseline", [](const Finding& f) {
    const std::string pattern = param_text_of(f, "pattern");
    return fmt::format("{} {} of {} was not measured: no relative bandwidth for those rows",
                       pattern, param_text_of(f, pattern), param_text_of(f, "element_bytes"));
  });
  g.add_phrasing("coalescing_l2_size_assumed", [](const Finding& f) {
    return fmt::format("the driver reports no L2 size: sized as if it were {}",
                       value_text(f, "l2_size"));
  });
  g.add_phrasing("coalescing_fetch_not_reported", [](const Finding& f) {
    return fmt::format(
        "the driver reports no L2 fetch granularity: the DRAM model uses {:g}-B fetches (the "
        "sector)",
        value_of(f, "model_fetch_bytes"));
  });
  g.add_phrasing("coalescing_fetch_adjusted", [](const Finding& f) {
    return fmt::format(
        "the driver reports an L2 fetch granularity of {:g} B: the DRAM model uses {:g} B (a "
        "power of two from 32 to 128)",
        value_of(f, "l2_fetch_granularity"), value_of(f, "model_fetch_bytes"));
  });
  g.add_phrasing("coalescing_dropped", [](const Finding& f) {
    const std::string pattern = param_text_of(f, "pattern");
    return fmt::format(
        "{} {} at {} dropped: its input span does not fit the memory cap of {} ({:.0f}% of free "
        "memory) with a working set of at least {:g}x L2",
        pattern, param_text_of(f, pattern), param_text_of(f, "element_bytes"),
        value_text(f, "memory_cap"), value_of(f, "memory_cap_share"),
        value_of(f, "min_working_set"));
  });
  g.add_phrasing("coalescing_clamped", [](const Finding& f) {
    const std::string strides = param_text_of(f, "strides");
    const std::string elements = param_text_of(f, "elements");
    std::vector<std::string> items;
    for (std::size_t s = 0, e = 0;;) {
      const std::size_t sc = strides.find(',', s), ec = elements.find(',', e);
      items.push_back(
          fmt::format("{} (N = {})", strides.substr(s, sc - s), elements.substr(e, ec - e)));
      if (sc == std::string::npos || ec == std::string::npos) break;
      s = sc + 1;
      e = ec + 1;
    }
    return fmt::format(
        "{} strides {} ran with fewer elements than the default {:.0f} so the input span fits the "
        "memory cap of {}; their working set stays >= {:g}x L2 (flag 'clamped')",
        param_text_of(f, "element_bytes"), fmt::join(items, ", "), value_of(f, "default_elements"),
        value_text(f, "memory_cap"), value_of(f, "min_working_set"));
  });
  g.add_phrasing("coalescing_sizing", [](const Finding& f) {
    const auto ws = optional_value_of(f, "working_set_over_l2");
    return fmt::format(
        "sizing: N = {} elements for widths {} B ({} per direction, {:g}x the {} L2); offsets "
        "read N + offset elements, strides (N - 1) x stride + 1{}",
        spaced(param_text_of(f, "elements")), spaced(param_text_of(f, "widths")),
        value_text(f, "bytes_per_direction"), value_of(f, "l2_multiple"), value_text(f, "l2_size"),
        ws ? fmt::format("; the smallest working set (distinct sectors in + out per launch) is "
                         "{:.1f}x L2",
                         *ws)
           : "");
  });
  g.add_phrasing("coalescing_baseline_added", [](const Finding& f) {
    const std::string pattern = param_text_of(f, "pattern");
    return fmt::format(
        "{} {} was not asked for and was measured as the baseline of widths {} B (flag "
        "'baseline')",
        pattern, pattern == "offset" ? 0 : 1, spaced(param_text_of(f, "widths")));
  });
  g.add_phrasing("coalescing_model", [](const Finding&) {
    return std::string(
        "model: sectors_per_request / lines_per_request = distinct 32-B sectors / 128-B lines "
        "one warp's load touches (stores are aligned and unit-stride); "
        "predicted_relative_bandwidth counts load + store sectors per request, as L1 sends them "
        "to L2 (lines are shown, not used in a prediction); predicted_relative_bandwidth_dram "
        "counts distinct G-byte DRAM fetch blocks (G = the L2 fetch granularity) per run of "
        "warps, loads + stores: a block neighbouring warps share is fetched once, an element "
        "alone in its block costs G bytes");
  });
  g.add_phrasing("coalescing_implied_dram_meaning", [](const Finding&) {
    return std::string(
        "implied_dram_bandwidth = bandwidth x DRAM-model bytes per useful byte: the DRAM traffic "
        "rate the measurement implies if the model's byte count is right; the model assumes it "
        "is the same at every point, so where it moves, something the model does not count "
        "(DRAM row locality, bank/channel interleaving, read/write turnaround, TLB reach) is at "
        "work; which one, this probe cannot tell");
  });
  g.add_phrasing("coalescing_plan_fetch", [](const Finding& f) {
    return fmt::format(
        "--plan has no device: predicted_relative_bandwidth_dram uses {:g}-B fetches (the "
        "sector); a run uses the device's L2 fetch granularity (cudaLimitMaxL2FetchGranularity; "
        "an H100 reports 64 B), which lowers it for strides that put elements 64 B or more apart",
        value_of(f, "model_fetch_bytes"));
  });
  g.add_phrasing("coalescing_plan_sizing", [](const Finding& f) {
    return fmt::format(
        "sizes are chosen on the device: N x element bytes >= {:g}x L2 per direction at offset "
        "0 / stride 1 (--l2-multiple); large strides may run with a smaller N or be dropped to "
        "stay within {:.0f}% of free device memory",
        value_of(f, "l2_multiple"), value_of(f, "memory_cap_share"));
  });

  // Counters beside the model: the row a finding names is its worst (or, agreeing, its most
  // deviating) row.
  // (Row params read back from JSON carry no unit: the width is said in bytes either way.)
  const auto point = [](const Finding& f) {
    const std::string pattern = param_text_of(f, "pattern");
    std::string width = param_text_of(f, "element_bytes");
    if (width.find('B') == std::string::npos) width += " B";
    return fmt::format("{} {}, {}", pattern, param_text_of(f, pattern), width);
  };
  CounterCheck::add_phrasings(g, "coalescing_counter_load_sectors",
                              "global-load sectors per request (l1tex)", point);
  CounterCheck::add_phrasings(g, "coalescing_counter_store_sectors",
                              "global-store sectors per request (l1tex)", point);
  CounterCheck::add_phrasings(g, "coalescing_counter_l2_sectors",
                              "L2 read sectors from L1 per load request", point);
  CounterCheck::add_phrasings(g, "coalescing_counter_dram",
                              "DRAM bytes (read + written) per useful byte", point);

  const char* p = "coalescing";
  g.add_term(p, "sectors_per_request_counter",
             {"sec ctr", "counters: global-load sectors / load requests (l1tex), one launch"});
  g.add_term(p, "sectors_per_request_counter_vs_model",
             {"sec c/m", "sec ctr / the model's sectors per warp load"});
  g.add_term(p, "store_sectors_per_request_counter",
             {"st ctr", "counters: global-store sectors / store requests (l1tex), one launch"});
  g.add_term(p, "store_sectors_per_request_counter_vs_model",
             {"st c/m", "st ctr / the model's sectors per warp store (unit-stride, aligned)"});
  g.add_term(p, "l2_sectors_per_request_counter",
             {"L2 ctr", "counters: L2 sectors read by L1 / load requests: what L1 sends on"});
  g.add_term(p, "l2_sectors_per_request_counter_vs_model",
             {"L2 c/m", "L2 ctr / the model's sectors per warp load (every one sent to L2)"});
  g.add_term(p, "dram_bytes_per_useful_byte_counter",
             {"DRAM ctr", "counters: DRAM bytes read + written / useful bytes (2 x N x width)"});
  g.add_term(p, "dram_bytes_per_useful_byte_counter_vs_model",
             {"DRAM c/m", "DRAM ctr / the DRAM model's bytes per useful byte"});
  g.add_term(p, "store_sectors_per_request",
             {"st sec", "model: distinct 32-B sectors one warp store touches (with counters)"});
  g.add_term(
      p, "dram_bytes_per_useful_byte",
      {"DRAM B/B", "model: DRAM fetch-block bytes (ld + st) per useful byte (with counters)"});
  g.add_term(p, "element_bytes", {"width", "element width in bytes"});
  g.add_term(p, "relative_bandwidth",
             {"rel", "bandwidth / that of offset 0 or stride 1 at the same width"});
  g.add_term(p, "working_set_over_l2",
             {"ws/L2", "distinct sectors in + out per launch x 32 B / L2 size"});
  g.add_term(p, "implied_dram_bandwidth",
             {"DRAM bw", "bandwidth x DRAM-model bytes per useful byte, GB/s"});
  g.add_term(p, "sectors_per_request",
             {"sec/req", "model: distinct 32-B sectors one warp load touches"});
  g.add_term(p, "lines_per_request",
             {"lin/req", "model: distinct 128-B lines one warp load touches"});
  g.add_term(p, "sector_efficiency", {"sec eff", "model: useful load bytes / loaded sector bytes"});
  g.add_term(p, "predicted_relative_bandwidth",
             {"model", "model: baseline ld+st sectors per request / this point's"});
  g.add_term(p, "predicted_relative_bandwidth_dram",
             {"DRAM mdl", "model: baseline DRAM fetch-block bytes per warp / this point's"});
  g.add_term(p, "baseline_bandwidth", {"base", "bandwidth of offset 0 / stride 1, GB/s"});
  g.add_term(p, "misaligned_mean_relative",
             {"misalign", "mean rel of offsets that load more sectors than offset 0"});
  g.add_term(p, "model_misaligned_relative", {"mdl mis", "sector model for those offsets"});
  g.add_term(p, "model_dram_misaligned_relative", {"DRAM mis", "DRAM model for those offsets"});
  g.add_term(p, "line_misaligned_mean_relative",
             {"line mis", "mean rel of 32-B aligned offsets touching more lines than offset 0"});
  g.add_term(p, "line_aligned_mean_relative",
             {"aligned", "mean rel of other offsets with offset 0's sectors and lines"});
  g.add_term(p, "worst_relative_bandwidth", {"worst", "lowest rel of the sweep"});
  g.add_term(p, "worst_at", {"at", "offset or stride of the worst rel, elements"});
  g.add_term(p, "model_at_worst", {"mdl@w", "sector model at the worst point"});
  g.add_term(p, "model_dram_at_worst", {"DRAM@w", "DRAM model at the worst point"});
}

}  // namespace gpuprobe::coalescing
