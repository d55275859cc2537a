// zerocopy's finding builders (host-only): break-even reuse per pattern, read/write once against
// the explicit copy, the strided collapse beside the link bytes, bytes in flight, the counters.
#include <algorithm>
#include <map>
#include <tuple>

#include "gpuprobe/core/counter_check.hpp"
#include "gpuprobe/core/decide.hpp"
#include "gpuprobe/core/samples.hpp"
#include "internal.hpp"

namespace gpuprobe::zerocopy {
namespace {

// An access pattern: what stays fixed while the reuse count varies.
struct Pattern {
  std::string direction;
  std::string memory;
  std::uint64_t stride;
  int width;
  bool operator<(const Pattern& o) const {
    return std::tie(direction, memory, stride, width) <
           std::tie(o.direction, o.memory, o.stride, o.width);
  }
};

Pattern pattern_of(const Measured& m) {
  return {m.direction, m.memory, m.stride, m.width};
}

std::vector<Param> pattern_params(const Pattern& p) {
  return {text("direction", p.direction), text("memory", p.memory), count("stride", p.stride),
          count("element_bytes", static_cast<std::uint64_t>(p.width), "B")};
}

// The row of `mode` in the main sweep with this pattern and reuse; nullptr when not measured.
const Measured* find_main(const std::vector<Measured>& all, const std::string& mode,
                          const Pattern& p, std::uint64_t reuse) {
  for (const auto* m : main_rows(all, mode)) {
    if (m->reuse == reuse && !(pattern_of(*m) < p) && !(p < pattern_of(*m))) return m;
  }
  return nullptr;
}

std::optional<double> some(bool known, double v) {
  return known ? std::optional<double>(v) : std::nullopt;
}

// PCIe bytes in the row's direction (read rows: the GPU read host memory), from its counters.
std::optional<double> link_counter(const Measured& m) {
  return counter_value(*m.row, m.direction == "write" ? kPcieWrite : kPcieRead);
}

// Which of a zero-copy row and its copy row is faster beyond noise (compare's rule on their
// time metrics, "same" within kAlikeMargin): -1 zero-copy, +1 the copy, 0 alike; nullopt without
// time metrics.
std::optional<int> winner(const Measured& zero_copy, const Measured& copy) {
  const Metric* z = find_metric(*zero_copy.row, "time");
  const Metric* c = find_metric(*copy.row, "time");
  if (!z || !c) return std::nullopt;
  switch (order_of(*z, *c, kAlikeMargin)) {
    case Change::kFaster:
      return -1;
    case Change::kSlower:
      return +1;
    case Change::kSame:
    case Change::kInconclusive:
      return 0;
    default:
      return std::nullopt;
  }
}

}  // namespace

void break_even_findings(ProbeResult& result, const std::vector<Measured>& all) {
  std::map<Pattern, std::vector<ReusePoint>> patterns;
  std::vector<Pattern> order;
  for (const auto* z : main_rows(all, kZeroCopy)) {
    const Pattern p = pattern_of(*z);
    const Measured* c = find_main(all, kCopy, p, z->reuse);
    if (!c) continue;
    if (!patterns.count(p)) order.push_back(p);
    patterns[p].push_back({static_cast<double>(z->reuse), z->time_s, c->time_s, winner(*z, *c)});
  }
  for (const Pattern& p : order) {
    auto points = patterns[p];
    std::sort(points.begin(), points.end(),
              [](const ReusePoint& a, const ReusePoint& b) { return a.reuse < b.reuse; });
    const BreakEven be = break_even(points);
    const ReusePoint& first = points.front();
    const ReusePoint& last = points.back();
    SummaryRow s;
    s.params = pattern_params(p);
    s.values = {{"break_even_reuse", "", be.reuse},
                {"copy_over_zerocopy_first", "x", first.copy_s / first.zero_copy_s},
                {"copy_over_zerocopy_last", "x", last.copy_s / last.zero_copy_s}};
    result.summary.push_back(std::move(s));
    result.findings.push_back(verdict("zerocopy_break_even", pattern_params(p),
                                      {{"break_even_reuse", "", be.reuse},
                                       {"min_reuse", "", first.reuse},
                                       {"max_reuse", "", last.reuse},
                                       {"points", "", static_cast<double>(points.size())},
                                       {"speedup_first", "x", first.copy_s / first.zero_copy_s},
                                       {"speedup_last", "x", last.copy_s / last.zero_copy_s},
                                       {"alike_until", "", be.alike_until}},
                                      {text("result", break_even_kind_name(be.kind))}));
  }
}

void once_findings(const std::vector<Measured>& all, std::vector<Finding>& out) {
  for (const auto* mc : main_rows(all, kMemcpy)) {
    // The widest coalesced zero-copy row of this direction and memory at the smallest reuse.
    const Measured* best = nullptr;
    for (const auto* z : main_rows(all, kZeroCopy)) {
      if (z->direction != mc->direction || z->memory != mc->memory || z->stride != 1) continue;
      if (!best || z->reuse < best->reuse || (z->reuse == best->reuse && z->width > best->width))
        best = z;
    }
    if (!best || best->reuse != 1) continue;
    const Measured* copy = find_main(all, kCopy, pattern_of(*best), 1);
    out.push_back(
        verdict("zerocopy_once_vs_memcpy",
                {text("direction", mc->direction), text("memory", mc->memory),
                 count("element_bytes", static_cast<std::uint64_t>(best->width), "B"),
                 count("bytes", best->bytes, "B")},
                {{"zerocopy_bandwidth", "GB/s", best->gbps},
                 {"memcpy_bandwidth", "GB/s", mc->gbps},
                 {"ratio", "x", best->gbps / mc->gbps},
                 {"copy_mode_bandwidth", "GB/s", some(copy != nullptr, copy ? copy->gbps : 0)}}));
  }
}

void stride_findings(const std::vector<Measured>& all, std::vector<Finding>& out) {
  for (const auto* z : main_rows(all, kZeroCopy)) {
    if (z->stride == 1 || z->reuse != 1) continue;
    Pattern base = pattern_of(*z);
    base.stride = 1;
    const Measured* b = find_main(all, kZeroCopy, base, 1);
    if (!b) continue;
    const models::LinkTraffic model = models::link_traffic(access_of(*z), is_write(*z));
    const models::LinkTraffic model_base = models::link_traffic(access_of(*b), is_write(*b));
    const double per = static_cast<double>(model.link_bytes) / static_cast<double>(z->bytes);
    const double per_base =
        static_cast<double>(model_base.link_bytes) / static_cast<double>(b->bytes);
    const auto counter = ratio_of(link_counter(*z), static_cast<double>(z->bytes));
    const auto counter_base = ratio_of(link_counter(*b), static_cast<double>(b->bytes));
    out.push_back(verdict(
        "zerocopy_stride_collapse",
        {text("direction", z->direction), text("memory", z->memory),
         count("element_bytes", static_cast<std::uint64_t>(z->width), "B"),
         count("stride", z->stride)},
        {{"bandwidth", "GB/s", z->gbps},
         {"base_bandwidth", "GB/s", b->gbps},
         {"relative", "x", z->gbps / b->gbps},
         {"model_relative", "x", per_base / per},
         {"model_link_bytes_per_payload", "x", per},
         {"link_bytes_per_payload", "x", counter},
         {"base_link_bytes_per_payload", "x", counter_base},
         {"link_bandwidth", "GB/s", ratio_of(link_counter(*z), z->time_s * kBytesPerGB)},
         {"base_link_bandwidth", "GB/s", ratio_of(link_counter(*b), b->time_s * kBytesPerGB)},
         {"tlp_rate", "/s", static_cast<double>(model.tlps) / z->time_s},
         {"base_tlp_rate", "/s", static_cast<double>(model_base.tlps) / b->time_s}}));
  }
}

void in_flight_findings(const std::vector<Measured>& all, std::vector<Finding>& out) {
  std::vector<const Measured*> sweep;
  for (const auto& m : all) {
    if (m.blocks) sweep.push_back(&m);
  }
  if (sweep.empty()) return;
  std::sort(sweep.begin(), sweep.end(),
            [](const Measured* a, const Measured* b) { return *a->blocks < *b->blocks; });
  const auto in_flight = [](const Measured& m) {
    const Quantity* q = find_quantity(m.row->derived, "bytes_in_flight");
    return q && q->value ? *q->value : 0.0;
  };
  const Measured& low = *sweep.front();
  double peak = 0;
  for (const auto* m : sweep)
    peak = std::max(peak, m->gbps);
  Pattern full_pattern = pattern_of(low);
  const Measured* full = find_main(all, kZeroCopy, full_pattern, low.reuse);
  if (full) peak = std::max(peak, full->gbps);
  const Measured* reached = nullptr;
  for (const auto* m : sweep) {
    if (!reached && m->gbps >= kReachedFraction * peak) reached = m;
  }
  const double latency = in_flight(low) / (low.gbps * kBytesPerGB);
  out.push_back(verdict(
      "zerocopy_in_flight",
      {text("direction", low.direction), text("memory", low.memory),
       count("element_bytes", static_cast<std::uint64_t>(low.width), "B")},
      {{"smallest_blocks", "", static_cast<double>(*low.blocks)},
       {"smallest_in_flight", "B", in_flight(low)},
       {"smallest_bandwidth", "GB/s", low.gbps},
       {"latency", "s", latency},
       {"peak_bandwidth", "GB/s", peak},
       {"needed_in_flight", "B", peak * kBytesPerGB * latency},
       {"reached_fraction", "%", kReachedFraction * 100},
       {"reached_blocks", "", some(reached, reached ? static_cast<double>(*reached->blocks) : 0)},
       {"reached_in_flight", "B", some(reached, reached ? in_flight(*reached) : 0)},
       {"full_bandwidth", "GB/s", some(full, full ? full->gbps : 0)}}));
}

void counter_findings(std::vector<Measured>& all, const RunFacts& facts,
                      std::vector<Finding>& out) {
  // The model's bytes per isolated access in each direction (a read fetches a sector).
  const std::map<std::string, std::pair<double, double>> model_access = {
      {"read", {models::kZeroCopySectorBytes, models::kCompletionHeaderBytes}},
      {"write", {0, models::kRequestHeaderBytes}}};
  CounterCheck check("zerocopy_counter_link_bytes", "x");
  struct Range {
    std::size_t rows = 0;
    double min = 0, max = 0;
    std::vector<int> widths;
  };
  std::map<std::string, Range> per_access;  // by direction
  for (auto& m : all) {
    if (!m.row->counters) continue;
    const auto counter = link_counter(m);
    const auto ratio = ratio_of(counter, static_cast<double>(m.bytes));
    if (m.mode == kMemcpy || m.blocks) {
      m.row->derived.push_back({"link_bytes_per_payload_counter", "x", ratio});
      continue;
    }
    const models::HostAccess a = access_of(m);
    check.add(*m.row, "link_bytes_per_payload_counter", ratio,
              models::link_bytes_per_payload(a, is_write(m)));
    const bool isolated = static_cast<std::uint64_t>(m.width) * m.stride >= kIsolatedSpacing;
    if (m.mode != kZeroCopy || !isolated) continue;
    const auto per = ratio_of(counter, static_cast<double>(a.elements * a.reuse));
    m.row->derived.push_back({"bytes_per_access_counter", "B", per});
    if (!per) continue;
    Range& r = per_access[m.direction];
    r.widths.push_back(m.width);
    r.min = r.rows ? std::min(r.min, *per) : *per;
    r.max = r.rows ? std::max(r.max, *per) : *per;
    ++r.rows;
  }
  if (auto f = check.finding()) out.push_back(*f);
  for (const auto& [direction, r] : per_access) {
    const auto [data, header] = model_access.at(direction);
    const auto [lo, hi] = std::minmax_element(r.widths.begin(), r.widths.end());
    // Writes carry the element itself: the model's range spans the widths measured.
    const double model_min = (data > 0 ? data : *lo) + header;
    const double model_max = (data > 0 ? data : *hi) + header;
    out.push_back(verdict(
        "zerocopy_access_bytes", {text("direction", direction)},
        {{"rows", "", static_cast<double>(r.rows)},
         {"min", "B", r.min},
         {"max", "B", r.max},
         {"model_min", "B", model_min},
         {"model_max", "B", model_max},
         {"header", "B", header},
         {"fetch_granularity", "B",
          facts.reported_fetch ? std::optional<double>(static_cast<double>(*facts.reported_fetch))
                               : std::nullopt},
         {"spacing_from", "B", static_cast<double>(kIsolatedSpacing)}}));
  }
}

}  // namespace gpuprobe::zerocopy
