// zerocopy's findings (host-only), each declared once (id, kind, fields, sentence), and their
// builders: break-even reuse per pattern, read/write once against the explicit copy, the strided
// collapse beside the link bytes, bytes in flight, the counters, rewritten writes merged before
// the link, the sizing note; last, its words (add_words: the findings and the columns' short
// headers).
#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "gpuprobe/core/counter_agreement.hpp"
#include "gpuprobe/core/decide.hpp"
#include "gpuprobe/core/finding_def.hpp"
#include "gpuprobe/core/samples.hpp"
#include "internal.hpp"

namespace gpuprobe::zerocopy {
namespace {

// The keys of zerocopy's findings.
constexpr Text<"mode"> kMode;
constexpr Text<"memory"> kMemory;
constexpr Text<"direction"> kDirection;
constexpr Int<"reuse"> kReuse;
constexpr Int<"stride"> kStride;
constexpr Size<"element_bytes"> kElementBytes;
constexpr Size<"bytes"> kBytes;
constexpr Text<"result"> kResult;  // break_even_kind_name
constexpr Value<"break_even_reuse"> kBreakEvenReuse;
constexpr Value<"min_reuse"> kMinReuse;
constexpr Value<"max_reuse"> kMaxReuse;
constexpr Value<"points"> kPoints;
constexpr Value<"speedup_first", "x"> kSpeedupFirst;
constexpr Value<"speedup_last", "x"> kSpeedupLast;
constexpr Value<"alike_until"> kAlikeUntil;
constexpr Value<"zerocopy_bandwidth", "GB/s"> kZerocopyBandwidth;
constexpr Value<"memcpy_bandwidth", "GB/s"> kMemcpyBandwidth;
constexpr Value<"ratio", "x"> kRatio;
constexpr Value<"copy_mode_bandwidth", "GB/s"> kCopyModeBandwidth;
constexpr Value<"bandwidth", "GB/s"> kBandwidth;
constexpr Value<"base_bandwidth", "GB/s"> kBaseBandwidth;
constexpr Value<"relative", "x"> kRelative;
constexpr Value<"model_relative", "x"> kModelRelative;
constexpr Value<"model_link_bytes_per_payload", "x"> kModelLinkBytesPerPayload;
constexpr Value<"link_bytes_per_payload", "x"> kLinkBytesPerPayload;
constexpr Value<"base_link_bytes_per_payload", "x"> kBaseLinkBytesPerPayload;
constexpr Value<"link_bandwidth", "GB/s"> kLinkBandwidth;
constexpr Value<"base_link_bandwidth", "GB/s"> kBaseLinkBandwidth;
constexpr Value<"tlp_rate", "/s"> kTlpRate;
constexpr Value<"base_tlp_rate", "/s"> kBaseTlpRate;
constexpr Value<"smallest_blocks"> kSmallestBlocks;
constexpr Value<"smallest_in_flight", "B"> kSmallestInFlight;
constexpr Value<"smallest_bandwidth", "GB/s"> kSmallestBandwidth;
constexpr Value<"latency", "s"> kLatency;
constexpr Value<"peak_bandwidth", "GB/s"> kPeakBandwidth;
constexpr Value<"needed_in_flight", "B"> kNeededInFlight;
constexpr Value<"reached_fraction", "%"> kReachedFractionValue;
constexpr Value<"reached_blocks"> kReachedBlocks;
constexpr Value<"reached_in_flight", "B"> kReachedInFlight;
constexpr Value<"full_bandwidth", "GB/s"> kFullBandwidth;
constexpr Value<"rows"> kRows;
constexpr Value<"min", "B"> kMin;
constexpr Value<"max", "B"> kMax;
constexpr Value<"model_min", "B"> kModelMin;
constexpr Value<"model_max", "B"> kModelMax;
constexpr Value<"header", "B"> kHeader;
constexpr Value<"fetch_granularity", "B"> kFetchGranularity;
constexpr Value<"spacing_from", "B"> kSpacingFrom;
constexpr Value<"span", "B"> kSpan;
constexpr Value<"at_reuse"> kAtReuse;
constexpr Value<"share_crossed", "%"> kShareCrossed;
constexpr Value<"crossed_up_to"> kCrossedUpTo;
constexpr Value<"l2", "B"> kL2;

FindingList zerocopy_findings;

// "hostalloc read, 16 B, stride 1" from a finding's pattern params.
template <class View>
std::string pattern_text(const View& f) {
  return fmt::format("{} {}, {}, stride {}", f[kMemory], f[kDirection],
                     byte_words(f[kElementBytes]), f[kStride]);
}

const auto kOnceVsMemcpy = zerocopy_findings.verdict(
    "zerocopy_once_vs_memcpy", params(kDirection, kMemory, kElementBytes, kBytes),
    values(kZerocopyBandwidth, kMemcpyBandwidth, kRatio, kCopyModeBandwidth), [](const auto& f) {
      return fmt::format(
          "{} {} once, coalesced {}: zero-copy {} vs the {} cudaMemcpyAsync alone {} ({:.2f}x){}",
          f[kMemory], f[kDirection], byte_words(f[kElementBytes]), f[kZerocopyBandwidth],
          f[kDirection] == "write" ? "D2H" : "H2D", f[kMemcpyBandwidth], f.value(kRatio),
          f.maybe(kCopyModeBandwidth) ? "; copy + kernel " + f[kCopyModeBandwidth] : "");
    });

const auto kBreakEven = zerocopy_findings.verdict(
    "zerocopy_break_even", params(kDirection, kMemory, kStride, kElementBytes),
    values(kBreakEvenReuse, kMinReuse, kMaxReuse, kPoints, kSpeedupFirst, kSpeedupLast,
           kAlikeUntil),
    outcome(kResult), [](const auto& f) {
      const std::string result = f[kResult];
      const std::string gains = fmt::format(
          "copy time / zero-copy time {:.2f}x at reuse {:g}, {:.2f}x at {:g}",
          f.value(kSpeedupFirst), f.value(kMinReuse), f.value(kSpeedupLast), f.value(kMaxReuse));
      if (result == "crossing")
        return fmt::format("{}: break-even at reuse {:.1f} (measured crossing, interpolated); {}",
                           pattern_text(f), f.value(kBreakEvenReuse), gains);
      if (result == "zerocopy-wins")
        return fmt::format(
            "{}: zero-copy wins at every reuse up to {:g}, no break-even measured; {}",
            pattern_text(f), f.value(kMaxReuse), gains);
      if (result == "alike-then-copy")
        return fmt::format(
            "{}: zero-copy and the copy are alike within noise up to reuse {:g} (no winner there), "
            "the copy wins from the next reuse on; {}",
            pattern_text(f), f.value(kAlikeUntil), gains);
      if (result == "alike")
        return fmt::format(
            "{}: zero-copy and the copy are alike within noise at every reuse up to {:g}; {}",
            pattern_text(f), f.value(kMaxReuse), gains);
      return fmt::format("{}: the copy wins already at reuse {:g}, no break-even measured; {}",
                         pattern_text(f), f.value(kMinReuse), gains);
    });

const auto kStrideCollapse = zerocopy_findings.verdict(
    "zerocopy_stride_collapse", params(kDirection, kMemory, kElementBytes, kStride),
    values(kBandwidth, kBaseBandwidth, kRelative, kModelRelative, kModelLinkBytesPerPayload,
           kLinkBytesPerPayload, kBaseLinkBytesPerPayload, kLinkBandwidth, kBaseLinkBandwidth,
           kTlpRate, kBaseTlpRate),
    [](const auto& f) {
      const auto counter = f.maybe(kLinkBytesPerPayload);
      const auto link = f.maybe(kLinkBandwidth);
      const auto base_link = f.maybe(kBaseLinkBandwidth);
      const std::string measured =
          counter ? fmt::format("counters {:.2f} (stride 1: {:.2f}) PCIe bytes per payload byte",
                                *counter, f.maybe(kBaseLinkBytesPerPayload).value_or(0))
                  : std::string("no counters");
      const std::string links =
          link && base_link
              ? fmt::format("; the link carried {:.1f} GB/s vs {:.1f} GB/s at stride 1", *link,
                            *base_link)
              : std::string();
      const std::string tlps = fmt::format("; {:.0f} M TLPs/s vs {:.0f} M at stride 1 (model TLPs)",
                                           f.value(kTlpRate) / 1e6, f.value(kBaseTlpRate) / 1e6);
      return fmt::format(
          "{} zero-copy {}, {}, stride {}: {} vs {} at stride 1 ({:.3f}x); if link-bound the model "
          "predicts {:.3f}x ({:.2f} PCIe bytes per payload byte); {}{}{}",
          f[kMemory], f[kDirection], byte_words(f[kElementBytes]), f[kStride], f[kBandwidth],
          f[kBaseBandwidth], f.value(kRelative), f.value(kModelRelative),
          f.value(kModelLinkBytesPerPayload), measured, links, tlps);
    });

const auto kInFlight = zerocopy_findings.verdict(
    "zerocopy_in_flight", params(kDirection, kMemory, kElementBytes),
    values(kSmallestBlocks, kSmallestInFlight, kSmallestBandwidth, kLatency, kPeakBandwidth,
           kNeededInFlight, kReachedFractionValue, kReachedBlocks, kReachedInFlight,
           kFullBandwidth),
    [](const auto& f) {
      const auto reached = f.maybe(kReachedBlocks);
      const std::string where = reached
                                    ? fmt::format("{:.0f}% of it from {:g} block{} ({} in flight)",
                                                  f.value(kReachedFractionValue), *reached,
                                                  *reached == 1 ? "" : "s", f[kReachedInFlight])
                                    : std::string("no grid of the sweep reached 90% of it");
      return fmt::format(
          "bytes in flight ({} zero-copy {}, {}): {} block{} ({} in flight) reach{} {}, so the "
          "loaded latency is {} (Little's law); {} needs {} in flight; {}",
          f[kMemory], f[kDirection], byte_words(f[kElementBytes]), f.value(kSmallestBlocks),
          f.value(kSmallestBlocks) == 1 ? "" : "s", f[kSmallestInFlight],
          f.value(kSmallestBlocks) == 1 ? "es" : "", f[kSmallestBandwidth], f[kLatency],
          f[kPeakBandwidth], f[kNeededInFlight], where);
    });

const auto kAccessBytes = zerocopy_findings.verdict(
    "zerocopy_access_bytes", params(kDirection),
    values(kRows, kMin, kMax, kModelMin, kModelMax, kHeader, kFetchGranularity, kSpacingFrom),
    [](const auto& f) {
      const auto range = [&](const std::string& lo, const std::string& hi) {
        return lo == hi ? lo : fmt::format("{} to {}", lo, hi);
      };
      const bool read = f[kDirection] == "read";
      return fmt::format(
          "counters: an isolated zero-copy {} (elements {:g} B or more apart) puts {} on PCIe "
          "per access ({:g} rows); the model says {}: {} plus a {} TLP header{}",
          f[kDirection], f.value(kSpacingFrom), range(f[kMin], f[kMax]), f.value(kRows),
          range(f[kModelMin], f[kModelMax]), read ? "one 32-B sector" : "the element's own bytes",
          f[kHeader],
          read && f.maybe(kFetchGranularity)
              ? fmt::format(" (not the {} L2 fetch granularity of DRAM)", f[kFetchGranularity])
              : std::string());
    });

const auto kSizing =
    zerocopy_findings.note("zerocopy_sizing", params(), values(kSpan, kL2), [](const auto& f) {
      return fmt::format(
          "sizing: every row's elements lie in one {} host buffer (--bytes); stride s reads "
          "every s-th element (payload = span / s), so strided rows move less data; the copy "
          "mode copies the whole span{}",
          f[kSpan],
          f.maybe(kL2) ? fmt::format(" ({:.2f}x the {} L2)", f.value(kSpan) / f.value(kL2), f[kL2])
                       : std::string());
    });

const auto kWritesMerged = zerocopy_findings.verdict(
    "zerocopy_writes_merged", params(kDirection, kMemory, kStride, kElementBytes),
    values(kAtReuse, kShareCrossed, kLinkBytesPerPayload, kModelLinkBytesPerPayload, kSpan,
           kCrossedUpTo),
    [](const auto& f) {
      const auto up_to = f.maybe(kCrossedUpTo);
      return fmt::format(
          "{}: rewritten lines merged before PCIe: at reuse {:g} only {:.0f}% of the bytes every "
          "pass would put on the link crossed it ({:.1f} against {:.1f} link bytes per payload "
          "byte, a {} span){}",
          pattern_text(f), f.value(kAtReuse), f.value(kShareCrossed), f.value(kLinkBytesPerPayload),
          f.value(kModelLinkBytesPerPayload), f[kSpan],
          up_to ? fmt::format("; every pass crossed up to reuse {:g}", *up_to) : "");
    });

// The counter agreement's rows: the main sweep's zero-copy and copy rows.
const CounterAgreementMaker kCounterLinkBytes = define_counter_agreement(
    zerocopy_findings, "zerocopy_counter_link_bytes", "PCIe bytes per payload byte",
    point(kMode, kMemory, kDirection, kReuse, kStride, kElementBytes, kBytes), [](const auto& f) {
      return fmt::format("{} {}, reuse {}", f[kMode], pattern_text(f), f[kReuse]);
    });

// An access pattern: what stays fixed while the reuse count varies.
struct Pattern {
  std::string direction;
  std::string memory;
  std::uint64_t stride;
  int width;
  auto operator<=>(const Pattern&) const = default;
};

Pattern pattern_of(const Measured& m) {
  return {m.direction, m.memory, m.stride, m.width};
}

std::vector<Param> pattern_params(const Pattern& p) {
  return {{"direction", p.direction, ""},
          {"memory", p.memory, ""},
          {"stride", static_cast<std::int64_t>(p.stride), ""},
          {"element_bytes", static_cast<std::int64_t>(p.width), "B"}};
}

// The row of `mode` in the main sweep with this pattern and reuse; nullptr when not measured.
const Measured* find_main(const std::vector<Measured>& all, const std::string& mode,
                          const Pattern& p, std::uint64_t reuse) {
  for (const auto* m : main_rows(all, mode)) {
    if (m->reuse == reuse && pattern_of(*m) == p) return m;
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
    std::ranges::sort(points, {}, &ReusePoint::reuse);
    const BreakEven be = break_even(points);
    const ReusePoint& first = points.front();
    const ReusePoint& last = points.back();
    SummaryRow s;
    s.params = pattern_params(p);
    s.values = {{"break_even_reuse", "", be.reuse},
                {"copy_over_zerocopy_first", "x", first.copy_s / first.zero_copy_s},
                {"copy_over_zerocopy_last", "x", last.copy_s / last.zero_copy_s}};
    result.summary.push_back(std::move(s));
    result.findings.push_back(kBreakEven.make(
        kDirection(p.direction), kMemory(p.memory), kStride(p.stride), kElementBytes(p.width),
        kBreakEvenReuse(be.reuse), kMinReuse(first.reuse), kMaxReuse(last.reuse),
        kPoints(points.size()), kSpeedupFirst(first.copy_s / first.zero_copy_s),
        kSpeedupLast(last.copy_s / last.zero_copy_s), kAlikeUntil(be.alike_until),
        kResult(break_even_kind_name(be.kind))));
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
    out.push_back(kOnceVsMemcpy.make(
        kDirection(mc->direction), kMemory(mc->memory), kElementBytes(best->width),
        kBytes(best->bytes), kZerocopyBandwidth(best->gbps), kMemcpyBandwidth(mc->gbps),
        kRatio(best->gbps / mc->gbps),
        kCopyModeBandwidth(some(copy != nullptr, copy ? copy->gbps : 0))));
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
    out.push_back(kStrideCollapse.make(
        kDirection(z->direction), kMemory(z->memory), kElementBytes(z->width), kStride(z->stride),
        kBandwidth(z->gbps), kBaseBandwidth(b->gbps), kRelative(z->gbps / b->gbps),
        kModelRelative(per_base / per), kModelLinkBytesPerPayload(per),
        kLinkBytesPerPayload(counter), kBaseLinkBytesPerPayload(counter_base),
        kLinkBandwidth(ratio_of(link_counter(*z), z->time_s * kBytesPerGB)),
        kBaseLinkBandwidth(ratio_of(link_counter(*b), b->time_s * kBytesPerGB)),
        kTlpRate(static_cast<double>(model.tlps) / z->time_s),
        kBaseTlpRate(static_cast<double>(model_base.tlps) / b->time_s)));
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
    return quantity_value(m.row->derived, "bytes_in_flight").value_or(0.0);
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
  out.push_back(kInFlight.make(
      kDirection(low.direction), kMemory(low.memory), kElementBytes(low.width),
      kSmallestBlocks(*low.blocks), kSmallestInFlight(in_flight(low)), kSmallestBandwidth(low.gbps),
      kLatency(latency), kPeakBandwidth(peak), kNeededInFlight(peak * kBytesPerGB * latency),
      kReachedFractionValue(kReachedFraction * 100),
      kReachedBlocks(some(reached, reached ? static_cast<double>(*reached->blocks) : 0)),
      kReachedInFlight(some(reached, reached ? in_flight(*reached) : 0)),
      kFullBandwidth(some(full, full ? full->gbps : 0))));
}

void counter_findings(std::vector<Measured>& all, const RunFacts& facts,
                      std::vector<Finding>& out) {
  // The model's bytes per isolated access in each direction (a read fetches a sector).
  const std::map<std::string, std::pair<double, double>> model_access = {
      {"read", {models::kZeroCopySectorBytes, models::kCompletionHeaderBytes}},
      {"write", {0, models::kRequestHeaderBytes}}};
  CounterAgreement agreement(kCounterLinkBytes, "x");
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
    agreement.add(*m.row, "link_bytes_per_payload_counter", ratio,
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
  if (auto f = agreement.finding()) out.push_back(*f);
  for (const auto& [direction, r] : per_access) {
    const auto [data, header] = model_access.at(direction);
    const auto [lo, hi] = std::minmax_element(r.widths.begin(), r.widths.end());
    // Writes carry the element itself: the model's range spans the widths measured.
    const double model_min = (data > 0 ? data : *lo) + header;
    const double model_max = (data > 0 ? data : *hi) + header;
    out.push_back(kAccessBytes.make(
        kDirection(direction), kRows(r.rows), kMin(r.min), kMax(r.max), kModelMin(model_min),
        kModelMax(model_max), kHeader(header),
        kFetchGranularity(facts.reported_fetch
                              ? std::optional<double>(static_cast<double>(*facts.reported_fetch))
                              : std::nullopt),
        kSpacingFrom(kIsolatedSpacing)));
  }
}

void merged_write_findings(const std::vector<Measured>& all, const RunFacts& facts,
                           std::vector<Finding>& out) {
  struct Share {
    const Measured* m;
    double per;      // link bytes counted per payload byte
    double model;    // the model's, every pass crossing
    double crossed;  // per / model
  };
  std::map<Pattern, std::vector<Share>> by_pattern;
  for (const Measured* m : main_rows(all, kZeroCopy)) {
    const auto per = is_write(*m) && m->row->counters
                         ? ratio_of(link_counter(*m), static_cast<double>(m->bytes))
                         : std::nullopt;
    if (per) {
      const double model = models::link_bytes_per_payload(access_of(*m), true);
      by_pattern[pattern_of(*m)].push_back({m, *per, model, *per / model});
    }
  }
  const double crossed_all = 1 - kCounterModelTolerance;
  for (auto& [pattern, shares] : by_pattern) {
    std::ranges::sort(shares, {}, [](const Share& s) { return s.m->reuse; });
    // A single pass below the model is the model's miss (the counter agreement says so), not a
    // merge: only rewritten rows of a pattern whose single pass crossed whole can show one.
    const auto rewritten =
        std::ranges::find_if(shares, [](const Share& s) { return s.m->reuse > 1; });
    if (rewritten == shares.end()) continue;
    if (rewritten != shares.begin() && shares.front().crossed < crossed_all) continue;
    const auto lowest =
        std::min_element(rewritten, shares.end(),
                         [](const Share& a, const Share& b) { return a.crossed < b.crossed; });
    if (lowest->crossed >= crossed_all) continue;
    std::optional<double> up_to;  // the last reuse of the run of whole crossings from the first
    for (auto it = shares.begin(); it != lowest && it->crossed >= crossed_all; ++it)
      up_to = static_cast<double>(it->m->reuse);
    out.push_back(kWritesMerged.make(
        kDirection(pattern.direction), kMemory(pattern.memory), kStride(pattern.stride),
        kElementBytes(pattern.width), kAtReuse(lowest->m->reuse),
        kShareCrossed(lowest->crossed * 100), kLinkBytesPerPayload(lowest->per),
        kModelLinkBytesPerPayload(lowest->model), kSpan(facts.span_bytes), kCrossedUpTo(up_to)));
  }
}

Finding sizing_note(const RunFacts& facts) {
  return kSizing.make(
      kSpan(facts.span_bytes),
      kL2(facts.l2_bytes ? std::optional<double>(static_cast<double>(facts.l2_bytes))
                         : std::nullopt));
}

namespace {

constexpr TermEntry kTerms[] = {
    // the columns' short headers and legend lines
    {"model.link_bytes_per_payload", "link/pay",
     "model: PCIe bytes (TLP data + headers) in the data's direction / payload bytes"},
    {"link_bytes_per_payload_counter", "ctr link/pay",
     "counters: PCIe bytes in the data's direction / payload bytes"},
    {"link_bytes_per_payload_counter_vs_model", "ctr/mdl", "counters / model, link bytes"},
    {"bytes_per_access_counter", "B/access",
     "counters: PCIe bytes per element access (isolated accesses only)"},
    {"bytes_in_flight", "in flight", "bytes the grid has requested at once: blocks x 256 x 4 x w"},
    {"summary.break_even_reuse", "break-even",
     "reuse count where the copy starts to win (interpolated; blank: no crossing measured)"},
    {"summary.copy_over_zerocopy_first", "zc gain@min",
     "copy time / zero-copy time at the smallest reuse"},
    {"summary.copy_over_zerocopy_last", "zc gain@max",
     "copy time / zero-copy time at the largest reuse"},
};

}  // namespace

void add_words(Glossary& g) {
  g.add_findings(zerocopy_findings);
  g.add_terms("zerocopy", kTerms);
}

}  // namespace gpuprobe::zerocopy
