// The `partitions` probe: does partition camping still exist? Concurrent streams read regions a
// swept stride apart (aligned, and padded by one GT200 partition: the seeds' fix), in row or
// scattered block order, all resident, every point moving the same bytes; then the SDK's tiled
// transpose in row and diagonal order. Every result checked on the device. Sizing, operations.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <memory>

#include "analysis.hpp"
#include "gpuprobe/core/errors.hpp"
#include "gpuprobe/core/mismatches.hpp"
#include "gpuprobe/core/samples.hpp"
#include "gpuprobe/core/units.hpp"
#include "gpuprobe/models/partitions_model.hpp"
#include "gpuprobe/runtime/device.hpp"
#include "gpuprobe/sweep_probe.hpp"
#include "kernels.hpp"
#include "registry.hpp"

namespace gpuprobe {
namespace {

using partitions::Point;

constexpr std::uint32_t kStreamSeed = 0xCA4Bu;
constexpr std::uint32_t kTransposeSeed = 0x7A45u;
constexpr std::uint64_t kRegionBytes = 16 * 1024;  // per stream at full width: 64 chunks
constexpr double kFreeShare = 0.5;                 // of the free device memory, at most

// A stride point's layout and launch, and its own mismatch counter.
struct StreamOp {
  models::StreamLayout layout;
  partitions::StreamLaunch launch;
  std::shared_ptr<runtime::MismatchCounter> counter = std::make_shared<runtime::MismatchCounter>();
};

runtime::Operation stream_operation(const Point& p, const StreamOp& s, cudaStream_t check) {
  runtime::Operation op;
  op.label = fmt::format("stride {} B {}", p.stride, p.order);
  op.cache = runtime::Cache::kFlushL2;
  const partitions::StreamLaunch l = s.launch;
  op.lanes.push_back({"read", static_cast<double>(s.layout.bytes()), [l](runtime::LaunchScope& sc) {
                        partitions::launch_streams(l, sc.stream());
                      }});
  const std::size_t out_bytes = s.layout.streams * models::kStreamThreads * 4;
  op.prepare = [out = l.out, out_bytes](cudaStream_t st) {
    GP_CUDA(cudaMemsetAsync(out, 0, out_bytes, st));
  };
  op.verify = [l, counter = s.counter, n = s.layout.streams * models::kStreamThreads, check] {
    partitions::check_streams(l, kStreamSeed, counter->tally(), check);
    return mismatch_text("out", counter->read(check), n, "stream folds");
  };
  return op;
}

struct TransposeOp {
  std::uint32_t n = 0;
  bool diagonal = false;
  const float* in = nullptr;
  float* out = nullptr;
  std::shared_ptr<runtime::MismatchCounter> counter = std::make_shared<runtime::MismatchCounter>();
};

runtime::Operation transpose_operation(const TransposeOp& t, cudaStream_t check) {
  runtime::Operation op;
  op.label = fmt::format("transpose {} {}", t.n, t.diagonal ? "diagonal" : "row");
  op.cache = runtime::Cache::kFlushL2;
  const double elements = static_cast<double>(t.n) * t.n;
  op.lanes.push_back({"transpose", 2 * elements * 4, [t](runtime::LaunchScope& sc) {
                        partitions::launch_transpose(t.in, t.out, t.n, t.diagonal, sc.stream());
                      }});
  op.prepare = [out = t.out, bytes = static_cast<std::size_t>(elements) * 4](cudaStream_t st) {
    GP_CUDA(cudaMemsetAsync(out, 0, bytes, st));
  };
  op.verify = [t, check, elements] {
    partitions::check_transpose(t.out, t.n, kTransposeSeed, t.counter->tally(), check);
    return mismatch_text("out", t.counter->read(check), static_cast<std::uint64_t>(elements),
                         "elements");
  };
  return op;
}

class PartitionsProbe final : public SweepProbe<Point> {
 public:
  std::string name() const override { return "partitions"; }
  std::string description() const override {
    return "partition camping: bandwidth of streams read a swept stride apart (aligned and "
           "padded, row or scattered block order) and of the transpose in row and diagonal "
           "order, beside the GT200 model's 8 partitions of 256 B and the per-slice counters";
  }
  std::vector<Axis> axes() const override;
  std::string help_footer() const override {
    return "Every stream block is resident at once. A stride whose buffer passes --max-buffer (or "
           "half the free memory) runs half the streams, each reading twice as far: the same "
           "bytes.";
  }
  void add_words(Glossary& glossary) const override { partitions::add_words(glossary); }
  std::vector<std::string> counter_metrics() const override {
    return metric_names(partitions::kCounterMetrics);
  }
  std::vector<Point> points(const AxisValues& v) const override { return partitions::points(v); }
  Row row(const Point& p) const override { return unmeasured_row(partitions::row_params(p)); }
  std::string method(const AxisValues& v) const override {
    return fmt::format(
        "stride: blocks of {} threads, {} streams each (4-B loads of each, the step loop unrolled "
        "by the compiler: up to 16 loads in flight per thread), up to {} blocks per SM, all "
        "resident; stream k reads {} B chunks from k x stride on, going on (streams x stride) "
        "further at each multiple of the stride; {} KiB per stream at full width, fewer streams "
        "reading further when the buffer would pass {}; bandwidth = bytes read / time, L2 flushed "
        "before each sample; transpose: the SDK's {}x{} tiles through shared memory ({}x{} "
        "threads), row or diagonal block order, bandwidth = 2 x n^2 x 4 B / time; every fold and "
        "element checked",
        models::kStreamThreads, models::kStreamsPerBlock, models::kMaxStreamBlocksPerSm,
        models::kChunkBytes, kRegionBytes / 1024,
        format_bytes(static_cast<double>(v.number("max-buffer"))), models::kTile, models::kTile,
        models::kTile, models::kTileRows);
  }
  Analysis measure(Sweep<Point>& s) override;
};

std::vector<Axis> PartitionsProbe::axes() const {
  Axis strides =
      size_list_axis("strides", "strides between the regions read at once (multiples of 256 B)",
                     "256:16MiB:x2", "256:1MiB:x4");
  strides.min = models::kChunkBytes;
  strides.max = 1ull << 30;
  strides.validate = multiple_of(models::kChunkBytes, fmt::format("{} B", models::kChunkBytes));
  Axis pads = size_list_axis("pads",
                             "added to every stride (0: aligned; 256 B: one GT200 partition on, "
                             "the seeds' fix)",
                             "0,256", "0,256");
  pads.min = 0;
  pads.max = 1ull << 20;
  pads.max_items = 4;
  pads.validate = multiple_of(models::kChunkBytes, fmt::format("{} B", models::kChunkBytes));
  Axis sides = list_axis("transpose", "transpose matrix sides, floats (multiples of 32)",
                         "4096,8192", "4096");
  sides.unit = "elements";
  sides.min = static_cast<std::uint64_t>(models::kTile);
  sides.max = 16384;
  sides.max_items = 4;
  sides.validate = multiple_of(models::kTile, fmt::format("{} elements", models::kTile));
  Axis cap = size_axis("max-buffer", "most bytes of the stride sweep's buffer", "16GiB", "4GiB");
  cap.min = 64ull << 20;
  return {choice_axis("mode", "stride: the stride sweep; transpose: the tiled transpose",
                      {partitions::kStrideMode, partitions::kTransposeMode}, "all"),
          choice_axis("order",
                      "block order: row (launch order), scatter (stride sweep: block b reads "
                      "region b x m mod blocks), diagonal (transpose: the SDK's diagonal order)",
                      {partitions::kRow, partitions::kScatter, partitions::kDiagonal}, "all"),
          strides,
          pads,
          sides,
          cap};
}

Row& fill_stream_row(Row& row, const models::StreamLayout& l) {
  row.derived.push_back({partitions::kStreams, "", static_cast<double>(l.streams)});
  row.derived.push_back({partitions::kRegionBytes, "B", static_cast<double>(l.region_bytes)});
  row.derived.push_back({partitions::kSteps, "", static_cast<double>(l.steps)});
  return row;
}

// The stride points: each one's layout (dropped when even one block passes the cap), then one
// buffer of the largest extent, filled with the pattern once.
std::vector<runtime::Operation> stream_ops(Sweep<Point>& s,
                                           std::array<runtime::DeviceBuffer, 2>& buf,
                                           std::vector<std::size_t>& at,
                                           std::vector<StreamOp>& made) {
  const DeviceInfo& dev = s.ctx().device();
  const int per_sm = std::min(partitions::stream_blocks_per_sm(), models::kMaxStreamBlocksPerSm);
  if (per_sm <= 0) throw RunError("partitions: the stream kernel fits no block on an SM");
  const std::uint64_t full_blocks = static_cast<std::uint64_t>(dev.sm_count) * per_sm;
  const std::uint64_t cap = std::min<std::uint64_t>(
      s.values().number("max-buffer"),
      static_cast<std::uint64_t>(static_cast<double>(runtime::device_memory().free_bytes) *
                                 kFreeShare));
  std::uint64_t extent = 0, folds = 0;
  for (std::size_t i = 0; i < s.points().size(); ++i) {
    const Point& p = s.points()[i];
    if (p.mode != partitions::kStrideMode) continue;
    StreamOp op;
    op.layout = models::stream_layout(p.stride, full_blocks, kRegionBytes, cap);
    if (op.layout.extent > cap) {
      s.drop(i);
      continue;
    }
    op.launch = {nullptr,
                 nullptr,
                 p.stride,
                 op.layout.blocks,
                 p.order == partitions::kScatter ? models::scatter_multiplier(op.layout.blocks) : 1,
                 op.layout.steps};
    extent = std::max(extent, op.layout.extent);
    folds = std::max(folds, op.layout.streams * models::kStreamThreads);
    made.push_back(op);
    at.push_back(i);
  }
  std::vector<runtime::Operation> ops;
  if (made.empty()) return ops;
  buf[0] = runtime::DeviceBuffer(extent);     // the pattern
  buf[1] = runtime::DeviceBuffer(folds * 4);  // the folds
  runtime::fill_pattern_device(buf[0].get(), extent, kStreamSeed, s.ctx().stream());
  GP_CUDA(cudaStreamSynchronize(s.ctx().stream()));
  for (StreamOp& op : made) {
    op.launch.in = buf[0].as<std::uint32_t>();
    op.launch.out = buf[1].as<std::uint32_t>();
    ops.push_back(stream_operation(s.points()[at[&op - made.data()]], op, s.ctx().stream()));
  }
  return ops;
}

// The transpose points: per side one input (the pattern) and one output.
std::vector<runtime::Operation> transpose_ops(Sweep<Point>& s,
                                              std::vector<runtime::DeviceBuffer>& bufs,
                                              std::vector<std::size_t>& at) {
  std::vector<runtime::Operation> ops;
  std::uint64_t have = 0;
  for (std::size_t i = 0; i < s.points().size(); ++i) {
    const Point& p = s.points()[i];
    if (p.mode != partitions::kTransposeMode) continue;
    const std::uint64_t bytes = p.n * p.n * 4;
    if (have != p.n) {
      bufs.emplace_back(bytes);
      runtime::fill_pattern_device(bufs.back().get(), bytes, kTransposeSeed, s.ctx().stream());
      bufs.emplace_back(bytes);
      have = p.n;
    }
    TransposeOp t;
    t.n = static_cast<std::uint32_t>(p.n);
    t.diagonal = p.order == partitions::kDiagonal;
    t.in = bufs[bufs.size() - 2].as<float>();
    t.out = bufs.back().as<float>();
    ops.push_back(transpose_operation(t, s.ctx().stream()));
    at.push_back(i);
  }
  GP_CUDA(cudaStreamSynchronize(s.ctx().stream()));
  return ops;
}

// One batch: the strides, then the transposes.
PartitionsProbe::Analysis PartitionsProbe::measure(Sweep<Point>& s) {
  std::array<runtime::DeviceBuffer, 2> sbuf;
  std::vector<runtime::DeviceBuffer> tbufs;
  std::vector<std::size_t> at;
  std::vector<StreamOp> made;
  std::vector<runtime::Operation> ops = stream_ops(s, sbuf, at, made);
  const std::size_t strides = ops.size();
  for (runtime::Operation& op : transpose_ops(s, tbufs, at))
    ops.push_back(std::move(op));
  const std::vector<SampleSet> samples = s.ctx().measure_all(ops);
  const double wave = static_cast<double>(s.ctx().device().sm_count) *
                      static_cast<double>(partitions::transpose_blocks_per_sm());
  for (std::size_t k = 0; k < ops.size(); ++k) {
    Row& row = s.add(at[k], samples[k]);
    if (k < strides)
      fill_stream_row(row, made[k].layout);
    else
      row.derived.push_back({partitions::kWaveBlocks, "", wave});
  }
  return [](ProbeResult& r) { partitions::analyse(r); };
}

}  // namespace

std::unique_ptr<Probe> make_partitions_probe() {
  return std::make_unique<PartitionsProbe>();
}

}  // namespace gpuprobe
