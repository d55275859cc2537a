// The `constant` probe: one table lookup served four ways (__constant__, __ldg, a texture object,
// ld.global), swept over distinct addresses per warp, table size and element width for
// throughput, and chased by one thread for latency per path and table size. Sizing and operations
// here; the model, counters, levels and findings in analysis.cpp / findings.cpp (host-only).
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <map>
#include <memory>
#include <numeric>
#include <random>

#include "analysis.hpp"
#include "gpuprobe/core/mismatches.hpp"
#include "gpuprobe/core/samples.hpp"
#include "gpuprobe/core/units.hpp"
#include "gpuprobe/runtime/device.hpp"
#include "gpuprobe/sweep_probe.hpp"
#include "kernels.hpp"
#include "latency/analysis.hpp"  // flushed_first: the same rule as latency's chase
#include "registry.hpp"

namespace gpuprobe {
namespace {

using constant::Point;
using models::LookupPath;

constexpr int kBlocksPerSm = 8;             // 2048 threads per SM
constexpr std::uint32_t kBaseIters = 4096;  // lookups per thread at one address per warp
constexpr std::uint32_t kMinIters = 8;
constexpr std::uint64_t kFullWarmMax = 4096;   // chases up to 256 KiB (L1) warm fully
constexpr std::uint32_t kShortWarm = 2048;     // else this many steps
constexpr std::uint32_t kSlotCapacity = 4096;  // chase launches recorded per point

// Lookups per thread: fewer where each costs more (more distinct addresses, a table past L1 or
// L2), so every launch lasts about 0.1-3 ms on an H100.
std::uint32_t iters_for(const Point& p) {
  const std::uint64_t level = p.bytes <= (256u << 10) ? 1 : p.bytes <= (8u << 20) ? 4 : 64;
  return std::max<std::uint32_t>(kMinIters,
                                 static_cast<std::uint32_t>(kBaseIters / (p.distinct * level)));
}

// What every operation shares: the table buffer, its texture objects by width, the sums, a sink.
struct Shared {
  runtime::DeviceBuffer table, out, sink;
  std::map<int, std::unique_ptr<constant::Texture>> textures;
  int blocks = 0;
  int sms = 1;  // the chase's grid: one one-thread block per SM (constant::kChaseSm chases)
  std::uint64_t l2_bytes = 0;
};

runtime::Operation lookup_op(const Point& p, Shared& sh, cudaStream_t check) {
  constant::LookupLaunch l{p.path, p.width, p.distinct,
                           static_cast<std::uint32_t>(p.bytes / p.width)};
  l.iters = iters_for(p);
  l.blocks = sh.blocks;
  l.table = sh.table.get();
  l.tex = sh.textures.at(p.width)->get();
  l.out = static_cast<std::uint32_t*>(sh.out.get());
  const double threads = static_cast<double>(l.blocks) * constant::kLookupThreads;
  runtime::Operation op;
  op.label = fmt::format("lookup {} {} B d{} {}", models::lookup_path_name(p.path), p.width,
                         p.distinct, format_bytes(static_cast<double>(p.bytes)));
  op.cache = runtime::Cache::kAsLeft;
  const std::uint64_t out_bytes = static_cast<std::uint64_t>(threads) * 4;
  op.prepare = [l, bytes = p.bytes, out_bytes](cudaStream_t st) {
    constant::launch_fill(const_cast<void*>(l.table), bytes, st);
    if (l.path == LookupPath::kConstant) constant::copy_to_constant(l.table, bytes, st);
    GP_CUDA(cudaMemsetAsync(l.out, 0, out_bytes, st));
  };
  op.lanes.push_back({"lookup", threads * l.iters * p.width,
                      [l](runtime::LaunchScope& sc) { constant::launch_lookup(l, sc.stream()); }});
  op.verify = [l, threads, check] {
    return mismatch_text("sums", constant::check_lookup(l, check),
                         static_cast<std::uint64_t>(threads), "threads");
  };
  return op;
}

// One chase point while it is measured: its order, where its launches record, what they recorded
// up to its verification (the counter pass's launches come after).
struct Order {
  std::vector<std::uint32_t> host;
  runtime::DeviceBuffer device;
};
struct ChaseState {
  Point point;
  std::shared_ptr<const Order> order;
  constant::SlotRing ring{kSlotCapacity};
  constant::SlotRing lap_ring{0};  // counts the own laps (they record no slot)
  std::vector<constant::ChaseSlot> slots;
  bool verified = false;
};

// Launch k started at position k x (warm + steps) of the cycle: it ends (warm + steps) further.
std::string verify_chase(ChaseState& st, const constant::ChaseLaunch& c) {
  std::vector<constant::ChaseSlot> slots = st.ring.read();
  const auto& order = st.order->host;
  const std::uint64_t per = c.warm + c.steps, n = order.size();
  auto wrong_end = [&](std::uint64_t k) {
    return slots[k].end != order[(k + 1) * per % n] * models::kChaseStride;
  };
  const std::string wrong =
      mismatch_text("chase", find_mismatches(slots.size(), wrong_end), slots.size(), "launches");
  if (!st.verified) st.slots = std::move(slots), st.verified = true;
  return wrong;
}

runtime::Operation chase_op(ChaseState& st, Shared& sh, std::uint32_t steps) {
  const Point p = st.point;
  const std::uint64_t n = p.bytes / models::kChaseStride;
  constant::ChaseLaunch c{p.path, sh.table.get(), sh.textures.at(4)->get(),
                          static_cast<const std::uint32_t*>(st.order->device.get()),
                          static_cast<std::uint32_t>(n)};
  c.warm = n <= kFullWarmMax ? static_cast<std::uint32_t>(n) : kShortWarm;
  c.sms = std::max(sh.sms, 1);
  c.steps = steps;
  st.ring.into(c);
  runtime::Operation op;
  op.label = fmt::format("chase {} {}", models::lookup_path_name(p.path),
                         format_bytes(static_cast<double>(p.bytes)));
  // As `latency` does: a table far over the L2 starts each sample from a flushed L2 (DRAM), a
  // smaller one from a warm read of the whole table (so the L2 holds it). Warming a 256 MiB table
  // left its last 60 MiB in an H200's L2: the DRAM level read 0.88x latency's.
  const bool flush = latency::flushed_first(n, models::kChaseStride, sh.l2_bytes);
  op.cache = flush ? runtime::Cache::kFlushL2 : runtime::Cache::kAsLeft;
  // After the chain is (re)built, SM 0 walks the whole cycle once, untimed, for a table past the
  // full warm-up and within a quarter of the L2: a line SM 0 has read since it was last written
  // reads about 40 cycles faster than one it has not, while the L2 has room to keep it
  // (scripts/experiments/chase_allocation_levels.cu; docs/probes/constant.md). Without the lap the
  // level depended on which lines earlier launches had read since the round's rebuild.
  constant::ChaseLaunch lap = c;
  lap.warm = static_cast<std::uint32_t>(n);
  lap.steps = 0;
  st.lap_ring.into(lap);
  const bool own_lap = !flush && n > kFullWarmMax && p.bytes <= sh.l2_bytes / 4;
  op.prepare = [c, lap, own_lap, bytes = p.bytes](cudaStream_t s) {
    constant::launch_build_chain(const_cast<void*>(c.table), c.order, c.n,
                                 constant::chases_pointers(c.path), s);
    if (c.path == LookupPath::kConstant) constant::copy_to_constant(c.table, bytes, s);
    if (own_lap) constant::launch_chase(lap, s);
  };
  if (p.path != LookupPath::kConstant && !flush)
    op.reset_sample = [c, bytes = p.bytes, sink = static_cast<std::uint32_t*>(sh.sink.get())](
                          cudaStream_t s) { constant::launch_warm(c.table, bytes, sink, s); };
  op.reset_pass = op.reset_sample;
  op.lanes.push_back({"chase", static_cast<double>(4 * steps),
                      [c](runtime::LaunchScope& l) { constant::launch_chase(c, l.stream()); }});
  op.verify = [&st, c] { return verify_chase(st, c); };
  return op;
}

Metric slot_metric(const ChaseState& st, const char* name, const char* unit, double scale,
                   bool cycles, std::uint32_t steps) {
  std::vector<double> v;
  for (const auto& s : st.slots)
    v.push_back(static_cast<double>(cycles ? s.cycles : s.ns) * scale / steps);
  if (v.empty())
    throw std::runtime_error(fmt::format(
        "{}: no chase launch recorded: the chase runs on SM {} only (is it available to this "
        "context, e.g. under MPS with fewer SMs?)",
        name, constant::kChaseSm));
  return Metric{name, unit, statistics_of(v), {v}};
}

// A random order of n elements (one cycle) on the host and the device, shared by the paths' chases
// of one size.
std::shared_ptr<const Order> random_order(std::uint64_t n) {
  auto o =
      std::make_shared<Order>(Order{std::vector<std::uint32_t>(n), runtime::DeviceBuffer(n * 4)});
  std::iota(o->host.begin(), o->host.end(), 0u);
  std::shuffle(o->host.begin(), o->host.end(), std::mt19937_64(0xC0457A47ull ^ n));
  runtime::copy_to_device(o->device.get(), o->host.data(), n * 4);
  return o;
}

// The lookups: one batch over the shared table; each row gets lookups/s and its warp lookups.
void measure_lookups(Sweep<Point>& s, Shared& sh, const std::vector<std::size_t>& at) {
  const cudaStream_t st = s.ctx().stream();
  std::vector<runtime::Operation> ops;
  for (const std::size_t i : at)
    ops.push_back(lookup_op(s.points()[i], sh, st));
  const std::vector<SampleSet> measured = s.ctx().measure_all(ops);
  for (std::size_t k = 0; k < at.size(); ++k) {
    const Point& p = s.points()[at[k]];
    const double lookups = ops[k].lanes[0].bytes / p.width;
    Row& row = s.add(at[k], measured[k]);
    row.metrics.push_back(mapped_metric(measured[k], measured[k].seconds, constant::kLookups,
                                        "Glookup/s",
                                        [lookups](double sec) { return lookups / sec / 1e9; }));
    row.derived.push_back({constant::kWarpLookups, "", lookups / 32});
  }
}

// The chases: one batch over the shared table, the orders shared by the paths of one size.
void measure_chases(Sweep<Point>& s, Shared& sh, const std::vector<std::size_t>& at) {
  const auto steps = static_cast<std::uint32_t>(s.values().number("steps"));
  std::map<std::uint64_t, std::shared_ptr<const Order>> orders;
  std::vector<std::unique_ptr<ChaseState>> states;
  std::vector<runtime::Operation> ops;
  for (const std::size_t i : at) {
    auto st = std::make_unique<ChaseState>();
    st->point = s.points()[i];
    auto& o = orders[st->point.bytes];
    if (!o) o = random_order(st->point.bytes / models::kChaseStride);
    st->order = o;
    ops.push_back(chase_op(*st, sh, steps));
    states.push_back(std::move(st));
  }
  const std::vector<SampleSet> measured = s.ctx().measure_all(ops);
  for (std::size_t k = 0; k < at.size(); ++k) {
    Row& row = s.add(at[k], measured[k]);
    row.metrics.clear();
    row.metrics.push_back(slot_metric(*states[k], constant::kCycles, "cycles", 1, true, steps));
    row.metrics.push_back(slot_metric(*states[k], constant::kSeconds, "s", 1e-9, false, steps));
    row.metrics.push_back(time_metric(measured[k]));
  }
}

// An axis within [min, max], its values checked by `ok` ("{} is not <why>") where given.
Axis bounded(Axis a, std::uint64_t min, std::uint64_t max, bool (*ok)(std::uint64_t) = nullptr,
             const char* why = "") {
  a.min = min;
  a.max = max;
  a.max_items = 16;
  if (ok)
    a.validate = [ok, why](std::uint64_t v) {
      return ok(v) ? std::string() : fmt::format("{} is not {}", v, why);
    };
  return a;
}

class ConstantProbe final : public SweepProbe<Point> {
 public:
  std::string name() const override { return "constant"; }
  std::string description() const override {
    return "one table lookup four ways (__constant__, __ldg, texture, ld.global): broadcast vs "
           "divergent throughput, latency per table size, the winner at each point";
  }
  std::vector<Axis> axes() const override {
    const auto power_of_two = [](std::uint64_t v) { return std::has_single_bit(v); };
    Axis chase_max = bounded(
        size_axis("chase-max", "largest chase table (constant: 64 KiB at most)", "256MiB", "4MiB"),
        4096, 512ull << 20);
    return {
        choice_axis("path", "how the table is read", {"constant", "readonly", "texture", "global"},
                    "all"),
        bounded(
            list_axis("width", "element bytes (16-byte constant lookups are two 8-byte LDCs)",
                      "4,16", "4"),
            4, 16, [](std::uint64_t w) { return w == 4 || w == 8 || w == 16; }, "4, 8 or 16"),
        bounded(list_axis("distinct", "distinct addresses per warp (powers of two)",
                          "1,2,4,8,16,32", "1,32"),
                1, 32, power_of_two, "a power of two"),
        bounded(size_list_axis("sizes",
                               "lookup table sizes, powers of two (the constant path stops at "
                               "64 KiB)",
                               "1KiB,16KiB,1MiB,256MiB", "1KiB,64MiB"),
                1024, 512ull << 20, power_of_two, "a power of two"),
        chase_max,
        bounded(number_axis("per-octave", "chase table sizes per doubling", "1"), 1, 8),
        bounded(number_axis("steps", "timed dependent lookups per chase launch", "2048", "1024"),
                256, 1u << 20)};
  }
  std::string memory_flags() const override { return "--sizes, --chase-max"; }
  void add_words(Glossary& g) const override { constant::add_words(g); }
  std::vector<std::string> counter_metrics() const override {
    return metric_names(constant::kCounterMetrics);
  }
  std::vector<Point> points(const AxisValues& v) const override { return constant::points(v); }
  Row row(const Point& p) const override { return unmeasured_row(constant::row_params(p)); }
  std::string method(const AxisValues& v) const override {
    return fmt::format(
        "lookups: {} blocks of {} threads per SM, each thread up to {} lookups (fewer for more "
        "distinct addresses and larger tables), a warp's lanes in `distinct` groups reading "
        "elements table/distinct apart from a random base; lookups/s and GB/s of the elements "
        "read; every thread's sum checked; chases: one thread on SM {}, {} dependent loads of "
        "elements 64 B apart (4-byte offsets for constant and texture, 8-byte addresses for "
        "readonly and global) in a random cycle after an untimed warm-up (the whole cycle up to {} "
        "elements, else {} steps; a table over twice the L2 from a flushed L2, a smaller one after "
        "a warm read of it, and up to a quarter of the L2 after one untimed lap of the whole cycle "
        "by that SM each round), clock64 and %globaltimer around them; every launch's end checked",
        kBlocksPerSm, constant::kLookupThreads, kBaseIters, constant::kChaseSm, v.number("steps"),
        kFullWarmMax, kShortWarm);
  }
  Analysis measure(Sweep<Point>& s) override;
};

ConstantProbe::Analysis ConstantProbe::measure(Sweep<Point>& s) {
  const DeviceInfo& dev = s.ctx().device();
  Shared sh;
  sh.blocks = dev.sm_count * kBlocksPerSm;
  sh.sms = dev.sm_count;
  sh.l2_bytes = dev.l2_bytes;
  int texels = 0;
  GP_CUDA(cudaDeviceGetAttribute(&texels, cudaDevAttrMaxTexture1DLinearWidth, dev.index));
  const std::uint64_t budget = runtime::device_memory().free_bytes / 2;
  std::vector<std::size_t> lookups, chases;
  std::uint64_t most = 0, dropped = 0;
  for (std::size_t i = 0; i < s.points().size(); ++i) {
    const Point& p = s.points()[i];
    const std::uint64_t texture_max =
        static_cast<std::uint64_t>(texels) * (p.mode == constant::kChase ? 4 : p.width);
    if (p.bytes > budget || (p.path == LookupPath::kTexture && p.bytes > texture_max)) {
      s.drop(i);
      ++dropped;
      continue;
    }
    most = std::max(most, p.bytes);
    (p.mode == constant::kLookup ? lookups : chases).push_back(i);
  }
  sh.table = runtime::DeviceBuffer(std::max<std::uint64_t>(most, 4096));
  sh.out = runtime::DeviceBuffer(sh.blocks * constant::kLookupThreads * std::size_t{4});
  sh.sink = runtime::DeviceBuffer(4);
  for (const int w : {4, 8, 16})
    sh.textures[w] = std::make_unique<constant::Texture>(
        sh.table.get(),
        std::min<std::uint64_t>(sh.table.bytes(), static_cast<std::uint64_t>(texels) * w), w);
  if (!lookups.empty()) measure_lookups(s, sh, lookups);
  if (!chases.empty()) measure_chases(s, sh, chases);
  constant::RunFacts facts;
  constant::points(s.values(), &facts.constant_skipped);
  facts.dropped = dropped;
  return [facts](ProbeResult& r) { constant::analyse(r, facts); };
}

}  // namespace

std::unique_ptr<Probe> make_constant_probe() {
  return std::make_unique<ConstantProbe>();
}

}  // namespace gpuprobe
