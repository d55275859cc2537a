// local's analysis (host-only): rows grouped by (kernel, carve-out), each cap's slowdown against
// the unspilled baseline, the model's spill traffic, footprint and cost beside it, the counters'
// local traffic and where it was served; then the findings (findings.cpp).
#include <algorithm>

#include "gpuprobe/models/local_model.hpp"
#include "internal.hpp"

namespace gpuprobe::local {
namespace {

// The row as a variant; nullopt when it lacks what the analysis reads.
std::optional<Variant> variant_of(Row& r) {
  Variant v;
  v.row = &r;
  const auto cap = int_param_of(r, kMaxRegisters);
  const auto step = metric_median(r, kStepTime);
  v.time = find_metric(r, "time");
  const auto derived = [&r](const char* name) { return quantity_value(r.derived, name); };
  const std::optional<double> got[] = {
      derived(kRegisters), derived(kLocalBytes), derived(kBlocksPerSm), derived(kOccupancy),
      derived(kThreads),   derived(kSteps),      derived(kTouches)};
  if (!cap || !step || v.time == nullptr) return std::nullopt;
  for (const auto& g : got)
    if (!g) return std::nullopt;
  v.cap = *cap;
  v.step_time = *step;
  v.registers = *got[0], v.local_bytes = *got[1], v.blocks = *got[2], v.occupancy = *got[3];
  v.threads = *got[4], v.steps = *got[5], v.touches = *got[6];
  v.footprint =
      models::spill_footprint(v.local_bytes, static_cast<int>(v.blocks), models::kLocalThreads);
  return v;
}

std::vector<Group> groups_of(ProbeResult& result, const RunFacts& facts) {
  std::vector<Group> out;
  for (Row& r : result.rows) {
    const auto kernel = text_param_of(r, kKernel);
    const auto carve = int_param_of(r, kCarveout);
    auto v = variant_of(r);
    if (!kernel || !carve || !v) continue;
    auto g = std::find_if(out.begin(), out.end(), [&](const Group& x) {
      return x.kernel == *kernel && x.carveout == *carve;
    });
    if (g == out.end()) {
      g = out.insert(out.end(), Group{*kernel, *carve, {}, std::nullopt, std::nullopt});
      const auto l1 = facts.l1_by_carveout.find(static_cast<std::uint64_t>(*carve));
      if (l1 != facts.l1_by_carveout.end()) g->l1_bytes = static_cast<double>(l1->second);
    }
    g->variants.push_back(*v);
  }
  for (Group& g : out)
    g.base = baseline(g.variants);
  return out;
}

// Model columns: the spill traffic, the footprint per SM against the L1, what the traffic costs
// per thread-step at best (the L1 data path, or one exposed round trip per touch at the level
// the footprint fits), and for the memory kernel the latency-bound chase.
void add_model(Variant& v, const Group& g, const RunFacts& f) {
  Row& r = *v.row;
  const models::SpillTraffic t = models::spill_traffic(v.local_bytes, v.threads, v.touches);
  r.model.push_back({"spill_load_sectors", "", t.load_sectors});
  r.model.push_back({"spill_store_sectors", "", t.store_sectors});
  r.model.push_back({"spill_footprint", "B", v.footprint});
  if (g.l1_bytes) r.model.push_back({"l1_bytes", "B", *g.l1_bytes});
  const double blocks = v.threads / models::kLocalThreads;
  const double waves = models::launch_waves(blocks, static_cast<int>(v.blocks), f.sm_count);
  const double work = v.threads * v.steps;
  const bool in_l1 = g.l1_bytes && v.footprint <= *g.l1_bytes;
  const double latency = in_l1 ? f.l1_latency_s : f.l2_latency_s;
  const double cost = std::max(models::spill_bandwidth_seconds(t, v.threads, f.l1_bytes_per_second),
                               models::spill_latency_seconds(v.touches, waves, latency));
  r.model.push_back(
      {"spill_cost", "ps", work > 0 ? std::optional(cost / work * 1e12) : std::nullopt});
  if (g.kernel == kMemoryName && work > 0)
    r.model.push_back({"chase_step_time", "ps",
                       models::chase_seconds(waves, v.steps, f.l2_latency_s) / work * 1e12});
}

// Counter columns: the local traffic beside the model, the L1 hit rate of the local loads, the
// L2 and DRAM traffic, the achieved occupancy.
void add_counters(Variant& v, CounterAgreement& loads, CounterAgreement& stores) {
  Row& r = *v.row;
  if (!r.counters) return;
  const auto ld = counter_value(r, kLocalLoad), st = counter_value(r, kLocalStore);
  const auto hits = counter_value(r, kLocalLoadHits);
  if (ld && hits && *ld > 0) v.l1_hit = *hits / *ld;
  r.derived.push_back({"local_l1_hit", "", v.l1_hit});
  const auto l2r = counter_value(r, kL2Reads), l2w = counter_value(r, kL2Writes);
  r.derived.push_back({"l2_sectors", "", l2r && l2w ? std::optional(*l2r + *l2w) : std::nullopt});
  const auto dr = counter_value(r, kDramRead), dw = counter_value(r, kDramWrite);
  r.derived.push_back({"dram_bytes", "B", dr && dw ? std::optional(*dr + *dw) : std::nullopt});
  r.derived.push_back({"achieved_occupancy", "%", counter_value(r, kAchieved)});
  if (v.local_bytes <= 0) return;  // no spill: nothing to compare
  const models::SpillTraffic t = models::spill_traffic(v.local_bytes, v.threads, v.touches);
  loads.add(r, "local_load_sectors", ld, t.load_sectors);
  stores.add(r, "local_store_sectors", st, t.store_sectors);
}

void add_slowdown(Variant& v, const Group& g) {
  Row& r = *v.row;
  if (!g.base) return;
  const Variant& b = g.variants[*g.base];
  const double base_time = b.time->stats.median;
  r.derived.push_back(
      {"slowdown", "x",
       base_time > 0 ? std::optional(v.time->stats.median / base_time) : std::nullopt});
  r.derived.push_back({"extra_step_time", "ps", v.step_time - b.step_time});
}

// The model's slowdown against the baseline: compute, the baseline's measured step plus the
// spill cost; memory, the latency-bound chase plus the spill cost, over the baseline's chase.
void add_model_slowdown(Variant& v, const Group& g) {
  if (!g.base) return;
  const Row& b = *g.variants[*g.base].row;
  const auto cost = quantity_value(v.row->model, "spill_cost");
  const bool memory = g.kernel == kMemoryName;
  const auto base =
      memory ? quantity_value(b.model, "chase_step_time") : metric_median(b, kStepTime);
  const auto mine = memory ? quantity_value(v.row->model, "chase_step_time") : base;
  std::optional<double> ratio;
  if (cost && base && mine && *base > 0) ratio = (*mine + *cost) / *base;
  v.row->model.push_back({"slowdown", "x", ratio});
}

}  // namespace

std::optional<std::size_t> baseline(const std::vector<Variant>& variants) {
  std::optional<std::size_t> best;
  for (std::size_t i = 0; i < variants.size(); ++i) {
    const Variant& v = variants[i];
    if (v.local_bytes > 0) continue;
    if (v.cap == 0) return i;
    if (!best || v.registers > variants[*best].registers) best = i;
  }
  return best;
}

std::optional<std::size_t> traded(const Group& g) {
  if (!g.base) return std::nullopt;
  const Variant& b = g.variants[*g.base];
  std::optional<std::size_t> best;
  for (std::size_t i = 0; i < g.variants.size(); ++i) {
    const Variant& v = g.variants[i];
    if (v.blocks <= b.blocks) continue;
    if (!best || v.time->stats.median < g.variants[*best].time->stats.median) best = i;
  }
  return best;
}

L1Fit l1_fit(const Group& g) {
  L1Fit fit;
  for (std::size_t i = 0; i < g.variants.size(); ++i) {
    const Variant& v = g.variants[i];
    if (v.local_bytes <= 0 || !v.l1_hit) continue;
    ++fit.with_counters;
    if (*v.l1_hit >= kL1Served) {
      if (!fit.largest_in || v.footprint > g.variants[*fit.largest_in].footprint)
        fit.largest_in = i;
    } else if (!fit.smallest_out || v.footprint < g.variants[*fit.smallest_out].footprint) {
      fit.smallest_out = i;
    }
  }
  return fit;
}

void analyse(ProbeResult& result, const RunFacts& facts) {
  std::vector<Group> groups = groups_of(result, facts);
  CounterAgreement loads(kCounterLoads, "sectors"), stores(kCounterStores, "sectors");
  for (Group& g : groups)
    for (Variant& v : g.variants) {
      add_slowdown(v, g);
      add_model(v, g, facts);
      add_counters(v, loads, stores);
    }
  for (Group& g : groups)
    for (Variant& v : g.variants)
      add_model_slowdown(v, g);
  for (const CounterAgreement* a : {&loads, &stores})
    if (auto f = a->finding()) result.findings.push_back(std::move(*f));
  add_findings(result, groups, facts);
}

}  // namespace gpuprobe::local
