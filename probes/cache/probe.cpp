// The `cache` probe: bandwidth against working-set size with one ring kernel family (read, write,
// copy) in three scopes: shared memory per block, a working set per SM in global memory (L1, then
// L2), one working set across the GPU (L2, then DRAM). Axes, sizing and operations here; plateaus,
// knees, model and counters in analysis.cpp / findings.cpp (host-only).
#include <fmt/format.h>

#include <algorithm>
#include <memory>

#include "analysis.hpp"
#include "gpuprobe/core/errors.hpp"
#include "gpuprobe/core/units.hpp"
#include "gpuprobe/models/cache_model.hpp"
#include "gpuprobe/runtime/clock.hpp"
#include "gpuprobe/runtime/device.hpp"
#include "gpuprobe/sweep_probe.hpp"
#include "kernels.hpp"
#include "registry.hpp"

namespace gpuprobe {
namespace {

using cache::Op;
using cache::Space;

constexpr std::uint32_t kCopySeed = 0xCAC4E5u;
constexpr std::uint32_t kWriteSeed = 0x8000C0DEu;  // bit 31 set: written words are never 0
constexpr std::uint64_t kGranule = 4096;           // sizes are multiples of this
constexpr std::uint64_t kMaxShared = 224 * 1024;
// Bytes one repetition moves, per scope: about 0.25 ms at the level's expected plateau (33 TB/s
// L1 and shared, 8 TB/s L2), so launch gaps stay under 1% of a sample.
constexpr double kPerSmTarget = 8.0 * (1ull << 30);
constexpr double kDeviceTarget = 2.0 * (1ull << 30);
// The unified L1/shared storage per SM (Volta to Hopper: 128 KiB on 7.5/8.6/8.9, 256 KiB on
// 8.0/9.0, 192 KiB on 8.7 and otherwise assumed 128 KiB): where sm-scope plateaus stop being L1.
std::uint64_t l1_bytes_of(const std::string& cc) {
  if (cc == "8.0" || cc.rfind("9.", 0) == 0 || cc.rfind("10.", 0) == 0) return 256 * 1024;
  if (cc == "8.7") return 192 * 1024;
  return 128 * 1024;
}

struct Point {
  std::string scope;  // cache::kShared, kSm, kDevice
  std::string op;     // cache::kRead, kWrite, kCopy
  std::uint64_t bytes = 0;
};

Space space_of(const std::string& s) {
  return s == cache::kShared ? Space::kSharedSpace : s == cache::kSm ? Space::kSmSpace : Space::kDeviceSpace;
}
Op op_of(const std::string& s) {
  return s == cache::kRead ? Op::kReadOp : s == cache::kWrite ? Op::kWriteOp : Op::kCopyOp;
}

std::string size_check(std::uint64_t b) {
  return b % kGranule == 0 ? std::string()
                           : fmt::format("{} is not a multiple of 4 KiB", format_bytes(static_cast<double>(b)));
}

Axis sizes_axis(const char* name, const char* help, const char* def, const char* quick,
                std::uint64_t max) {
  Axis a = size_list_axis(name, help, def, quick);
  a.min = kGranule;
  a.max = max;
  a.max_items = 64;
  a.check = size_check;
  return a;
}

// The device buffers every point shares: the source, the destination and the per-thread sums.
struct Buffers {
  runtime::DeviceBuffer src, dst, sink;
  Buffers(std::uint64_t global_bytes, std::size_t threads)
      : src(global_bytes), dst(global_bytes), sink(threads * 4) {}
};

class CacheProbe final : public SweepProbe<Point> {
 public:
  std::string name() const override { return "cache"; }
  std::string description() const override {
    return "bandwidth against working-set size (read, write, copy): shared memory, L1 per SM, "
           "L2, DRAM; plateaus, knees, model peaks, counters";
  }

  std::vector<Axis> axes() const override {
    return {choice_axis("op", "what each thread does to its 16-byte elements",
                        {cache::kRead, cache::kWrite, cache::kCopy}, "all", "read"),
            choice_axis("scope",
                        "shared: shared memory per block; sm: every block walks the same "
                        "working set (per SM: L1, then L2); device: the grid walks one working "
                        "set (L2, then DRAM)",
                        {cache::kShared, cache::kSm, cache::kDevice}, "all"),
            sizes_axis("shared-sizes", "shared-memory working sets per block",
                       "16KiB,64KiB,128KiB,192KiB", "64KiB", kMaxShared),
            sizes_axis("sm-sizes", "working sets per SM",
                       "16KiB,32KiB,64KiB,96KiB,128KiB,160KiB,192KiB,224KiB,256KiB,320KiB,"
                       "384KiB,512KiB,768KiB,1MiB",
                       "32KiB,64KiB,128KiB,192KiB,320KiB,512KiB,1MiB", 64ull << 20),
            sizes_axis("device-sizes", "working sets across the GPU",
                       "2MiB,4MiB,8MiB,16MiB,24MiB,32MiB,40MiB,48MiB,56MiB,64MiB,80MiB,96MiB,"
                       "128MiB,256MiB,512MiB,1GiB",
                       "4MiB,8MiB,16MiB,32MiB,64MiB,128MiB,512MiB", 16ull << 30)};
  }

  std::string help_footer() const override {
    return "A copy's working set is its source and destination together (half each). Sizes "
           "must be multiples of 4 KiB; shared sizes over the GPU's opt-in shared memory per "
           "block are dropped.";
  }

  void add_words(Glossary& glossary) const override { cache::add_words(glossary); }
  std::vector<std::string> counter_metrics() const override {
    return metric_names(cache::kCounterMetrics);
  }

  std::vector<Point> points(const AxisValues& v) const override {
    std::vector<Point> out;
    const auto& scopes = v.choices("scope");
    for (const char* scope : {cache::kShared, cache::kSm, cache::kDevice}) {
      if (std::find(scopes.begin(), scopes.end(), scope) == scopes.end()) continue;
      const std::string axis = std::string(scope == std::string(cache::kShared) ? "shared"
                                           : scope == std::string(cache::kSm)   ? "sm"
                                                                                : "device") +
                               "-sizes";
      for (const std::string& op : v.choices("op"))
        for (const std::uint64_t b : v.list(axis))
          out.push_back({scope, op, b});
    }
    return out;
  }
  Row row(const Point& p) const override {
    return unmeasured_row({{cache::kScope, p.scope, ""},
                           {cache::kOp, p.op, ""},
                           {cache::kBytes, static_cast<std::int64_t>(p.bytes), "B"}});
  }
  std::string method(const AxisValues&) const override {
    return "ring kernel, 1024-thread blocks at full occupancy: thread k of n touches 16-byte "
           "elements k, k+n, k+2n, ... modulo the working set (4 in flight), n the block (shared, "
           "sm: every block walks the same set) or the grid (device); one repetition moves ~8 GiB "
           "(shared, sm) or ~2 GiB (device); bandwidth = bytes read + written / time; caches as "
           "left (the ring keeps its set warm); read sums, written and copied words checked";
  }
  Analysis measure(Sweep<Point>& s) override;
};

runtime::Operation make_op(const Point& p, const DeviceInfo& dev, Buffers& b, cudaStream_t check,
                           bool& ok) {
  const Space space = space_of(p.scope);
  const Op op = op_of(p.op);
  const std::uint32_t per_element = op == Op::kCopyOp ? 32 : 16;
  cache::RingLaunch l{space, op, b.src.get(), b.dst.get(),
                      static_cast<std::uint32_t>(p.bytes / per_element), 0,
                      op == Op::kWriteOp ? kWriteSeed : kCopySeed,
                      static_cast<std::uint32_t*>(b.sink.get()), 0};
  const bool shared = space == Space::kSharedSpace;
  ok = !shared || p.bytes <= dev.shared_memory_per_block_optin_bytes;
  const int per_sm = ok ? cache::resident_blocks(space, op, shared ? static_cast<std::uint32_t>(p.bytes) : 0u) : 0;
  ok = ok && per_sm > 0;
  runtime::Operation o;
  if (!ok) return o;
  l.blocks = per_sm * dev.sm_count;
  const double threads = static_cast<double>(l.blocks) * cache::kThreads;
  const double target = space == Space::kDeviceSpace ? kDeviceTarget : kPerSmTarget;
  const auto iters = static_cast<std::uint32_t>(
      std::ceil(target / (threads * per_element) / cache::kUnroll) * cache::kUnroll);
  l.iters = std::max<std::uint32_t>(iters, cache::kUnroll);
  const double moved = threads * l.iters * per_element;
  o.cache = runtime::Cache::kAsLeft;
  o.lanes.push_back({p.op, moved, [l](runtime::LaunchScope& sc) { cache::launch_ring(l, sc.stream()); }});
  const std::size_t ring = static_cast<std::size_t>(l.elements) * cache::kElementBytes;
  const std::size_t sink_bytes = static_cast<std::size_t>(threads) * 4;
  if (op == Op::kReadOp) {
    o.prepare = [l, ring, sink_bytes](cudaStream_t st) {
      GP_CUDA(cudaMemsetAsync(const_cast<void*>(l.src), 1, ring, st));
      GP_CUDA(cudaMemsetAsync(l.sink, 0, sink_bytes, st));
    };
    const std::uint32_t expected = l.iters * 4u * 0x01010101u;
    o.verify = [l, threads, expected, check] {
      const auto n = static_cast<std::uint32_t>(threads);
      return mismatch_text("sums", cache::check_sums(l.sink, n, expected, check), n, "threads");
    };
    return o;
  }
  const std::size_t out = ring;  // shared: block 0 leaves its ring in dst
  o.prepare = [l, ring, out, op](cudaStream_t st) {
    if (op == Op::kCopyOp) runtime::fill_pattern_device(const_cast<void*>(l.src), ring, kCopySeed, st);
    GP_CUDA(cudaMemsetAsync(l.dst, 0, out, st));
  };
  o.verify = [l, out, op, check] {
    if (op == Op::kCopyOp) return runtime::PatternBuffer{"dst", l.dst, out, kCopySeed}.verify(check);
    return mismatch_text("dst", cache::check_written(l.dst, l.elements, kWriteSeed, check),
                         l.elements, "elements");
  };
  return o;
}

std::uint64_t global_bytes(const std::vector<Point>& points, std::uint64_t free_bytes) {
  std::uint64_t m = kMaxShared;
  for (const Point& p : points)
    if (p.bytes * 2 <= free_bytes * 8 / 10) m = std::max(m, p.bytes);
  return m;
}

CacheProbe::Analysis CacheProbe::measure(Sweep<Point>& s) {
  const DeviceInfo& dev = s.ctx().device();
  const cudaStream_t st = s.ctx().stream();
  const double clock_before = runtime::sample_sm_clock_mhz(st);
  const std::uint64_t bytes = global_bytes(s.points(), runtime::device_memory().free_bytes);
  Buffers buffers(bytes, static_cast<std::size_t>(dev.sm_count) * 2048);
  std::vector<runtime::Operation> ops;
  std::vector<std::size_t> at;
  for (std::size_t i = 0; i < s.points().size(); ++i) {
    const Point& p = s.points()[i];
    bool ok = p.bytes <= bytes;
    runtime::Operation o = ok ? make_op(p, dev, buffers, st, ok) : runtime::Operation{};
    if (!ok) {
      s.drop(i);
      continue;
    }
    o.label = fmt::format("{} {} {}", p.scope, p.op, format_bytes(static_cast<double>(p.bytes)));
    ops.push_back(std::move(o));
    at.push_back(i);
  }
  const std::vector<SampleSet> samples = s.ctx().measure_all(ops);
  for (std::size_t k = 0; k < at.size(); ++k)
    s.add(at[k], samples[k]).derived.push_back({"bytes_moved", "B", ops[k].lanes[0].bytes});
  cache::RunFacts f;
  f.sm_count = dev.sm_count;
  f.clock_mhz = (clock_before + runtime::sample_sm_clock_mhz(st)) / 2;
  f.l1_peak_gbps = models::l1_peak_gbps(dev.sm_count, f.clock_mhz);
  f.dram_peak_gbps = models::dram_peak_gbps(dev.memory_clock_khz, dev.memory_bus_width_bits);
  f.l1_bytes = l1_bytes_of(dev.compute_capability);
  f.l2_bytes = dev.l2_bytes;
  return [f](ProbeResult& r) { cache::analyse(r, f); };
}

}  // namespace

std::unique_ptr<Probe> make_cache_probe() {
  return std::make_unique<CacheProbe>();
}

}  // namespace gpuprobe
