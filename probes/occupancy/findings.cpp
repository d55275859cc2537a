// occupancy's findings (host-only), each declared once, built from analysis.cpp's curves: the
// latency Little's law uses, plateaus, knees beside predictions, cheapest routes, reads vs writes.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "gpuprobe/core/units.hpp"
#include "gpuprobe/models/occupancy_model.hpp"
#include "internal.hpp"

namespace gpuprobe::occupancy {
namespace {

constexpr Text<"op"> kOpName;
constexpr Int<"level", "%"> kLevel;
constexpr Int<"warps"> kWarpsAt;
constexpr Int<"ilp"> kIlpAt;
constexpr Int<"width", "B"> kWidthAt;
constexpr Text<"route"> kRoute;
constexpr Text<"agreement"> kAgreement;
constexpr Value<"plateau", "GB/s"> kPlateau;
constexpr Value<"alike"> kAlike;
constexpr Value<"measured", "B"> kMeasured;
constexpr Value<"measured_low", "B"> kLow;
constexpr Value<"measured_high", "B"> kHigh;
constexpr Value<"predicted", "B"> kPredicted;
constexpr Value<"ratio", "x"> kRatio;
constexpr Value<"latency", "ns"> kLatency;
constexpr Value<"loaded_latency", "ns"> kLoaded;
constexpr Value<"in_flight", "B"> kInFlightAt;
constexpr Value<"registers_per_sm"> kRegs;
constexpr Text<"cheapest_registers"> kRegRoute;
constexpr Text<"register_point"> kRegPoint;  // "8 warps/SM, ILP 4, 16 B"
constexpr Value<"register_count"> kRegCount;
constexpr Value<"read_knee", "B"> kReadKnee;
constexpr Value<"write_knee", "B"> kWriteKnee;
constexpr Value<"copy_knee", "B"> kCopyKnee;
constexpr Text<"writes_need"> kWritesNeed;
constexpr Value<"cycles"> kCycles;
constexpr Value<"chase_bytes", "B"> kChase;
constexpr Value<"stride", "B"> kStride;
constexpr Value<"working_set", "B"> kSet;
constexpr Value<"l2_bytes", "B"> kL2;
constexpr Texts<"points"> kPoints;

FindingList occupancy_findings;

std::string bytes(std::optional<double> b) {
  return b ? format_bytes(*b) : "n/a";
}

const auto kLatencyNote = occupancy_findings.note(
    "occupancy_latency", params(), values(kLatency, kCycles, kChase, kStride), [](const auto& f) {
      return fmt::format(
          "Little's law here uses the unloaded DRAM latency measured in this run: {:.0f} ns "
          "({:.0f} cycles) per dependent load of one thread chasing {} at a {} stride after an L2 "
          "flush; under load the latency grows (queues at the memory controllers), so a measured "
          "knee beyond the prediction says by how much",
          f.value(kLatency), f.value(kCycles), bytes(f.value(kChase)), bytes(f.value(kStride)));
    });

const auto kPlateauFinding = occupancy_findings.verdict(
    "occupancy_plateau", params(kOpName), values(kPlateau, kAlike, kInFlightAt),
    outcome(kWarpsAt, kIlpAt, kWidthAt), [](const auto& f) {
      const std::string alike = fmt::format("median of the {:g} points alike", f.value(kAlike));
      return fmt::format(
          "{}: the plateau is {} ({} to the best within noise); the best at {} warps/SM, ILP {}, "
          "{} per access ({} in flight per SM)",
          f[kOpName], f[kPlateau],
          f.value(kAlike) == 1 ? "the best point: no other is alike" : alike, f[kWarpsAt],
          f[kIlpAt], f[kWidthAt], bytes(f.value(kInFlightAt)));
    });

const auto kKnee = occupancy_findings.verdict(
    "occupancy_knee", params(kOpName, kLevel),
    values(kMeasured, kLow, kHigh, kPredicted, kRatio, kLatency, kLoaded),
    outcome(kWarpsAt, kIlpAt, kWidthAt, kAgreement), [](const auto& f) {
      const std::string between = f.maybe(kLow)
                                      ? fmt::format("between {} and {}", f[kLow], f[kHigh])
                                      : fmt::format("at or below the sweep's least, {}", f[kHigh]);
      return fmt::format(
          "{}: {}% of the plateau from {} in flight per SM (measured, {}; first at {} warps/SM, "
          "ILP {}, {}); Little's law at the unloaded {:.0f} ns predicts {}: measured/predicted "
          "{:.2f}x, {} (the latency the knee implies: {:.0f} ns)",
          f[kOpName], f[kLevel], f[kMeasured], between, f[kWarpsAt], f[kIlpAt], f[kWidthAt],
          f.value(kLatency), f[kPredicted], f.maybe(kRatio).value_or(0), f[kAgreement],
          f.maybe(kLoaded).value_or(0));
    });

const auto kBestRoute = occupancy_findings.verdict(
    "occupancy_best_route", params(kOpName, kLevel), values(kInFlightAt, kRegs, kRegCount),
    outcome(kRoute, kWarpsAt, kIlpAt, kWidthAt, kRegRoute, kRegPoint), [](const auto& f) {
      return fmt::format(
          "{}: of the points reaching {}% of the plateau, the fewest warps is {} warps/SM by {} "
          "(ILP {}, {}, {} in flight per SM, {:g} registers per SM); the fewest registers, "
          "{:g} per SM, by {} ({})",
          f[kOpName], f[kLevel], f[kWarpsAt], f[kRoute], f[kIlpAt], f[kWidthAt],
          bytes(f.value(kInFlightAt)), f.value(kRegs), f.value(kRegCount), f[kRegRoute],
          f[kRegPoint]);
    });

const auto kCopySides = occupancy_findings.verdict(
    "occupancy_copy_sides", params(kLevel), values(kReadKnee, kWriteKnee, kCopyKnee),
    outcome(kWritesNeed), [](const auto& f) {
      return fmt::format(
          "to reach {}% of their plateaus writes need {} bytes in flight per SM {} reads "
          "(write {}, read {}: decided on the swept points around each knee); a copy, counting "
          "its reads in flight, needs {}",
          f[kLevel], f[kWritesNeed], f[kWritesNeed] == "as many" ? "as" : "than", f[kWriteKnee],
          f[kReadKnee], f[kCopyKnee]);
    });

const auto kDropped = occupancy_findings.note(
    "occupancy_not_resident", params(), values(), outcome(kPoints), [](const auto& f) {
      return fmt::format(
          "not measured: these points cannot have their warps resident at once (registers or "
          "threads run out first): {}",
          fmt::join(f.items(kPoints), "; "));
    });

const auto kSmallSet = occupancy_findings.warning(
    "occupancy_small_working_set", params(), values(kSet, kL2), [](const auto& f) {
      return fmt::format(
          "the working set, {} per buffer, is under 4x the L2 ({}): part of the stream may be "
          "served by L2, not DRAM",
          bytes(f.value(kSet)), bytes(f.value(kL2)));
    });

std::int64_t percent(double level) {
  return static_cast<std::int64_t>(level * 100 + 0.5);
}

// How a measured knee stands to Little's law's: within the band, inside the two swept points
// around the measured knee (the sweep cannot tell them apart), or beyond / short of it. Stores are
// posted (no thread waits for them), so a write's knee short of the law says that, not more.
const char* knee_agreement(double ratio, bool inside, bool write) {
  if (std::abs(ratio - 1) <= kKneeBand) return "within 25% of it";
  if (inside) return "inside the two swept points around the measured knee";
  if (ratio > 1) return "beyond it: the latency under load is longer";
  if (write) return "short of it: stores are posted, no thread waits for them";
  return "short of it: the load needs less than the model says";
}

void knee_findings(ProbeResult& result, const Curve& c, const RunFacts& facts) {
  for (std::size_t k = 0; k < kKneeLevels.size(); ++k) {
    const Knee& knee = c.knees[k];
    if (!knee.first || !knee.bytes) continue;
    const Sample& at = c.samples[*knee.first];
    const double level = kKneeLevels[k];
    const double predicted = predicted_knee(c, level, facts);
    const auto ratio = ratio_of(knee.bytes, predicted);
    const bool inside =
        knee.below && predicted >= c.samples[*knee.below].in_flight && predicted <= at.in_flight;
    const char* agreement = knee_agreement(ratio.value_or(0), inside, c.op == "write");
    const double loaded =
        models::implied_latency(*knee.bytes, facts.sm_count, level * c.plateau * 1e9, c.counted);
    result.findings.push_back(kKnee.make(
        kOpName(c.op), kLevel(percent(level)), kMeasured(knee.bytes),
        kLow(knee.below ? std::optional(c.samples[*knee.below].in_flight) : std::nullopt),
        kHigh(at.in_flight), kPredicted(predicted), kRatio(ratio), kLatency(facts.latency_s * 1e9),
        kLoaded(loaded * 1e9), kWarpsAt(at.warps), kIlpAt(at.ilp), kWidthAt(at.width),
        kAgreement(agreement)));
  }
}

void plateau_finding(ProbeResult& result, const Curve& c) {
  if (c.plateau_set.empty()) return;
  const Sample* best = &c.samples[*std::ranges::max_element(
      c.plateau_set, {}, [&](std::size_t i) { return c.samples[i].gbps; })];
  result.findings.push_back(
      kPlateauFinding.make(kOpName(c.op), kPlateau(c.plateau), kAlike(c.plateau_set.size()),
                           kInFlightAt(best->in_flight), kWarpsAt(best->warps), kIlpAt(best->ilp),
                           kWidthAt(best->width)));
}

void route_finding(ProbeResult& result, const Curve& c) {
  const double level = kKneeLevels.back();
  const Cheapest ch = cheapest(c.samples, level * c.plateau);
  if (!ch.fewest_warps || !ch.fewest_registers) return;
  const Sample& w = c.samples[*ch.fewest_warps];
  const Sample& r = c.samples[*ch.fewest_registers];
  result.findings.push_back(kBestRoute.make(
      kOpName(c.op), kLevel(percent(level)), kInFlightAt(w.in_flight), kRegs(w.registers_per_sm),
      kRegPoint(fmt::format("{} warps/SM, ILP {}, {} B", r.warps, r.ilp, r.width)),
      kRegCount(r.registers_per_sm), kRoute(route_of(w, c.ilp0, c.width0)), kWarpsAt(w.warps),
      kIlpAt(w.ilp), kWidthAt(w.width), kRegRoute(route_of(r, c.ilp0, c.width0))));
}

// The bytes in flight each knee lies between: (below's, first's]; nullopt without a knee.
std::optional<std::pair<double, double>> bracket(const Curve& c, std::size_t level) {
  const Knee& k = c.knees[level];
  if (!k.first) return std::nullopt;
  return std::pair(k.below ? c.samples[*k.below].in_flight : 0.0, c.samples[*k.first].in_flight);
}

void sides_finding(ProbeResult& result, const std::vector<Curve>& curves) {
  const auto find = [&](const char* op) -> const Curve* {
    const auto it = std::find_if(curves.begin(), curves.end(), [&](auto& c) { return c.op == op; });
    return it == curves.end() ? nullptr : &*it;
  };
  const Curve *rd = find(kRead), *wr = find(kWrite), *cp = find(kCopy);
  if (rd == nullptr || wr == nullptr) return;
  const std::size_t level = 0;  // 90 %: the knee the sweep resolves best
  const auto r = bracket(*rd, level), w = bracket(*wr, level);
  if (!r || !w) return;
  // Different only when the swept points around the two knees do not overlap.
  const char* need = w->second <= r->first ? "fewer" : w->first >= r->second ? "more" : "as many";
  result.findings.push_back(
      kCopySides.make(kLevel(percent(kKneeLevels[level])), kReadKnee(rd->knees[level].bytes),
                      kWriteKnee(wr->knees[level].bytes),
                      kCopyKnee(cp ? cp->knees[level].bytes : std::nullopt), kWritesNeed(need)));
}

}  // namespace

const auto kPointText = [](const auto& f) {
  return fmt::format("{} {} warps ILP {} {}", f[kOpName], f[kWarpsAt], f[kIlpAt], f[kWidthAt]);
};
const CounterAgreementMaker kCounterOccupancy = define_counter_agreement(
    occupancy_findings, "occupancy_counter_occupancy",
    "achieved occupancy (sm__warps_active, % of the most while active) against the theoretical",
    point(kOpName, kWarpsAt, kIlpAt, kWidthAt), kPointText);
const CounterAgreementMaker kCounterDram =
    define_counter_agreement(occupancy_findings, "occupancy_counter_dram",
                             "DRAM bytes read + written against the bytes streamed",
                             point(kOpName, kWarpsAt, kIlpAt, kWidthAt), kPointText);

void add_findings(ProbeResult& result, const std::vector<Curve>& curves, const RunFacts& facts) {
  if (!facts.dropped.empty()) result.findings.push_back(kDropped.make(kPoints(facts.dropped)));
  if (facts.working_set > 0 && facts.working_set < 4 * facts.l2_bytes)
    result.findings.push_back(kSmallSet.make(kSet(facts.working_set), kL2(facts.l2_bytes)));
  if (curves.empty()) return;
  if (facts.latency_s > 0)
    result.findings.push_back(
        kLatencyNote.make(kLatency(facts.latency_s * 1e9), kCycles(facts.latency_cycles),
                          kChase(facts.chase_bytes), kStride(facts.chase_stride)));
  for (const Curve& c : curves) {
    plateau_finding(result, c);
    if (facts.latency_s > 0) knee_findings(result, c, facts);
    route_finding(result, c);
  }
  sides_finding(result, curves);
}

const FindingList& finding_list() {
  return occupancy_findings;
}

}  // namespace gpuprobe::occupancy
