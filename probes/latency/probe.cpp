// The `latency` probe: a one-thread dependent pointer chase over a random cyclic permutation, per
// carve-out and stride a ladder of working sets from 1 KiB to several L2 sizes (and page strides
// over GiBs for the TLB), timed in SM cycles inside the kernel, and per-access traces at shares of
// the L2. Sizing and operations here; the levels and findings in analysis.cpp / findings.cpp.
#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <numeric>
#include <random>

#include "analysis.hpp"
#include "gpuprobe/core/mismatches.hpp"
#include "gpuprobe/core/samples.hpp"
#include "gpuprobe/models/latency_model.hpp"
#include "gpuprobe/runtime/buffers.hpp"
#include "gpuprobe/runtime/context.hpp"
#include "gpuprobe/runtime/cuda_check.hpp"
#include "gpuprobe/runtime/device.hpp"
#include "gpuprobe/sweep_probe.hpp"
#include "internal.hpp"
#include "kernels.hpp"
#include "registry.hpp"
#include "sweep.hpp"

namespace gpuprobe {
namespace {

using latency::Point;

constexpr std::uint32_t kSlotCapacity = 4096;  // chase launches recorded per point
constexpr int kWarmBlocks = 1024;

// One point while it is measured: its chase order on the device, where its launches record, and
// what they recorded up to its verification (the counter pass's launches come after).
struct PointState {
  Point point;
  std::vector<std::uint32_t> order_host;
  runtime::DeviceBuffer order;
  runtime::DeviceBuffer ring;  // kSlotCapacity ChaseSlots, then the count (chase); trace cycles
  runtime::DeviceBuffer end;   // trace: the element it ended on
  std::vector<std::uint32_t> round_starts;
  std::vector<latency::ChaseSlot> slots;
  std::vector<double> trace;
  bool verified = false;
};

// A random order of the n elements (one cycle: element order[k] links to order[k + 1 mod n]).
std::vector<std::uint32_t> random_order(std::uint64_t n, std::uint64_t seed) {
  std::vector<std::uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  std::mt19937_64 rng(seed);
  std::shuffle(order.begin(), order.end(), rng);
  return order;
}

std::uint32_t* slot_count(PointState& st) {
  return reinterpret_cast<std::uint32_t*>(static_cast<char*>(st.ring.get()) +
                                          kSlotCapacity * sizeof(latency::ChaseSlot));
}

std::uint32_t read_count(PointState& st) {
  std::uint32_t c = 0;
  GP_CUDA(cudaMemcpy(&c, slot_count(st), sizeof c, cudaMemcpyDeviceToHost));
  return c;
}

// The address the chase of `st` ends on after `taken` loads from order[0].
std::uint64_t expected_end(const PointState& st, const char* base, std::uint64_t taken) {
  const std::uint64_t n = st.order_host.size();
  return reinterpret_cast<std::uint64_t>(base) +
         models::element_offset(st.order_host[taken % n], st.point.stride);
}

// Reads what the chase launches recorded and checks each ended on the right element.
std::string verify_chase(PointState& st, const char* base, std::uint64_t steps) {
  const std::uint32_t count = std::min(read_count(st), kSlotCapacity);
  std::vector<latency::ChaseSlot> slots(count);
  GP_CUDA(cudaMemcpy(slots.data(), st.ring.get(), count * sizeof(latency::ChaseSlot),
                     cudaMemcpyDeviceToHost));
  const std::uint64_t want =
      expected_end(st, base, latency::warm_steps(st.point.elements()) + steps);
  const std::string wrong = mismatch_text(
      "chase", find_mismatches(count, [&](std::uint64_t i) { return slots[i].end != want; }), count,
      "launches");
  if (!st.verified) {
    st.slots = std::move(slots);
    st.verified = true;
  }
  return wrong;
}

std::string verify_trace(PointState& st, const char* base) {
  std::uint64_t end = 0;
  GP_CUDA(cudaMemcpy(&end, st.end.get(), sizeof end, cudaMemcpyDeviceToHost));
  std::vector<std::uint32_t> cycles(latency::kTraceSteps);
  GP_CUDA(cudaMemcpy(cycles.data(), st.ring.get(), cycles.size() * 4, cudaMemcpyDeviceToHost));
  const std::uint64_t want =
      expected_end(st, base, latency::warm_steps(st.point.elements()) + latency::kTraceSteps);
  if (!st.verified) {
    st.trace.assign(cycles.begin(), cycles.end());
    st.verified = true;
  }
  return end == want ? std::string()
                     : std::string("trace: the chase ended on the wrong element (1 of 1 launch)");
}

// The chase (or trace) of one point over the batch's shared chain buffer: prepare writes its
// chain (and notes where a round of chase launches starts), every sample and pass is preceded by
// a parallel read of the chain (into L2), the lane is the one-thread kernel.
runtime::Operation make_operation(PointState& st, char* base, std::uint32_t* sink,
                                  std::uint64_t steps, std::uint64_t l2_bytes) {
  const Point p = st.point;
  const std::uint64_t n = p.elements();
  const auto warm = static_cast<std::uint32_t>(latency::warm_steps(n));
  const auto* order = static_cast<const std::uint32_t*>(st.order.get());
  const char* start = base + models::element_offset(st.order_host.front(), p.stride);
  const int carve = static_cast<int>(p.carveout);
  const bool trace = p.mode == latency::kTrace;
  PointState* s = &st;
  runtime::Operation op;
  op.label = fmt::format("{} s{} c{} {}", p.mode, p.stride, p.carveout, p.bytes);
  const bool pages = p.stride >= latency::kPageStrideFrom;
  const bool flush = latency::flushed_first(n, p.stride, l2_bytes);
  // The warm read sets the cache state; a set far over the L2 starts from a flushed L2 instead.
  op.cache = flush ? runtime::Cache::kFlushL2 : runtime::Cache::kAsLeft;
  op.prepare = [=](cudaStream_t stream) {
    latency::launch_build_chain(base, order, n, p.stride, stream);
    if (!trace && !s->verified) {
      GP_CUDA(cudaStreamSynchronize(stream));
      s->round_starts.push_back(read_count(*s));
    }
  };
  if (!flush) {
    op.reset_sample = [=](cudaStream_t stream) {
      latency::launch_warm(base, n, p.stride, sink, kWarmBlocks, stream);
    };
    op.reset_pass = op.reset_sample;
  }
  latency::SlotRing ring{static_cast<latency::ChaseSlot*>(st.ring.get()), slot_count(st),
                         kSlotCapacity};
  auto* out = static_cast<std::uint32_t*>(st.ring.get());
  auto* end = static_cast<std::uint64_t*>(st.end.get());
  op.lanes.push_back({p.mode, static_cast<double>(8 * steps), [=](runtime::LaunchScope& l) {
                        if (trace)
                          latency::launch_trace(start, warm, out, end, carve, l.stream());
                        else
                          latency::launch_chase(start, warm, static_cast<std::uint32_t>(steps),
                                                ring, carve, pages, l.stream());
                      }});
  op.verify = [=]() { return trace ? verify_trace(*s, base) : verify_chase(*s, base, steps); };
  return op;
}

// A metric over the recorded chase launches, grouped by the round each was taken in.
Metric launch_metric(const PointState& st, const char* name, const char* unit,
                     double (*value)(const latency::ChaseSlot&, double), double steps) {
  Metric m{name, unit, {}, {}};
  std::vector<double> all;
  for (std::size_t i = 0; i < st.slots.size(); ++i) {
    std::size_t r = 0;
    while (r + 1 < st.round_starts.size() && i >= st.round_starts[r + 1])
      ++r;
    if (m.samples.size() <= r) m.samples.resize(r + 1);
    m.samples[r].push_back(value(st.slots[i], steps));
    all.push_back(m.samples[r].back());
  }
  if (all.empty()) throw std::runtime_error(fmt::format("{}: no chase launch recorded", name));
  m.stats = statistics_of(all);
  weigh_rounds_equally(m);
  return m;
}

// A measured point's row: its params (a trace's bytes after the planned ones), the latency
// metrics in place of the framework's bandwidth, the clock.
void fill_row(Row& row, const PointState& st, const SampleSet& samples, std::uint64_t steps) {
  row.params = latency::row_params(st.point);
  row.metrics.clear();
  const auto d = static_cast<double>(steps);
  if (st.point.mode == latency::kTrace) {
    Metric m{latency::kCycles, "cycles", statistics_of(st.trace), {st.trace}};
    row.metrics.push_back(std::move(m));
    latency::add_trace_values(row, st.trace);
  } else {
    row.metrics.push_back(launch_metric(
        st, latency::kCycles, "cycles",
        [](const latency::ChaseSlot& s, double k) { return static_cast<double>(s.cycles) / k; },
        d));
    row.metrics.push_back(launch_metric(
        st, latency::kSeconds, "s",
        [](const latency::ChaseSlot& s, double k) { return static_cast<double>(s.ns) * 1e-9 / k; },
        d));
    double cycles = 0, ns = 0;
    for (const auto& s : st.slots)
      cycles += static_cast<double>(s.cycles), ns += static_cast<double>(s.ns);
    row.derived.push_back(
        {latency::kClock, "MHz", ns > 0 ? std::optional<double>(cycles / ns * 1e3) : std::nullopt});
  }
  row.metrics.push_back(time_metric(samples));
}

// Measures the points `at` of one series (one chain buffer shared by their operations).
void measure_series(Sweep<Point>& s, const std::vector<Point>& sized,
                    const std::vector<std::size_t>& at) {
  runtime::ProbeContext& ctx = s.ctx();
  const std::uint64_t steps = s.values().number("steps");
  std::uint64_t span = 0;
  for (const std::size_t i : at)
    span = std::max(span, sized[i].bytes);
  runtime::DeviceBuffer chain(span);
  runtime::DeviceBuffer sink(4);
  char* base = static_cast<char*>(chain.get());
  std::vector<std::unique_ptr<PointState>> states;
  std::vector<runtime::Operation> ops;
  for (const std::size_t i : at) {
    const Point& p = sized[i];
    auto st = std::make_unique<PointState>();
    st->point = p;
    st->order_host = random_order(p.elements(), 0x1A7E5Cull ^ (p.bytes * 31 + p.stride));
    st->order = runtime::DeviceBuffer(st->order_host.size() * 4);
    runtime::copy_to_device(st->order.get(), st->order_host.data(), st->order_host.size() * 4);
    st->ring = runtime::DeviceBuffer(kSlotCapacity * sizeof(latency::ChaseSlot) + 8);
    runtime::set_device(st->ring.get(), 0, st->ring.bytes());
    st->end = runtime::DeviceBuffer(8);
    ops.push_back(make_operation(*st, base, static_cast<std::uint32_t*>(sink.get()), steps,
                                 ctx.device().l2_bytes));
    states.push_back(std::move(st));
  }
  const std::vector<SampleSet> measured = ctx.measure_all(ops);
  for (std::size_t k = 0; k < at.size(); ++k)
    fill_row(s.add(at[k], measured[k]), *states[k], measured[k], steps);
}

// The series of a sweep: runs of points with one mode, stride and carve-out, in point order.
std::vector<std::vector<std::size_t>> series_of(const std::vector<Point>& pts) {
  std::vector<std::vector<std::size_t>> out;
  for (std::size_t i = 0; i < pts.size(); ++i) {
    const bool same = i > 0 && pts[i].mode == pts[i - 1].mode &&
                      pts[i].stride == pts[i - 1].stride && pts[i].carveout == pts[i - 1].carveout;
    if (!same) out.emplace_back();
    out.back().push_back(i);
  }
  return out;
}

// The points of `at` whose chain and order fit half of the free device memory; the others are
// dropped (counted for the note).
std::vector<std::size_t> fitting(Sweep<Point>& s, const std::vector<Point>& sized,
                                 const std::vector<std::size_t>& at, std::uint64_t& dropped) {
  const std::uint64_t budget = runtime::device_memory().free_bytes / 2;
  std::vector<std::size_t> out;
  for (const std::size_t i : at) {
    const Point& p = sized[i];
    if (p.bytes == 0 || p.bytes + 4 * p.elements() > budget) {
      s.drop(i);
      ++dropped;
    } else {
      out.push_back(i);
    }
  }
  return out;
}

Axis bounded_size(const char* name, const char* help, const char* def, const char* quick,
                  std::uint64_t min, std::uint64_t max) {
  Axis a = size_axis(name, help, def, quick);
  a.min = min;
  a.max = max;
  return a;
}

class LatencyProbe final : public SweepProbe<Point> {
 public:
  std::string name() const override { return "latency"; }
  std::string description() const override {
    return "pointer-chase latency against the working set: L1, L2 near and far, DRAM and TLB "
           "levels found from the data, in cycles and ns, confirmed by counters";
  }

  std::vector<Axis> axes() const override {
    Axis stride = size_list_axis("stride",
                                 "bytes between chased elements: a sector (32), a line (128); "
                                 "64 KiB or more chases pages (the TLB series)",
                                 "32,2MiB");
    stride.min = 8;
    stride.max = 1ull << 30;
    stride.max_items = 8;
    stride.validate = multiple_of(8, "8 bytes");
    Axis carve = list_axis("carveout",
                           "shared-memory carve-outs, % of the most shared memory per SM (the "
                           "L1 keeps the rest); after the first, sizes up to 1 MiB only",
                           "0");
    carve.unit = "%";
    carve.max = 100;
    carve.max_items = 8;
    Axis per_octave = number_axis("per-octave", "working sets per doubling", "4", "2");
    per_octave.min = 1;
    per_octave.max = 16;
    Axis steps = number_axis("steps", "timed dependent loads per launch", "8192", "2048");
    steps.min = 256;
    steps.max = 1u << 20;
    Axis trace =
        list_axis("trace", "working sets of the per-access traces, % of the L2 size (0: none)",
                  "25,75", "75");
    trace.unit = "%";
    trace.max = 400;
    trace.max_items = 8;
    return {stride,
            carve,
            bounded_size("max-size", "largest working set of the cache strides", "512MiB", "256MiB",
                         4096, 64ull << 30),
            bounded_size("tlb-max", "largest span of the page strides", "8GiB", "2GiB", 1ull << 20,
                         256ull << 30),
            per_octave,
            steps,
            trace};
  }

  std::string memory_flags() const override { return "--max-size, --tlb-max"; }
  std::string help_footer() const override {
    return "One thread chases a random cyclic permutation; clock64 and %globaltimer around the "
           "timed steps give cycles, ns and the SM clock. Levels are found from the data (binary "
           "segmentation of log latency, docs/probes/latency.md). Points that do not fit half of "
           "the free device memory are dropped with a note.";
  }

  void add_words(Glossary& glossary) const override { latency::add_words(glossary); }

  std::vector<std::string> counter_metrics() const override {
    return metric_names(latency::kCounterMetrics);
  }

  std::vector<Point> points(const AxisValues& values) const override {
    return latency::points(values);
  }
  Row row(const Point& p) const override { return unmeasured_row(latency::row_params(p)); }
  Analysis measure(Sweep<Point>& s) override;

  std::string method(const AxisValues& values) const override {
    return fmt::format(
        "one thread chases a random cyclic permutation of the working set's elements (each holds "
        "the next one's address; ld.global.ca, ld.global.cg for page strides); per launch: the "
        "whole chain (up to {} elements, else {} steps) untimed, then {} dependent loads timed "
        "with clock64 and %globaltimer; latency = cycles / loads, latency_time = timer / loads; "
        "before each sample and counter pass a parallel read of the chain puts it in L2 (sets "
        "whose lines or sectors take over {} x L2: the L2 flushed instead); trace rows time {} "
        "loads one by one (clock before and after each); every launch's end element checked",
        latency::kFullWarmMax, latency::kShortWarm, values.number("steps"),
        latency::kFlushFromL2Multiple, latency::kTraceSteps);
  }
};

latency::RunFacts run_facts(const DeviceInfo& dev, const AxisValues& values) {
  latency::RunFacts f;
  f.l2_bytes = dev.l2_bytes;
  f.steps = values.number("steps");
  const auto dot = dev.compute_capability.find('.');
  if (dot != std::string::npos) {
    const auto storage = models::l1_storage(std::stoi(dev.compute_capability.substr(0, dot)),
                                            std::stoi(dev.compute_capability.substr(dot + 1)));
    if (storage)
      for (auto c : values.list("carveout"))
        f.l1_model_by_carveout[c] =
            models::l1_capacity(*storage, c, dev.shared_memory_per_sm_bytes);
  }
  return f;
}

// Series by series (each over one chain buffer), the traces sized to this device's L2; points
// that do not fit are dropped with a note.
LatencyProbe::Analysis LatencyProbe::measure(Sweep<Point>& s) {
  const DeviceInfo& dev = s.ctx().device();
  std::vector<Point> sized = s.points();
  latency::size_traces(sized, dev.l2_bytes);
  std::uint64_t dropped = 0;
  for (const std::vector<std::size_t>& series : series_of(sized)) {
    const std::vector<std::size_t> at = fitting(s, sized, series, dropped);
    if (!at.empty()) measure_series(s, sized, at);
  }
  return [facts = run_facts(dev, s.values()), dropped](ProbeResult& r) {
    latency::analyse(r, facts);
    if (dropped > 0) r.findings.push_back(latency::memory_note(dropped));
  };
}

}  // namespace

std::unique_ptr<Probe> make_latency_probe() {
  return std::make_unique<LatencyProbe>();
}

}  // namespace gpuprobe
