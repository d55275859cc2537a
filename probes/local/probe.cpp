// The `local` probe: what a register spill costs. Two kernels, each compiled once per register
// cap (__maxnreg__): a compute kernel whose 64 live values are all updated every step (spills in
// the hot loop) and a memory kernel that keeps 96 values across a dependent chase through an
// L2-resident table (spilled once, while more resident warps chase at once). The registers, the
// stack frame and the occupancy come from the compiled functions; the L1 and L2 latencies the
// model prices spills at from latency's chase kernel. Sizing and operations here; the analysis
// in analysis.cpp / findings.cpp.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <memory>

#include "analysis.hpp"
#include "gpuprobe/core/errors.hpp"
#include "gpuprobe/core/mismatches.hpp"
#include "gpuprobe/core/samples.hpp"
#include "gpuprobe/models/cache_model.hpp"
#include "gpuprobe/models/latency_model.hpp"
#include "gpuprobe/models/local_model.hpp"
#include "gpuprobe/runtime/buffers.hpp"
#include "gpuprobe/runtime/clock.hpp"
#include "gpuprobe/runtime/cuda_check.hpp"
#include "gpuprobe/sweep_probe.hpp"
#include "kernels.hpp"
#include "latency/kernels.hpp"
#include "registry.hpp"

namespace gpuprobe {
namespace {

using local::KernelKind;

constexpr int kWorkBlocksPerSm = 24;  // blocks of work per SM: whole waves at 1-4, 6, 8 per SM
constexpr std::uint32_t kSeed = 0x10CA1u;
constexpr std::uint64_t kLineBytes = models::kLineWords * 4;
constexpr std::uint64_t kMaxTableBytes = 8ull << 20;
constexpr std::uint64_t kL1ChaseBytes = 8 * 1024;  // far inside any L1
constexpr std::uint32_t kChaseSteps = 4096;        // timed loads of a latency chase

struct Point {
  std::string kernel;
  std::uint64_t carveout = 0;
  std::uint64_t cap = 0;
};

KernelKind kind_of(const std::string& k) {
  return k == local::kComputeName ? KernelKind::kCompute : KernelKind::kMemory;
}

// Seconds per load of one thread chasing `bytes` at `stride` (ld.global.ca, or .cg: L2 only),
// with latency's short timed chase (warmed over the whole chain).
double chase_latency(std::uint64_t bytes, std::uint64_t stride, bool bypass_l1, cudaStream_t st) {
  runtime::DeviceBuffer chain(bytes);
  const latency::ChaseTiming t =
      latency::time_chase(chain.get(), bytes, stride, static_cast<std::uint32_t>(bytes / stride),
                          kChaseSteps, bypass_l1, 0, st);
  if (!t.ended_right)
    throw RunError(
        fmt::format("local: the latency chase over {} B did not end on the element "
                    "{} steps on: the model's latencies are not measured",
                    bytes, kChaseSteps));
  return t.seconds_per_load;
}

// The memory kernel's table: line k holds (in each of its words) the next line, k + p mod lines.
runtime::DeviceBuffer make_table(std::uint32_t lines) {
  const std::uint32_t p = latency::chase_step(lines);
  std::vector<std::uint32_t> host(static_cast<std::size_t>(lines) * models::kLineWords);
  for (std::uint32_t k = 0; k < lines; ++k)
    std::fill_n(host.begin() + static_cast<std::ptrdiff_t>(k) * models::kLineWords,
                models::kLineWords, static_cast<std::uint32_t>((k + std::uint64_t{p}) % lines));
  runtime::DeviceBuffer table(host.size() * 4);
  runtime::copy_to_device(table.get(), host.data(), host.size() * 4);
  return table;
}

// What every point's operation shares: the chase table, the memory kernel's values, the output
// and the host's expected values per lane.
struct Shared {
  runtime::DeviceBuffer table, values, out;
  std::uint32_t lines = 0;
  std::uint32_t compute_steps = 0, chase_steps = 0;
  int blocks = 0;
  std::vector<std::uint32_t> compute_want, fold;  // per lane (kValueLanes)
};

std::string check_outputs(const Shared& sh, KernelKind kind, cudaStream_t st) {
  const std::uint64_t n = static_cast<std::uint64_t>(sh.blocks) * models::kLocalThreads;
  std::vector<std::uint32_t> got(n);
  GP_CUDA(cudaStreamSynchronize(st));
  GP_CUDA(cudaMemcpy(got.data(), sh.out.get(), n * 4, cudaMemcpyDeviceToHost));
  const std::uint32_t p = latency::chase_step(sh.lines);
  const auto want = [&](std::uint64_t t) {
    const std::uint32_t lane = static_cast<std::uint32_t>(t % models::kValueLanes);
    if (kind == KernelKind::kCompute) return sh.compute_want[lane];
    const std::uint64_t start = models::chase_start(t / 32, sh.lines);
    const auto end = static_cast<std::uint32_t>(
        (start + static_cast<std::uint64_t>(sh.chase_steps) * p) % sh.lines);
    return models::memory_expected(end, sh.fold[lane]);
  };
  return mismatch_text(
      "out", find_mismatches(n, [&](std::uint64_t t) { return got[t] != want(t); }), n, "threads");
}

runtime::Operation make_op(const Point& p, const Shared& sh, cudaStream_t check) {
  local::Launch l;
  l.kind = kind_of(p.kernel);
  l.cap = static_cast<int>(p.cap);
  l.carveout = static_cast<int>(p.carveout);
  l.blocks = sh.blocks;
  l.steps = l.kind == KernelKind::kCompute ? sh.compute_steps : sh.chase_steps;
  l.seed = kSeed;
  l.out = sh.out.as<std::uint32_t>();
  l.table = sh.table.as<std::uint32_t>();
  l.values = sh.values.as<std::uint32_t>();
  l.lines = sh.lines;
  runtime::Operation op;
  op.label = fmt::format("{} c{} r{}", p.kernel, p.carveout, p.cap);
  op.cache = runtime::Cache::kAsLeft;  // the table stays in L2 between samples
  const double threads = static_cast<double>(sh.blocks) * models::kLocalThreads;
  op.lanes.push_back(
      {p.kernel, threads * 4, [l](runtime::LaunchScope& sc) { local::launch(l, sc.stream()); }});
  const std::size_t out_bytes = static_cast<std::size_t>(threads) * 4;
  op.prepare = [out = l.out, out_bytes](cudaStream_t st) {
    GP_CUDA(cudaMemsetAsync(out, 0xFF, out_bytes, st));
  };
  op.verify = [&sh, kind = l.kind, check] { return check_outputs(sh, kind, check); };
  return op;
}

// The point's row: step_time in place of the framework's bandwidth, the compiled function's
// registers, stack frame and occupancy, the launch's threads, steps and spill touches.
void fill_row(Row& row, const SampleSet& samples, const local::Compiled& c, const Shared& sh,
              KernelKind kind) {
  const double threads = static_cast<double>(sh.blocks) * models::kLocalThreads;
  const double steps = kind == KernelKind::kCompute ? sh.compute_steps : sh.chase_steps;
  row.metrics.clear();
  row.metrics.push_back(mapped_metric(samples, samples.seconds, local::kStepTime, "ps",
                                      [k = threads * steps](double s) { return s * 1e12 / k; }));
  row.metrics.push_back(time_metric(samples));
  const double warps = static_cast<double>(c.blocks_per_sm) * models::kLocalThreads / 32;
  row.derived.push_back({local::kRegisters, "", c.registers});
  row.derived.push_back({local::kLocalBytes, "B", static_cast<double>(c.local_bytes)});
  row.derived.push_back({local::kBlocksPerSm, "", c.blocks_per_sm});
  row.derived.push_back({local::kOccupancy, "%", 100.0 * warps / c.max_warps_per_sm});
  row.derived.push_back({local::kThreads, "", threads});
  row.derived.push_back({local::kSteps, "", steps});
  row.derived.push_back({local::kTouches, "", kind == KernelKind::kCompute ? steps : 1.0});
}

class LocalProbe final : public SweepProbe<Point> {
 public:
  std::string name() const override { return "local"; }
  std::string description() const override {
    return "what a register spill costs: kernels compiled at register caps, spill bytes from the "
           "compiled functions, slowdown, occupancy, local traffic by counters beside a model";
  }

  std::vector<Axis> axes() const override {
    const std::string compiled = fmt::format("{}", fmt::join(local::kCaps, ","));
    Axis caps =
        list_axis("max-registers",
                  "register caps (__maxnreg__), 0 the compiler's own choice; compiled: " + compiled,
                  "0,80,64,48,40,32,24", "0,64,32");
    caps.max = 255;
    caps.max_items = 10;
    caps.validate = [compiled](std::uint64_t c) {
      return local::cap_compiled(static_cast<int>(c))
                 ? std::string()
                 : fmt::format("{} is not a compiled cap ({})", c, compiled);
    };
    Axis carve = list_axis("carveout",
                           "shared-memory carve-outs, % of the most shared memory per SM (the "
                           "L1 keeps the rest: where the spills live)",
                           "0,100", "0");
    carve.unit = "%";
    carve.max = 100;
    carve.max_items = 4;
    Axis steps = number_axis("steps", "compute kernel: steps per thread", "256", "128");
    steps.min = 1;
    steps.max = 1u << 16;
    Axis chase = number_axis("chase", "memory kernel: dependent loads per thread", "1024", "512");
    chase.min = 1;
    chase.max = 1u << 16;
    return {choice_axis("kernel",
                        "compute: 64 live values updated every step (spills in the loop); "
                        "memory: 96 values kept across a dependent chase (spilled once)",
                        {local::kComputeName, local::kMemoryName}, "all"),
            caps, carve, steps, chase};
  }

  std::string help_footer() const override {
    return "Registers, stack frame (spill bytes) and resident blocks come from the compiled "
           "functions (cudaFuncGetAttributes, cudaOccupancyMaxActiveBlocksPerMultiprocessor). "
           "The L1 and L2 latencies the model uses are measured first with latency's chase.";
  }

  void add_words(Glossary& glossary) const override { local::add_words(glossary); }
  std::vector<std::string> counter_metrics() const override {
    return metric_names(local::kCounterMetrics);
  }

  std::vector<Point> points(const AxisValues& v) const override {
    std::vector<Point> out;
    for (const std::string& k : v.choices("kernel"))
      for (const std::uint64_t c : v.list("carveout"))
        for (const std::uint64_t r : v.list("max-registers"))
          out.push_back({k, c, r});
    return out;
  }
  Row row(const Point& p) const override {
    return unmeasured_row({{local::kKernel, p.kernel, ""},
                           {local::kCarveout, static_cast<std::int64_t>(p.carveout), "%"},
                           {local::kMaxRegisters, static_cast<std::int64_t>(p.cap), ""}});
  }
  std::string method(const AxisValues& v) const override {
    return fmt::format(
        "{} blocks of {} threads per SM of work; compute: {} steps of {} multiply-adds over {} "
        "live values; memory: {} values loaded, {} dependent warp-wide loads through an "
        "L2-resident table, the values folded in; step_time = time / (threads x steps); "
        "registers, stack frame and blocks per SM read from each compiled function at its "
        "carve-out; every thread's output checked",
        kWorkBlocksPerSm, models::kLocalThreads, v.number("steps"), models::kComputeValues,
        models::kComputeValues, models::kMemoryValues, v.number("chase"));
  }
  Analysis measure(Sweep<Point>& s) override;
};

Shared make_shared(Sweep<Point>& s, std::uint64_t table_bytes) {
  Shared sh;
  sh.blocks = s.ctx().device().sm_count * kWorkBlocksPerSm;
  sh.compute_steps = static_cast<std::uint32_t>(s.values().number("steps"));
  sh.chase_steps = static_cast<std::uint32_t>(s.values().number("chase"));
  sh.lines = static_cast<std::uint32_t>(table_bytes / kLineBytes);
  sh.table = make_table(sh.lines);
  std::vector<std::uint32_t> values(models::kMemoryValues * models::kValueLanes);
  for (std::uint32_t lane = 0; lane < models::kValueLanes; ++lane) {
    sh.compute_want.push_back(models::compute_expected(kSeed, lane, sh.compute_steps));
    sh.fold.push_back(models::memory_fold(kSeed, lane));
    for (int k = 0; k < models::kMemoryValues; ++k)
      values[k * models::kValueLanes + lane] =
          models::local_start(kSeed, lane, k, models::kMemoryValues);
  }
  sh.values = runtime::DeviceBuffer(values.size() * 4);
  runtime::copy_to_device(sh.values.get(), values.data(), values.size() * 4);
  sh.out = runtime::DeviceBuffer(static_cast<std::size_t>(sh.blocks) * models::kLocalThreads * 4);
  return sh;
}

local::RunFacts run_facts(const DeviceInfo& dev, const AxisValues& v, cudaStream_t st,
                          std::uint64_t table_bytes) {
  local::RunFacts f;
  f.sm_count = dev.sm_count;
  f.table_bytes = table_bytes;
  f.clock_mhz = runtime::sample_sm_clock_mhz(st);
  f.l1_bytes_per_second = models::l1_peak_gbps(dev.sm_count, f.clock_mhz) * 1e9;
  f.l1_latency_s = chase_latency(kL1ChaseBytes, 32, false, st);
  f.l2_latency_s = chase_latency(table_bytes, kLineBytes, true, st);
  const auto dot = dev.compute_capability.find('.');
  if (dot == std::string::npos) return f;
  const auto storage = models::l1_storage(std::stoi(dev.compute_capability.substr(0, dot)),
                                          std::stoi(dev.compute_capability.substr(dot + 1)));
  if (storage)
    for (const std::uint64_t c : v.list("carveout"))
      f.l1_by_carveout[c] = models::l1_capacity(*storage, c, dev.shared_memory_per_sm_bytes);
  return f;
}

// The latencies first, then one batch of every point whose kernel fits on an SM.
LocalProbe::Analysis LocalProbe::measure(Sweep<Point>& s) {
  const DeviceInfo& dev = s.ctx().device();
  const cudaStream_t st = s.ctx().stream();
  std::uint64_t table_bytes = kLineBytes;  // a power of two of lines up to L2 / 4, 8 MiB at most
  while (table_bytes * 2 <= std::min(kMaxTableBytes, dev.l2_bytes / 4))
    table_bytes *= 2;
  const local::RunFacts facts = run_facts(dev, s.values(), st, table_bytes);
  const Shared sh = make_shared(s, table_bytes);
  std::vector<runtime::Operation> ops;
  std::vector<std::size_t> at;
  std::vector<local::Compiled> compiled;
  for (std::size_t i = 0; i < s.points().size(); ++i) {
    const Point& p = s.points()[i];
    const local::Compiled c =
        local::compiled(kind_of(p.kernel), static_cast<int>(p.cap), static_cast<int>(p.carveout));
    if (c.blocks_per_sm <= 0) {
      s.drop(i);
      continue;
    }
    ops.push_back(make_op(p, sh, st));
    at.push_back(i);
    compiled.push_back(c);
  }
  const std::vector<SampleSet> samples = s.ctx().measure_all(ops);
  for (std::size_t k = 0; k < at.size(); ++k)
    fill_row(s.add(at[k], samples[k]), samples[k], compiled[k], sh,
             kind_of(s.points()[at[k]].kernel));
  return [facts](ProbeResult& r) { local::analyse(r, facts); };
}

}  // namespace

std::unique_ptr<Probe> make_local_probe() {
  return std::make_unique<LocalProbe>();
}

}  // namespace gpuprobe
