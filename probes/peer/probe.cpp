// The peer probe: GPU-to-GPU copy bandwidth and latency for every ordered pair of GPUs, P2P on
// (copy engine, SM kernels reading or writing peer memory) and off (staged through the host).
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "analysis.hpp"
#include "gpuprobe/core/errors.hpp"
#include "gpuprobe/core/units.hpp"
#include "gpuprobe/models/peer_model.hpp"
#include "gpuprobe/models/transfer_model.hpp"
#include "gpuprobe/probe.hpp"
#include "gpuprobe/runtime/buffers.hpp"
#include "gpuprobe/runtime/context.hpp"
#include "gpuprobe/runtime/cuda_check.hpp"
#include "gpuprobe/runtime/device.hpp"
#include "gpuprobe/runtime/link_facts.hpp"
#include "gpuprobe/runtime/pattern.hpp"
#include "gpuprobe/runtime/stream.hpp"
#include "kernels.hpp"
#include "registry.hpp"

namespace gpuprobe {
namespace {

constexpr std::uint32_t kSeed = 0x9E3Eu;
constexpr const char* kMethod =
    "for every ordered pair (src, dst): ce = cudaMemcpyPeerAsync on a stream of dst; sm-read = a "
    "copy kernel on dst loading src's memory; sm-write = a copy kernel on src storing into dst's "
    "memory; staged = cudaMemcpyAsync src -> pinned host -> dst, one after the other (P2P off); "
    "bidir runs src->dst and dst->src at once; gated batches timed with CUDA events on the "
    "harness's device; bandwidth counts payload bytes (both directions for bidir); GB/s = 1e9 "
    "B/s; every copy verified after sampling";

struct Point {
  int src = 0, dst = 0;
  std::string mode, direction;
  std::uint64_t bytes = 0;
};

std::vector<Param> row_params(const Point& p) {
  return {{"src", static_cast<std::int64_t>(p.src), ""},
          {"dst", static_cast<std::int64_t>(p.dst), ""},
          {"mode", p.mode, ""},
          {"direction", p.direction, ""},
          {"bytes", static_cast<std::int64_t>(p.bytes), "B"}};
}

std::vector<Point> sweep(const std::vector<int>& devices, const AxisValues& v) {
  std::vector<Point> points;
  for (const auto& [src, dst] : peer::ordered_pairs(devices))
    for (const auto& mode : v.choices("mode"))
      for (const auto& dir : v.choices("direction"))
        for (const auto bytes : v.list("sizes"))
          points.push_back({src, dst, mode, dir, bytes});
  return points;
}

// Makes `device` current for its lifetime, then restores the one before.
class DeviceGuard {
 public:
  explicit DeviceGuard(int device) {
    GP_CUDA(cudaGetDevice(&previous_));
    GP_CUDA(cudaSetDevice(device));
  }
  ~DeviceGuard() { (void)cudaSetDevice(previous_); }
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  int previous_ = 0;
};

// One GPU's side of the sweep: its source (the pattern of its seed), its destination, a stream
// and events per lane to run legs there ordered inside the harness's timed region.
struct Side {
  int device = 0;
  int sm_count = 0;
  DeviceInfo info;  // with its link facts (NVML, else sysfs): the model's link
  std::unique_ptr<runtime::DeviceBuffer> src, dst;
  std::unique_ptr<runtime::Stream> streams[2];
  std::unique_ptr<runtime::Event> done[2];
};

// What every operation shares: the sides, the harness's device and its gate events per lane.
struct Shared {
  int home = 0;
  std::map<int, Side> sides;
  std::unique_ptr<runtime::Event> start[2];
  std::unique_ptr<runtime::HostBuffer> staging[2];
};

std::uint32_t seed_of(int device) {
  return kSeed + static_cast<std::uint32_t>(device);
}

// Enqueues `work` on GPU `exec`: on the lane's own stream when that is the harness's device,
// else on exec's stream for this lane, ordered after the lane's work so far and before the
// lane's next (so the harness's events time it).
void run_leg(Shared& s, int exec, int lane, cudaStream_t lane_stream,
             const std::function<void(cudaStream_t)>& work) {
  if (exec == s.home) {
    work(lane_stream);
    return;
  }
  Side& side = s.sides.at(exec);
  GP_CUDA(cudaEventRecord(s.start[lane]->get(), lane_stream));
  const DeviceGuard guard(exec);
  const cudaStream_t stream = side.streams[lane]->get();
  GP_CUDA(cudaStreamWaitEvent(stream, s.start[lane]->get(), 0));
  work(stream);
  GP_CUDA(cudaEventRecord(side.done[lane]->get(), stream));
  GP_CUDA(cudaStreamWaitEvent(lane_stream, side.done[lane]->get(), 0));
}

// One direction of a point: `from`'s source into `to`'s destination, by `mode`.
void copy_leg(Shared& s, const std::string& mode, int from, int to, std::size_t bytes, int lane,
              cudaStream_t lane_stream) {
  const Side& a = s.sides.at(from);
  const Side& b = s.sides.at(to);
  void* dst = b.dst->get();
  const void* src = a.src->get();
  if (mode == "ce") {
    run_leg(s, to, lane, lane_stream,
            [=](cudaStream_t st) { GP_CUDA(cudaMemcpyPeerAsync(dst, to, src, from, bytes, st)); });
  } else if (mode == "sm-read" || mode == "sm-write") {
    const Side& exec = mode == "sm-read" ? b : a;
    run_leg(s, exec.device, lane, lane_stream, [=, blocks = exec.sm_count * 4](cudaStream_t st) {
      peer::launch_sm_copy(dst, src, bytes, blocks, st);
    });
  } else {  // staged: device to pinned host, then host to device
    void* host = s.staging[lane]->get();
    run_leg(s, from, lane, lane_stream, [=](cudaStream_t st) {
      GP_CUDA(cudaMemcpyAsync(host, src, bytes, cudaMemcpyDeviceToHost, st));
    });
    run_leg(s, to, lane, lane_stream, [=](cudaStream_t st) {
      GP_CUDA(cudaMemcpyAsync(dst, host, bytes, cudaMemcpyHostToDevice, st));
    });
  }
}

runtime::PatternBuffer written(const Side& side, std::size_t bytes, int from) {
  return {fmt::format("GPU {}", side.device), side.dst->get(), bytes, seed_of(from)};
}

// The destination buffers a point writes: dst's (from src), and src's too for bidir.
std::vector<std::pair<const Side*, int>> outputs(const Shared& s, const Point& p) {
  std::vector<std::pair<const Side*, int>> out = {{&s.sides.at(p.dst), p.src}};
  if (p.direction == "bidir") out.emplace_back(&s.sides.at(p.src), p.dst);
  return out;
}

runtime::Operation make_operation(Shared& s, const Point& p) {
  runtime::Operation op;
  op.label = fmt::format("{} {} {}->{} {}", p.mode, p.direction, p.src, p.dst,
                         format_bytes(static_cast<double>(p.bytes)));
  Shared* sp = &s;
  const double bytes = static_cast<double>(p.bytes);
  op.lanes.push_back({"fwd", bytes, [=](runtime::LaunchScope& l) {
                        copy_leg(*sp, p.mode, p.src, p.dst, p.bytes, 0, l.stream());
                      }});
  if (p.direction == "bidir")
    op.lanes.push_back({"rev", bytes, [=](runtime::LaunchScope& l) {
                          copy_leg(*sp, p.mode, p.dst, p.src, p.bytes, 1, l.stream());
                        }});
  op.prepare = [=](cudaStream_t) {
    for (const auto& [side, from] : outputs(*sp, p)) {
      const DeviceGuard guard(side->device);
      written(*side, p.bytes, from).poison(side->streams[0]->get());
      GP_CUDA(cudaStreamSynchronize(side->streams[0]->get()));
    }
  };
  op.verify = [=] {
    MismatchReport report;
    for (const auto& [side, from] : outputs(*sp, p)) {
      const DeviceGuard guard(side->device);
      written(*side, p.bytes, from).check(report, side->streams[0]->get());
    }
    return report.text();
  };
  return op;
}

Side make_side(int device, std::size_t most, bool with_remote) {
  const DeviceGuard guard(device);
  Side side;
  side.device = device;
  side.info = runtime::query_device(device);
  runtime::add_link_facts(side.info);
  side.sm_count = side.info.sm_count;
  side.src = std::make_unique<runtime::DeviceBuffer>(most);
  side.dst = std::make_unique<runtime::DeviceBuffer>(most);
  for (int lane = 0; lane < 2; ++lane) {
    side.streams[lane] = std::make_unique<runtime::Stream>();
    if (with_remote) side.done[lane] = std::make_unique<runtime::Event>(false);
  }
  runtime::fill_pattern_device(side.src->get(), most, seed_of(device), side.streams[0]->get());
  GP_CUDA(cudaStreamSynchronize(side.streams[0]->get()));
  return side;
}

// Peer access between every pair that supports it, both ways; disabled again (where this probe
// enabled it) when it goes out of scope.
class PeerAccess {
 public:
  explicit PeerAccess(const std::vector<int>& devices) {
    for (const auto& [a, b] : peer::ordered_pairs(devices)) {
      int can = 0;
      GP_CUDA(cudaDeviceCanAccessPeer(&can, a, b));
      if (!can) continue;
      can_.insert({a, b});
      const DeviceGuard guard(a);
      const cudaError_t status = cudaDeviceEnablePeerAccess(b, 0);
      if (status == cudaErrorPeerAccessAlreadyEnabled) {
        (void)cudaGetLastError();
        continue;
      }
      GP_CUDA(status);
      enabled_.push_back({a, b});
    }
  }
  ~PeerAccess() {
    for (const auto& [a, b] : enabled_) {
      const DeviceGuard guard(a);
      (void)cudaDeviceDisablePeerAccess(b);
    }
  }
  PeerAccess(const PeerAccess&) = delete;
  PeerAccess& operator=(const PeerAccess&) = delete;
  // Whether a point's P2P copies can run: access both ways for bidir.
  bool allows(const Point& p) const {
    if (p.mode == "staged") return true;
    return can_.count({p.src, p.dst}) && (p.direction != "bidir" || can_.count({p.dst, p.src}));
  }

 private:
  std::set<std::pair<int, int>> can_;
  std::vector<std::pair<int, int>> enabled_;
};

// The row of a measured point, with the link (NVML's NVLink or PCIe facts, else sysfs's PCIe) and
// its raw limit.
Row point_row(const Shared& s, const Point& p, const SampleSet& samples) {
  const Side& a = s.sides.at(p.src);
  const Side& b = s.sides.at(p.dst);
  const models::PathLimit limit =
      models::peer_path_limit(a.info, b.info, p.mode == "staged", p.direction == "bidir");
  std::vector<Param> params = row_params(p);
  params.push_back({"link", models::link_text(limit.link.link), ""});
  params.push_back({"link_source", limit.link.source.empty() ? "none" : limit.link.source, ""});
  Row row = measured_row(std::move(params), samples);
  row.model.push_back({"raw_limit", "GB/s",
                       limit.raw_gbps > 0 ? std::optional<double>(limit.raw_gbps) : std::nullopt});
  return row;
}

// The GPUs to pair: the run's device selection (the global --device), spanned by this
// host-scoped probe.
std::vector<int> devices_to_pair(const std::vector<int>& selected) {
  const int visible = runtime::device_count();
  if (visible < 2) throw UnsupportedError(fmt::format("peer needs two GPUs; {} visible", visible));
  if (peer::ordered_pairs(selected).empty())
    throw UnsupportedError(fmt::format(
        "peer needs two GPUs; --device selects only GPU {} of the {} visible: give two or more "
        "(--device 0,1 or --device all)",
        selected.front(), visible));
  return selected;
}

Shared make_shared_state(int home, const std::vector<int>& devices, std::size_t most, bool staged) {
  Shared s;
  s.home = home;
  for (const int d : devices)
    s.sides.emplace(d, make_side(d, most, d != home));
  const DeviceGuard guard(home);
  for (int lane = 0; lane < 2; ++lane) {
    s.start[lane] = std::make_unique<runtime::Event>(false);
    if (staged)
      s.staging[lane] = std::make_unique<runtime::HostBuffer>(runtime::HostMemory::kPinned, most);
  }
  return s;
}

class PeerProbe final : public Probe {
 public:
  std::string name() const override { return "peer"; }
  std::string description() const override {
    return "GPU-to-GPU copy bandwidth and latency for every ordered pair (P2P on/off)";
  }
  std::string memory_flags() const override { return "--sizes"; }
  std::vector<Axis> axes() const override {
    Axis sizes =
        size_list_axis("sizes", "copy sizes (per direction)", "4KiB:256MiB:x4", "64KiB:64MiB:x16");
    sizes.check = [](std::uint64_t b) {
      return b % 16 == 0 ? std::string() : fmt::format("{} is not a multiple of 16 bytes", b);
    };
    return {choice_axis("mode", "copy paths", {"ce", "sm-read", "sm-write", "staged"}, "all",
                        "ce,sm-read,staged"),
            choice_axis("direction", "one way, or both at once", {"uni", "bidir"}, "all"), sizes};
  }
  std::string help_footer() const override {
    return "The GPUs to pair are the global --device selection (every ordered pair of them); "
           "peer needs two, and runs once across them however many are selected.\n"
           "Examples:\n  gpuprobe peer --device 0,1 --mode ce --sizes 64MiB\n"
           "  gpuprobe --device all peer\n  gpuprobe peer --plan --device 0,1,2";
  }
  // Host-scoped: one run across the selection, not one per GPU.
  ProbeScope scope() const override { return ProbeScope::kHost; }
  void add_words(Glossary& g) const override { peer::add_words(g); }
  ProbeResult plan(const AxisValues& /*values*/) const override {
    ProbeResult r = new_result(kMethod);  // --device all: the pairs of the GPUs found at run time
    r.findings.push_back(note("peer_plan_every_gpu", {}, {}));
    return r;
  }
  ProbeResult plan_across(const AxisValues& values,
                          const std::vector<int>& devices) const override {
    ProbeResult r = new_result(kMethod);
    if (peer::ordered_pairs(devices).empty())
      r.findings.push_back(note("peer_plan_one_gpu", {}, {}));
    for (const Point& p : sweep(devices, values))
      r.rows.push_back(unmeasured_row(row_params(p)));
    return r;
  }
  ProbeResult run(runtime::ProbeContext& ctx, const AxisValues& values) override {
    const std::vector<int> devices = devices_to_pair(ctx.devices());
    const auto& sizes = values.list("sizes");
    const std::size_t most = *std::max_element(sizes.begin(), sizes.end());
    Shared s =
        make_shared_state(ctx.device().index, devices, most, values.has_choice("mode", "staged"));
    const PeerAccess access(devices);
    ProbeResult r = new_result(kMethod);
    std::vector<Point> points;
    for (const Point& p : sweep(devices, values)) {
      if (access.allows(p)) {
        points.push_back(p);
      } else if (p.bytes == sizes.front()) {
        r.findings.push_back(note("peer_no_p2p",
                                  {{"src", static_cast<std::int64_t>(p.src), ""},
                                   {"dst", static_cast<std::int64_t>(p.dst), ""},
                                   {"mode", p.mode, ""},
                                   {"direction", p.direction, ""}},
                                  {}));
      }
    }
    std::vector<runtime::Operation> ops;
    for (const Point& p : points)
      ops.push_back(make_operation(s, p));
    const std::vector<SampleSet> measured = ctx.measure_all(ops);
    for (std::size_t i = 0; i < points.size(); ++i)
      r.rows.push_back(point_row(s, points[i], measured[i]));
    peer::analyse(r);
    return r;
  }
};

}  // namespace

std::unique_ptr<Probe> make_peer_probe() {
  return std::make_unique<PeerProbe>();
}

}  // namespace gpuprobe
