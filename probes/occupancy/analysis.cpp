// occupancy's analysis (host-only): rows grouped by op into curves of bandwidth against bytes in
// flight per SM, plateaus and knees, Little's law per row, achieved occupancy and DRAM traffic
// beside their models; then the findings (findings.cpp).
#include <algorithm>
#include <cmath>

#include "gpuprobe/core/decide.hpp"
#include "gpuprobe/core/stats.hpp"
#include "gpuprobe/models/occupancy_model.hpp"
#include "internal.hpp"

namespace gpuprobe::occupancy {
namespace {

std::optional<Sample> sample_of(Row& r) {
  const auto warps = int_param_of(r, kWarps), ilp = int_param_of(r, kIlp);
  const auto width = int_param_of(r, kWidth);
  const auto in_flight = quantity_value(r.derived, kInFlight),
             regs = quantity_value(r.derived, kRegistersPerSm);
  const Metric* bw = find_metric(r, "bandwidth");
  if (!warps || !ilp || !width || !in_flight || !regs || bw == nullptr) return std::nullopt;
  const auto i = [](std::optional<std::int64_t> v) { return static_cast<int>(*v); };
  return Sample{&r, i(warps), i(ilp), i(width), *in_flight, *regs, bw, bw->stats.median};
}

void set_plateau(Curve& c) {
  std::vector<const Metric*> metrics;
  for (const Sample& s : c.samples)
    metrics.push_back(s.bandwidth);
  c.plateau_set = alike_to_extreme(metrics, Extreme::kHighest);
  std::vector<double> medians;
  for (const std::size_t i : c.plateau_set)
    medians.push_back(c.samples[i].gbps);
  if (!medians.empty()) c.plateau = statistics_of(medians).median;
}

std::vector<Curve> curves_of(ProbeResult& result) {
  std::vector<Curve> out;
  for (Row& r : result.rows) {
    const auto op = text_param_of(r, kOp);
    auto s = sample_of(r);
    if (!op || !s) continue;
    auto c = std::find_if(out.begin(), out.end(), [&](const Curve& x) { return x.op == *op; });
    if (c == out.end()) {
      Curve fresh;
      fresh.op = *op;
      fresh.counted = *op == kCopy ? 2.0 : 1.0;
      c = out.insert(out.end(), std::move(fresh));
    }
    c->samples.push_back(*s);
  }
  for (Curve& c : out) {
    std::stable_sort(c.samples.begin(), c.samples.end(),
                     [](const Sample& a, const Sample& b) { return a.in_flight < b.in_flight; });
    c.ilp0 = std::ranges::min_element(c.samples, {}, &Sample::ilp)->ilp;
    c.width0 = std::ranges::min_element(c.samples, {}, &Sample::width)->width;
    set_plateau(c);
    for (const double level : kKneeLevels)
      c.knees.push_back(knee_of(c.samples, level * c.plateau));
  }
  return out;
}

// The row's Little's-law bandwidth at the unloaded latency, under the op's plateau.
void add_model(Sample& s, const Curve& c, const RunFacts& f) {
  const double bw =
      models::little_bandwidth(s.in_flight, f.sm_count, f.latency_s, c.plateau * 1e9, c.counted);
  const double implied = models::implied_latency(s.in_flight, f.sm_count, s.gbps * 1e9, c.counted);
  s.row->model.push_back(
      {"bandwidth", "GB/s", f.latency_s > 0 ? std::optional(bw / 1e9) : std::nullopt});
  s.row->derived.push_back({"of_plateau", "", ratio_of(s.gbps, c.plateau)});
  s.row->derived.push_back(
      {"implied_latency", "ns", s.gbps > 0 ? std::optional(implied * 1e9) : std::nullopt});
}

// Counter columns: the achieved occupancy beside the theoretical one, the DRAM traffic beside
// the bytes streamed (a working set past the L2 streams DRAM: about one byte per byte moved). The
// bytes written are the range's and the write-back of what it left dirty.
void add_counters(Sample& s, CounterAgreement& occ, CounterAgreement& dram) {
  Row& r = *s.row;
  if (!r.counters) return;
  occ.add(r, "achieved_occupancy", counter_value(r, kAchieved),
          quantity_value(r.derived, kOccupancy));
  // Files before the write-back was counted for every op have it on writes and copies only.
  const auto write = counter_value(r, kDramWrite), back = counter_value(r, kDramWriteBack);
  const auto written = back ? sum_of(write, back) : write;
  dram.add(r, "dram_bytes", sum_of(counter_value(r, kDramRead), written),
           quantity_value(r.derived, kStreamed));
}

}  // namespace

std::string route_of(const Sample& s, int ilp0, int width0) {
  const bool ilp = s.ilp > ilp0, width = s.width > width0;
  return ilp && width ? "ILP and width" : ilp ? "ILP" : width ? "width" : "warps";
}

Knee knee_of(const std::vector<Sample>& samples, double target) {
  Knee k;
  k.target = target;
  for (std::size_t i = 0; i < samples.size(); ++i)
    if (samples[i].gbps >= target &&
        (!k.first || samples[i].in_flight < samples[*k.first].in_flight))
      k.first = i;
  if (!k.first) return k;
  const Sample& hi = samples[*k.first];
  for (std::size_t i = 0; i < samples.size(); ++i) {
    const Sample& s = samples[i];
    if (s.in_flight >= hi.in_flight) continue;
    if (!k.below || s.in_flight > samples[*k.below].in_flight ||
        (s.in_flight == samples[*k.below].in_flight && s.gbps > samples[*k.below].gbps))
      k.below = i;
  }
  k.bytes = hi.in_flight;
  if (!k.below) return k;
  const Sample& lo = samples[*k.below];
  const double t = hi.gbps > lo.gbps ? (target - lo.gbps) / (hi.gbps - lo.gbps) : 1.0;
  k.bytes = std::exp(std::log(lo.in_flight) +
                     std::clamp(t, 0.0, 1.0) * (std::log(hi.in_flight) - std::log(lo.in_flight)));
  return k;
}

Cheapest cheapest(const std::vector<Sample>& samples, double target) {
  Cheapest c;
  const auto better = [&](std::optional<std::size_t> best, std::size_t i, bool warps_first) {
    const auto key = [&](const Sample& s) {
      const double w = s.warps;
      return warps_first ? std::pair(w, s.registers_per_sm) : std::pair(s.registers_per_sm, w);
    };
    return !best || key(samples[i]) < key(samples[*best]);
  };
  for (std::size_t i = 0; i < samples.size(); ++i) {
    if (samples[i].gbps < target) continue;
    if (better(c.fewest_warps, i, true)) c.fewest_warps = i;
    if (better(c.fewest_registers, i, false)) c.fewest_registers = i;
  }
  return c;
}

double predicted_knee(const Curve& c, double level, const RunFacts& facts) {
  return models::knee_bytes(level, c.plateau * 1e9, facts.latency_s, facts.sm_count, c.counted);
}

void analyse(ProbeResult& result, const RunFacts& facts) {
  std::vector<Curve> curves = curves_of(result);
  CounterAgreement occ(kCounterOccupancy, "%"), dram(kCounterDram, "B");
  for (Curve& c : curves)
    for (Sample& s : c.samples) {
      add_model(s, c, facts);
      add_counters(s, occ, dram);
    }
  for (const CounterAgreement* a : {&occ, &dram})
    if (auto f = a->finding()) result.findings.push_back(std::move(*f));
  add_findings(result, curves, facts);
}

}  // namespace gpuprobe::occupancy
