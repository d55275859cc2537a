// The `host-links` probe: every selected GPU's host link alone (solo) and with all of them copying
// at once (concurrent), per direction and size. Host-scoped: one result per host.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <memory>

#include "analysis.hpp"
#include "findings.hpp"
#include "gpuprobe/core/units.hpp"
#include "gpuprobe/models/transfer_model.hpp"
#include "gpuprobe/runtime/buffers.hpp"
#include "gpuprobe/runtime/context.hpp"
#include "gpuprobe/runtime/cuda_check.hpp"
#include "gpuprobe/runtime/device.hpp"
#include "gpuprobe/runtime/host_numa.hpp"
#include "gpuprobe/runtime/pattern.hpp"
#include "gpuprobe/runtime/stream.hpp"
#include "gpuprobe/sweep_probe.hpp"
#include "registry.hpp"

namespace gpuprobe {
namespace {

using runtime::DeviceGuard;

constexpr std::uint32_t kSeed = 0x4057u;
constexpr std::uint64_t kMaxBytes = 1ull << 40;  // 1 TiB: more than any GPU holds
constexpr const char* kMethod =
    "cudaMemcpyAsync between each GPU's own pinned host buffer (allocated while the thread runs "
    "on the GPU's local CPUs) and its device memory, on a stream of that GPU; solo = one GPU "
    "alone, concurrent = every selected GPU at once, each held by a spin kernel of its own that "
    "one host-mapped flag releases, each timed with CUDA events on its own streams from its own "
    "release; a GPU's time is its longest lane, the aggregate's the longest of all; bytes counted "
    "once per direction (bidir: both summed); GB/s = 1e9 B/s; every copy verified after sampling";

std::uint32_t h2d_seed(int gpu) {
  return kSeed + 2u * static_cast<std::uint32_t>(gpu);
}
std::uint32_t d2h_seed(int gpu) {
  return h2d_seed(gpu) + 1u;
}

// One GPU's side: pinned host buffers near it, device buffers, a stream for set-up and checks.
struct Side {
  int device = 0;
  double raw_gbps = 0;  // PCIe raw limit one way (0: link unknown)
  std::optional<int> gpu_node, host_node;
  std::unique_ptr<runtime::HostBuffer> host_src, host_dst;
  std::unique_ptr<runtime::DeviceBuffer> dev_src, dev_dst;
  std::unique_ptr<runtime::Stream> stream;

  Side() = default;
  Side(Side&&) = default;
  Side& operator=(Side&&) = default;
  // Device memory and the stream go with their GPU current (freed memory is counted per GPU).
  ~Side() {
    if (!dev_src && !dev_dst && !stream) return;
    int previous = 0;
    (void)cudaGetDevice(&previous);
    (void)cudaSetDevice(device);
    stream.reset();
    dev_src.reset();
    dev_dst.reset();
    (void)cudaSetDevice(previous);
  }
};

Side make_side(int device, std::size_t bytes) {
  const DeviceGuard guard(device);
  const DeviceInfo info = runtime::query_device(device);
  Side s;
  s.device = device;
  s.raw_gbps = models::pcie_raw_gbps(info.pcie_link_gts, info.pcie_link_width);
  {
    const runtime::LocalCpuScope local(info.pci_bus_id);
    s.host_src = std::make_unique<runtime::HostBuffer>(runtime::HostMemory::kPinned, bytes);
    s.host_dst = std::make_unique<runtime::HostBuffer>(runtime::HostMemory::kPinned, bytes);
  }
  s.gpu_node = runtime::gpu_numa_node(info.pci_bus_id);
  s.host_node = runtime::page_numa_node(s.host_src->get());
  runtime::fill_pattern_host(s.host_src->get(), bytes, h2d_seed(device));
  s.dev_src = std::make_unique<runtime::DeviceBuffer>(bytes);
  s.dev_dst = std::make_unique<runtime::DeviceBuffer>(bytes);
  s.stream = std::make_unique<runtime::Stream>();
  runtime::fill_pattern_device(s.dev_src->get(), bytes, d2h_seed(device), s.stream->get());
  s.stream->synchronize();
  return s;
}

constexpr int kAll = -1;   // the concurrent run's aggregate row
constexpr int kEach = -2;  // a plan without a selection: the row every GPU gets

// A row's point: one GPU alone (solo) or one GPU's share of every GPU at once (concurrent), or
// the concurrent run's aggregate (gpu kAll).
struct Point {
  std::string direction;
  std::uint64_t bytes = 0;
  int gpu = kAll;
  std::string mode;  // solo, concurrent
};

bool moves_h2d(const std::string& direction) {
  return direction != "d2h";
}
bool moves_d2h(const std::string& direction) {
  return direction != "h2d";
}

void add_lanes(runtime::Operation& op, const Side& s, const Point& p) {
  const std::uint64_t bytes = p.bytes;
  const double counted = static_cast<double>(bytes);
  void* dev_dst = s.dev_dst->get();
  const void* dev_src = s.dev_src->get();
  void* host_dst = s.host_dst->get();
  const void* host_src = s.host_src->get();
  if (moves_h2d(p.direction))
    op.lanes.push_back(
        {host_links::lane_name(s.device, "h2d"), counted,
         [=](runtime::LaunchScope& l) {
           GP_CUDA(cudaMemcpyAsync(dev_dst, host_src, bytes, cudaMemcpyHostToDevice, l.stream()));
         },
         s.device});
  if (moves_d2h(p.direction))
    op.lanes.push_back(
        {host_links::lane_name(s.device, "d2h"), counted,
         [=](runtime::LaunchScope& l) {
           GP_CUDA(cudaMemcpyAsync(host_dst, dev_src, bytes, cudaMemcpyDeviceToHost, l.stream()));
         },
         s.device});
}

// The destinations a side's copies write, poisoned before each round and checked after.
void add_outputs(std::vector<runtime::GpuPatternBuffer>& out, const Side& s, const Point& p) {
  const auto add = [&](const char* what, void* data, std::uint32_t seed, bool host) {
    out.push_back({s.device,
                   s.stream->get(),
                   {fmt::format("GPU {} {}", s.device, what), data, p.bytes, seed, host}});
  };
  if (moves_h2d(p.direction)) add("h2d", s.dev_dst->get(), h2d_seed(s.device), false);
  if (moves_d2h(p.direction)) add("d2h", s.host_dst->get(), d2h_seed(s.device), true);
}

std::string label_of(const Point& p) {
  return fmt::format("{} {} {}", p.mode == "concurrent" ? "all GPUs" : fmt::format("GPU {}", p.gpu),
                     p.direction, format_bytes(static_cast<double>(p.bytes)));
}

runtime::Operation make_operation(const std::vector<const Side*>& sides, const Point& p) {
  runtime::Operation op;
  op.label = label_of(p);
  std::vector<runtime::GpuPatternBuffer> outs;
  for (const Side* s : sides) {
    add_lanes(op, *s, p);
    add_outputs(outs, *s, p);
  }
  op.prepare = [outs](cudaStream_t) { runtime::poison_all(outs); };
  op.verify = [outs] { return runtime::verify_all(outs); };
  return op;
}

Row planned_row(const Point& p) {
  const Scalar gpu = p.gpu >= 0 ? Scalar{std::int64_t{p.gpu}}
                                : Scalar{std::string(p.gpu == kAll ? "all" : "each")};
  return unmeasured_row({{"gpu", gpu, ""},
                         {"direction", p.direction, ""},
                         {"bytes", static_cast<std::int64_t>(p.bytes), "B"},
                         {"mode", p.mode, ""}});
}

std::optional<double> raw_limit(double one_way, const std::string& direction) {
  if (one_way <= 0) return std::nullopt;
  return direction == "bidir" ? 2.0 * one_way : one_way;
}

// A GPU's row from its share of an operation's samples, with its link's raw limit.
void add_gpu_row(Sweep<Point>& sw, std::size_t i, const Side& s, const SampleSet& all) {
  const Point& p = sw.points()[i];
  const SampleSet mine = host_links::gpu_samples(all, s.device);
  Row& row = sw.add(i, mine);
  if (p.direction == "bidir") {
    for (std::size_t lane = 0; lane < mine.lanes.size(); ++lane)
      row.metrics.push_back(lane_bandwidth_metric(mine, lane));
  }
  row.model.push_back({"raw_limit", "GB/s", raw_limit(s.raw_gbps, p.direction)});
  if (p.mode == "solo") {
    const auto node = [](std::optional<int> n) {
      return n ? std::optional<double>(*n) : std::nullopt;
    };
    row.derived.push_back({"gpu_node", "", node(s.gpu_node)});
    row.derived.push_back({"host_node", "", node(s.host_node)});
  }
}

// The concurrent run's aggregate row: its raw limit the sum of every GPU's, where all are known.
void add_total_row(Sweep<Point>& sw, std::size_t i, const std::vector<const Side*>& all,
                   const SampleSet& samples) {
  double raw_sum = 0;
  for (const Side* s : all)
    raw_sum += raw_limit(s->raw_gbps, sw.points()[i].direction).value_or(0.0);
  const bool known =
      std::all_of(all.begin(), all.end(), [](const Side* s) { return s->raw_gbps > 0; });
  sw.add(i, samples)
      .model.push_back({"raw_limit", "GB/s", known ? std::optional(raw_sum) : std::nullopt});
}

// Per direction and size: each GPU alone, then (with two or more) each GPU's share of all at
// once and the aggregate. `gpus` empty: the rows of a plan without a selection.
std::vector<Point> sweep_points(const AxisValues& v, const std::vector<int>& gpus) {
  std::vector<Point> points;
  for (const auto& dir : v.choices("direction"))
    for (const auto bytes : v.list("sizes")) {
      if (gpus.empty()) {
        for (const char* mode : {"solo", "concurrent"})
          points.push_back({dir, bytes, kEach, mode});
        points.push_back({dir, bytes, kAll, "concurrent"});
        continue;
      }
      for (const int g : gpus)
        points.push_back({dir, bytes, g, "solo"});
      if (gpus.size() < 2) continue;
      for (const int g : gpus)
        points.push_back({dir, bytes, g, "concurrent"});
      points.push_back({dir, bytes, kAll, "concurrent"});
    }
  return points;
}

// The GPUs of a selection, each once, in its order.
std::vector<int> distinct(const std::vector<int>& devices) {
  std::vector<int> out;
  for (const int d : devices)
    if (std::find(out.begin(), out.end(), d) == out.end()) out.push_back(d);
  return out;
}

class HostLinksProbe final : public SweepProbe<Point> {
 public:
  std::string name() const override { return "host-links"; }
  std::string description() const override {
    return "every selected GPU's host link alone and with all GPUs copying at once: per-GPU "
           "slowdown, aggregate, a link slower than its siblings";
  }
  ProbeScope scope() const override { return ProbeScope::kHost; }
  std::string memory_flags() const override { return "--sizes"; }
  std::vector<Axis> axes() const override {
    Axis sizes = size_list_axis("sizes", "copy sizes per GPU and direction", "256MiB", "64MiB");
    sizes.max = kMaxBytes;
    sizes.validate = multiple_of(4, "4 bytes");
    return {choice_axis("direction", "copy directions", {"h2d", "d2h", "bidir"}, "all"), sizes};
  }
  std::string help_footer() const override {
    return "The GPUs are the run's --device selection (e.g. --device all); with one GPU only the "
           "solo rows are measured.\nExample:\n  gpuprobe --device all host-links --direction "
           "h2d,d2h --sizes 256MiB";
  }
  void add_words(Glossary& g) const override { host_links::add_words(g); }

  std::string method(const AxisValues& /*values*/) const override { return kMethod; }
  std::vector<Point> points(const AxisValues& v) const override { return sweep_points(v, {}); }
  std::vector<Point> points_across(const AxisValues& v,
                                   const std::vector<int>& devices) const override {
    return sweep_points(v, distinct(devices));
  }
  Row row(const Point& p) const override { return planned_row(p); }
  void finish_plan(ProbeResult& r, const AxisValues&,
                   const std::vector<int>* devices) const override {
    if (!devices) r.findings.push_back(host_links::kPlanEachGpu.make());
  }
  Analysis measure(Sweep<Point>& s) override;
};

// One operation per solo point and one per concurrent run (every GPU's lanes), in one batch.
HostLinksProbe::Analysis HostLinksProbe::measure(Sweep<Point>& sw) {
  const auto& sizes = sw.values().list("sizes");
  const std::size_t most = *std::max_element(sizes.begin(), sizes.end());
  std::map<int, Side> sides;  // nodes stay put: operations point into them
  std::vector<const Side*> all;
  for (const int g : distinct(sw.ctx().devices()))
    all.push_back(&sides.emplace(g, make_side(g, most)).first->second);
  std::vector<runtime::Operation> ops;
  std::vector<std::size_t> op_of(sw.points().size());
  for (std::size_t i = 0; i < sw.points().size(); ++i) {
    const Point& p = sw.points()[i];
    const bool joins = p.mode == "concurrent" && i > 0 && sw.points()[i - 1].mode == "concurrent";
    if (!joins)
      ops.push_back(
          make_operation(p.mode == "solo" ? std::vector<const Side*>{&sides.at(p.gpu)} : all, p));
    op_of[i] = ops.size() - 1;
  }
  const std::vector<SampleSet> measured = sw.ctx().measure_all(ops);
  for (std::size_t i = 0; i < sw.points().size(); ++i) {
    const Point& p = sw.points()[i];
    if (p.gpu == kAll)
      add_total_row(sw, i, all, measured[op_of[i]]);
    else
      add_gpu_row(sw, i, sides.at(p.gpu), measured[op_of[i]]);
  }
  return [](ProbeResult& r) { host_links::analyse(r); };
}

}  // namespace

std::unique_ptr<Probe> make_host_links_probe() {
  return std::make_unique<HostLinksProbe>();
}

}  // namespace gpuprobe
