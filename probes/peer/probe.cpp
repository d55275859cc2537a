// The peer probe: GPU-to-GPU copy bandwidth and latency for every ordered pair of GPUs, P2P on
// (copy engine, SM kernels reading or writing peer memory) and off (staged through the host).
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "analysis.hpp"
#include "findings.hpp"
#include "gpuprobe/core/analysis_guard.hpp"
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
#include "sweep.hpp"

namespace gpuprobe {
namespace {

constexpr std::uint32_t kSeed = 0x9E3Eu;
constexpr const char* kMethod =
    "for every ordered pair (src, dst): ce = cudaMemcpyPeerAsync on a stream of dst; ce-write = "
    "the "
    "same on a stream of src; ce-nop2p = ce with peer access disabled for the pair (the driver "
    "stages through host memory); sm-read = a copy kernel on dst loading src's memory; sm-write = "
    "a copy kernel on src storing into dst's memory; sm-latency = one thread on dst chasing "
    "pointers through src's memory (ns per dependent load); staged = cudaMemcpyAsync src -> "
    "pinned host -> dst, one after the other; bidir runs src->dst and dst->src at once; each lane "
    "timed with CUDA events on the GPU that runs it, gated batches released together, a point's "
    "time the longest lane's; bandwidth counts payload bytes (both directions for bidir); GB/s = "
    "1e9 B/s; every copy verified after sampling";

using peer::Point;

std::vector<Param> row_params(const Point& p) {
  return {{"src", static_cast<std::int64_t>(p.src), ""},
          {"dst", static_cast<std::int64_t>(p.dst), ""},
          {"mode", p.mode, ""},
          {"direction", p.direction, ""},
          {"bytes", static_cast<std::int64_t>(p.bytes), "B"}};
}

std::vector<Point> sweep(const std::vector<int>& devices, const AxisValues& v) {
  if (!v.has_choice("pattern", "pairs")) return {};
  return peer::pair_sweep(devices, v.choices("mode"), v.choices("direction"), v.list("sizes"));
}

std::vector<peer::PatternPoint> patterns(const std::vector<int>& devices, const AxisValues& v) {
  return peer::pattern_sweep(devices, v.choices("pattern"), v.choices("mode"), v.list("sizes"));
}

std::vector<Param> pattern_params(const peer::PatternPoint& p, int gpu) {
  return {{"pattern", p.pattern, ""},
          {"gpu", static_cast<std::int64_t>(gpu), ""},
          {"mode", p.mode, ""},
          {"bytes", static_cast<std::int64_t>(p.bytes), "B"},
          {"copies", static_cast<std::int64_t>(p.copies.size()), ""}};
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

// Peer access between every pair that supports it, both ways; disabled again (where this probe
// enabled it) when it goes out of scope. require() sets what a point needs before it runs: every
// pair on, but for ce-nop2p its own pair off both ways (the driver then stages the copy itself).
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
        found_on_.insert({a, b});
      } else {
        GP_CUDA(status);
      }
      on_.insert({a, b});
    }
  }
  ~PeerAccess() {
    for (const auto& pair : can_) {
      const bool want = found_on_.count(pair) > 0;
      if (on_.count(pair) > 0 && !want) set_quietly(pair, false);
      if (on_.count(pair) == 0 && want) set_quietly(pair, true);
    }
  }
  PeerAccess(const PeerAccess&) = delete;
  PeerAccess& operator=(const PeerAccess&) = delete;
  // Whether a point's P2P copies can run: access both ways for bidir.
  bool allows(const Point& p) const {
    if (p.mode == "staged" || p.mode == "ce-nop2p") return true;
    return can_.count({p.src, p.dst}) && (p.direction != "bidir" || can_.count({p.dst, p.src}));
  }
  bool allows(const peer::PatternPoint& p) const {
    return std::all_of(p.copies.begin(), p.copies.end(),
                       [this](const auto& copy) { return can_.count(copy) > 0; });
  }
  void require(const Point& p) {
    for (const auto& pair : can_) {
      const bool off = p.mode == "ce-nop2p" &&
                       (pair == std::pair{p.src, p.dst} || pair == std::pair{p.dst, p.src});
      set(pair, !off);
    }
  }
  void require_all() {
    for (const auto& pair : can_)
      set(pair, true);
  }

 private:
  void set(const std::pair<int, int>& pair, bool on) {
    if ((on_.count(pair) > 0) == on) return;
    const DeviceGuard guard(pair.first);
    GP_CUDA(on ? cudaDeviceEnablePeerAccess(pair.second, 0)
               : cudaDeviceDisablePeerAccess(pair.second));
    if (on) {
      on_.insert(pair);
    } else {
      on_.erase(pair);
    }
  }
  static void set_quietly(const std::pair<int, int>& pair, bool on) {
    const DeviceGuard guard(pair.first);
    (void)(on ? cudaDeviceEnablePeerAccess(pair.second, 0)
              : cudaDeviceDisablePeerAccess(pair.second));
  }
  std::set<std::pair<int, int>> can_, on_, found_on_;
};

// One GPU's side of the sweep: its source (the pattern of its seed), its destination (also the
// latency chain, built by the point that chases it), a stream and an event per lane to hand a
// leg to another GPU, and the word a chase on this GPU ends in.
struct Side {
  int device = 0;
  int sm_count = 0;
  DeviceInfo info;  // with its link facts (NVML, else sysfs): the model's links
  std::unique_ptr<runtime::DeviceBuffer> src, dst, chase_end;
  std::unique_ptr<runtime::DeviceBuffer> inbox;  // patterns: a slot per sender (inbox_slot)
  std::unique_ptr<runtime::Stream> streams[2];
  std::unique_ptr<runtime::Event> handoff[2];
};

// What every operation shares: the sides, the staging buffers per lane, peer access.
struct Shared {
  std::vector<int> devices;
  std::map<int, Side> sides;
  std::unique_ptr<runtime::HostBuffer> staging[2];
  PeerAccess* access = nullptr;
};

std::uint32_t seed_of(int device) {
  return kSeed + static_cast<std::uint32_t>(device);
}

// Enqueues `work` on GPU `exec` within a lane that runs on GPU `lane_device`: on the lane's
// stream when they are one GPU, else on exec's stream for this lane, ordered after the lane's
// work so far and before its next (a staged copy's first leg, on the sender).
void run_leg(Shared& s, int exec, int lane_device, int lane, cudaStream_t lane_stream,
             const std::function<void(cudaStream_t)>& work) {
  if (exec == lane_device) {
    work(lane_stream);
    return;
  }
  const Side& here = s.sides.at(lane_device);
  const Side& there = s.sides.at(exec);
  GP_CUDA(cudaEventRecord(here.handoff[lane]->get(), lane_stream));
  const DeviceGuard guard(exec);
  const cudaStream_t stream = there.streams[lane]->get();
  GP_CUDA(cudaStreamWaitEvent(stream, here.handoff[lane]->get(), 0));
  work(stream);
  GP_CUDA(cudaEventRecord(there.handoff[lane]->get(), stream));
  GP_CUDA(cudaStreamWaitEvent(lane_stream, there.handoff[lane]->get(), 0));
}

// One direction of a point: `from`'s source into `to`'s destination, by `mode`, on the lane's
// stream (a stream of executing_gpu(mode, from, to), the current device).
void copy_leg(Shared& s, const std::string& mode, int from, int to, std::size_t bytes, int lane,
              cudaStream_t st) {
  const Side& a = s.sides.at(from);
  const Side& b = s.sides.at(to);
  void* dst = b.dst->get();
  const void* src = a.src->get();
  if (mode == "ce" || mode == "ce-write" || mode == "ce-nop2p") {
    GP_CUDA(cudaMemcpyPeerAsync(dst, to, src, from, bytes, st));
  } else if (mode == "sm-read" || mode == "sm-write") {
    peer::launch_sm_copy(dst, src, bytes, (mode == "sm-read" ? b : a).sm_count * 4, st);
  } else if (mode == "sm-latency") {  // the chain lies in from's destination buffer
    peer::launch_chase(a.dst->get(), peer::kChaseHops,
                       static_cast<std::uint64_t*>(b.chase_end->get()), st);
  } else {  // staged: device to pinned host on `from`, then host to device on `to`
    void* host = s.staging[lane]->get();
    run_leg(s, from, to, lane, st, [=](cudaStream_t leg) {
      GP_CUDA(cudaMemcpyAsync(host, src, bytes, cudaMemcpyDeviceToHost, leg));
    });
    GP_CUDA(cudaMemcpyAsync(dst, host, bytes, cudaMemcpyHostToDevice, st));
  }
}

runtime::PatternBuffer written(const Side& side, std::size_t bytes, int from) {
  return {fmt::format("GPU {}", side.device), side.dst->get(), bytes, seed_of(from)};
}

// The destination buffers a copy point writes: dst's (from src), and src's too for bidir.
std::vector<std::pair<const Side*, int>> outputs(const Shared& s, const Point& p) {
  std::vector<std::pair<const Side*, int>> out = {{&s.sides.at(p.dst), p.src}};
  if (p.direction == "bidir") out.emplace_back(&s.sides.at(p.src), p.dst);
  return out;
}

// sm-latency: the chain in src's destination buffer, dst's end word cleared.
void prepare_chase(const Shared& s, const Point& p) {
  const Side& a = s.sides.at(p.src);
  const Side& b = s.sides.at(p.dst);
  {
    const DeviceGuard guard(a.device);
    peer::launch_chase_build(a.dst->get(), p.bytes, a.streams[0]->get());
    GP_CUDA(cudaStreamSynchronize(a.streams[0]->get()));
  }
  const DeviceGuard guard(b.device);
  GP_CUDA(cudaMemsetAsync(b.chase_end->get(), 0, sizeof(std::uint64_t), b.streams[0]->get()));
  GP_CUDA(cudaStreamSynchronize(b.streams[0]->get()));
}

// sm-latency: every repetition ends where the chain is after kChaseHops steps from its start.
std::string verify_chase(const Shared& s, const Point& p) {
  const Side& a = s.sides.at(p.src);
  const Side& b = s.sides.at(p.dst);
  std::uint64_t end = 0;
  {
    const DeviceGuard guard(b.device);
    GP_CUDA(cudaMemcpy(&end, b.chase_end->get(), sizeof end, cudaMemcpyDeviceToHost));
  }
  const std::uint64_t node = peer::chase_end(peer::kChaseHops, peer::chase_nodes(p.bytes));
  const auto want = reinterpret_cast<std::uint64_t>(a.dst->get()) + node * peer::kChaseSlot;
  if (end == want) return {};
  return fmt::format("the chase on GPU {} ended at {:#x}, not at node {} ({:#x})", b.device, end,
                     node, want);
}

runtime::Lane copy_lane(Shared& s, const Point& p, bool reverse) {
  const int from = reverse ? p.dst : p.src;
  const int to = reverse ? p.src : p.dst;
  const int lane = reverse ? 1 : 0;
  const double bytes = p.mode == "sm-latency" ? static_cast<double>(peer::kChaseHops * 8)
                                              : static_cast<double>(p.bytes);
  Shared* sp = &s;
  runtime::Lane out{reverse ? "rev" : "fwd", bytes, [=](runtime::LaunchScope& l) {
                      copy_leg(*sp, p.mode, from, to, p.bytes, lane, l.stream());
                    }};
  out.device = peer::executing_gpu(p.mode, from, to);
  return out;
}

runtime::Operation make_operation(Shared& s, const Point& p) {
  runtime::Operation op;
  op.label = fmt::format("{} {} {}->{} {}", p.mode, p.direction, p.src, p.dst,
                         format_bytes(static_cast<double>(p.bytes)));
  Shared* sp = &s;
  op.lanes.push_back(copy_lane(s, p, false));
  if (p.direction == "bidir") op.lanes.push_back(copy_lane(s, p, true));
  op.prepare = [=](cudaStream_t) {
    sp->access->require(p);
    if (p.mode == "sm-latency") return prepare_chase(*sp, p);
    for (const auto& [side, from] : outputs(*sp, p)) {
      const DeviceGuard guard(side->device);
      written(*side, p.bytes, from).poison(side->streams[0]->get());
      GP_CUDA(cudaStreamSynchronize(side->streams[0]->get()));
    }
  };
  op.verify = [=] {
    if (p.mode == "sm-latency") return verify_chase(*sp, p);
    MismatchReport report;
    for (const auto& [side, from] : outputs(*sp, p)) {
      const DeviceGuard guard(side->device);
      written(*side, p.bytes, from).check(report, side->streams[0]->get());
    }
    return report.text();
  };
  return op;
}

// A pattern's copy (from, to) lands in its slot of to's inbox.
runtime::PatternBuffer inbox_of(const Shared& s, const peer::PatternPoint& p, std::size_t copy) {
  const auto [from, to] = p.copies[copy];
  const Side& b = s.sides.at(to);
  char* base = static_cast<char*>(b.inbox->get());
  return {fmt::format("GPU {} inbox from GPU {}", to, from),
          base + peer::inbox_slot(s.devices, from, to) * p.bytes, p.bytes, seed_of(from)};
}

// Every copy of a pattern at once, a lane each on the GPU that runs it (the receiver for ce, the
// sender for ce-write), each into its slot of the receiver's inbox; all verified.
runtime::Operation make_pattern_operation(Shared& s, const peer::PatternPoint& p) {
  runtime::Operation op;
  op.label =
      fmt::format("{} {} {} {}", p.pattern, p.gpu < 0 ? std::string("all") : std::to_string(p.gpu),
                  p.mode, format_bytes(static_cast<double>(p.bytes)));
  Shared* sp = &s;
  for (std::size_t i = 0; i < p.copies.size(); ++i) {
    const auto [from, to] = p.copies[i];
    void* dst = inbox_of(s, p, i).data;
    const void* src = s.sides.at(from).src->get();
    runtime::Lane lane{fmt::format("{}->{}", from, to), static_cast<double>(p.bytes),
                       [=, bytes = p.bytes](runtime::LaunchScope& l) {
                         GP_CUDA(cudaMemcpyPeerAsync(dst, to, src, from, bytes, l.stream()));
                       }};
    lane.device = peer::executing_gpu(p.mode, from, to);
    op.lanes.push_back(std::move(lane));
  }
  op.prepare = [=](cudaStream_t) {
    sp->access->require_all();
    for (std::size_t i = 0; i < p.copies.size(); ++i) {
      const Side& b = sp->sides.at(p.copies[i].second);
      const DeviceGuard guard(b.device);
      inbox_of(*sp, p, i).poison(b.streams[0]->get());
      GP_CUDA(cudaStreamSynchronize(b.streams[0]->get()));
    }
  };
  op.verify = [=] {
    MismatchReport report;
    for (std::size_t i = 0; i < p.copies.size(); ++i) {
      const Side& b = sp->sides.at(p.copies[i].second);
      const DeviceGuard guard(b.device);
      inbox_of(*sp, p, i).check(report, b.streams[0]->get());
    }
    return report.text();
  };
  return op;
}

// A pattern point's rows, one per GPU it reports on: the aggregate bandwidth of every copy, and
// the GPU's own (its copies' bytes over the longest of them, sample by sample).
std::vector<Row> pattern_rows(const Shared& s, const peer::PatternPoint& p,
                              const SampleSet& samples) {
  std::vector<Row> rows;
  for (const int gpu : peer::reported_gpus(p, s.devices)) {
    const std::vector<std::size_t> mine = peer::copies_of(p, gpu);
    std::vector<double> seconds(samples.seconds.size(), 0.0);
    for (const std::size_t lane : mine)
      for (std::size_t i = 0; i < seconds.size(); ++i)
        seconds[i] = std::max(seconds[i], samples.lanes.at(lane).seconds.at(i));
    Row row = measured_row(pattern_params(p, gpu), samples);
    const double bytes = static_cast<double>(mine.size() * p.bytes);
    row.metrics.push_back(mapped_metric(samples, seconds, "bandwidth_gpu", "GB/s",
                                        [bytes](double t) { return bytes / t / kBytesPerGB; }));
    rows.push_back(std::move(row));
  }
  return rows;
}

Side make_side(int device, std::size_t most) {
  const DeviceGuard guard(device);
  Side side;
  side.device = device;
  side.info = runtime::query_device(device);
  runtime::add_link_facts(side.info);
  side.sm_count = side.info.sm_count;
  side.src = std::make_unique<runtime::DeviceBuffer>(most);
  side.dst = std::make_unique<runtime::DeviceBuffer>(most);
  side.chase_end = std::make_unique<runtime::DeviceBuffer>(sizeof(std::uint64_t));
  for (int lane = 0; lane < 2; ++lane) {
    side.streams[lane] = std::make_unique<runtime::Stream>();
    side.handoff[lane] = std::make_unique<runtime::Event>(false);
  }
  runtime::fill_pattern_device(side.src->get(), most, seed_of(device), side.streams[0]->get());
  GP_CUDA(cudaStreamSynchronize(side.streams[0]->get()));
  return side;
}

// How a point's bytes travel: through host memory for staged (two whole copies) and ce-nop2p
// (the driver's chunked path), else over the link between the GPUs.
models::PeerPath path_of(const std::string& mode) {
  if (mode == "staged") return models::PeerPath::kStagedSerial;
  if (mode == "ce-nop2p") return models::PeerPath::kStagedPipelined;
  return models::PeerPath::kP2p;
}

// The row of a measured point, with the link (NVML's NVLink or PCIe facts, else sysfs's PCIe) and
// its raw limit; sm-latency, a chain of single loads, has no bandwidth limit but its ns per load.
Row point_row(const Shared& s, const Point& p, const SampleSet& samples) {
  const models::PathLimit limit = models::peer_path_limit(
      s.sides.at(p.src).info, s.sides.at(p.dst).info, path_of(p.mode), p.direction == "bidir");
  const double raw = p.mode == "sm-latency" ? 0.0 : limit.raw_gbps;
  std::vector<Param> params = row_params(p);
  params.push_back({"link", models::link_text(limit.link.link), ""});
  params.push_back({"link_source", limit.link.source.empty() ? "none" : limit.link.source, ""});
  Row row = measured_row(std::move(params), samples);
  if (p.mode == "sm-latency")
    row.metrics.push_back(mapped_metric(
        samples, samples.seconds, "access_latency", "s",
        [](double seconds) { return seconds / static_cast<double>(peer::kChaseHops); }));
  row.model.push_back({"raw_limit", "GB/s", raw > 0 ? std::optional<double>(raw) : std::nullopt});
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

// The sides of every GPU; pinned staging buffers for staged, inboxes for patterns.
Shared make_shared_state(const std::vector<int>& devices, std::size_t most, bool staged,
                         bool patterns) {
  Shared s;
  s.devices = devices;
  for (const int d : devices) {
    Side& side = s.sides.emplace(d, make_side(d, most)).first->second;
    const DeviceGuard guard(d);
    if (patterns) side.inbox = std::make_unique<runtime::DeviceBuffer>(most * (devices.size() - 1));
  }
  for (int lane = 0; lane < 2 && staged; ++lane)
    s.staging[lane] = std::make_unique<runtime::HostBuffer>(runtime::HostMemory::kPinned, most);
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
    return {
        choice_axis("mode", "copy paths",
                    {"ce", "ce-write", "ce-nop2p", "sm-read", "sm-write", "sm-latency", "staged"},
                    "ce,sm-read,sm-write,staged", "ce,sm-read,staged"),
        choice_axis("direction", "one way, or both at once", {"uni", "bidir"}, "all"),
        choice_axis("pattern",
                    "pairs (one ordered pair at a time), or every GPU at once (ce, ce-write)",
                    {"pairs", "all-to-one", "one-to-all", "all-to-all"}, "pairs"),
        sizes};
  }
  std::string help_footer() const override {
    return "The GPUs to pair are the global --device selection (every ordered pair of them); "
           "peer needs two, and runs once across them however many are selected.\n"
           "Examples:\n  gpuprobe peer --device 0,1 --mode ce --sizes 64MiB\n"
           "  gpuprobe peer --device 0,1 --mode sm-latency --sizes 4KiB,256MiB\n"
           "  gpuprobe peer --pattern all-to-one,one-to-all --mode ce,ce-write --sizes 512MiB\n"
           "  gpuprobe --device all peer\n  gpuprobe peer --plan --device 0,1,2";
  }
  // Host-scoped: one run across the selection, not one per GPU.
  ProbeScope scope() const override { return ProbeScope::kHost; }
  void add_words(Glossary& g) const override { peer::add_words(g); }
  ProbeResult plan(const AxisValues& /*values*/) const override {
    ProbeResult r = new_result(kMethod);  // --device all: the pairs of the GPUs found at run time
    r.findings.push_back(peer::kPlanEveryGpu.make());
    return r;
  }
  ProbeResult plan_across(const AxisValues& values,
                          const std::vector<int>& devices) const override {
    ProbeResult r = new_result(kMethod);
    if (peer::ordered_pairs(devices).empty()) r.findings.push_back(peer::kPlanOneGpu.make());
    for (const Point& p : sweep(devices, values))
      r.rows.push_back(unmeasured_row(row_params(p)));
    for (const auto& p : patterns(devices, values))
      for (const int gpu : peer::reported_gpus(p, devices))
        r.rows.push_back(unmeasured_row(pattern_params(p, gpu)));
    return r;
  }
  ProbeResult run(runtime::ProbeContext& ctx, const AxisValues& values) override;
  std::vector<SampleSet> measure_keys(runtime::ProbeContext& ctx,
                                      const std::vector<std::string>& keys) override;
};

// The pair points that can run (P2P access where they need it); a peer_no_p2p note per path
// that cannot, at its first size.
std::vector<Point> runnable_points(const std::vector<Point>& sweep, const PeerAccess& access,
                                   std::uint64_t first_size, ProbeResult& r) {
  std::vector<Point> points;
  for (const Point& p : sweep) {
    if (access.allows(p)) {
      points.push_back(p);
    } else if (p.bytes == first_size) {
      r.findings.push_back(peer::kNoP2p.make(peer::kSrc(p.src), peer::kDst(p.dst),
                                             peer::kMode(p.mode), peer::kDirection(p.direction)));
    }
  }
  return points;
}

// The pair points' samples, in order: small copies and chases (peer::process_level) with each
// round in a process of its own, the rest here, beside the pattern points (`shapes`, whose
// samples follow).
std::vector<SampleSet> measure_points(runtime::ProbeContext& ctx, Shared& s,
                                      const std::vector<Point>& points,
                                      const std::vector<peer::PatternPoint>& shapes) {
  std::vector<runtime::Operation> small_ops, ops;
  std::vector<std::string> keys;
  std::vector<std::size_t> small, large;
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (peer::process_level(points[i])) {
      small.push_back(i);
      small_ops.push_back(make_operation(s, points[i]));
      keys.push_back(peer::point_key(points[i]));
    } else {
      large.push_back(i);
      ops.push_back(make_operation(s, points[i]));
    }
  }
  for (const auto& p : shapes)
    ops.push_back(make_pattern_operation(s, p));
  std::vector<SampleSet> out(points.size());
  if (!small_ops.empty()) {
    std::vector<SampleSet> measured = ctx.measure_all_in_processes(small_ops, keys);
    for (std::size_t k = 0; k < small.size(); ++k)
      out[small[k]] = std::move(measured[k]);
  }
  if (!ops.empty()) {
    std::vector<SampleSet> measured = ctx.measure_all(ops);
    for (std::size_t k = 0; k < large.size(); ++k)
      out[large[k]] = std::move(measured[k]);
    for (std::size_t k = large.size(); k < measured.size(); ++k)
      out.push_back(std::move(measured[k]));
  }
  return out;
}

ProbeResult PeerProbe::run(runtime::ProbeContext& ctx, const AxisValues& values) {
  const std::vector<int> devices = devices_to_pair(ctx.devices());
  const auto& sizes = values.list("sizes");
  const std::size_t most = *std::max_element(sizes.begin(), sizes.end());
  const std::vector<peer::PatternPoint> pattern_points = patterns(devices, values);
  Shared s = make_shared_state(devices, most, values.has_choice("mode", "staged"),
                               !pattern_points.empty());
  PeerAccess access(devices);
  s.access = &access;
  ProbeResult r = new_result(kMethod);
  const std::vector<Point> points =
      runnable_points(sweep(devices, values), access, sizes.front(), r);
  std::vector<peer::PatternPoint> shapes;
  for (const auto& p : pattern_points) {
    if (access.allows(p)) shapes.push_back(p);
  }
  if (shapes.size() < pattern_points.size()) r.findings.push_back(peer::kPatternNoP2p.make());
  const std::vector<SampleSet> measured = measure_points(ctx, s, points, shapes);
  for (std::size_t i = 0; i < points.size(); ++i)
    r.rows.push_back(point_row(s, points[i], measured[i]));
  for (std::size_t i = 0; i < shapes.size(); ++i)
    for (Row& row : pattern_rows(s, shapes[i], measured[points.size() + i]))
      r.rows.push_back(std::move(row));
  analyse_keeping_rows(r, [&] { peer::analyse(r); });
  return r;
}

// In a round process: the pair points the parent named, on the parent's GPUs.
std::vector<SampleSet> PeerProbe::measure_keys(runtime::ProbeContext& ctx,
                                               const std::vector<std::string>& keys) {
  const std::vector<int> devices = ctx.devices();
  std::vector<Point> points;
  std::uint64_t most = 0;
  bool staged = false;
  for (const auto& key : keys) {
    points.push_back(peer::parse_point_key(key, devices));
    most = std::max(most, points.back().bytes);
    staged = staged || points.back().mode == "staged";
  }
  if (points.empty()) throw UsageError("peer: a round process was given no points");
  Shared s = make_shared_state(devices, most, staged, false);
  PeerAccess access(devices);
  s.access = &access;
  std::vector<runtime::Operation> ops;
  for (const Point& p : points)
    ops.push_back(make_operation(s, p));
  return ctx.measure_all(ops);
}

}  // namespace

std::unique_ptr<Probe> make_peer_probe() {
  return std::make_unique<PeerProbe>();
}

}  // namespace gpuprobe
