// The peer probe: GPU-to-GPU copy bandwidth and latency for every ordered pair of GPUs, P2P on
// (copy engine, SM kernels reading or writing peer memory) and off (staged through the host).
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "analysis.hpp"
#include "findings.hpp"
#include "gpuprobe/core/errors.hpp"
#include "gpuprobe/core/units.hpp"
#include "gpuprobe/models/peer_model.hpp"
#include "gpuprobe/runtime/device.hpp"
#include "gpuprobe/runtime/link_facts.hpp"
#include "gpuprobe/runtime/peer_access.hpp"
#include "gpuprobe/runtime/stream.hpp"
#include "gpuprobe/sweep_probe.hpp"
#include "kernels.hpp"
#include "registry.hpp"
#include "sweep.hpp"

namespace gpuprobe {
namespace {

constexpr std::uint32_t kSeed = 0x9E3Eu;
constexpr const char* kMethod =
    "for every ordered pair (src, dst): ce = cudaMemcpyPeerAsync on a stream of dst; ce-write = "
    "the same on a stream of src; ce-nop2p = ce with peer access disabled for the pair (the driver "
    "stages through host memory); sm-read = a copy kernel on dst loading src's memory; sm-write = "
    "a copy kernel on src storing into dst's memory; sm-latency = one thread on dst chasing "
    "pointers through src's memory (ns per dependent load); staged = cudaMemcpyAsync src -> "
    "pinned host -> dst, one after the other; bidir runs src->dst and dst->src at once; each lane "
    "timed with CUDA events on the GPU that runs it, gated batches released together, a point's "
    "time the longest lane's; bandwidth counts payload bytes (both directions for bidir); GB/s = "
    "1e9 B/s; a pattern's copies run at once, each reading a source of its own on its sender and "
    "writing a slot of its own on its receiver; every copy verified after sampling";

using peer::Point;
using runtime::DeviceGuard;
using runtime::GpuPatternBuffer;

// A row's point: a pair point, or the row of one GPU of a pattern point (the pattern's copies run
// once for all of its rows, which share the pattern).
struct RowPoint {
  Point pair;
  std::shared_ptr<const peer::PatternPoint> pattern;
  int gpu = -1;
};

// The pair sweep, then each pattern point's rows; none without two GPUs to pair.
std::vector<RowPoint> sweep_points(const std::vector<int>& devices, const AxisValues& v) {
  std::vector<RowPoint> out;
  if (v.has_choice("pattern", "pairs"))
    for (const Point& p :
         peer::pair_sweep(devices, v.choices("mode"), v.choices("direction"), v.list("sizes")))
      out.push_back({p, nullptr, -1});
  for (auto& p :
       peer::pattern_sweep(devices, v.choices("pattern"), v.choices("mode"), v.list("sizes"))) {
    const auto shared = std::make_shared<const peer::PatternPoint>(std::move(p));
    for (const int gpu : peer::reported_gpus(*shared, devices))
      out.push_back({{}, shared, gpu});
  }
  return out;
}

Row planned_row(const RowPoint& r) {
  if (const auto& p = r.pattern)
    return unmeasured_row({{"pattern", p->pattern, ""},
                           {"gpu", static_cast<std::int64_t>(r.gpu), ""},
                           {"mode", p->mode, ""},
                           {"bytes", static_cast<std::int64_t>(p->bytes), "B"},
                           {"copies", static_cast<std::int64_t>(p->copies.size()), ""}});
  const Point& p = r.pair;
  return unmeasured_row({{"src", static_cast<std::int64_t>(p.src), ""},
                         {"dst", static_cast<std::int64_t>(p.dst), ""},
                         {"mode", p.mode, ""},
                         {"direction", p.direction, ""},
                         {"bytes", static_cast<std::int64_t>(p.bytes), "B"}});
}

// Whether a point's P2P copies can run: access both ways for bidir, every copy of a pattern.
bool allows(const runtime::PeerAccess& access, const RowPoint& r) {
  if (r.pattern)
    return std::all_of(r.pattern->copies.begin(), r.pattern->copies.end(),
                       [&](const auto& copy) { return access.can(copy.first, copy.second); });
  const Point& p = r.pair;
  if (p.mode == "staged" || p.mode == "ce-nop2p") return true;
  return access.can(p.src, p.dst) && (p.direction != "bidir" || access.can(p.dst, p.src));
}

// The pairs a point needs off: for ce-nop2p its own pair both ways (the driver then stages the
// copy itself); every other pair stays on.
std::set<runtime::GpuPair> off_pairs(const Point& p) {
  if (p.mode != "ce-nop2p") return {};
  return {{p.src, p.dst}, {p.dst, p.src}};
}

// One GPU's side of the sweep: its source (the pattern of its seed), its destination (also the
// latency chain, built by the point that chases it), a stream and an event per lane to hand a
// leg to another GPU, and the word a chase on this GPU ends in.
struct Side {
  int device = 0;
  DeviceInfo info;  // with its link facts (NVML, else sysfs): the model's links
  std::unique_ptr<runtime::DeviceBuffer> src, dst, chase_end;
  std::unique_ptr<runtime::DeviceBuffer> inbox;  // patterns: a slot per sender (inbox_slot)
  // Patterns: a source per receiver, `most` bytes apart, each holding the pattern of its seed, so
  // that no two copies of a point read the same memory (as nvbandwidth's do not either).
  std::unique_ptr<runtime::DeviceBuffer> outbox;
  std::size_t outbox_stride = 0;
  std::unique_ptr<runtime::Stream> streams[2];
  std::unique_ptr<runtime::Event> handoff[2];
};

// What every operation shares: the sides, the staging buffers per lane, peer access.
struct Shared {
  std::vector<int> devices;
  std::map<int, Side> sides;
  std::unique_ptr<runtime::HostBuffer> staging[2];
  runtime::PeerAccess* access = nullptr;
};

std::uint32_t seed_of(int device) {
  return kSeed + static_cast<std::uint32_t>(device);
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
    peer::launch_sm_copy(dst, src, bytes, (mode == "sm-read" ? b : a).info.sm_count * 4, st);
  } else if (mode == "sm-latency") {  // the chain lies in from's destination buffer
    peer::launch_chase(a.dst->get(), peer::kChaseHops,
                       static_cast<std::uint64_t*>(b.chase_end->get()), st);
  } else {  // staged: device to pinned host on `from` (on its stream for this lane, ordered after
            // the lane's work so far and before its next), then host to device on `to`
    void* host = s.staging[lane]->get();
    const cudaStream_t leg = a.streams[lane]->get();
    GP_CUDA(cudaEventRecord(b.handoff[lane]->get(), st));
    {
      const DeviceGuard guard(from);
      GP_CUDA(cudaStreamWaitEvent(leg, b.handoff[lane]->get(), 0));
      GP_CUDA(cudaMemcpyAsync(host, src, bytes, cudaMemcpyDeviceToHost, leg));
      GP_CUDA(cudaEventRecord(a.handoff[lane]->get(), leg));
      GP_CUDA(cudaStreamWaitEvent(st, a.handoff[lane]->get(), 0));
    }
    GP_CUDA(cudaMemcpyAsync(dst, host, bytes, cudaMemcpyHostToDevice, st));
  }
}

// The destination buffers a copy point writes (poisoned before each round and pass, verified
// after, each on its GPU): dst's (from src), and src's too for bidir.
std::vector<GpuPatternBuffer> outputs(const Shared& s, const Point& p) {
  const auto written = [&](int from, int to) {
    const Side& side = s.sides.at(to);
    return GpuPatternBuffer{to,
                            side.streams[0]->get(),
                            {fmt::format("GPU {}", to), side.dst->get(), p.bytes, seed_of(from)}};
  };
  if (p.direction == "bidir") return {written(p.src, p.dst), written(p.dst, p.src)};
  return {written(p.src, p.dst)};
}

// A pattern's copies (from, to), each into its slot of to's inbox.
std::vector<GpuPatternBuffer> outputs(const Shared& s, const peer::PatternPoint& p) {
  std::vector<GpuPatternBuffer> out;
  for (const auto& [from, to] : p.copies) {
    const Side& b = s.sides.at(to);
    char* slot =
        static_cast<char*>(b.inbox->get()) + peer::inbox_slot(s.devices, from, to) * p.bytes;
    out.push_back(
        {to,
         b.streams[0]->get(),
         {fmt::format("GPU {} inbox from GPU {}", to, from), slot, p.bytes, seed_of(from)}});
  }
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
  const std::vector<GpuPatternBuffer> outs = outputs(s, p);
  op.prepare = [=](cudaStream_t) {
    sp->access->require(off_pairs(p));
    if (p.mode == "sm-latency") return prepare_chase(*sp, p);
    runtime::poison_all(outs);
  };
  op.verify = [=] {
    return p.mode == "sm-latency" ? verify_chase(*sp, p) : runtime::verify_all(outs);
  };
  return op;
}

// Every copy of a pattern at once, a lane each on the GPU that runs it (the receiver for ce, the
// sender for ce-write), each into its slot of the receiver's inbox; all verified.
runtime::Operation make_pattern_operation(Shared& s, const peer::PatternPoint& p) {
  runtime::Operation op;
  op.label =
      fmt::format("{} {} {} {}", p.pattern, p.gpu < 0 ? std::string("all") : std::to_string(p.gpu),
                  p.mode, format_bytes(static_cast<double>(p.bytes)));
  const std::vector<GpuPatternBuffer> outs = outputs(s, p);
  for (std::size_t i = 0; i < p.copies.size(); ++i) {
    // Named, not a structured binding: a lambda below captures them (clang 14 cannot capture a
    // structured binding).
    const int from = p.copies[i].first, to = p.copies[i].second;
    void* dst = outs[i].buffer.data;
    const Side& sender = s.sides.at(from);
    const void* src = static_cast<const char*>(sender.outbox->get()) +
                      peer::inbox_slot(s.devices, to, from) * sender.outbox_stride;
    runtime::Lane lane{fmt::format("{}->{}", from, to), static_cast<double>(p.bytes),
                       [=, bytes = p.bytes](runtime::LaunchScope& l) {
                         GP_CUDA(cudaMemcpyPeerAsync(dst, to, src, from, bytes, l.stream()));
                       }};
    lane.device = peer::executing_gpu(p.mode, from, to);
    op.lanes.push_back(std::move(lane));
  }
  op.prepare = [access = s.access, outs](cudaStream_t) {
    access->require();
    runtime::poison_all(outs);
  };
  op.verify = [outs] { return runtime::verify_all(outs); };
  return op;
}

// A GPU's side; for patterns (`slots` > 0, one per other GPU) an inbox and an outbox of that many
// slots of `most` bytes.
Side make_side(int device, std::size_t most, std::size_t slots) {
  const DeviceGuard guard(device);
  Side side;
  side.device = device;
  side.info = runtime::query_device(device);
  runtime::add_link_facts(side.info);
  side.src = std::make_unique<runtime::DeviceBuffer>(most);
  side.dst = std::make_unique<runtime::DeviceBuffer>(most);
  side.chase_end = std::make_unique<runtime::DeviceBuffer>(sizeof(std::uint64_t));
  if (slots > 0) {
    side.inbox = std::make_unique<runtime::DeviceBuffer>(most * slots);
    side.outbox = std::make_unique<runtime::DeviceBuffer>(most * slots);
    side.outbox_stride = most;
  }
  for (int lane = 0; lane < 2; ++lane) {
    side.streams[lane] = std::make_unique<runtime::Stream>();
    side.handoff[lane] = std::make_unique<runtime::Event>(false);
  }
  runtime::fill_pattern_device(side.src->get(), most, seed_of(device), side.streams[0]->get());
  for (std::size_t k = 0; k < slots; ++k)
    runtime::fill_pattern_device(static_cast<char*>(side.outbox->get()) + k * most, most,
                                 seed_of(device), side.streams[0]->get());
  GP_CUDA(cudaStreamSynchronize(side.streams[0]->get()));
  return side;
}

// A pair row: the link (NVML's NVLink or PCIe facts, else sysfs's PCIe) and its raw limit for the
// way the bytes travel: through host memory for staged (two whole copies) and ce-nop2p (the
// driver's chunked path), else over the link; sm-latency, a chain of single loads, has no
// bandwidth limit but its ns per load.
void add_link(Row& row, const Shared& s, const Point& p, const SampleSet& samples) {
  const models::PeerPath path = p.mode == "staged"     ? models::PeerPath::kStagedSerial
                                : p.mode == "ce-nop2p" ? models::PeerPath::kStagedPipelined
                                                       : models::PeerPath::kP2p;
  const models::PathLimit limit = models::peer_path_limit(
      s.sides.at(p.src).info, s.sides.at(p.dst).info, path, p.direction == "bidir");
  const double raw = p.mode == "sm-latency" ? 0.0 : limit.raw_gbps;
  row.params.push_back({"link", models::link_text(limit.link.link), ""});
  row.params.push_back({"link_source", limit.link.source.empty() ? "none" : limit.link.source, ""});
  if (p.mode == "sm-latency")
    row.metrics.push_back(mapped_metric(
        samples, samples.seconds, "access_latency", "s",
        [](double seconds) { return seconds / static_cast<double>(peer::kChaseHops); }));
  row.model.push_back({"raw_limit", "GB/s", raw > 0 ? std::optional<double>(raw) : std::nullopt});
}

// The GPUs to pair: the run's device selection (the global --device), spanned by this
// host-scoped probe.
std::vector<int> devices_to_pair(const std::vector<int>& selected) {
  const int visible = runtime::device_count();
  if (visible < 2) throw UnsupportedError(fmt::format("peer needs two GPUs; {} visible", visible));
  if (ordered_pairs(selected).empty())
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
  for (const int d : devices)
    s.sides.emplace(d, make_side(d, most, patterns ? devices.size() - 1 : 0));
  for (int lane = 0; lane < 2 && staged; ++lane)
    s.staging[lane] = std::make_unique<runtime::HostBuffer>(runtime::HostMemory::kPinned, most);
  return s;
}

class PeerProbe final : public SweepProbe<RowPoint> {
 public:
  std::string name() const override { return "peer"; }
  std::string description() const override {
    return "GPU-to-GPU copy bandwidth and latency for every ordered pair (P2P on/off)";
  }
  std::string memory_flags() const override { return "--sizes"; }
  std::vector<Axis> axes() const override {
    Axis sizes =
        size_list_axis("sizes", "copy sizes (per direction)", "4KiB:256MiB:x4", "64KiB:64MiB:x16");
    sizes.validate = multiple_of(16, "16 bytes");
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
  std::string method(const AxisValues& /*values*/) const override { return kMethod; }
  // Without a selection (--device all): the pairs of the GPUs found at run time.
  std::vector<RowPoint> points(const AxisValues& /*values*/) const override { return {}; }
  std::vector<RowPoint> points_across(const AxisValues& v,
                                      const std::vector<int>& devices) const override {
    return sweep_points(devices, v);
  }
  Row row(const RowPoint& p) const override { return planned_row(p); }
  void finish_plan(ProbeResult& r, const AxisValues&,
                   const std::vector<int>* devices) const override {
    if (!devices) r.findings.push_back(peer::kPlanEveryGpu.make());
    if (devices && ordered_pairs(*devices).empty()) r.findings.push_back(peer::kPlanOneGpu.make());
  }
  Analysis measure(Sweep<RowPoint>& s) override;
};

// Drops the points that cannot run (P2P access where they need it): a peer_no_p2p note per pair
// path that cannot, at its first size; one peer_pattern_no_p2p for the patterns.
void drop_unrunnable(Sweep<RowPoint>& s, const runtime::PeerAccess& access) {
  const std::uint64_t first_size = s.values().list("sizes").front();
  bool pattern_dropped = false;
  for (std::size_t i = 0; i < s.points().size(); ++i) {
    const RowPoint& r = s.points()[i];
    if (allows(access, r)) continue;
    s.drop(i);
    pattern_dropped = pattern_dropped || r.pattern;
    const Point& p = r.pair;
    if (!r.pattern && p.bytes == first_size)
      s.result().findings.push_back(peer::kNoP2p.make(peer::kSrc(p.src), peer::kDst(p.dst),
                                                      peer::kMode(p.mode),
                                                      peer::kDirection(p.direction)));
  }
  if (pattern_dropped) s.result().findings.push_back(peer::kPatternNoP2p.make());
}

// The runnable points' rows: small pair copies and chases (peer::process_level) with each round
// in a process of its own, at least peer::kProcessLevelRounds of them; the other pair points and
// the patterns (one operation for all of a pattern point's rows) in one batch here.
void measure_rows(Sweep<RowPoint>& s, Shared& sh) {
  const auto& points = s.points();
  std::vector<runtime::Operation> small_ops, ops;
  std::vector<std::size_t> small;
  std::vector<std::vector<std::size_t>> rows_of_op;  // per operation of `ops`, its points
  for (std::size_t i = 0; i < points.size(); ++i) {
    const RowPoint& r = points[i];
    if (!allows(*sh.access, r)) continue;
    if (r.pattern && !rows_of_op.empty() &&
        points[rows_of_op.back().front()].pattern == r.pattern) {
      rows_of_op.back().push_back(i);  // another GPU's row of the same pattern point
    } else if (r.pattern) {
      ops.push_back(make_pattern_operation(sh, *r.pattern));
      rows_of_op.push_back({i});
    } else if (peer::process_level(r.pair)) {
      small_ops.push_back(make_operation(sh, r.pair));
      small.push_back(i);
    } else {
      ops.push_back(make_operation(sh, r.pair));
      rows_of_op.push_back({i});
    }
  }
  const auto add = [&](std::size_t i, const SampleSet& samples) {
    const RowPoint& r = points[i];
    Row& row = s.add(i, samples);
    // a pattern row: the aggregate bandwidth of every copy, and the GPU's own (its copies' bytes
    // over the longest of them, sample by sample)
    if (r.pattern)
      return row.metrics.push_back(bandwidth_metric(
          lanes_subset(samples, peer::copies_of(*r.pattern, r.gpu)), "bandwidth_gpu"));
    add_link(row, sh, r.pair, samples);
  };
  if (!small_ops.empty()) {
    const std::vector<SampleSet> measured =
        s.measure_in_processes(small_ops, small, peer::kProcessLevelRounds);
    for (std::size_t k = 0; k < small.size(); ++k)
      add(small[k], measured[k]);
  }
  if (ops.empty()) return;
  const std::vector<SampleSet> measured = s.ctx().measure_all(ops);
  for (std::size_t k = 0; k < ops.size(); ++k)
    for (const std::size_t i : rows_of_op[k])
      add(i, measured[k]);
}

PeerProbe::Analysis PeerProbe::measure(Sweep<RowPoint>& s) {
  const std::vector<int> devices = devices_to_pair(s.ctx().devices());
  std::uint64_t most = 0;
  bool staged = false, patterns = false;
  for (const RowPoint& r : s.points()) {
    most = std::max(most, r.pattern ? r.pattern->bytes : r.pair.bytes);
    staged = staged || (!r.pattern && r.pair.mode == "staged");
    patterns = patterns || r.pattern;
  }
  if (s.points().empty()) return [](ProbeResult& r) { peer::analyse(r); };
  Shared sh = make_shared_state(devices, most, staged, patterns);
  runtime::PeerAccess access(devices);
  sh.access = &access;
  drop_unrunnable(s, access);
  measure_rows(s, sh);
  return [](ProbeResult& r) { peer::analyse(r); };
}

}  // namespace

std::unique_ptr<Probe> make_peer_probe() {
  return std::make_unique<PeerProbe>();
}

}  // namespace gpuprobe
