// The `transfer` probe: host<->device copy bandwidth by host memory kind, direction and size.
// Axes and operations here; the fits, ratios and findings in analysis.cpp (host-only).
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <exception>
#include <future>
#include <map>
#include <memory>
#include <optional>

#include "analysis.hpp"
#include "gpuprobe/core/errors.hpp"
#include "gpuprobe/core/trace.hpp"
#include "gpuprobe/core/units.hpp"
#include "gpuprobe/runtime/buffers.hpp"
#include "gpuprobe/runtime/context.hpp"
#include "gpuprobe/runtime/cuda_check.hpp"
#include "gpuprobe/runtime/pattern.hpp"
#include "gpuprobe/sweep_probe.hpp"
#include "registry.hpp"
#include "sweep.hpp"

namespace gpuprobe {
namespace {

using runtime::HostMemory;
using runtime::HostPair;

constexpr std::uint32_t kH2DSeed = 0x1234567u;
constexpr std::uint32_t kD2HSeed = 0x7654321u;
// Largest --sizes value accepted: 1 TiB, more than any GPU holds (and far from int64 overflow).
constexpr std::uint64_t kMaxTransferBytes = 1ull << 40;

constexpr const char* kMethod =
    "cudaMemcpyAsync on non-blocking streams; pinned/wc/registered batches gated behind a spin "
    "kernel and timed with CUDA events, pageable batches timed with the host clock (the copy "
    "is staged synchronously); bytes counted once per direction, bidir = both directions "
    "summed; GB/s = 1e9 B/s; data verified after sampling";

struct Point {
  HostMemory kind;
  std::string direction;  // h2d, d2h, bidir
  std::uint64_t bytes;
};

runtime::Operation make_operation(const Point& p, HostPair& host, runtime::DeviceBuffer& dev_src,
                                  runtime::DeviceBuffer& dev_dst) {
  runtime::Operation op;
  op.label = fmt::format("{} {} {}", runtime::host_memory_name(p.kind), p.direction,
                         format_bytes(static_cast<double>(p.bytes)));
  // A pageable copy is staged synchronously: gating it would deadlock, so the host clock times it.
  op.timing = p.kind == HostMemory::kPageable ? runtime::Timing::kHostClock
                                              : runtime::Timing::kDeviceEvents;
  // Copies past the process-level sizes take milliseconds and find the link as any copy leaves
  // it: no warm-up in later rounds (the first round's calibration is one); prepare only poisons
  // the destinations, so only the first round and the verified last one need it.
  op.rewarm_each_round = p.bytes <= transfer::kProcessLevelMaxBytes;
  op.prepare_every_round = op.rewarm_each_round;
  const bool h2d = p.direction != "d2h";
  const bool d2h = p.direction != "h2d";
  const std::uint64_t bytes = p.bytes;
  const HostMemory kind = p.kind;
  const HostPair* hb = &host;
  void* dsrc = dev_src.get();
  void* ddst = dev_dst.get();
  if (h2d) {
    op.lanes.push_back(
        {"h2d", static_cast<double>(bytes), [=](runtime::LaunchScope& s) {
           GP_CUDA(cudaMemcpyAsync(ddst, hb->in.get(), bytes, cudaMemcpyHostToDevice, s.stream()));
         }});
  }
  if (d2h) {
    op.lanes.push_back(
        {"d2h", static_cast<double>(bytes), [=](runtime::LaunchScope& s) {
           GP_CUDA(cudaMemcpyAsync(hb->out.get(), dsrc, bytes, cudaMemcpyDeviceToHost, s.stream()));
         }});
  }
  // The destinations, poisoned before each round, so a copy that did not happen cannot pass.
  const runtime::PatternBuffer to_device{"h2d", ddst, bytes, kH2DSeed};
  const runtime::PatternBuffer to_host{"d2h", hb->out.get(), bytes, kD2HSeed, true};
  op.prepare = [=](cudaStream_t s) {
    if (h2d) to_device.poison(s);
    if (d2h) to_host.poison(s);
  };
  op.verify = [=]() {
    MismatchReport report;
    if (h2d) to_device.verify_into(report, nullptr);
    if (d2h && kind == HostMemory::kWriteCombined) {
      // CPU reads of write-combined memory are uncached and very slow: copy the received
      // bytes back to the (already verified or unused) device destination and check there.
      GP_CUDA(cudaMemcpy(ddst, hb->out.get(), bytes, cudaMemcpyHostToDevice));
      runtime::PatternBuffer{"d2h", ddst, bytes, kD2HSeed}.verify_into(report, nullptr);
    } else if (d2h) {
      to_host.verify_into(report, nullptr);
    }
    return report.text();
  };
  return op;
}

// The batches of `part` (indices into the sweep), as indices into the sweep: every point in one
// batch when every memory kind's two host buffers fit in a quarter of the host's memory at once —
// the rounds then spread each point's samples over the whole part, not over one kind's stretch of
// it (host copies' speed moves over seconds on a busy host; docs/method.md) — else one batch per
// kind, as large sweeps need. Points stay in sweep order, so rows do too.
std::vector<std::vector<std::size_t>> batches(const std::vector<Point>& sweep,
                                              const std::vector<std::size_t>& part,
                                              std::uint64_t max_bytes) {
  std::vector<HostMemory> kinds;
  for (const std::size_t i : part) {
    if (std::find(kinds.begin(), kinds.end(), sweep[i].kind) == kinds.end())
      kinds.push_back(sweep[i].kind);
  }
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page = sysconf(_SC_PAGE_SIZE);
  const double host =
      pages > 0 && page > 0 ? static_cast<double>(pages) * static_cast<double>(page) : 0.0;
  const double all_at_once =
      2.0 * static_cast<double>(max_bytes) * static_cast<double>(kinds.size());
  const bool together = host > 0 && all_at_once <= host / 4;
  std::vector<std::vector<std::size_t>> out;
  for (const std::size_t i : part) {
    if (out.empty() || (!together && sweep[i].kind != sweep[out.back().back()].kind))
      out.emplace_back();
    out.back().push_back(i);
  }
  return out;
}

// The device side of every copy: a source with the D2H pattern and a destination, of the
// largest size measured.
struct DeviceBuffers {
  runtime::DeviceBuffer src;
  runtime::DeviceBuffer dst;

  DeviceBuffers(std::uint64_t bytes, cudaStream_t stream) : src(bytes), dst(bytes) {
    runtime::fill_pattern_device(src.get(), bytes, kD2HSeed, stream);
    GP_CUDA(cudaStreamSynchronize(stream));
  }
};

// Each kind's host buffers, allocated (pinned, filled) on threads of their own at once: pinning
// a 256 MiB buffer takes the driver about 0.1 s, and nothing is measured meanwhile. Map nodes stay
// put: operations point into them.
std::map<HostMemory, HostPair> allocate_together(const std::vector<HostMemory>& kinds,
                                                 std::uint64_t bytes) {
  int device = 0;
  GP_CUDA(cudaGetDevice(&device));
  std::vector<std::future<std::unique_ptr<HostPair>>> made;
  for (const HostMemory kind : kinds) {
    made.push_back(std::async(std::launch::async, [kind, bytes, device] {
      GP_CUDA(cudaSetDevice(device));  // a new thread starts on device 0
      return std::make_unique<HostPair>(kind, bytes, kH2DSeed);
    }));
  }
  std::map<HostMemory, HostPair> out;
  std::exception_ptr failed;
  for (std::size_t i = 0; i < kinds.size(); ++i) {
    try {
      out.emplace(kinds[i], std::move(*made[i].get()));
    } catch (...) {
      if (!failed) failed = std::current_exception();  // every thread is waited for first
    }
  }
  if (failed) std::rethrow_exception(failed);
  return out;
}

// One batch of points (indices into the sweep), with host buffers of `max_bytes` per memory kind:
// in this process, or with each round in a process of its own. Adds their rows.
void measure_batch(Sweep<Point>& s, const std::vector<std::size_t>& batch, std::uint64_t max_bytes,
                   DeviceBuffers& dev, bool in_processes) {
  trace(fmt::format("transfer: host buffers of {} B for {} points", max_bytes, batch.size()));
  std::vector<HostMemory> kinds;
  for (const std::size_t i : batch)
    if (std::find(kinds.begin(), kinds.end(), s.points()[i].kind) == kinds.end())
      kinds.push_back(s.points()[i].kind);
  std::map<HostMemory, HostPair> host = allocate_together(kinds, max_bytes);
  std::vector<runtime::Operation> ops;
  for (const std::size_t i : batch)
    ops.push_back(make_operation(s.points()[i], host.at(s.points()[i].kind), dev.src, dev.dst));
  trace("transfer: host buffers ready");
  const auto measured =
      in_processes ? s.measure_in_processes(ops, batch) : s.ctx().measure_all(ops);
  for (std::size_t k = 0; k < batch.size(); ++k) {
    Row& row = s.add(batch[k], measured[k]);
    if (s.points()[batch[k]].direction != "bidir") continue;
    for (std::size_t lane = 0; lane < measured[k].lanes.size(); ++lane)
      row.metrics.push_back(lane_bandwidth_metric(measured[k], lane));
  }
}

class TransferProbe final : public SweepProbe<Point> {
 public:
  std::string name() const override { return "transfer"; }
  std::string description() const override {
    return "host<->device copy bandwidth: pageable/pinned/write-combined/registered, "
           "h2d/d2h/bidir, size sweep + latency/bandwidth fit";
  }

  std::vector<Axis> axes() const override {
    Axis memory = choice_axis("memory", "host memory kinds",
                              {"pageable", "pinned", "wc", "registered"}, "all");
    memory.switch_per_choice = true;
    Axis sizes =
        size_list_axis("sizes", "transfer sizes: list or range, e.g. 64MiB or 4KiB:256MiB:x2",
                       "4KiB:256MiB:x4", "4KiB:64MiB:x4");
    sizes.max = kMaxTransferBytes;
    sizes.max_items = 256;
    sizes.validate = multiple_of(4, "4 bytes");
    return {memory, choice_axis("direction", "copy directions", {"h2d", "d2h", "bidir"}, "all"),
            sizes};
  }

  std::string memory_flags() const override { return "--sizes"; }
  std::string help_footer() const override {
    return "--pageable, --pinned, --wc and --registered pick memory kinds (combine freely); with "
           "none of them and no --memory, all four kinds are measured.";
  }

  void add_words(Glossary& glossary) const override { transfer::add_words(glossary); }

  // Bytes that crossed PCIe during the copy: read = the GPU read host memory (h2d payload),
  // write = the GPU wrote host memory (d2h). Device-wide counters (they also count other traffic
  // on the link), so CUPTI collects them in a configuration of their own.
  std::vector<std::string> counter_metrics() const override {
    return metric_names(transfer::kCounterMetrics);
  }

  std::string method(const AxisValues& /*values*/) const override { return kMethod; }
  std::vector<Point> points(const AxisValues& v) const override {
    std::vector<Point> out;
    for (const auto& memory : v.choices("memory"))
      for (const auto& dir : v.choices("direction"))
        for (auto bytes : v.list("sizes"))
          out.push_back({runtime::host_memory_of(memory), dir, bytes});
    return out;
  }
  Row row(const Point& p) const override {
    return unmeasured_row({{"memory", std::string(runtime::host_memory_name(p.kind)), ""},
                           {"direction", p.direction, ""},
                           {"bytes", static_cast<std::int64_t>(p.bytes), "B"}});
  }
  Analysis measure(Sweep<Point>& s) override;
};

// Copies up to 1 MiB with each round in a process of its own (transfer::kProcessLevelMaxBytes),
// then the larger ones here.
TransferProbe::Analysis TransferProbe::measure(Sweep<Point>& s) {
  std::vector<std::uint64_t> bytes;
  for (const Point& p : s.points())
    bytes.push_back(p.bytes);
  const transfer::SweepParts parts = transfer::split_by_process_level(bytes);
  trace("transfer: run");
  DeviceBuffers dev(std::max(parts.round_processes_max, parts.one_process_max), s.ctx().stream());
  trace("transfer: device buffers ready");
  for (const auto& batch : batches(s.points(), parts.round_processes, parts.round_processes_max))
    measure_batch(s, batch, parts.round_processes_max, dev, true);
  for (const auto& batch : batches(s.points(), parts.one_process, parts.one_process_max))
    measure_batch(s, batch, parts.one_process_max, dev, false);
  trace("transfer: measured; analysing");
  const transfer::Link link{s.ctx().device().pcie_link_gts, s.ctx().device().pcie_link_width};
  return [link](ProbeResult& r) { transfer::analyse(r, link); };
}

}  // namespace

std::unique_ptr<Probe> make_transfer_probe() {
  return std::make_unique<TransferProbe>();
}

}  // namespace gpuprobe
