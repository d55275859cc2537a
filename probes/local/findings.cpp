// local's findings (host-only), each declared once (id, kind, fields, sentence), built from the
// groups analysis.cpp derived: per (kernel, carve-out) what the most spilled cap costs, where the
// spills stop fitting L1, whether the occupancy fewer registers buy pays; the measured latencies.
#include <fmt/format.h>

#include "gpuprobe/core/decide.hpp"
#include "gpuprobe/core/units.hpp"
#include "internal.hpp"

namespace gpuprobe::local {
namespace {

constexpr Text<"kernel"> kKernelName;
constexpr Int<"carveout", "%"> kCarve;
constexpr Int<"max_registers"> kCap;
constexpr Value<"spill_bytes", "B"> kSpillBytes;
constexpr Value<"registers"> kRegs;
constexpr Value<"base_registers"> kBaseRegs;
constexpr Value<"blocks_per_sm"> kBlocks;
constexpr Value<"base_blocks_per_sm"> kBaseBlocks;
constexpr Value<"slowdown", "x"> kSlowdown;
constexpr Value<"model_slowdown", "x"> kModelSlowdown;
constexpr Value<"speedup", "x"> kSpeedup;
constexpr Text<"decision"> kDecision;
constexpr Value<"served_footprint", "B"> kInBytes;
constexpr Value<"served_hit_rate"> kInHit;
constexpr Value<"missed_footprint", "B"> kOutBytes;
constexpr Value<"missed_hit_rate"> kOutHit;
constexpr Value<"l1_bytes", "B"> kL1Bytes;
constexpr Text<"spills_leave_l1"> kLeave;
constexpr Value<"l1_latency", "ns"> kL1Lat;
constexpr Value<"l2_latency", "ns"> kL2Lat;
constexpr Value<"table_bytes", "B"> kTable;
constexpr Value<"clock_mhz", "MHz"> kClock;

FindingList local_findings;

std::string bytes(std::optional<double> b) {
  return b ? format_bytes(*b) : "n/a";
}
std::string pct(std::optional<double> r) {
  return r ? fmt::format("{:.0f}%", 100 * *r) : "n/a";
}
std::string times(std::optional<double> x) {
  return x ? fmt::format("{:.2f}x", *x) : "n/a";
}

const auto kSpillCost = local_findings.verdict(
    "local_spill_cost", params(kKernelName, kCarve),
    values(kSpillBytes, kRegs, kBaseRegs, kSlowdown, kModelSlowdown), outcome(kCap),
    [](const auto& f) {
      return fmt::format(
          "{}, carve-out {}%: {} spilled per thread at {:g} registers (cap {}) takes {} the time "
          "of the unspilled {:g}-register kernel (model: {})",
          f[kKernelName], f[kCarve], bytes(f.value(kSpillBytes)), f.value(kRegs), f[kCap],
          times(f.maybe(kSlowdown)), f.value(kBaseRegs), times(f.maybe(kModelSlowdown)));
    });

const auto kTradeoff = local_findings.verdict(
    "local_occupancy_tradeoff", params(kKernelName, kCarve),
    values(kRegs, kBlocks, kBaseRegs, kBaseBlocks, kSpillBytes, kSpeedup), outcome(kCap, kDecision),
    [](const auto& f) {
      return fmt::format(
          "{}, carve-out {}%: capped at {:g} registers ({:g} blocks/SM, {} spilled per thread) "
          "it runs {} as fast as with the compiler's {:g} registers ({:g} blocks/SM): {}",
          f[kKernelName], f[kCarve], f.value(kRegs), f.value(kBlocks), bytes(f.value(kSpillBytes)),
          times(f.maybe(kSpeedup)), f.value(kBaseRegs), f.value(kBaseBlocks), f[kDecision]);
    });

const auto kL1Fit = local_findings.verdict(
    "local_spills_in_l1", params(kKernelName, kCarve),
    values(kInBytes, kInHit, kOutBytes, kOutHit, kL1Bytes), outcome(kLeave), [](const auto& f) {
      const std::string served = f.maybe(kInBytes)
                                     ? fmt::format(
                                           "stack frames up to {} per SM were served by L1 ({} of "
                                           "local loads hit)",
                                           bytes(f.maybe(kInBytes)), pct(f.maybe(kInHit)))
                                     : std::string("no spilled footprint was served by L1");
      const std::string missed = f.maybe(kOutBytes)
                                     ? fmt::format("; from {} per SM only {} hit",
                                                   bytes(f.maybe(kOutBytes)), pct(f.maybe(kOutHit)))
                                     : std::string("; no footprint swept left it");
      return fmt::format("{}, carve-out {}%: {}{} (the L1 this carve-out leaves: {})",
                         f[kKernelName], f[kCarve], served, missed, bytes(f.maybe(kL1Bytes)));
    });

const auto kNoBaseline = local_findings.note(
    "local_no_baseline", params(kKernelName, kCarve), values(), [](const auto& f) {
      return fmt::format(
          "{}, carve-out {}%: every cap swept spills: no unspilled baseline, no "
          "slowdown (add --max-registers 0)",
          f[kKernelName], f[kCarve]);
    });

const auto kLatencies = local_findings.note(
    "local_latencies", params(), values(kL1Lat, kL2Lat, kTable, kClock), [](const auto& f) {
      return fmt::format(
          "model prices spills at latencies measured in this run with latency's chase kernel: "
          "L1 {:.1f} ns (8 KiB set), L2 {:.1f} ns ({} set, ld.global.cg, the memory kernel's "
          "table size), at {:.0f} MHz; the L1 data path at 128 B/clk/SM",
          f.value(kL1Lat), f.value(kL2Lat), bytes(f.value(kTable)), f.value(kClock));
    });

void spill_cost(ProbeResult& result, const Group& g) {
  const Variant* most = nullptr;
  for (const Variant& v : g.variants)
    if (v.local_bytes > 0 && (most == nullptr || v.local_bytes > most->local_bytes)) most = &v;
  if (most == nullptr) return;
  const Variant& b = g.variants[*g.base];
  result.findings.push_back(kSpillCost.make(
      kKernelName(g.kernel), kCarve(g.carveout), kCap(most->cap), kSpillBytes(most->local_bytes),
      kRegs(most->registers), kBaseRegs(b.registers),
      kSlowdown(quantity_value(most->row->derived, "slowdown")),
      kModelSlowdown(quantity_value(most->row->model, "slowdown"))));
}

const char* decision_text(Change c) {
  switch (c) {
    case Change::kFaster:
      return "fewer registers win";
    case Change::kSlower:
      return "fewer registers lose";
    case Change::kSame:
      return "no difference";
    default:
      return "inconclusive";
  }
}

void tradeoff(ProbeResult& result, const Group& g) {
  const auto t = traded(g);
  if (!t) return;
  const Variant& v = g.variants[*t];
  const Variant& b = g.variants[*g.base];
  const double vt = v.time->stats.median;
  result.findings.push_back(kTradeoff.make(
      kKernelName(g.kernel), kCarve(g.carveout), kCap(v.cap), kRegs(v.registers), kBlocks(v.blocks),
      kBaseRegs(b.registers), kBaseBlocks(b.blocks), kSpillBytes(v.local_bytes),
      kSpeedup(vt > 0 ? std::optional(b.time->stats.median / vt) : std::nullopt),
      kDecision(decision_text(order_of(*v.time, *b.time)))));
}

void l1(ProbeResult& result, const Group& g) {
  const L1Fit fit = l1_fit(g);
  if (fit.with_counters == 0) return;
  const auto at = [&](const std::optional<std::size_t>& i) -> const Variant* {
    return i ? &g.variants[*i] : nullptr;
  };
  const Variant* in = at(fit.largest_in);
  const Variant* out = at(fit.smallest_out);
  result.findings.push_back(kL1Fit.make(
      kKernelName(g.kernel), kCarve(g.carveout),
      kInBytes(in ? std::optional(in->footprint) : std::nullopt),
      kInHit(in ? in->l1_hit : std::nullopt),
      kOutBytes(out ? std::optional(out->footprint) : std::nullopt),
      kOutHit(out ? out->l1_hit : std::nullopt), kL1Bytes(g.l1_bytes), kLeave(out ? "yes" : "no")));
}

}  // namespace

const CounterAgreementMaker kCounterLoads = define_counter_agreement(
    local_findings, "local_counter_loads", "local load sectors (spill reloads)",
    point(kKernelName, kCarve, kCap), [](const auto& f) {
      return fmt::format("{} carve-out {}% cap {}", f[kKernelName], f[kCarve], f[kCap]);
    });
const CounterAgreementMaker kCounterStores = define_counter_agreement(
    local_findings, "local_counter_stores", "local store sectors (spill stores)",
    point(kKernelName, kCarve, kCap), [](const auto& f) {
      return fmt::format("{} carve-out {}% cap {}", f[kKernelName], f[kCarve], f[kCap]);
    });

void add_findings(ProbeResult& result, const std::vector<Group>& groups, const RunFacts& facts) {
  for (const Group& g : groups) {
    if (!g.base) {
      result.findings.push_back(kNoBaseline.make(kKernelName(g.kernel), kCarve(g.carveout)));
      continue;
    }
    spill_cost(result, g);
    tradeoff(result, g);
    l1(result, g);
  }
  if (!groups.empty())
    result.findings.push_back(
        kLatencies.make(kL1Lat(facts.l1_latency_s * 1e9), kL2Lat(facts.l2_latency_s * 1e9),
                        kTable(static_cast<double>(facts.table_bytes)), kClock(facts.clock_mhz)));
}

const FindingList& finding_list() {
  return local_findings;
}

}  // namespace gpuprobe::local
