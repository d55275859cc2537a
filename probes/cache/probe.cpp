// The `cache` probe: bandwidth against working-set size with one ring kernel family (read, write,
// copy) in three scopes: shared memory per block, a working set per SM in global memory (L1, then
// L2), one working set across the GPU (L2, then DRAM). Axes, sizing and operations here; plateaus,
// knees, model and counters in analysis.cpp / findings.cpp (host-only).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
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
// Bytes one repetition moves: about 1 ms at the level's expected plateau (33 TB/s shared and
// L1; 4-8 TB/s L2 and DRAM), so launch gaps stay near 0.3% of a sample. sm writes go through to
// the L2 (about 4 TB/s): a quarter of the reads' bytes.
constexpr double kPerSmTarget = 32.0 * (1ull << 30);
constexpr double kPerSmWriteTarget = 8.0 * (1ull << 30);
constexpr double kDeviceTarget = 4.0 * (1ull << 30);
// device: each block streams kChunkIters x kThreads elements (512 KiB of reads), so the grid is
// thousands of blocks that the SMs take as they free up: a slower SM takes fewer.
constexpr std::uint32_t kChunkIters = 32;
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
  return s == cache::kShared ? Space::kSharedSpace
         : s == cache::kSm   ? Space::kSmSpace
                             : Space::kDeviceSpace;
}
Op op_of(const std::string& s) {
  return s == cache::kRead ? Op::kReadOp : s == cache::kWrite ? Op::kWriteOp : Op::kCopyOp;
}

std::string size_validate(std::uint64_t b) {
  return b % kGranule == 0
             ? std::string()
             : fmt::format("{} is not a multiple of 4 KiB", format_bytes(static_cast<double>(b)));
}

Axis sizes_axis(const char* name, const char* help, const char* def, const char* quick,
                std::uint64_t max) {
  Axis a = size_list_axis(name, help, def, quick);
  a.min = kGranule;
  a.max = max;
  a.max_items = 64;
  a.validate = size_validate;
  return a;
}

// One point's launch and what it needs: bytes of source and destination, sink words.
struct Sized {
  cache::RingLaunch launch;
  double moved = 0;  // bytes one repetition reads and writes
  std::uint64_t src_bytes = 0, dst_bytes = 0, sink_words = 0;
  bool ok = false;
};

std::uint32_t round_up(double v, std::uint32_t m) {
  return std::max(m, static_cast<std::uint32_t>(std::ceil(v / m)) * m);
}

Sized size_point(const Point& p, const DeviceInfo& dev) {
  Sized z;
  cache::RingLaunch& l = z.launch;
  l.space = space_of(p.scope);
  l.op = op_of(p.op);
  const std::uint32_t per_element = l.op == Op::kCopyOp ? 32 : 16;
  l.elements = static_cast<std::uint32_t>(p.bytes / per_element);
  l.seed = l.op == Op::kWriteOp ? kWriteSeed : kCopySeed;
  const bool shared = l.space == Space::kSharedSpace;
  if (shared && p.bytes > dev.shared_memory_per_block_optin_bytes) return z;
  const int per_sm =
      cache::resident_blocks(l.space, l.op, shared ? static_cast<std::uint32_t>(p.bytes) : 0u);
  if (per_sm <= 0) return z;
  const double t = cache::kThreads, e = l.elements;
  if (l.space == Space::kDeviceSpace) {
    l.iters = kChunkIters;
    const double chunk = t * kChunkIters;
    l.blocks = static_cast<int>(std::ceil(std::max(kDeviceTarget / per_element, e) / chunk));
  } else {
    l.blocks = dev.sm_count * (shared ? per_sm : 1);  // sm: one block per SM
    const double target =
        l.space == Space::kSmSpace && l.op == Op::kWriteOp ? kPerSmWriteTarget : kPerSmTarget;
    l.iters = round_up(std::max(target / (l.blocks * t * per_element), e / t), cache::kUnroll);
  }
  z.moved = l.blocks * t * l.iters * per_element;
  z.src_bytes = static_cast<std::uint64_t>(l.elements) * cache::kElementBytes;
  z.dst_bytes =
      l.space == Space::kSmSpace ? z.src_bytes * static_cast<std::uint64_t>(l.blocks) : z.src_bytes;
  z.sink_words = static_cast<std::uint64_t>(l.blocks) * (cache::kThreads / 32);
  z.ok = true;
  return z;
}

// The device buffers every point shares: the source, the destination, the per-warp sums.
struct Buffers {
  runtime::DeviceBuffer src, dst, sink;
  Buffers(std::uint64_t src_bytes, std::uint64_t dst_bytes, std::uint64_t sink_words)
      : src(src_bytes), dst(dst_bytes), sink(sink_words * 4) {}
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
                       "384KiB,512KiB,768KiB,1MiB,2MiB",
                       "32KiB,64KiB,128KiB,192KiB,512KiB,1MiB,2MiB", 64ull << 20),
            sizes_axis("device-sizes", "working sets across the GPU",
                       "2MiB,4MiB,8MiB,16MiB,24MiB,32MiB,40MiB,48MiB,56MiB,64MiB,80MiB,96MiB,"
                       "128MiB,256MiB,512MiB,1GiB",
                       "4MiB,8MiB,16MiB,32MiB,64MiB,128MiB,256MiB,512MiB", 16ull << 30)};
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
    return "ring kernel over 16-byte elements, 1024-thread blocks, 4 accesses in flight per "
           "thread, 1024 elements apart, wrapping at the working set's end; shared: every "
           "resident block in its own shared memory; sm: one block per SM, every block reading "
           "the same set (each SM's working set), writing a set of its own; device: blocks of "
           "512 KiB chunks streaming one set in order; one repetition moves ~32 GiB (shared, sm; "
           "sm write 8 GiB) or ~4 GiB (device); bandwidth = bytes read + written / time; caches "
           "as left (the ring keeps its set warm); read sums, written and copied words checked";
  }
  Analysis measure(Sweep<Point>& s) override;
};

// The read's check: every warp's sum (each word of the source is 0x01010101).
std::function<std::string()> read_verify(const cache::RingLaunch& l, cudaStream_t check) {
  const auto warps = static_cast<std::uint32_t>(l.blocks) * (cache::kThreads / 32);
  const std::uint32_t expected = 32u * l.iters * 4u * 0x01010101u;
  return [l, warps, expected, check] {
    return mismatch_text("sums", cache::verify_sums(l.sink, warps, expected, check), warps,
                         "warps");
  };
}

// The write's and copy's check: every ring written (sm: every block's), or, for a copy, the
// destination holds the source's pattern (sm: the first and the last block's ring).
std::function<std::string()> write_verify(const Sized& z, const cache::RingLaunch& l,
                                          cudaStream_t check) {
  const std::uint64_t ring = z.src_bytes;
  if (l.op == Op::kWriteOp)
    return [l, n = z.dst_bytes / cache::kElementBytes, check] {
      return mismatch_text("dst", cache::verify_written(l.dst, n, l.elements, kWriteSeed, check), n,
                           "elements");
    };
  const std::uint64_t last = z.dst_bytes - ring;
  return [l, ring, last, check] {
    MismatchReport r;
    runtime::PatternBuffer{"dst", l.dst, ring, kCopySeed}.verify_into(r, check);
    if (last > 0) {
      void* end = static_cast<char*>(l.dst) + last;
      runtime::PatternBuffer{"last block's dst", end, ring, kCopySeed}.verify_into(r, check);
    }
    return r.text();
  };
}

runtime::Operation make_op(const Sized& z, Buffers& b, cudaStream_t check) {
  cache::RingLaunch l = z.launch;
  l.src = b.src.get();
  l.dst = b.dst.get();
  l.sink = static_cast<std::uint32_t*>(b.sink.get());
  runtime::Operation o;
  o.cache = runtime::Cache::kAsLeft;  // the ring keeps its own set warm
  o.lanes.push_back(
      {"ring", z.moved, [l](runtime::LaunchScope& sc) { cache::launch_ring(l, sc.stream()); }});
  const std::uint64_t ring = z.src_bytes, out = z.dst_bytes;
  const std::size_t sink_bytes = z.sink_words * 4;
  if (l.op == Op::kReadOp) {
    o.prepare = [l, ring, sink_bytes](cudaStream_t st) {
      GP_CUDA(cudaMemsetAsync(const_cast<void*>(l.src), 1, ring, st));
      GP_CUDA(cudaMemsetAsync(l.sink, 0, sink_bytes, st));
    };
    o.verify = read_verify(l, check);
    return o;
  }
  o.prepare = [l, ring, out](cudaStream_t st) {
    if (l.op == Op::kCopyOp)
      runtime::fill_pattern_device(const_cast<void*>(l.src), ring, kCopySeed, st);
    GP_CUDA(cudaMemsetAsync(l.dst, 0, out, st));
  };
  o.verify = write_verify(z, l, check);
  return o;
}

// Every point's launch sized first, the buffers for the largest that fit in 80% of the free
// memory, then one batch of every point that fits.
CacheProbe::Analysis CacheProbe::measure(Sweep<Point>& s) {
  const DeviceInfo& dev = s.ctx().device();
  const cudaStream_t st = s.ctx().stream();
  const double clock_before = runtime::sample_sm_clock_mhz(st);
  const double room = 0.4 * static_cast<double>(runtime::device_memory().free_bytes);
  std::vector<Sized> sized;
  std::uint64_t src = 0, dst = 0, sink = 0;
  for (const Point& p : s.points()) {
    Sized z = size_point(p, dev);
    z.ok = z.ok && static_cast<double>(std::max(z.src_bytes, z.dst_bytes)) <= room;
    if (z.ok) {
      src = std::max(src, z.src_bytes);
      dst = std::max(dst, z.dst_bytes);
      sink = std::max(sink, z.sink_words);
    }
    sized.push_back(z);
  }
  Buffers buffers(src, dst, sink);
  std::vector<runtime::Operation> ops;
  std::vector<std::size_t> at;
  for (std::size_t i = 0; i < sized.size(); ++i) {
    const Point& p = s.points()[i];
    if (!sized[i].ok) {
      s.drop(i);
      continue;
    }
    ops.push_back(make_op(sized[i], buffers, st));
    ops.back().label =
        fmt::format("{} {} {}", p.scope, p.op, format_bytes(static_cast<double>(p.bytes)));
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
