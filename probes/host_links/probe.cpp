// The `host-links` probe: every selected GPU's host link alone (solo) and with all of them copying
// at once (concurrent), per direction and size. Host-scoped: one result per host.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <memory>

#include "analysis.hpp"
#include "findings.hpp"
#include "gpuprobe/core/analysis_guard.hpp"
#include "gpuprobe/core/units.hpp"
#include "gpuprobe/models/transfer_model.hpp"
#include "gpuprobe/probe.hpp"
#include "gpuprobe/runtime/buffers.hpp"
#include "gpuprobe/runtime/context.hpp"
#include "gpuprobe/runtime/cuda_check.hpp"
#include "gpuprobe/runtime/device.hpp"
#include "gpuprobe/runtime/host_numa.hpp"
#include "gpuprobe/runtime/pattern.hpp"
#include "gpuprobe/runtime/stream.hpp"
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

// A sweep point: one GPU alone (gpu >= 0) or every GPU at once (gpu -1).
struct Point {
  std::string direction;
  std::uint64_t bytes = 0;
  int gpu = -1;
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
std::vector<runtime::PatternBuffer> outputs(const Side& s, const Point& p) {
  std::vector<runtime::PatternBuffer> out;
  if (moves_h2d(p.direction))
    out.push_back(
        {fmt::format("GPU {} h2d", s.device), s.dev_dst->get(), p.bytes, h2d_seed(s.device)});
  if (moves_d2h(p.direction))
    out.push_back({fmt::format("GPU {} d2h", s.device), s.host_dst->get(), p.bytes,
                   d2h_seed(s.device), true});
  return out;
}

std::string label_of(const Point& p) {
  return fmt::format("{} {} {}", p.gpu < 0 ? "all GPUs" : fmt::format("GPU {}", p.gpu), p.direction,
                     format_bytes(static_cast<double>(p.bytes)));
}

runtime::Operation make_operation(const std::vector<const Side*>& sides, const Point& p) {
  runtime::Operation op;
  op.label = label_of(p);
  for (const Side* s : sides)
    add_lanes(op, *s, p);
  op.prepare = [sides, p](cudaStream_t) {
    for (const Side* s : sides) {
      const DeviceGuard guard(s->device);
      for (const auto& out : outputs(*s, p))
        out.poison(s->stream->get());
      s->stream->synchronize();
    }
  };
  op.verify = [sides, p] {
    MismatchReport report;
    for (const Side* s : sides) {
      const DeviceGuard guard(s->device);
      for (const auto& out : outputs(*s, p))
        out.check(report, out.host ? nullptr : s->stream->get());
    }
    return report.text();
  };
  return op;
}

std::vector<Param> row_params(Scalar gpu, const Point& p, const char* mode) {
  return {{"gpu", std::move(gpu), ""},
          {"direction", p.direction, ""},
          {"bytes", static_cast<std::int64_t>(p.bytes), "B"},
          {"mode", std::string(mode), ""}};
}

std::optional<double> raw_limit(double one_way, const std::string& direction) {
  if (one_way <= 0) return std::nullopt;
  return direction == "bidir" ? 2.0 * one_way : one_way;
}

// A GPU's row from its share of an operation's samples, with its link's raw limit.
Row gpu_row(const Side& s, const Point& p, const char* mode, const SampleSet& all) {
  const SampleSet mine = host_links::gpu_samples(all, s.device);
  Row row = measured_row(row_params(std::int64_t{s.device}, p, mode), mine);
  if (p.direction == "bidir") {
    for (std::size_t lane = 0; lane < mine.lanes.size(); ++lane)
      row.metrics.push_back(lane_bandwidth_metric(mine, lane));
  }
  row.model.push_back({"raw_limit", "GB/s", raw_limit(s.raw_gbps, p.direction)});
  if (std::string(mode) == "solo") {
    const auto node = [](std::optional<int> n) {
      return n ? std::optional<double>(*n) : std::nullopt;
    };
    row.derived.push_back({"gpu_node", "", node(s.gpu_node)});
    row.derived.push_back({"host_node", "", node(s.host_node)});
  }
  return row;
}

// The GPUs of the run, each once, in the selection's order.
std::vector<int> selected_gpus(const runtime::ProbeContext& ctx) {
  std::vector<int> out;
  for (const int d : ctx.devices())
    if (std::find(out.begin(), out.end(), d) == out.end()) out.push_back(d);
  if (out.empty()) out.push_back(ctx.device().index);
  return out;
}

std::vector<Point> sweep(const AxisValues& v, const std::vector<int>& gpus) {
  std::vector<Point> points;
  for (const auto& dir : v.choices("direction"))
    for (const auto bytes : v.list("sizes")) {
      for (const int g : gpus)
        points.push_back({dir, bytes, g});
      if (gpus.size() > 1) points.push_back({dir, bytes, -1});
    }
  return points;
}

class HostLinksProbe final : public Probe {
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
    sizes.check = [](std::uint64_t b) {
      return b % 4 == 0 ? std::string() : fmt::format("{} is not a multiple of 4 bytes", b);
    };
    return {choice_axis("direction", "copy directions", {"h2d", "d2h", "bidir"}, "all"), sizes};
  }
  std::string help_footer() const override {
    return "The GPUs are the run's --device selection (e.g. --device all); with one GPU only the "
           "solo rows are measured.\nExample:\n  gpuprobe --device all host-links --direction "
           "h2d,d2h --sizes 256MiB";
  }
  void add_words(Glossary& g) const override { host_links::add_words(g); }

  ProbeResult plan(const AxisValues& values) const override {
    ProbeResult r = new_result(kMethod);
    for (const auto& dir : values.choices("direction"))
      for (const auto bytes : values.list("sizes")) {
        const Point p{dir, bytes, -1};
        r.rows.push_back(unmeasured_row(row_params(std::string("each"), p, "solo")));
        r.rows.push_back(unmeasured_row(row_params(std::string("each"), p, "concurrent")));
        r.rows.push_back(unmeasured_row(row_params(std::string("all"), p, "concurrent")));
      }
    r.findings.push_back(host_links::kPlanEachGpu.make());
    return r;
  }

  ProbeResult run(runtime::ProbeContext& ctx, const AxisValues& values) override;
};

ProbeResult HostLinksProbe::run(runtime::ProbeContext& ctx, const AxisValues& values) {
  const std::vector<int> gpus = selected_gpus(ctx);
  const auto& sizes = values.list("sizes");
  const std::size_t most = *std::max_element(sizes.begin(), sizes.end());
  std::map<int, Side> sides;  // nodes stay put: operations point into them
  std::vector<const Side*> all;
  for (const int g : gpus)
    all.push_back(&sides.emplace(g, make_side(g, most)).first->second);
  const std::vector<Point> points = sweep(values, gpus);
  std::vector<runtime::Operation> ops;
  for (const Point& p : points)
    ops.push_back(make_operation(p.gpu < 0 ? all : std::vector<const Side*>{&sides.at(p.gpu)}, p));
  const std::vector<SampleSet> measured = ctx.measure_all(ops);
  ProbeResult r = new_result(kMethod);
  for (std::size_t i = 0; i < points.size(); ++i) {
    const Point& p = points[i];
    if (p.gpu >= 0) {
      r.rows.push_back(gpu_row(sides.at(p.gpu), p, "solo", measured[i]));
      continue;
    }
    double raw_sum = 0;
    for (const Side* s : all) {
      r.rows.push_back(gpu_row(*s, p, "concurrent", measured[i]));
      raw_sum += raw_limit(s->raw_gbps, p.direction).value_or(0.0);
    }
    Row total = measured_row(row_params(std::string("all"), p, "concurrent"), measured[i]);
    const bool known =
        std::all_of(all.begin(), all.end(), [](const Side* s) { return s->raw_gbps > 0; });
    total.model.push_back({"raw_limit", "GB/s", known ? std::optional(raw_sum) : std::nullopt});
    r.rows.push_back(std::move(total));
  }
  analyse_keeping_rows(r, [&] { host_links::analyse(r); });
  return r;
}

}  // namespace

std::unique_ptr<Probe> make_host_links_probe() {
  return std::make_unique<HostLinksProbe>();
}

}  // namespace gpuprobe
