// coalescing's finding builders (host-only): offset classes and their costs, strides against
// both models, the extremes, the sizing, and the plan's notes.
#include <fmt/format.h>

#include <algorithm>

#include "gpuprobe/core/decide.hpp"
#include "internal.hpp"

namespace gpuprobe::coalescing {
namespace {

// The verdict on one offset class against offset 0's sectors `bs` and lines `bl`.
Finding offset_class_finding(int w, const OffsetClass& c, double bs, double bl, int fetch) {
  std::vector<std::uint64_t> offsets;
  double lo = kInf, hi = 0, dram_lo = kInf, dram_hi = 0;
  for (const auto* m : c.members) {
    offsets.push_back(m->param);
    lo = std::min(lo, rel(*m));
    hi = std::max(hi, rel(*m));
    dram_lo = std::min(dram_lo, m->model.predicted_relative_bandwidth_dram);
    dram_hi = std::max(dram_hi, m->model.predicted_relative_bandwidth_dram);
  }
  return verdict("coalescing_offset_class", {width_param(w), {"offsets", int_list(offsets), ""}},
                 {{"count", "", static_cast<double>(c.members.size())},
                  {"sectors_per_request", "sectors", c.sectors},
                  {"lines_per_request", "lines", c.lines},
                  {"baseline_sectors", "sectors", bs},
                  {"baseline_lines", "lines", bl},
                  {"relative_mean", "x", mean_of(c.members, rel)},
                  {"relative_min", "x", lo},
                  {"relative_max", "x", hi},
                  {"model_relative", "x", c.members.front()->model.predicted_relative_bandwidth},
                  {"model_dram_min", "x", dram_lo},
                  {"model_dram_max", "x", dram_hi},
                  {"fetch_bytes", "B", static_cast<double>(fetch)}});
}

// The measured cost of one more sector (same lines) or line (same sectors), over every pair.
void offset_cost_findings(int w, const std::vector<const OffsetClass*>& ordered,
                          std::vector<Finding>& out) {
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

// The headline strides of one width (sorted by stride) beside both models; nullopt when none
// of them was measured.
std::optional<Finding> strides_finding(int w, const std::vector<const Measured*>& group,
                                       int fetch) {
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
  if (!any) return std::nullopt;
  return verdict("coalescing_strides", {width_param(w)}, std::move(values));
}

// Measured / DRAM model, by stride (sorted): the first stride below kModelShortfall and what
// precedes it, or that the model holds at every stride.
Finding dram_model_finding(int w, const std::vector<const Measured*>& group) {
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
  if (!first_short)
    return verdict("coalescing_stride_dram_model_holds", {width_param(w)},
                   {{"ratio_min", "x", lo}, {"ratio_max", "x", hi}});
  auto ok = [&](double v) { return last_ok ? std::optional<double>(v) : std::nullopt; };
  const auto wd = static_cast<double>(w);
  return verdict(
      "coalescing_stride_leaves_dram_model", {width_param(w)},
      {{"ratio_min", "x", ok(lo)},
       {"ratio_max", "x", ok(hi)},
       {"holds_up_to", "elements", ok(last_ok ? static_cast<double>(last_ok->param) : 0)},
       {"holds_up_to_spacing", "B", ok(last_ok ? static_cast<double>(last_ok->param) * wd : 0)},
       {"short_from", "elements", static_cast<double>(first_short->param)},
       {"short_from_spacing", "B", static_cast<double>(first_short->param) * wd},
       {"lowest_ratio", "x", ratio(*lowest)},
       {"lowest_at", "elements", static_cast<double>(lowest->param)},
       {"shortfall", "%", (1 - kModelShortfall) * 100}});
}

// The params naming one point in a finding about two points ("worst_pattern", "worst_at", ...).
void add_point_params(std::vector<Param>& params, const std::string& prefix, const Measured& m) {
  params.push_back({prefix + "_pattern", std::string(pattern_name(m.pattern)), ""});
  params.push_back({prefix + "_at", static_cast<std::int64_t>(m.param), ""});
  params.push_back({prefix + "_element_bytes", static_cast<std::int64_t>(m.width), "B"});
}

// The highest and lowest points of one measured quantity, each as the set of points alike to it
// within noise (alike_to_extreme, in sweep order), and the extreme medians.
struct Extremes {
  std::vector<std::size_t> high, low;
  double high_value = 0, low_value = 0;
};
Extremes extremes_of(const std::vector<Metric>& metrics) {
  std::vector<const Metric*> ptrs;
  for (const auto& m : metrics)
    ptrs.push_back(&m);
  Extremes e;
  e.high = alike_to_extreme(ptrs, Extreme::kHighest);
  e.low = alike_to_extreme(ptrs, Extreme::kLowest);
  e.high_value = e.low_value = metrics.front().stats.median;
  for (const auto& m : metrics) {
    e.high_value = std::max(e.high_value, m.stats.median);
    e.low_value = std::min(e.low_value, m.stats.median);
  }
  return e;
}

// An extreme's params (in the outcome): the first point of its alike set in sweep order names
// it, so points the noise cannot tell apart do not take turns; with more than one, the others as
// "<prefix>_alike_with" ("offset 16, 16 B; stride 1, 16 B").
void add_extreme_params(std::vector<Param>& params, const std::string& prefix,
                        const std::vector<Measured>& measured,
                        const std::vector<std::size_t>& alike) {
  add_point_params(params, prefix, measured[alike.front()]);
  if (alike.size() < 2) return;
  std::string others;
  for (std::size_t i = 1; i < alike.size(); ++i) {
    const Measured& m = measured[alike[i]];
    others += fmt::format("{}{} {}, {} B", others.empty() ? "" : "; ", pattern_name(m.pattern),
                          m.param, m.width);
  }
  params.push_back({prefix + "_alike_with", others, ""});
}

// The notes on the L2 size and fetch granularity the driver did (not) report.
void device_findings(const RunFacts& facts, std::vector<Finding>& out) {
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
}

// The points dropped for the memory cap, and the strides run with a smaller N, per width.
void cap_findings(const Sizing& z, std::vector<Finding>& out) {
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
  for (const auto& [w, n] : z.default_elements) {
    std::vector<std::uint64_t> strides, elements;
    for (const auto& c : z.clamped) {
      if (c.element_bytes != w) continue;
      strides.push_back(c.stride);
      elements.push_back(c.elements);
    }
    if (strides.empty()) continue;
    out.push_back(note(
        "coalescing_clamped",
        {width_param(w), {"strides", int_list(strides), ""}, {"elements", int_list(elements), ""}},
        {{"default_elements", "elements", static_cast<double>(n)},
         {"memory_cap", "B", static_cast<double>(z.memory_cap)},
         {"min_working_set", "x", kClampedMinWorkingSet}}));
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
  return warning("coalescing_no_baseline",
                 {{"pattern", std::string(pattern_name(pattern)), ""},
                  {pattern_name(pattern), static_cast<std::int64_t>(baseline_param(pattern)), ""},
                  width_param(w)},
                 {});
}

void extreme_findings(const std::vector<Measured>& measured, const RunFacts& facts,
                      std::vector<Finding>& out) {
  if (measured.empty()) return;
  // Bandwidths, and the DRAM traffic each implies under the DRAM model (flat where it holds).
  std::vector<Metric> bandwidth, implied;
  std::optional<double> base_lo, base_hi;
  for (const auto& m : measured) {
    const Metric* b = find_metric(*m.row, "bandwidth");
    bandwidth.push_back(b ? *b : Metric{"bandwidth", "GB/s", {}, {}});
    bandwidth.back().stats.median = m.median_gbps;
    implied.push_back(
        scaled_metric(bandwidth.back(), implied_dram_gbps(m) / m.median_gbps, "GB/s"));
    if (m.param == baseline_param(m.pattern)) {
      base_lo = std::min(base_lo.value_or(kInf), implied_dram_gbps(m));
      base_hi = std::max(base_hi.value_or(0), implied_dram_gbps(m));
    }
  }
  const Extremes bw = extremes_of(bandwidth);
  if (measured.size() > 1) {
    std::vector<Param> params;
    add_extreme_params(params, "worst", measured, bw.low);
    add_extreme_params(params, "best", measured, bw.high);
    out.push_back(verdict("coalescing_worst_best", {},
                          {{"worst_bandwidth", "GB/s", bw.low_value},
                           {"best_bandwidth", "GB/s", bw.high_value},
                           {"ratio", "x", bw.low_value / bw.high_value},
                           {"worst_alike", "points", static_cast<double>(bw.low.size())},
                           {"best_alike", "points", static_cast<double>(bw.high.size())}},
                          std::move(params)));
  }
  const Extremes dram = extremes_of(implied);
  std::vector<Param> params;
  add_extreme_params(params, "highest", measured, dram.high);
  add_extreme_params(params, "lowest", measured, dram.low);
  out.push_back(verdict(
      "coalescing_implied_dram", {},
      {{"fetch_bytes", "B", static_cast<double>(facts.fetch_bytes)},
       {"baseline_min", "GB/s", base_lo},
       {"baseline_max", "GB/s", base_hi},
       {"highest", "GB/s", dram.high_value},
       {"lowest", "GB/s", dram.low_value},
       {"highest_alike", "points", static_cast<double>(dram.high.size())},
       {"lowest_alike", "points", static_cast<double>(dram.low.size())},
       {"peak_estimate", "GB/s",
        facts.peak_dram_gbps > 0 ? std::optional<double>(facts.peak_dram_gbps) : std::nullopt}},
      std::move(params)));
}

void sizing_findings(const RunFacts& facts, std::optional<double> min_ws,
                     std::vector<Finding>& out) {
  const Sizing& z = facts.sizing;
  device_findings(facts, out);
  cap_findings(z, out);
  std::vector<std::uint64_t> widths, default_n;
  for (const auto& [w, n] : z.default_elements) {
    widths.push_back(static_cast<std::uint64_t>(w));
    default_n.push_back(n);
  }
  out.push_back(note("coalescing_sizing",
                     {{"widths", int_list(widths), ""}, {"elements", int_list(default_n), ""}},
                     {{"l2_multiple", "x", static_cast<double>(z.l2_multiple)},
                      {"l2_size", "B", static_cast<double>(z.l2_bytes)},
                      {"bytes_per_direction", "B", static_cast<double>(z.out_bytes)},
                      {"working_set_over_l2", "x", min_ws}}));
}

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
        {{"pattern", std::string(pattern_name(pattern)), ""}, {"widths", int_list(widths), ""}},
        {}));
  }
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

}  // namespace gpuprobe::coalescing
