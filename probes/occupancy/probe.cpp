// The `occupancy` probe: Little's law, measured. A persistent stream (read, write, copy) far past
// the L2 whose bytes in flight per SM are set by resident warps (k blocks per SM, held by dynamic
// shared memory), ILP and width; the unloaded DRAM latency (latency's chase) first. Sizing and
// operations here; the analysis in analysis.cpp / findings.cpp.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <memory>

#include "analysis.hpp"
#include "gpuprobe/core/errors.hpp"
#include "gpuprobe/core/mismatches.hpp"
#include "gpuprobe/core/samples.hpp"
#include "gpuprobe/core/units.hpp"
#include "gpuprobe/models/occupancy_model.hpp"
#include "gpuprobe/runtime/device.hpp"
#include "gpuprobe/sweep_probe.hpp"
#include "kernels.hpp"
#include "latency/kernels.hpp"
#include "registry.hpp"

namespace gpuprobe {
namespace {

using occupancy::Op;
using occupancy::Point;

constexpr std::uint32_t kSrcSeed = 0x0CC0u;
constexpr std::uint32_t kWriteSeed = 0x80000CC1u;  // bit 31 set: a written word is never 0
constexpr std::uint64_t kChaseMax = 512ull << 20, kChaseStride = 512;  // the latency chase's set
constexpr std::uint32_t kChaseWarm = 64, kChaseSteps = 4096;
constexpr std::uint64_t kAlign = 1ull << 20;  // working sets in whole MiB
constexpr double kMemoryShare = 0.4;          // of the free memory, per buffer

Op op_of(const std::string& s) {
  return s == occupancy::kRead ? Op::kReadOp : s == occupancy::kWrite ? Op::kWriteOp : Op::kCopyOp;
}

// Buffers every point shares: the source (kSrcSeed's pattern; nothing writes it), dst, the sums.
struct Shared {
  runtime::DeviceBuffer src, dst, sink;
  std::uint64_t working_set = 0;
};

// One point, sized: its launch, the residency it was given, the bytes one repetition moves.
struct Sized {
  occupancy::Launch launch;
  occupancy::Residency residency;
  std::uint64_t streamed = 0;  // per buffer
};

std::function<std::string()> verify_of(const Sized& z, cudaStream_t check) {
  const occupancy::Launch l = z.launch;
  const std::uint64_t threads = static_cast<std::uint64_t>(l.blocks) * l.block_threads;
  if (l.op == Op::kReadOp)
    return [l, threads, check] {
      return mismatch_text("sums", occupancy::verify_sums(l, kSrcSeed, check), threads, "threads");
    };
  if (l.op == Op::kWriteOp)
    return [l, words = z.streamed / 4, check] {
      return mismatch_text("dst", occupancy::verify_written(l, words, check), words, "words");
    };
  return [out = runtime::PatternBuffer{"dst", l.dst, z.streamed, kSrcSeed}, check] {
    return out.verify(check);
  };
}

runtime::Operation make_op(const Point& p, const Sized& z, cudaStream_t check) {
  const occupancy::Launch l = z.launch;
  runtime::Operation op;
  op.label = fmt::format("{} {}w i{} {}B", p.op, p.warps, p.ilp, p.width);
  op.cache = runtime::Cache::kAsLeft;  // the stream is far past the L2: it evicts itself
  // Every counter pass starts from a clean L2 (a read's range would otherwise write back the
  // previous point's dirty lines: 25 MB, 2.4% of a GiB, on the H100), and the lines a write left
  // dirty are counted after it.
  op.count_write_back = true;
  const double moved = static_cast<double>(z.streamed) * (l.op == Op::kCopyOp ? 2 : 1);
  op.lanes.push_back(
      {p.op, moved, [l](runtime::LaunchScope& sc) { occupancy::launch(l, sc.stream()); }});
  const std::uint64_t threads = static_cast<std::uint64_t>(l.blocks) * l.block_threads;
  op.prepare = [l, threads, streamed = z.streamed](cudaStream_t st) {
    if (l.op == Op::kReadOp)
      GP_CUDA(cudaMemsetAsync(l.sink, 0, threads * 4, st));
    else
      GP_CUDA(cudaMemsetAsync(l.dst, 0, streamed, st));
  };
  op.verify = verify_of(z, check);
  return op;
}

void fill_row(Row& row, const Point& p, const Sized& z) {
  const auto& r = z.residency;
  row.derived.push_back({occupancy::kInFlight, "B",
                         static_cast<double>(models::bytes_in_flight(p.warps, p.ilp, p.width))});
  row.derived.push_back({occupancy::kBlockThreads, "", z.launch.block_threads});
  row.derived.push_back({occupancy::kBlocksPerSm, "", r.blocks_per_sm});
  row.derived.push_back({occupancy::kSharedBytes, "B", static_cast<double>(r.shared_bytes)});
  row.derived.push_back({occupancy::kRegisters, "", r.registers});
  row.derived.push_back({occupancy::kRegistersPerSm, "", r.registers * p.warps * 32.0});
  row.derived.push_back({occupancy::kOccupancy, "%", 100.0 * p.warps / r.max_warps_per_sm});
  row.derived.push_back({occupancy::kStreamed, "B",
                         static_cast<double>(z.streamed) * (z.launch.op == Op::kCopyOp ? 2 : 1)});
}

class OccupancyProbe final : public SweepProbe<Point> {
 public:
  std::string name() const override { return "occupancy"; }
  std::string description() const override {
    return "Little's law measured: streaming bandwidth against the bytes in flight per SM "
           "(resident warps, independent accesses per thread, bytes per access), the knee beside "
           "the unloaded DRAM latency's prediction, achieved vs theoretical occupancy";
  }
  std::vector<Axis> axes() const override;
  std::string help_footer() const override {
    return "Resident warps are made exact: blocks of up to 4 warps, k blocks per SM held by "
           "dynamic shared memory (cudaOccupancyMaxActiveBlocksPerMultiprocessor finds the "
           "least that lets exactly k fit), a grid of k blocks per SM striding the whole "
           "buffer. The DRAM latency Little's law uses is measured first with latency's chase.";
  }
  void add_words(Glossary& glossary) const override { occupancy::add_words(glossary); }
  std::vector<std::string> counter_metrics() const override {
    return metric_names(occupancy::kCounterMetrics);
  }
  std::vector<Point> points(const AxisValues& v) const override { return occupancy::points(v); }
  Row row(const Point& p) const override { return unmeasured_row(occupancy::row_params(p)); }
  std::string method(const AxisValues& v) const override {
    return fmt::format(
        "persistent grid (k blocks per SM, held there by dynamic shared memory) striding a "
        "working set of up to {} per buffer; each thread's step: ilp independent accesses of "
        "width bytes, warp-coalesced; bytes in flight per SM = warps x 32 x ilp x width; "
        "bandwidth = bytes read + written / time; unloaded DRAM latency from one thread's "
        "dependent chase after an L2 flush; read sums, written and copied words checked",
        format_bytes(static_cast<double>(v.number("bytes"))));
  }
  Analysis measure(Sweep<Point>& s) override;
};

// A list of compiled values: the default all of them, anything else refused.
template <std::size_t N>
Axis compiled_axis(const char* name, const char* help, const int (&values)[N], bool (*ok)(int),
                   const char* quick) {
  const std::string all = fmt::format("{}", fmt::join(values, ","));
  Axis a = list_axis(name, fmt::format("{}; compiled: {}", help, all), all, quick);
  a.validate = [ok, all](std::uint64_t v) {
    return ok(static_cast<int>(v)) ? std::string() : fmt::format("{} is not compiled ({})", v, all);
  };
  return a;
}

std::vector<Axis> OccupancyProbe::axes() const {
  Axis warps = list_axis("warps",
                         "resident warps per SM, swept at the smallest --ilp and --width "
                         "(blocks of gcd(warps, 4) warps)",
                         "1,2,4,8,12,16,24,32,40,48,56,64", "2,8,32,64");
  warps.min = 1;
  warps.max = 64;
  warps.max_items = 64;
  warps.validate = [](std::uint64_t w) {
    return models::shape_fits(static_cast<int>(w))
               ? std::string()
               : fmt::format("{} warps would need more than {} blocks per SM", w,
                             models::kOccupancyMaxBlocks);
  };
  Axis at = warps;
  at.name = "at-warps";
  at.help = "resident warps per SM at which every --ilp x --width is measured";
  at.default_text = "4,8,16";
  at.quick_text = "8";
  Axis ilp = compiled_axis("ilp", "independent accesses per thread", occupancy::kIlps,
                           occupancy::ilp_compiled, "1,8");
  Axis width = compiled_axis("width", "bytes per access", occupancy::kWidths,
                             occupancy::width_compiled, "4,16");
  width.unit = "B";
  Axis bytes = number_axis("bytes", "working set per buffer (capped at 40% of free memory each)",
                           "1GiB", "512MiB");
  bytes.number = NumberKind::kSize;
  bytes.min = 16ull << 20;
  bytes.max = 8ull << 30;  // < 2^31 words: a written index ^ seed (bit 31 set) is never 0 (poison)
  Axis op =
      choice_axis("op", "what the stream does: read (each thread sums its words), write, copy",
                  {occupancy::kRead, occupancy::kWrite, occupancy::kCopy}, "all");
  return {op, warps, at, ilp, width, bytes};
}

// The unloaded DRAM latency: latency's short chase over `chain` after an L2 flush.
void measure_latency(occupancy::RunFacts& f, void* chain, std::uint64_t bytes, cudaStream_t st) {
  f.chase_bytes = std::min(bytes, kChaseMax) / kChaseStride * kChaseStride;
  f.chase_stride = kChaseStride;
  const latency::ChaseTiming t = latency::time_chase(chain, f.chase_bytes, kChaseStride, kChaseWarm,
                                                     kChaseSteps, true, f.l2_bytes, st);
  if (!t.ended_right)
    throw RunError(
        fmt::format("occupancy: the DRAM latency chase over {} did not end on the "
                    "element {} steps on: Little's law has no latency",
                    format_bytes(static_cast<double>(f.chase_bytes)), kChaseWarm + kChaseSteps));
  f.latency_s = t.seconds_per_load;
  f.latency_cycles = t.cycles_per_load;
}

Shared make_shared(const std::vector<Point>& points, std::uint64_t asked, int max_threads) {
  Shared sh;
  const double room = kMemoryShare * static_cast<double>(runtime::device_memory().free_bytes);
  sh.working_set =
      std::min<std::uint64_t>(asked, static_cast<std::uint64_t>(room)) / kAlign * kAlign;
  bool reads = false, writes = false;  // which buffers the ops use
  for (const Point& p : points)
    reads |= p.op != occupancy::kWrite, writes |= p.op != occupancy::kRead;
  if (reads) sh.src = runtime::DeviceBuffer(sh.working_set);
  if (writes) sh.dst = runtime::DeviceBuffer(sh.working_set);
  sh.sink = runtime::DeviceBuffer(static_cast<std::size_t>(max_threads) * 4);
  return sh;
}

std::optional<Sized> size_point(const Point& p, const Shared& sh, int sm_count) {
  const models::BlockShape shape = models::block_shape(p.warps);
  Sized z;
  z.residency =
      occupancy::residency(op_of(p.op), p.ilp, p.width, shape.block_threads, shape.blocks_per_sm);
  if (z.residency.blocks_per_sm != shape.blocks_per_sm || p.warps > z.residency.max_warps_per_sm)
    return std::nullopt;
  occupancy::Launch& l = z.launch;
  l.op = op_of(p.op);
  l.ilp = p.ilp;
  l.width = p.width;
  l.block_threads = shape.block_threads;
  l.blocks = shape.blocks_per_sm * sm_count;
  l.shared_bytes = z.residency.shared_bytes;
  const std::uint64_t threads = static_cast<std::uint64_t>(l.blocks) * l.block_threads;
  l.steps = models::stream_steps(sh.working_set, threads, p.ilp, p.width);
  l.seed = kWriteSeed;
  l.src = sh.src.get();
  l.dst = sh.dst.get();
  l.sink = sh.sink.as<std::uint32_t>();
  z.streamed = l.steps * threads * static_cast<std::uint64_t>(p.ilp) * p.width;
  if (z.streamed == 0) return std::nullopt;
  return z;
}

// The latency first (over a buffer before it holds its pattern), then one batch of every point
// that can be made resident as asked.
OccupancyProbe::Analysis OccupancyProbe::measure(Sweep<Point>& s) {
  const DeviceInfo& dev = s.ctx().device();
  const cudaStream_t st = s.ctx().stream();
  Shared sh = make_shared(s.points(), s.values().number("bytes"), dev.sm_count * 2048);
  occupancy::RunFacts facts;
  facts.sm_count = dev.sm_count;
  facts.l2_bytes = dev.l2_bytes;
  facts.working_set = sh.working_set;
  measure_latency(facts, sh.src.get() ? sh.src.get() : sh.dst.get(), sh.working_set, st);
  if (sh.src.get() != nullptr)
    runtime::fill_pattern_device(sh.src.get(), sh.working_set, kSrcSeed, st);
  GP_CUDA(cudaStreamSynchronize(st));
  std::vector<runtime::Operation> ops;
  std::vector<std::size_t> at;
  std::vector<Sized> sized;
  for (std::size_t i = 0; i < s.points().size(); ++i) {
    const Point& p = s.points()[i];
    const auto z = size_point(p, sh, dev.sm_count);
    if (!z) {
      facts.dropped.push_back(
          fmt::format("{} {} warps ILP {} {} B", p.op, p.warps, p.ilp, p.width));
      s.drop(i);
      continue;
    }
    ops.push_back(make_op(p, *z, st));
    at.push_back(i);
    sized.push_back(*z);
  }
  const std::vector<SampleSet> samples = s.ctx().measure_all(ops);
  for (std::size_t k = 0; k < at.size(); ++k)
    fill_row(s.add(at[k], samples[k]), s.points()[at[k]], sized[k]);
  return [facts](ProbeResult& r) { occupancy::analyse(r, facts); };
}

}  // namespace

std::unique_ptr<Probe> make_occupancy_probe() {
  return std::make_unique<OccupancyProbe>();
}

}  // namespace gpuprobe
