// transfer's analysis: fits per curve, ratios to pageable, findings, and their sentences.
#include "analysis.hpp"

#include <fmt/format.h>

#include <map>
#include <optional>
#include <span>
#include <string_view>
#include <tuple>
#include <vector>

#include "gpuprobe/core/counter_check.hpp"
#include "gpuprobe/core/fit.hpp"
#include "gpuprobe/core/samples.hpp"
#include "gpuprobe/core/units.hpp"
#include "gpuprobe/models/transfer_model.hpp"

namespace gpuprobe::transfer {
namespace {

struct Curve {
  std::string memory;
  std::string direction;
  bool operator<(const Curve& o) const {
    return std::tie(memory, direction) < std::tie(o.memory, o.direction);
  }
};

// A measured point of a curve.
struct Point {
  Row* row;
  double bytes;  // per direction, as the row's `bytes`
  double moved;  // bytes one operation moves: both directions for bidir
  double median_gbps;
  double median_s;
};

std::string text_param(const Row& row, const char* key) {
  const Param* p = find_param(row.params, key);
  return p ? scalar_text(p->value) : std::string();
}

std::vector<Param> curve_params(const Curve& c) {
  return {{"memory", c.memory, ""}, {"direction", c.direction, ""}};
}

// Sizes from the fit are per direction, like the rows' `bytes`.
double per_direction(const Curve& c) {
  return c.direction == "bidir" ? 0.5 : 1.0;
}

// PCIe counters (device-wide) over one repetition: one cudaMemcpyAsync per lane.
constexpr std::string_view kPcieRead = "pcie__read_bytes.sum";    // the GPU read host memory
constexpr std::string_view kPcieWrite = "pcie__write_bytes.sum";  // the GPU wrote host memory
// From this size on, fixed per-copy traffic on the link is far below the 5% the findings of
// other probes use; the link-bytes verdict states these rows on their own.
constexpr double kLargeCopy = 64.0 * 1024 * 1024;

// The extremes of link bytes per payload over some rows.
struct LinkRange {
  std::size_t rows = 0;
  double min = 0;
  double max = 0;
  const Point* highest = nullptr;
  void add(const Point& p, double ratio) {
    if (rows == 0 || ratio < min) min = ratio;
    if (rows == 0 || ratio > max) {
      max = ratio;
      highest = &p;
    }
    ++rows;
  }
};

// Bytes on the link per payload byte, from the PCIe counters of a row that has them: the
// direction(s) the copy uses, and (h2d, d2h) the opposite direction. No model predicts them:
// the counters count payload at 512-B granularity, so about 1 is expected for large copies.
std::optional<double> add_link_columns(const Point& p, const Curve& c) {
  Row& row = *p.row;
  const bool h2d = c.direction != "d2h";
  const bool d2h = c.direction != "h2d";
  const auto read = counter_value(row, kPcieRead);
  const auto write = counter_value(row, kPcieWrite);
  std::optional<double> on_link = 0.0;
  if (h2d) on_link = sum_of(on_link, read);
  if (d2h) on_link = sum_of(on_link, write);
  const auto ratio = ratio_of(on_link, p.moved);
  row.derived.push_back({"link_bytes_per_payload", "x", ratio});
  if (h2d != d2h)
    row.derived.push_back(
        {"reverse_link_bytes_per_payload", "x", ratio_of(h2d ? write : read, p.bytes)});
  return ratio;
}

}  // namespace

void analyse(ProbeResult& result, const Link& link) {
  // Curves in the order their rows came.
  std::vector<Curve> order;
  std::map<Curve, std::vector<Point>> curves;
  for (auto& row : result.rows) {
    const Metric* bw = find_metric(row, "bandwidth");
    const Metric* time = find_metric(row, "time");
    const Param* bytes = find_param(row.params, "bytes");
    if (!bw || !time || !bytes) continue;  // a planned row
    const Curve c{text_param(row, "memory"), text_param(row, "direction")};
    if (!curves.count(c)) order.push_back(c);
    const double b = static_cast<double>(std::get<std::int64_t>(bytes->value));
    curves[c].push_back(
        {&row, b, c.direction == "bidir" ? 2 * b : b, bw->stats.median, time->stats.median});
  }

  std::map<Curve, const Point*> largest;
  for (const Curve& c : order) {
    const auto& points = curves[c];
    const Point* big = &points.front();
    for (const auto& p : points) {
      if (p.bytes >= big->bytes) big = &p;
    }
    largest[c] = big;
    std::vector<SizeTime> st;
    for (const auto& p : points)
      st.push_back({p.moved, p.median_s});
    std::string why;
    const auto fit = fit_latency_bandwidth(std::span<const SizeTime>(st.data(), st.size()), &why);
    SummaryRow s;
    s.params = curve_params(c);
    if (fit) {
      s.values = {{"latency", "s", fit->latency_s},
                  {"fit_bandwidth", "GB/s", fit->bandwidth_Bps / kBytesPerGB},
                  {"half_bandwidth_size", "B", fit->half_bandwidth_bytes * per_direction(c)},
                  {"fit_rms_error", "%", fit->rms_rel_residual * 100}};
      for (const auto& p : points) {
        p.row->model.push_back(
            {"fit_bandwidth", "GB/s",
             p.moved / (fit->latency_s + p.moved / fit->bandwidth_Bps) / kBytesPerGB});
      }
      if (c.memory == "pinned") {
        result.findings.push_back(
            verdict("transfer_pinned_fit", {{"direction", c.direction, ""}},
                    {{"fit_bandwidth", "GB/s", fit->bandwidth_Bps / kBytesPerGB},
                     {"latency", "s", fit->latency_s},
                     {"half_bandwidth_size", "B", fit->half_bandwidth_bytes * per_direction(c)}}));
      }
    } else {
      s.values = {{"latency", "s", std::nullopt},
                  {"fit_bandwidth", "GB/s", std::nullopt},
                  {"half_bandwidth_size", "B", std::nullopt},
                  {"fit_rms_error", "%", std::nullopt}};
      auto params = curve_params(c);
      params.push_back({"why", why, ""});
      result.findings.push_back(note("transfer_no_fit", std::move(params), {}));
    }
    s.values.push_back({"largest_size_bandwidth", "GB/s", big->median_gbps});
    result.summary.push_back(std::move(s));
  }

  // PCIe counters: bytes on the link per payload byte, measured only (no model to compare).
  LinkRange all, large;
  for (const Curve& c : order) {
    for (const auto& p : curves[c]) {
      if (!p.row->counters) continue;
      const auto ratio = add_link_columns(p, c);
      if (!ratio) continue;
      all.add(p, *ratio);
      if (p.bytes >= kLargeCopy) large.add(p, *ratio);
    }
  }
  std::vector<Finding> link_findings;
  if (all.rows > 0) {
    const auto of_large = [&](double v) {
      return large.rows ? std::optional<double>(v) : std::nullopt;
    };
    const Row& top = *all.highest->row;
    // The highest row is where the extreme lies, not what the finding is about: outcome.
    link_findings.push_back(
        verdict("transfer_link_bytes", {},
                {{"rows", "", static_cast<double>(all.rows)},
                 {"min", "x", all.min},
                 {"max", "x", all.max},
                 {"large_from", "B", kLargeCopy},
                 {"large_rows", "", static_cast<double>(large.rows)},
                 {"large_min", "x", of_large(large.min)},
                 {"large_max", "x", of_large(large.max)}},
                {{"memory", text_param(top, "memory"), ""},
                 {"direction", text_param(top, "direction"), ""},
                 {"bytes", static_cast<std::int64_t>(all.highest->bytes), "B"}}));
  }

  // Each memory kind against pageable at the largest size of the same direction, measured.
  std::vector<std::string> directions;
  for (const Curve& c : order) {
    if (std::find(directions.begin(), directions.end(), c.direction) == directions.end())
      directions.push_back(c.direction);
  }
  std::vector<Finding> ratio_findings;
  for (const auto& dir : directions) {
    const auto base = largest.find({"pageable", dir});
    if (base == largest.end()) continue;
    for (const Curve& c : order) {
      if (c.direction != dir || c.memory == "pageable") continue;
      const Point* other = largest[c];
      const Point* page = base->second;
      SummaryRow s;
      s.params = {{"memory", fmt::format("{} ÷ pageable", c.memory), ""},
                  {"direction", dir, ""},
                  {"bytes", static_cast<std::int64_t>(other->bytes), "B"}};
      s.values = {{"ratio", "x", other->median_gbps / page->median_gbps}};
      result.summary.push_back(std::move(s));
      if (c.memory == "pinned") {
        ratio_findings.push_back(verdict(
            "transfer_pinned_over_pageable",
            {{"direction", dir, ""}, {"bytes", static_cast<std::int64_t>(other->bytes), "B"}},
            {{"pinned_bandwidth", "GB/s", other->median_gbps},
             {"pageable_bandwidth", "GB/s", page->median_gbps},
             {"ratio", "x", other->median_gbps / page->median_gbps}}));
      }
    }
  }
  // The ratios lead: they answer "how much does pinning buy here".
  result.findings.insert(result.findings.begin(), ratio_findings.begin(), ratio_findings.end());

  result.findings.insert(result.findings.end(), link_findings.begin(), link_findings.end());

  const double raw = models::pcie_raw_gbps(link.gts_per_lane, link.width);
  if (raw > 0) {
    result.conditions.push_back({"pcie_raw_limit", "GB/s", raw});
    result.findings.push_back(
        note("transfer_pcie_link", {},
             {{"generation", "", static_cast<double>(models::pcie_generation(link.gts_per_lane))},
              {"lanes", "", static_cast<double>(link.width)},
              {"raw_bandwidth", "GB/s", raw}}));
  } else {
    result.findings.push_back(note("transfer_pcie_link_unknown", {}, {}));
  }
}

void add_words(Glossary& g) {
  g.add_phrasing("transfer_pinned_over_pageable", [](const Finding& f) {
    return fmt::format("{}: pinned {} vs pageable {} at {} — pinned is {:.2f}x pageable (measured)",
                       param_text_of(f, "direction"), value_text(f, "pinned_bandwidth"),
                       value_text(f, "pageable_bandwidth"), param_text_of(f, "bytes"),
                       value_of(f, "ratio"));
  });
  g.add_phrasing("transfer_pinned_fit", [](const Finding& f) {
    return fmt::format("pinned {}: {} asymptotic, {} per copy, half of it reached at {}",
                       param_text_of(f, "direction"), value_text(f, "fit_bandwidth"),
                       value_text(f, "latency"), value_text(f, "half_bandwidth_size"));
  });
  g.add_phrasing("transfer_no_fit", [](const Finding& f) {
    return fmt::format("no fit for {} {}: {}", param_text_of(f, "memory"),
                       param_text_of(f, "direction"), param_text_of(f, "why"));
  });
  g.add_phrasing("transfer_pcie_link", [](const Finding& f) {
    return fmt::format(
        "link: PCIe gen {:g} x{:g} = {} per direction after line encoding, before packet "
        "overhead (model ceiling for h2d/d2h; bidir up to twice that)",
        value_of(f, "generation"), value_of(f, "lanes"), value_text(f, "raw_bandwidth"));
  });
  g.add_phrasing("transfer_pcie_link_unknown", [](const Finding&) {
    return std::string(
        "PCIe link speed/width not readable from sysfs here (VM?): no link ceiling shown");
  });
  g.add_phrasing("transfer_link_bytes", [](const Finding& f) {
    const auto range = [&](const char* lo, const char* hi) {
      const double a = value_of(f, lo), b = value_of(f, hi);
      return fmt::format("{:.3f}{}x", a,
                         fmt::format("{:.3f}", a) == fmt::format("{:.3f}", b)
                             ? std::string()
                             : fmt::format("-{:.3f}", b));
    };
    const double large = value_of(f, "large_rows");
    const std::string big =
        large > 0
            ? fmt::format("{} on the {:g} row{} of {} and more; ", range("large_min", "large_max"),
                          large, large == 1 ? "" : "s", value_text(f, "large_from"))
            : std::string();
    const double n = value_of(f, "rows");
    return fmt::format(
        "PCIe counters: bytes on the link / payload {}{} over {} {:g} row{} with counters "
        "(highest: "
        "{} {} {}); no model predicts it: the counters count payload at 512-B granularity, "
        "device-wide, so about 1 is expected where the copy dwarfs other traffic",
        big, range("min", "max"), n == 1 ? "the" : "all", n, n == 1 ? "" : "s",
        param_text_of(f, "memory"), param_text_of(f, "direction"), param_text_of(f, "bytes"));
  });
  g.add_term("transfer", "link_bytes_per_payload",
             {"link/pay", "counters: PCIe bytes in the copy's direction(s) / payload bytes"});
  g.add_term("transfer", "reverse_link_bytes_per_payload",
             {"rev/pay", "counters: PCIe bytes in the other direction / payload bytes"});
  g.add_term("transfer", "model.fit_bandwidth",
             {"fit", "model: the fitted t = latency + bytes/bandwidth at this size, GB/s"});
  g.add_term("transfer", "bandwidth_h2d", {"h2d GB/s", "bandwidth of bidir's h2d lane"});
  g.add_term("transfer", "bandwidth_d2h", {"d2h GB/s", "bandwidth of bidir's d2h lane"});
  g.add_term("transfer", "summary.fit_bandwidth", {"fit GB/s", "asymptotic bandwidth of the fit"});
  g.add_term("transfer", "summary.half_bandwidth_size",
             {"half-bw size", "size reaching half the fit bandwidth (per direction)"});
  g.add_term("transfer", "summary.fit_rms_error", {"fit err", "rms relative error of the fit"});
  g.add_term("transfer", "summary.largest_size_bandwidth",
             {"GB/s @max", "measured bandwidth at the largest size"});
}

}  // namespace gpuprobe::transfer
