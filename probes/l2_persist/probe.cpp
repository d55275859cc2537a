// The `l2-persist` probe: the persisting-L2 set-aside and access-policy window swept as a map
// (set-aside x hot region x hitRatio x window on the stream or the launch) over two workloads,
// each point's hot-kernel time against no window. Axes, sizing and operations here; the
// derivation and findings in analysis.cpp / findings.cpp (host-only).
#include <fmt/format.h>

#include <algorithm>
#include <memory>

#include "analysis.hpp"
#include "gpuprobe/core/errors.hpp"
#include "gpuprobe/models/l2_persist_model.hpp"
#include "gpuprobe/runtime/buffers.hpp"
#include "gpuprobe/runtime/context.hpp"
#include "gpuprobe/runtime/cuda_check.hpp"
#include "gpuprobe/runtime/pattern.hpp"
#include "gpuprobe/sweep_probe.hpp"
#include "kernels.hpp"
#include "registry.hpp"
#include "sweep.hpp"

namespace gpuprobe {
namespace {

using l2_persist::HitKind;
using l2_persist::Sizes;
using l2_persist::SweepPoint;

constexpr std::uint32_t kHotSeed = 0x4E07A11u;
constexpr std::uint32_t kStreamSeed = 0x57EA3u;
constexpr std::uint32_t kBpgSeed = 0xB96u;

// The device buffers of a sweep: the hot region (its largest size), the streaming region the
// phases read (filled once: never written), the bpg's streaming region (written by the kernel,
// refilled per round), the phases' sink.
struct Buffers {
  runtime::DeviceBuffer hot;
  runtime::DeviceBuffer stream;
  runtime::DeviceBuffer bpg_stream;
  runtime::DeviceBuffer sink;
  int blocks = 0;

  Buffers(const std::vector<SweepPoint>& sweep, const Sizes& sizes, int sm_count, cudaStream_t s)
      : hot(max_hot(sweep, sizes)),
        stream(sizes.stream_bytes),
        bpg_stream(has(sweep, l2_persist::kBpg) ? sizes.stream_bytes : 0),
        blocks(l2_persist::grid_blocks(sm_count)) {
    sink = runtime::DeviceBuffer(static_cast<std::size_t>(blocks) * l2_persist::kThreads * 4);
    runtime::fill_pattern_device(stream.get(), stream.bytes(), kStreamSeed, s);
    GP_CUDA(cudaStreamSynchronize(s));
  }
  static std::size_t max_hot(const std::vector<SweepPoint>& sweep, const Sizes& sizes) {
    std::size_t m = l2_persist::kQuantum;
    for (const auto& p : sweep)
      m = std::max<std::size_t>(m, sizes.hot(p));
    return m;
  }
  static bool has(const std::vector<SweepPoint>& sweep, const char* workload) {
    return std::any_of(sweep.begin(), sweep.end(),
                       [&](const SweepPoint& p) { return p.workload == workload; });
  }
};

// The harness's part of a point's setting: the set-aside always where there is a window (or,
// for stream-only rows, a set-aside), the window itself only when it goes on the stream.
std::optional<runtime::PersistingL2> persisting_of(const SweepPoint& p, const Sizes& z, void* hot) {
  const std::uint64_t aside = z.set_aside(p);
  if (p.hit == HitKind::kNoWindow) {
    if (p.workload == l2_persist::kStreamOnly && aside > 0)
      return runtime::PersistingL2{aside, nullptr, 0};
    return std::nullopt;
  }
  runtime::PersistingL2 setting{aside, nullptr, 0};
  if (p.window == l2_persist::kStream) {
    setting.window_base = hot;
    setting.window_bytes = z.window(p);
    setting.hit_ratio = static_cast<float>(z.hit_ratio(p));
  }
  return setting;
}

runtime::Operation make_operation(const SweepPoint& p, const Sizes& z, Buffers& b,
                                  cudaStream_t verify_stream) {
  runtime::Operation op;
  op.label = fmt::format("{} aside {}% hot {}% {} {}", p.workload, p.setaside_pct, p.hot_pct,
                         p.window, p.hit == HitKind::kTuned ? "tuned" : "");
  op.cache = runtime::Cache::kAsLeft;  // the streaming region evicts what does not persist
  op.persisting = persisting_of(p, z, b.hot.get());
  const bool launch_window = p.hit != HitKind::kNoWindow && p.window == l2_persist::kLaunch;
  const l2_persist::LaunchWindow lw{b.hot.get(), z.window(p), static_cast<float>(z.hit_ratio(p))};
  auto* hot = static_cast<std::uint32_t*>(b.hot.get());
  const std::uint64_t hot_words = z.hot(p) / 4, stream_words = z.stream_bytes / 4;
  const bool bpg = p.workload == l2_persist::kBpg;
  const bool with_hot = p.workload != l2_persist::kStreamOnly;
  if (bpg) {
    auto* data = static_cast<std::uint32_t*>(b.bpg_stream.get());
    op.lanes.push_back(
        {"bpg", static_cast<double>(16 * stream_words), [=](runtime::LaunchScope& s) {
           l2_persist::launch_bpg_update(hot, hot_words, data, stream_words, s.stream(),
                                         launch_window ? &lw : nullptr);
         }});
    op.prepare = [=](cudaStream_t s) {
      runtime::fill_pattern_device(hot, hot_words * 4, kHotSeed, s);
      runtime::fill_pattern_device(data, stream_words * 4, kBpgSeed, s);
    };
    op.verify = [=]() {
      MismatchReport report;
      report.add("hot", l2_persist::verify_updated(hot, hot_words, kHotSeed, verify_stream),
                 hot_words);
      report.add("streaming",
                 l2_persist::verify_updated(data, stream_words, kBpgSeed, verify_stream),
                 stream_words);
      return report.text();
    };
    return op;
  }
  const auto* src = static_cast<const std::uint32_t*>(b.stream.get());
  auto* sink = static_cast<std::uint32_t*>(b.sink.get());
  const int blocks = b.blocks;
  const std::size_t sink_bytes = b.sink.bytes();
  op.lanes.push_back(
      {p.workload, l2_persist::kIterations * static_cast<double>(4 * stream_words + 8 * hot_words),
       [=](runtime::LaunchScope& s) {
         for (int i = 0; i < l2_persist::kIterations; ++i) {
           l2_persist::launch_stream_read(src, stream_words, sink, blocks, s.stream());
           if (with_hot)
             l2_persist::launch_hot_update(hot, hot_words, blocks, s.stream(),
                                           launch_window ? &lw : nullptr);
         }
       }});
  op.prepare = [=](cudaStream_t s) {
    if (with_hot) runtime::fill_pattern_device(hot, hot_words * 4, kHotSeed, s);
    GP_CUDA(cudaMemsetAsync(sink, 0, sink_bytes, s));
  };
  op.verify = [=]() {
    MismatchReport report;
    report.add("sink",
               l2_persist::verify_sink(sink, stream_words, blocks, kStreamSeed, verify_stream),
               sink_bytes / 4);
    if (with_hot)
      report.add("hot", l2_persist::verify_updated(hot, hot_words, kHotSeed, verify_stream),
                 hot_words);
    return report.text();
  };
  return op;
}

class L2PersistProbe final : public SweepProbe<SweepPoint> {
 public:
  std::string name() const override { return "l2-persist"; }
  std::string description() const override {
    return "persisting L2: set-aside x hot region x hitRatio x window (stream or launch), hot "
           "kernel time against no window, L2 hits and DRAM bytes from counters";
  }

  std::vector<Axis> axes() const override {
    Axis aside =
        list_axis("setaside", "set-asides in % of the device's maximum", "0,25,50,75,100", "100");
    aside.unit = "%";
    aside.max = 100;
    aside.max_items = 16;
    Axis hot = list_axis("hot", "hot-region sizes in % of the maximum set-aside", "25,50,100,200",
                         "100,200");
    hot.unit = "%";
    hot.min = 1;
    hot.max = l2_persist::kMaxHotPct;
    hot.max_items = 16;
    return {choice_axis("workload",
                        "phases: hot kernel after a streaming kernel; bpg: the Best "
                        "Practices Guide's mixed kernel",
                        {"phases", "bpg"}, "all"),
            aside, hot,
            choice_axis("hit-ratio",
                        "hitRatio of the windows: 1.0, and tuned = set-aside / window "
                        "(clamped to 1; only where it is below 1)",
                        {"1.0", "tuned"}, "all"),
            choice_axis("window", "where the window is set: stream attribute or launch attribute",
                        {"stream", "launch"}, "all", "stream")};
  }

  std::string help_footer() const override {
    return "Every hot size is also measured without a window (the baseline of its speed-up); "
           "sizes are clamped to the device's accessPolicyMaxWindowSize. Skipped under MIG or "
           "MPS, below compute capability 8.0, or where the maximum set-aside is 0.";
  }

  void add_words(Glossary& glossary) const override { l2_persist::add_words(glossary); }

  // L2 read sectors and their hits from the SMs, evict-last (persisting) sectors, DRAM bytes.
  std::vector<std::string> counter_metrics() const override {
    return metric_names(l2_persist::kCounterMetrics);
  }

  std::vector<SweepPoint> points(const AxisValues& v) const override {
    return l2_persist::points(v);
  }
  // In a plan, the shares only; a run fills in the bytes (measure).
  Row row(const SweepPoint& p) const override {
    return unmeasured_row(l2_persist::row_params(l2_persist::spec_of(p, nullptr)),
                          l2_persist::point_flags(p));
  }
  void finish_plan(ProbeResult& r, const AxisValues&, const std::vector<int>*) const override {
    l2_persist::add_model(r, 0);  // from the shares: the model depends on ratios only
  }
  Analysis measure(Sweep<SweepPoint>& s) override;

  std::string method(const AxisValues& /*values*/) const override {
    return fmt::format(
        "phases: one repetition = {} x (grid-stride read of a streaming region of {} x L2, then "
        "a grid-stride read-modify-write of the hot region), hot time = (repetition - the same "
        "without the hot kernel, same set-aside) / {}; bpg: one kernel, thread t updates "
        "streaming[t] and hot[t mod hot words], timed whole; set-aside and window applied by the "
        "harness per round (window on the stream) or the window carried by the hot kernel's "
        "launch (cudaLaunchAttributeAccessPolicyWindow); hitProp persisting, missProp "
        "streaming; batches gated and timed with CUDA events, no L2 flush (the streaming region "
        "evicts); every hot and streaming word checked after sampling",
        l2_persist::kIterations, l2_persist::kStreamL2Multiple, l2_persist::kIterations);
  }
};

// The device facts the sweep needs; UnsupportedError where persisting L2 is not available.
void require_persisting(const DeviceInfo& dev) {
  if (std::stoi(dev.compute_capability) < 8)
    throw UnsupportedError(
        fmt::format("persisting L2 needs compute capability 8.0 or newer (this GPU: {})",
                    dev.compute_capability));
  if (dev.persisting_l2_max_bytes == 0)
    throw UnsupportedError(
        "persistingL2CacheMaxSize is 0: no L2 set-aside on this GPU or configuration (MIG mode "
        "disables it)");
  // Under MPS the set-aside is fixed when the server starts: the limit cannot be set here.
  const cudaError_t set =
      cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, dev.persisting_l2_max_bytes);
  std::size_t applied = 0;
  const cudaError_t get = cudaDeviceGetLimit(&applied, cudaLimitPersistingL2CacheSize);
  (void)cudaGetLastError();
  GP_CUDA(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 0));
  if (set != cudaSuccess || get != cudaSuccess || applied == 0)
    throw UnsupportedError(fmt::format(
        "the persisting-L2 limit cannot be set from this process ({}; under MPS it is fixed "
        "when the server starts)",
        set != cudaSuccess ? cudaGetErrorString(set) : "it reads back as 0"));
}

// Every point but the after-sweep baseline in one batch, then that baseline again, which no
// persisting line may speed up now; each row with its sizes on this device.
L2PersistProbe::Analysis L2PersistProbe::measure(Sweep<SweepPoint>& s) {
  const DeviceInfo& dev = s.ctx().device();
  require_persisting(dev);
  const Sizes sizes = l2_persist::size_run(dev.l2_bytes, dev.persisting_l2_max_bytes,
                                           dev.access_policy_max_window_bytes);
  const std::vector<SweepPoint>& sweep = s.points();
  Buffers buffers(sweep, sizes, dev.sm_count, s.ctx().stream());
  for (const bool after : {false, true}) {
    std::vector<runtime::Operation> ops;
    std::vector<std::size_t> at;
    for (std::size_t i = 0; i < sweep.size(); ++i) {
      if ((sweep[i].window == l2_persist::kAfterSweep) != after) continue;
      ops.push_back(make_operation(sweep[i], sizes, buffers, s.ctx().stream()));
      at.push_back(i);
    }
    const std::vector<SampleSet> samples = s.ctx().measure_all(ops);
    for (std::size_t k = 0; k < at.size(); ++k)
      s.add(at[k], samples[k]).params =
          l2_persist::row_params(l2_persist::spec_of(sweep[at[k]], &sizes));
  }
  return [sizes, clamped = sizes.clamped_any(sweep)](ProbeResult& r) {
    l2_persist::add_model(r, sizes.window_max);
    l2_persist::analyse(r, sizes.facts());
    if (clamped)
      r.findings.push_back(l2_persist::window_clamped_note(static_cast<double>(sizes.window_max)));
  };
}

}  // namespace

std::unique_ptr<Probe> make_l2_persist_probe() {
  return std::make_unique<L2PersistProbe>();
}

}  // namespace gpuprobe
