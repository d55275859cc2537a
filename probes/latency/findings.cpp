// latency's findings (host-only), each declared once (id, kind, fields, sentence), and built from
// the series' levels and the trace rows: the levels, the L1 capacity against the carve-out model,
// the far L2, the TLB steps, the counters' agreement, the clock.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "gpuprobe/core/finding_def.hpp"
#include "gpuprobe/core/units.hpp"
#include "internal.hpp"

namespace gpuprobe::latency {
namespace {

constexpr Size<"stride"> kStrideKey;
constexpr Int<"carveout", "%"> kCarveoutKey;
constexpr Int<"level"> kLevelKey;
constexpr Int<"l2_pct", "%"> kL2PctKey;
constexpr Size<"bytes"> kBytesKey;
constexpr Value<"latency", "cycles"> kLatency;
constexpr Value<"latency_low", "cycles"> kLatencyLow;
constexpr Value<"latency_high", "cycles"> kLatencyHigh;
constexpr Value<"latency_ns", "ns"> kLatencyNs;
constexpr Value<"l1_hit"> kL1Hit;
constexpr Value<"l2_hit"> kL2Hit;
constexpr Value<"fabric_share"> kFabricShare;
constexpr Value<"dram_per_access", "B"> kDramPerAccess;
constexpr Size<"from_bytes"> kFromBytes;
constexpr Size<"size"> kSizeKey;
constexpr Maybe<Size<"next_size">> kNextSize;
constexpr Text<"served_by"> kServedBy;
constexpr Text<"decided"> kDecided;
constexpr Value<"l1_model", "B"> kL1Model;
constexpr Text<"against_model"> kAgainstModel;
constexpr Value<"near_cycles", "cycles"> kNearCycles;
constexpr Value<"far_cycles", "cycles"> kFarCycles;
constexpr Value<"near_ns", "ns"> kNearNs;
constexpr Value<"far_ns", "ns"> kFarNs;
constexpr Value<"far_share"> kFarShare;
constexpr Value<"eta"> kEta;
constexpr Text<"clusters"> kClustersKey;
constexpr Value<"before", "cycles"> kBefore;
constexpr Value<"after", "cycles"> kAfter;
constexpr Value<"before_ns", "ns"> kBeforeNs;
constexpr Value<"after_ns", "ns"> kAfterNs;
constexpr Int<"pages"> kPages;
constexpr Text<"served_before"> kServedBefore;
constexpr Text<"served_after"> kServedAfter;
constexpr Text<"cause"> kCause;
constexpr Texts<"served"> kServedList;
constexpr Text<"agreement"> kAgreement;
constexpr Value<"clock", "MHz"> kClockMhz;
constexpr Value<"clock_low", "MHz"> kClockLow;
constexpr Value<"clock_high", "MHz"> kClockHigh;
constexpr Value<"largest", "B"> kLargest;
constexpr Value<"l2_bytes", "B"> kL2Bytes;
constexpr Int<"dropped"> kDropped;

FindingList list;

template <class View>
std::string series_text(const View& f) {
  return fmt::format("stride {}, carve-out {}%", size_words(f.param(kStrideKey)),
                     scalar_text(f.param(kCarveoutKey).value));
}

// "; counters: L1 hit 0.80, L2 hit 1.00, over the fabric 0.02, DRAM 0.0 B per access", or "".
template <class View>
std::string counters_text(const View& f) {
  const auto l1 = f.maybe(kL1Hit);
  if (!l1) return "";
  return fmt::format(
      "; counters: L1 hit {:.2f}, L2 hit {:.2f}, over the fabric {:.2f}, DRAM {:.1f} "
      "B per access",
      *l1, f.maybe(kL2Hit).value_or(0), f.maybe(kFabricShare).value_or(0),
      f.maybe(kDramPerAccess).value_or(0));
}

std::string ns_text(std::optional<double> ns) {
  return ns ? fmt::format("{:.1f} ns", *ns) : std::string("ns unknown (no clock)");
}

const auto kLevel = list.verdict(
    "latency_level", params(kStrideKey, kCarveoutKey, kLevelKey),
    values(kLatency, kLatencyLow, kLatencyHigh, kLatencyNs, kL1Hit, kL2Hit, kFabricShare,
           kDramPerAccess),
    outcome(kFromBytes, kSizeKey, kNextSize, kServedBy, kDecided), [](const auto& f) {
      const std::string next =
          f.has(kNextSize) ? fmt::format(", {} is past it", size_words(f.param(kNextSize))) : "";
      return fmt::format(
          "{}: level {} at {:.1f} cycles ({:.1f} to {:.1f} on its plateau), {}, from {} to {}{} "
          "({}); served by {} (measured){}",
          series_text(f), f[kLevelKey], f.value(kLatency), f.value(kLatencyLow),
          f.value(kLatencyHigh), ns_text(f.maybe(kLatencyNs)), size_words(f.param(kFromBytes)),
          size_words(f.param(kSizeKey)), next, f[kDecided], f[kServedBy], counters_text(f));
    });

const auto kL1Capacity = list.verdict(
    "latency_l1_capacity", params(kStrideKey, kCarveoutKey), values(kL1Model),
    outcome(kSizeKey, kNextSize, kAgainstModel), [](const auto& f) {
      return fmt::format(
          "{}: the first level holds {}{} against {} the carve-out leaves of the unified L1 "
          "(model) — {}",
          series_text(f), size_words(f.param(kSizeKey)),
          f.has(kNextSize) ? fmt::format(" (not {})", size_words(f.param(kNextSize))) : "",
          f[kL1Model], f[kAgainstModel]);
    });

const auto kL2Reach = list.verdict(
    "latency_l2_reach", params(kStrideKey, kCarveoutKey), values(kLatency, kLatencyNs),
    outcome(kSizeKey, kNextSize), [](const auto& f) {
      return fmt::format(
          "{}: the first L2 plateau ({:.1f} cycles, {}) holds working sets up to {}{}: the L2 "
          "this chase sees; past it the far L2 partition and DRAM serve a growing share (the "
          "traces' clusters and the next levels; measured)",
          series_text(f), f.value(kLatency), ns_text(f.maybe(kLatencyNs)),
          size_words(f.param(kSizeKey)),
          f.has(kNextSize) ? fmt::format(" ({} is past it)", size_words(f.param(kNextSize))) : "");
    });

const auto kFarL2 = list.verdict(
    "latency_far_l2", params(kL2PctKey, kBytesKey),
    values(kNearCycles, kFarCycles, kNearNs, kFarNs, kFarShare, kEta), outcome(kClustersKey),
    [](const auto& f) {
      return fmt::format(
          "per-access times at {} ({}% of L2): {} — {:.0f} cycles ({}) and {:.0f} cycles ({}), "
          "the slower holding {:.0f}% of the accesses (eta {:.2f}; measured)",
          size_words(f.param(kBytesKey)), f[kL2PctKey], f[kClustersKey], f.value(kNearCycles),
          ns_text(f.maybe(kNearNs)), f.value(kFarCycles), ns_text(f.maybe(kFarNs)),
          100 * f.value(kFarShare), f.value(kEta));
    });

const auto kTlbStep = list.verdict(
    "latency_tlb_step", params(kStrideKey, kCarveoutKey),
    values(kBefore, kAfter, kBeforeNs, kAfterNs),
    outcome(kSizeKey, kNextSize, kPages, kServedBefore, kServedAfter, kCause), [](const auto& f) {
      return fmt::format(
          "{}: latency steps from {:.0f} to {:.0f} cycles ({} to {}) past {} ({} pages){} — {}",
          series_text(f), f.value(kBefore), f.value(kAfter), ns_text(f.maybe(kBeforeNs)),
          ns_text(f.maybe(kAfterNs)), size_words(f.param(kSizeKey)), f[kPages],
          f.has(kNextSize) ? fmt::format(", by {}", size_words(f.param(kNextSize))) : "",
          f[kCause]);
    });

const auto kCounters = list.verdict_or_warning(
    "latency_counters", params(kStrideKey, kCarveoutKey), values(),
    outcome(kServedList, kAgreement), [](const auto& f) {
      std::string served;
      if (const auto* levels = std::get_if<TextList>(&f.param(kServedList).value))
        for (const auto& s : *levels)
          served += (served.empty() ? "" : ", ") + s;
      return fmt::format("{}: the counters say the levels, fastest first, were served by {} — {}",
                         series_text(f), served, f[kAgreement]);
    });

const auto kClockNote = list.note(
    "latency_clock", params(), values(kClockMhz, kClockLow, kClockHigh), [](const auto& f) {
      return fmt::format(
          "SM clock during the chases {:.0f} MHz (rows from {:.0f} to {:.0f}; clock64 cycles over "
          "%globaltimer ns of each launch); ns = cycles / clock",
          f.value(kClockMhz), f.value(kClockLow), f.value(kClockHigh));
    });

const auto kShortSweep =
    list.warning("latency_short_sweep", params(), values(kLargest, kL2Bytes), [](const auto& f) {
      return fmt::format(
          "the largest cache-level working set is {}, under 4 x the L2 ({}): the last level may "
          "still be partly served by L2",
          f[kLargest], f[kL2Bytes]);
    });

const auto kMemory =
    list.note("latency_memory", params(), values(), outcome(kDropped), [](const auto& f) {
      return fmt::format(
          "{} working sets did not fit half of the free device memory "
          "and were not measured",
          f[kDropped]);
    });

}  // namespace

Finding memory_note(std::uint64_t dropped) {
  return kMemory.make(kDropped(static_cast<std::int64_t>(dropped)));
}

const FindingList& finding_list() {
  return list;
}

namespace {

std::optional<double> ns_of(double cycles, double clock_mhz) {
  if (clock_mhz <= 0) return std::nullopt;
  return cycles / clock_mhz * 1e3;
}

auto i64(std::uint64_t v) {
  return static_cast<std::int64_t>(v);
}

// The counters' view of a level: its middle plateau row's.
std::optional<Served> level_served(const Series& s, const Level& l) {
  return s.rows[(l.plateau_first + l.plateau_last) / 2]->served;
}

std::string decided_text(const Series& s, std::size_t i) {
  const Level& l = s.levels[i];
  const std::string narrow = l.plateau_first == l.plateau_last
                                 ? "; one working set on it: a transition or a narrow level"
                                 : "";
  if (s.levels.size() == 1) return "one level: no change point of 15 % or more";
  if (i + 1 < s.levels.size())
    return fmt::format("change point before {}{}",
                       format_bytes(static_cast<double>(s.rows[s.levels[i + 1].first]->bytes)),
                       narrow);
  return fmt::format("last level, from the change point before {}{}",
                     format_bytes(static_cast<double>(s.rows[l.first]->bytes)), narrow);
}

// Whether the counters see one data level on both sides of a step: L1 and L2 hit rates within
// kSameShare of each other and little DRAM traffic on either side.
bool same_data_level(const Served& a, const Served& b) {
  constexpr double kSameShare = 0.1;
  constexpr double kLittleDram = 8;  // B per access
  return std::abs(a.l1_hit - b.l1_hit) < kSameShare && std::abs(a.l2_hit - b.l2_hit) < kSameShare &&
         a.dram_per_access < kLittleDram && b.dram_per_access < kLittleDram;
}

Finding level_finding(const Series& s, std::size_t i, double clock) {
  const Level& l = s.levels[i];
  const auto served = level_served(s, l);
  auto opt = [&](double Served::*m) {
    return served ? std::optional<double>(*served.*m) : std::nullopt;
  };
  return kLevel.make(
      kStrideKey(i64(s.stride)), kCarveoutKey(i64(s.carveout)), kLevelKey(i64(i + 1)),
      kLatency(l.median), kLatencyLow(l.low), kLatencyHigh(l.high),
      kLatencyNs(ns_of(l.median, clock)), kL1Hit(opt(&Served::l1_hit)),
      kL2Hit(opt(&Served::l2_hit)), kFabricShare(opt(&Served::fabric_share)),
      kDramPerAccess(opt(&Served::dram_per_access)), kFromBytes(i64(l.smallest)),
      kSizeKey(i64(l.size)),
      kNextSize(l.next_size ? std::optional<std::int64_t>(i64(*l.next_size)) : std::nullopt),
      kServedBy(served ? served->level : std::string(kNotCollected)), kDecided(decided_text(s, i)));
}

void l1_capacity_finding(const Series& s, const RunFacts& facts, std::vector<Finding>& out) {
  const auto model = facts.l1_model_by_carveout.find(s.carveout);
  if (s.pages() || s.levels.size() < 2 || model == facts.l1_model_by_carveout.end()) return;
  const Level& l = s.levels.front();
  const auto m = model->second;
  const char* against = m < l.size                           ? "larger than the model"
                        : (!l.next_size || m < *l.next_size) ? "at the model"
                                                             : "smaller than the model";
  out.push_back(kL1Capacity.make(
      kStrideKey(i64(s.stride)), kCarveoutKey(i64(s.carveout)), kL1Model(static_cast<double>(m)),
      kSizeKey(i64(l.size)),
      kNextSize(l.next_size ? std::optional<std::int64_t>(i64(*l.next_size)) : std::nullopt),
      kAgainstModel(against)));
}

// The first level of a cache series that L2 served over two working sets or more: its plateau's
// end is the L2 the chase sees, where the far partition starts to serve.
void l2_reach_finding(const Series& s, double clock, std::vector<Finding>& out) {
  if (s.pages()) return;
  for (const Level& l : s.levels) {
    const auto sv = level_served(s, l);
    if (!sv || sv->level != std::string(kServedL2) || l.plateau_first == l.plateau_last) continue;
    out.push_back(kL2Reach.make(
        kStrideKey(i64(s.stride)), kCarveoutKey(i64(s.carveout)), kLatency(l.median),
        kLatencyNs(ns_of(l.median, clock)), kSizeKey(i64(l.size)),
        kNextSize(l.next_size ? std::optional<std::int64_t>(i64(*l.next_size)) : std::nullopt)));
    return;
  }
}

// A page-stride series: each step between levels is a TLB step when the counters see the same
// data level on both sides.
void tlb_findings(const Series& s, double clock, std::vector<Finding>& out) {
  for (std::size_t i = 0; i + 1 < s.levels.size(); ++i) {
    const Level &a = s.levels[i], &b = s.levels[i + 1];
    const auto sa = level_served(s, a), sb = level_served(s, b);
    const std::string before = sa ? sa->level : kNotCollected;
    const std::string after = sb ? sb->level : kNotCollected;
    const char* cause = !sa || !sb ? "no counters to tell a TLB step from a data-cache step"
                        : same_data_level(*sa, *sb)
                            ? "address translation: the counters see the same data level on both "
                              "sides (a TLB reach)"
                            : "the data level changes too (counters): not a TLB step alone";
    out.push_back(kTlbStep.make(
        kStrideKey(i64(s.stride)), kCarveoutKey(i64(s.carveout)), kBefore(a.median),
        kAfter(b.median), kBeforeNs(ns_of(a.median, clock)), kAfterNs(ns_of(b.median, clock)),
        kSizeKey(i64(a.size)),
        kNextSize(a.next_size ? std::optional<std::int64_t>(i64(*a.next_size)) : std::nullopt),
        kPages(i64(a.size / s.stride)), kServedBefore(before), kServedAfter(after), kCause(cause)));
  }
}

void counters_finding(const Series& s, std::vector<Finding>& out) {
  TextList served;
  int last = -1;
  bool inverted = false;
  for (const Level& l : s.levels) {
    const auto sv = level_served(s, l);
    if (!sv) return;
    served.push_back(sv->level);
    const int r = served_rank(sv->level);
    inverted = inverted || r < last;
    last = std::max(last, r);
  }
  auto given = [&](const char* agreement) {
    return std::make_tuple(kStrideKey(i64(s.stride)), kCarveoutKey(i64(s.carveout)),
                           kServedList(served), kAgreement(agreement));
  };
  if (inverted)
    out.push_back(std::apply([](auto... g) { return kCounters.make_warning(g...); },
                             given("they disagree: a slower level was served by a faster one")));
  else
    out.push_back(std::apply([](auto... g) { return kCounters.make(g...); },
                             given("they agree with the latency order")));
}

}  // namespace

void add_series_findings(const std::vector<Series>& series, const RunFacts& facts, double clock,
                         std::vector<Finding>& out) {
  std::uint64_t largest = 0;
  std::vector<double> clocks;
  for (const Series& s : series) {
    for (std::size_t i = 0; i < s.levels.size(); ++i)
      out.push_back(level_finding(s, i, clock));
    l1_capacity_finding(s, facts, out);
    l2_reach_finding(s, clock, out);
    if (s.pages()) tlb_findings(s, clock, out);
    counters_finding(s, out);
    for (const ChaseRow* r : s.rows) {
      if (!s.pages()) largest = std::max(largest, r->bytes);
      if (r->clock_mhz) clocks.push_back(*r->clock_mhz);
    }
  }
  if (!clocks.empty())
    out.push_back(kClockNote.make(kClockMhz(clock),
                                  kClockLow(*std::min_element(clocks.begin(), clocks.end())),
                                  kClockHigh(*std::max_element(clocks.begin(), clocks.end()))));
  if (largest > 0 && facts.l2_bytes > 0 && largest < 4 * facts.l2_bytes)
    out.push_back(kShortSweep.make(kLargest(static_cast<double>(largest)),
                                   kL2Bytes(static_cast<double>(facts.l2_bytes))));
}

void add_trace_findings(const ProbeResult& result, double clock, std::vector<Finding>& out) {
  for (const Row& row : result.rows) {
    if (text_param_of(row, kMode) != std::string(kTrace)) continue;
    const auto pct = int_param_of(row, kL2Pct), bytes = int_param_of(row, kBytes);
    const Quantity* fast = find_quantity(row.derived, "fast_cycles");
    const Quantity* slow = find_quantity(row.derived, "slow_cycles");
    const Quantity* share = find_quantity(row.derived, "slow_share");
    const Quantity* eta = find_quantity(row.derived, "cluster_eta");
    if (!pct || !bytes || !fast || !slow || !share || !eta || !fast->value || !slow->value ||
        !share->value || !eta->value)
      continue;
    const Clusters c{0,
                     *fast->value,
                     *slow->value,
                     *share->value,
                     *eta->value,
                     clusters_apart(*fast->value, *slow->value, *share->value, *eta->value)};
    out.push_back(
        kFarL2.make(kL2PctKey(*pct), kBytesKey(*bytes), kNearCycles(c.fast_median),
                    kFarCycles(c.slow_median), kNearNs(ns_of(c.fast_median, clock)),
                    kFarNs(ns_of(c.slow_median, clock)), kFarShare(c.slow_share), kEta(c.eta),
                    kClustersKey(c.two ? "two clusters (near and far L2)" : "one cluster")));
  }
}

}  // namespace gpuprobe::latency
