// cache's findings (host-only), each declared once (id, kind, fields, sentence), built from the
// curves analysis.cpp derived: each plateau with its interval and model, each knee, the L2 named
// against L1 and DRAM, what the counters say served each plateau, the run's facts.
#include <fmt/format.h>

#include <algorithm>

#include "gpuprobe/core/units.hpp"
#include "internal.hpp"

namespace gpuprobe::cache {
namespace {

constexpr Text<"scope"> kScopeName;
constexpr Text<"op"> kOpName;
constexpr Text<"level"> kLevel;
constexpr Text<"from"> kFrom;
constexpr Text<"to"> kTo;
constexpr Text<"counters_say"> kCountersSay;
constexpr Text<"agreement"> kAgreement;
constexpr Value<"plateau", "GB/s"> kPlateau;
constexpr Value<"plateau_low", "GB/s"> kLow;
constexpr Value<"plateau_high", "GB/s"> kHigh;
constexpr Value<"from_bytes", "B"> kFromBytes;
constexpr Value<"to_bytes", "B"> kToBytes;
constexpr Value<"sizes"> kSizes;
constexpr Value<"model_peak", "GB/s"> kModel;
constexpr Value<"of_model", "x"> kOfModel;
constexpr Value<"knee_bytes", "B"> kKneeBytes;
constexpr Value<"from_gbps", "GB/s"> kFromGbps;
constexpr Value<"to_gbps", "GB/s"> kToGbps;
constexpr Value<"l2", "GB/s"> kL2;
constexpr Value<"l1", "GB/s"> kL1;
constexpr Value<"dram", "GB/s"> kDram;
constexpr Value<"l2_over_dram", "x"> kL2OverDram;
constexpr Value<"l1_over_l2", "x"> kL1OverL2;
constexpr Value<"l1_hit_rate"> kL1Hit;
constexpr Value<"l2_hit_rate"> kL2Hit;
constexpr Value<"dram_bytes_per_byte"> kDramPerByte;
constexpr Value<"points"> kPoints;
constexpr Value<"sm_count"> kSmCount;
constexpr Value<"clock_mhz", "MHz"> kClock;
constexpr Value<"l1_bytes", "B"> kL1Bytes;
constexpr Value<"l2_bytes", "B"> kL2Bytes;

FindingList cache_findings;

std::string tbps(double gbps) {
  return fmt::format("{:.2f} TB/s", gbps / 1000);
}
std::string tbps(std::optional<double> gbps) {
  return gbps ? tbps(*gbps) : "n/a";
}
std::string rate(std::optional<double> r) {
  return r ? fmt::format("{:.2f}", *r) : "n/a";
}

const auto kPlateauFound = cache_findings.verdict(
    "cache_plateau", params(kScopeName, kOpName, kLevel),
    values(kPlateau, kLow, kHigh, kFromBytes, kToBytes, kSizes, kModel, kOfModel),
    [](const auto& f) {
      std::string model;
      if (f.maybe(kModel))
        model = fmt::format(", {:.2f}x the model's {}", f.value(kOfModel), tbps(f.value(kModel)));
      return fmt::format("{} {}: {} plateau {} [{}, {}] over {}-{} ({:g} sizes){}", f[kScopeName],
                         f[kOpName], f[kLevel], tbps(f.value(kPlateau)), tbps(f.value(kLow)),
                         tbps(f.value(kHigh)), format_bytes(f.value(kFromBytes)),
                         format_bytes(f.value(kToBytes)), f.value(kSizes), model);
    });

const auto kKneeFound = cache_findings.verdict(
    "cache_knee", params(kScopeName, kOpName, kFrom, kTo), values(kKneeBytes, kFromGbps, kToGbps),
    [](const auto& f) {
      return fmt::format(
          "{} {}: knee {} -> {} at {} (bandwidth halfway, geometrically, between "
          "{} and {})",
          f[kScopeName], f[kOpName], f[kFrom], f[kTo], format_bytes(f.value(kKneeBytes)),
          tbps(f.value(kFromGbps)), tbps(f.value(kToGbps)));
    });

const auto kL2Named = cache_findings.verdict(
    "cache_l2_between", params(kOpName), values(kL2, kL1, kDram, kL1OverL2, kL2OverDram),
    [](const auto& f) {
      return fmt::format(
          "{}: the L2 streams {} across the GPU: L1 {} is {}x it, it is {}x DRAM "
          "{}",
          f[kOpName], tbps(f.value(kL2)), tbps(f.maybe(kL1)), rate(f.maybe(kL1OverL2)),
          rate(f.maybe(kL2OverDram)), tbps(f.maybe(kDram)));
    });

const auto kCounterLevel = cache_findings.verdict_or_warning(
    "cache_counter_level", params(kScopeName, kOpName, kLevel),
    values(kL1Hit, kL2Hit, kDramPerByte), outcome(kCountersSay, kAgreement), [](const auto& f) {
      return fmt::format(
          "{} {} {} plateau: counters say {} (L1 hit rate {}, L2 hit rate {}, DRAM "
          "{} B per byte moved) — {} its sizes",
          f[kScopeName], f[kOpName], f[kLevel], f[kCountersSay], rate(f.maybe(kL1Hit)),
          rate(f.maybe(kL2Hit)), rate(f.maybe(kDramPerByte)),
          f.value(kAgreement) == "agree" ? "agrees with" : "DISAGREES with");
    });

const auto kNoPlateau = cache_findings.note(
    "cache_no_plateau", params(kScopeName, kOpName), values(kPoints), [](const auto& f) {
      const double points = f.value(kPoints);
      if (points == 1)
        return fmt::format("{} {}: one size swept: no plateau named", f[kScopeName], f[kOpName]);
      if (points < static_cast<double>(kMinCore))
        return fmt::format(
            "{} {}: {:g} sizes swept, fewer than the {} a plateau needs: no plateau "
            "named",
            f[kScopeName], f[kOpName], points, kMinCore);
      return fmt::format(
          "{} {}: no {} of its {:g} sizes agree within the flat band: no plateau named",
          f[kScopeName], f[kOpName], kMinCore, points);
    });

const auto kFacts = cache_findings.note(
    "cache_facts", params(), values(kSmCount, kClock, kL1Bytes, kL2Bytes, kModel, kDram),
    [](const auto& f) {
      return fmt::format(
          "model: {:g} SMs x 128 B/clk x {:.0f} MHz (measured) = {} L1/shared "
          "peak; DRAM peak {} (2 x memory clock x bus width, as reported); "
          "levels named by size against L1 {} per SM and L2 {}",
          f.value(kSmCount), f.value(kClock), tbps(f.maybe(kModel)), tbps(f.maybe(kDram)),
          format_bytes(f.value(kL1Bytes)), format_bytes(f.value(kL2Bytes)));
    });

std::optional<double> positive(double v) {
  return v > 0 ? std::optional<double>(v) : std::nullopt;
}

void level_findings(const Curve& c, std::vector<Finding>& out) {
  for (const Level& l : c.levels) {
    const Plateau& p = l.plateau;
    std::optional<double> of_model;
    if (l.model_gbps) of_model = p.gbps / *l.model_gbps;
    out.push_back(kPlateauFound.make(
        kScopeName(c.scope), kOpName(c.op), kLevel(l.level), kPlateau(p.gbps), kLow(p.low),
        kHigh(p.high), kFromBytes(l.from_bytes), kToBytes(l.to_bytes),
        kSizes(static_cast<double>(p.sizes)), kModel(l.model_gbps), kOfModel(of_model)));
    if (l.counter_level.empty()) continue;
    const std::string base = l.level.substr(0, l.level.find('#'));
    const bool agree = base == l.counter_level;
    auto fields =
        std::make_tuple(kScopeName(c.scope), kOpName(c.op), kLevel(l.level), kL1Hit(l.l1_hit),
                        kL2Hit(l.l2_hit), kDramPerByte(l.dram_per_byte),
                        kCountersSay(l.counter_level), kAgreement(agree ? "agree" : "differ"));
    out.push_back(std::apply(
        [&](auto... g) {
          return agree ? kCounterLevel.make(g...) : kCounterLevel.make_warning(g...);
        },
        fields));
  }
  for (const Knee& k : c.knees)
    out.push_back(kKneeFound.make(kScopeName(c.scope), kOpName(c.op), kFrom(k.from), kTo(k.to),
                                  kKneeBytes(k.bytes), kFromGbps(k.from_gbps), kToGbps(k.to_gbps)));
  if (c.levels.empty())
    out.push_back(kNoPlateau.make(kScopeName(c.scope), kOpName(c.op),
                                  kPoints(static_cast<double>(c.points.size()))));
}

// The level of a curve named `name` whose plateau spans most sizes.
const Level* widest(const std::vector<Curve>& curves, const std::string& scope,
                    const std::string& op, const std::string& name) {
  const Level* best = nullptr;
  for (const Curve& c : curves) {
    if (c.scope != scope || c.op != op) continue;
    for (const Level& l : c.levels) {
      if (l.level.substr(0, l.level.find('#')) != name) continue;
      if (best == nullptr ||
          l.plateau.last - l.plateau.first > best->plateau.last - best->plateau.first)
        best = &l;
    }
  }
  return best;
}

std::optional<double> gbps_of(const Level* l) {
  return l ? std::optional<double>(l->plateau.gbps) : std::nullopt;
}

void l2_findings(const std::vector<Curve>& curves, std::vector<Finding>& out) {
  for (const char* op : {kRead, kWrite, kCopy}) {
    const Level* l2 = widest(curves, kDevice, op, "L2");
    if (l2 == nullptr) continue;
    const auto l1 = gbps_of(widest(curves, kSm, op, "L1"));
    const auto dram = gbps_of(widest(curves, kDevice, op, "DRAM"));
    const double v = l2->plateau.gbps;
    out.push_back(kL2Named.make(kOpName(op), kL2(v), kL1(l1), kDram(dram),
                                kL1OverL2(l1 ? std::optional(*l1 / v) : std::nullopt),
                                kL2OverDram(dram ? std::optional(v / *dram) : std::nullopt)));
  }
}

}  // namespace

void add_findings(ProbeResult& result, const std::vector<Curve>& curves, const RunFacts& facts) {
  for (const Curve& c : curves)
    level_findings(c, result.findings);
  l2_findings(curves, result.findings);
  result.findings.push_back(kFacts.make(
      kSmCount(facts.sm_count), kClock(facts.clock_mhz),
      kL1Bytes(static_cast<double>(facts.l1_bytes)), kL2Bytes(static_cast<double>(facts.l2_bytes)),
      kModel(positive(facts.l1_peak_gbps)), kDram(positive(facts.dram_peak_gbps))));
}

const FindingList& finding_list() {
  return cache_findings;
}

}  // namespace gpuprobe::cache
