// transfer's analysis: fits per curve, ratios to pageable, link bytes, and their findings.
#include "analysis.hpp"
#include "findings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <span>
#include <string_view>
#include <tuple>
#include <vector>

#include "gpuprobe/core/counter_agreement.hpp"
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

std::vector<Param> curve_params(const Curve& c) {
  return {{"memory", c.memory, ""}, {"direction", c.direction, ""}};
}

// Sizes from the fit are per direction, like the rows' `bytes`.
double per_direction(const Curve& c) {
  return c.direction == "bidir" ? 0.5 : 1.0;
}

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

// The measured points of each curve, and the curves in the order their rows came.
struct Curves {
  std::vector<Curve> order;
  std::map<Curve, std::vector<Point>> points;
};

Curves collect_curves(ProbeResult& result) {
  Curves curves;
  for (auto& row : result.rows) {
    const Metric* bw = find_metric(row, "bandwidth");
    const Metric* time = find_metric(row, "time");
    const Param* bytes = find_param(row.params, "bytes");
    if (!bw || !time || !bytes) continue;  // a planned row
    const Curve c{text_param_of(row, "memory").value_or(""),
                  text_param_of(row, "direction").value_or("")};
    if (!curves.points.count(c)) curves.order.push_back(c);
    const double b = static_cast<double>(std::get<std::int64_t>(bytes->value));
    curves.points[c].push_back(
        {&row, b, c.direction == "bidir" ? 2 * b : b, bw->stats.median, time->stats.median});
  }
  return curves;
}

// The point of the largest size (the last of equal sizes).
const Point* largest_point(const std::vector<Point>& points) {
  const Point* big = &points.front();
  for (const auto& p : points) {
    if (p.bytes >= big->bytes) big = &p;
  }
  return big;
}

// Fits one curve: its summary row (without the largest size's bandwidth), the fit beside each
// row, and the fit's finding (pinned curves) or why there is none.
SummaryRow fit_curve(ProbeResult& result, const Curve& c, const std::vector<Point>& points) {
  std::vector<SizeTime> st;
  for (const auto& p : points)
    st.push_back({p.moved, p.median_s});
  std::string why;
  const auto fit = fit_latency_bandwidth(std::span<const SizeTime>(st.data(), st.size()), &why);
  SummaryRow s;
  s.params = curve_params(c);
  if (!fit) {
    s.values = {{"latency", "s", std::nullopt},
                {"fit_bandwidth", "GB/s", std::nullopt},
                {"half_bandwidth_size", "B", std::nullopt},
                {"fit_rms_error", "%", std::nullopt}};
    result.findings.push_back(kNoFit.make(kMemory(c.memory), kDirection(c.direction), kWhy(why)));
    return s;
  }
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
        kPinnedFit.make(kDirection(c.direction), kFitBandwidth(fit->bandwidth_Bps / kBytesPerGB),
                        kLatency(fit->latency_s),
                        kHalfBandwidthSize(fit->half_bandwidth_bytes * per_direction(c))));
  }
  return s;
}

// Fits every curve (summary rows in curve order); returns each curve's largest point.
std::map<Curve, const Point*> fit_curves(ProbeResult& result, Curves& curves) {
  std::map<Curve, const Point*> largest;
  for (const Curve& c : curves.order) {
    const auto& points = curves.points[c];
    const Point* big = largest_point(points);
    largest[c] = big;
    SummaryRow s = fit_curve(result, c, points);
    s.values.push_back({"largest_size_bandwidth", "GB/s", big->median_gbps});
    result.summary.push_back(std::move(s));
  }
  return largest;
}

// PCIe counters: bytes on the link per payload byte, measured only (no model to compare): the
// columns of each row with counters, and the finding over them all (none without counters).
std::vector<Finding> link_findings(Curves& curves) {
  LinkRange all, large;
  for (const Curve& c : curves.order) {
    for (const auto& p : curves.points[c]) {
      if (!p.row->counters) continue;
      const auto ratio = add_link_columns(p, c);
      if (!ratio) continue;
      all.add(p, *ratio);
      if (p.bytes >= kLargeCopy) large.add(p, *ratio);
    }
  }
  std::vector<Finding> findings;
  if (all.rows == 0) return findings;
  const auto of_large = [&](double v) {
    return large.rows ? std::optional<double>(v) : std::nullopt;
  };
  const Row& top = *all.highest->row;
  // The highest row is where the extreme lies, not what the finding is about: outcome.
  findings.push_back(kLinkBytes.make(kRows(all.rows), kMin(all.min), kMax(all.max),
                                     kLargeFrom(kLargeCopy), kLargeRows(large.rows),
                                     kLargeMin(of_large(large.min)), kLargeMax(of_large(large.max)),
                                     kMemory(text_param_of(top, "memory").value_or("")),
                                     kDirection(text_param_of(top, "direction").value_or("")),
                                     kBytes(static_cast<std::int64_t>(all.highest->bytes))));
  return findings;
}

// The directions of the curves, in the order they first come.
std::vector<std::string> directions_of(const std::vector<Curve>& order) {
  std::vector<std::string> directions;
  for (const Curve& c : order) {
    if (std::find(directions.begin(), directions.end(), c.direction) == directions.end())
      directions.push_back(c.direction);
  }
  return directions;
}

// Each memory kind against pageable at the largest size of the same direction, measured: a
// summary row each, and a finding for pinned.
std::vector<Finding> ratio_findings(ProbeResult& result, const std::vector<Curve>& order,
                                    std::map<Curve, const Point*>& largest) {
  std::vector<Finding> findings;
  for (const auto& dir : directions_of(order)) {
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
        findings.push_back(kPinnedOverPageable.make(
            kDirection(dir), kBytes(static_cast<std::int64_t>(other->bytes)),
            kPinnedBandwidth(other->median_gbps), kPageableBandwidth(page->median_gbps),
            kRatio(other->median_gbps / page->median_gbps)));
      }
    }
  }
  return findings;
}

// The PCIe link's raw ceiling as a condition and a note, or a note that it is unknown.
void add_link(ProbeResult& result, const Link& link) {
  const double raw = models::pcie_raw_gbps(link.gts_per_lane, link.width);
  if (raw > 0) {
    result.conditions.push_back({"pcie_raw_limit", "GB/s", raw});
    result.findings.push_back(
        kPcieLink.make(kGeneration(models::pcie_generation(link.gts_per_lane)), kLanes(link.width),
                       kRawBandwidth(raw)));
  } else {
    result.findings.push_back(kPcieLinkUnknown.make());
  }
}

}  // namespace

void analyse(ProbeResult& result, const Link& link) {
  Curves curves = collect_curves(result);
  auto largest = fit_curves(result, curves);
  const std::vector<Finding> on_link = link_findings(curves);
  const std::vector<Finding> ratios = ratio_findings(result, curves.order, largest);
  // The ratios lead: they answer "how much does pinning buy here".
  result.findings.insert(result.findings.begin(), ratios.begin(), ratios.end());
  result.findings.insert(result.findings.end(), on_link.begin(), on_link.end());
  add_link(result, link);
}

}  // namespace gpuprobe::transfer
