// The `bank-conflicts` probe: transpose ladder (copy..swizzled) and shared-memory stride sweep.
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <optional>
#include <tuple>

#include "bank_conflicts_kernels.hpp"
#include "gpuprobe/core/compare.hpp"
#include "gpuprobe/core/errors.hpp"
#include "gpuprobe/core/units.hpp"
#include "gpuprobe/models/bank_conflict_model.hpp"
#include "gpuprobe/probe.hpp"
#include "gpuprobe/runtime/buffers.hpp"
#include "gpuprobe/runtime/clock.hpp"
#include "gpuprobe/runtime/context.hpp"
#include "gpuprobe/runtime/cuda_check.hpp"
#include "gpuprobe/runtime/pattern.hpp"
#include "registry.hpp"

namespace gpuprobe {
namespace {

using bank::SharedOp;
using bank::TransposeKernel;
using models::TileLayout;

constexpr std::uint32_t kMatrixSeed = 0xB4C0u;
constexpr std::uint32_t kStrideSeed = 0x1000u;  // small: stored words never wrap to 0
// Unrolled steps per launch at 4-byte elements (x kStrideUnroll instructions per warp);
// halved for 8 and quartered for 16 bytes, so every width requests the same bytes per launch.
constexpr std::uint32_t kStrideStepsAt4Bytes = 256;
constexpr std::int64_t kMaxSize = 65536;
constexpr std::uint64_t kMaxStride = 65536;
constexpr int kWarpsPerStrideBlock = bank::kStrideThreads / models::kWarpSize;

struct LadderKernel {
  const char* name;
  TransposeKernel kernel;
  std::optional<TileLayout> layout;  // nullopt: no shared memory
};

constexpr LadderKernel kLadder[] = {
    {"copy", TransposeKernel::kCopy, std::nullopt},
    {"naive", TransposeKernel::kNaive, std::nullopt},
    {"tiled", TransposeKernel::kTiled, TileLayout::kPlain},
    {"padded", TransposeKernel::kPadded, TileLayout::kPadded},
    {"swizzled", TransposeKernel::kSwizzled, TileLayout::kSwizzled},
};

const char* op_name(SharedOp op) {
  return op == SharedOp::kLoad ? "load" : "store";
}

struct Settings {
  std::string size = "8192";
  bool ladder = false;         // --ladder given
  bool strides_given = false;  // --strides given (with or without a list)
  std::string strides = "0:33,64";
  std::string widths = "4,8,16";
  std::vector<std::string> ops{"load", "store"};
};

struct Sweep {
  bool ladder = true;
  bool strides = true;
  int size = 8192;
  std::vector<std::uint32_t> stride_list;
  std::vector<int> widths;
  std::vector<SharedOp> ops;
};

Sweep resolve(const Settings& s) {
  Sweep sw;
  sw.ladder = s.ladder || !s.strides_given;
  sw.strides = s.strides_given || !s.ladder;

  std::int64_t n = 0;
  try {
    n = parse_int(s.size);
  } catch (const UsageError& e) {
    throw UsageError(fmt::format("--size: {}", e.what()));
  }
  if (n > kMaxSize)
    throw UsageError(fmt::format("--size: {} is larger than {} (2 x {} GiB matrices)", n, kMaxSize,
                                 kMaxSize * kMaxSize * 4 / (1ll << 30)));
  if (n < models::kTileDim)
    throw UsageError(fmt::format(
        "--size: {} is too small: N must be a positive multiple of 32 (the transpose tile)", n));
  if (n % models::kTileDim != 0) {
    const std::int64_t below = n / models::kTileDim * models::kTileDim;
    const std::int64_t above = below + models::kTileDim;
    throw UsageError(
        fmt::format("--size: {} is not a multiple of 32 (the transpose tile); use e.g. {} or {}", n,
                    below, above));
  }
  sw.size = static_cast<int>(n);

  try {
    for (const std::uint64_t v : parse_list(s.strides, {ListKind::kInt, true, 4096})) {
      if (v > kMaxStride)
        throw UsageError(fmt::format("stride {} is larger than {}", v, kMaxStride));
      sw.stride_list.push_back(static_cast<std::uint32_t>(v));
    }
  } catch (const UsageError& e) {
    throw UsageError(fmt::format("--strides: {}", e.what()));
  }
  try {
    for (const std::uint64_t v : parse_list(s.widths, {ListKind::kInt, false, 16})) {
      if (v != 4 && v != 8 && v != 16)
        throw UsageError(fmt::format("element width {} is not 4, 8 or 16 bytes", v));
      sw.widths.push_back(static_cast<int>(v));
    }
  } catch (const UsageError& e) {
    throw UsageError(fmt::format("--widths: {}", e.what()));
  }
  for (const auto& o : s.ops) {
    std::vector<SharedOp> add;
    if (o == "load")
      add = {SharedOp::kLoad};
    else if (o == "store")
      add = {SharedOp::kStore};
    else if (o == "all")
      add = {SharedOp::kLoad, SharedOp::kStore};
    else
      throw UsageError(fmt::format("--ops: unknown operation '{}' (use load, store or all)", o));
    for (auto x : add) {
      if (std::find(sw.ops.begin(), sw.ops.end(), x) == sw.ops.end()) sw.ops.push_back(x);
    }
  }
  if (sw.ops.empty()) throw UsageError("--ops: give load, store or all");
  return sw;
}

std::vector<Param> ladder_params(const LadderKernel& k, int n) {
  return {{"kernel", std::string(k.name), ""}, {"size", static_cast<std::int64_t>(n), ""}};
}

std::vector<Param> stride_params(SharedOp op, int width, std::uint32_t stride) {
  return {{"op", std::string(op_name(op)), ""},
          {"element_bytes", static_cast<std::int64_t>(width), "B"},
          {"stride", static_cast<std::int64_t>(stride), ""}};
}

// Conflict degree of the tile's shared loads (column reads) and stores (row writes), by the
// model applied to the kernel's own index expression; null for kernels without a tile.
std::vector<Quantity> ladder_model(const LadderKernel& k) {
  if (!k.layout)
    return {{"conflict_ways", "x", std::nullopt},
            {"load_conflict_ways", "x", std::nullopt},
            {"store_conflict_ways", "x", std::nullopt}};
  const auto load = models::predict_tile_access(*k.layout, models::TileAccess::kColumnRead);
  const auto store = models::predict_tile_access(*k.layout, models::TileAccess::kRowWrite);
  return {{"conflict_ways", "x", std::max(load.conflict_ways, store.conflict_ways)},
          {"load_conflict_ways", "x", load.conflict_ways},
          {"store_conflict_ways", "x", store.conflict_ways}};
}

// The model for one stride row, evaluated for the row's op (loads and stores have different
// phases at 8 and 16 bytes; see bank_conflict_model.hpp).
std::vector<Quantity> stride_model(SharedOp op, std::uint32_t stride, int width) {
  const auto p = models::predict_stride_access(stride, width, op);
  const auto base = models::predict_stride_access(1, width, op);
  return {{"conflict_ways", "x", p.conflict_ways},
          {"wavefronts_per_request", "wavefronts", p.wavefronts},
          {"predicted_slowdown", "x", p.wavefronts / base.wavefronts}};
}

std::string join_ints(const std::vector<int>& v) {
  return fmt::format("{}", fmt::join(v, ","));
}

// "faster" / "slower" / "the same within noise" for a ratio of two medians.
// How `b` compares with `a` (bandwidths with their relative noise), by the rule `gpuprobe
// compare` uses between runs, with K = 3.
std::string compare_text(double b, double b_noise, double a, double a_noise) {
  const auto metric = [](double median, double noise) {
    Metric m{"bandwidth", "GB/s", {}};
    m.stats.median = median;
    m.stats.rel_noise = noise;
    return m;
  };
  const MetricComparison c = compare_metric(metric(a, a_noise), metric(b, b_noise), 3.0, {});
  switch (c.verdict) {
    case Verdict::kFaster:
      return "faster";
    case Verdict::kSlower:
      return "slower";
    case Verdict::kSame:
      return "the same within noise";
    default:
      return "not comparable";
  }
}

class BankConflictsProbe final : public Probe {
 public:
  std::string name() const override { return "bank-conflicts"; }
  std::string summary() const override {
    return "shared-memory bank conflicts: transpose ladder (copy, naive, tiled, padded, "
           "swizzled) and stride x element-width sweep, beside an n-way conflict model";
  }

  void add_options(CLI::App& cmd) override {
    cmd.add_option("--size", settings_.size,
                   "transpose matrix size N (N x N fp32, a multiple of 32)")
        ->default_str(settings_.size);
    cmd.add_flag("--ladder", settings_.ladder, "run the transpose ladder (alone unless --strides)");
    cmd.add_option("--strides", settings_.strides,
                   "run the stride sweep (alone unless --ladder) at these strides in elements; "
                   "0 = broadcast (every lane on one element)")
        ->expected(0, 1)
        ->default_str(settings_.strides)
        ->each([this](const std::string&) { settings_.strides_given = true; });
    cmd.add_option("--widths", settings_.widths, "stride sweep element widths: 4, 8, 16 bytes")
        ->default_str(settings_.widths);
    cmd.add_option("--ops", settings_.ops, "stride sweep operations: load, store, all")
        ->delimiter(',')
        ->default_str("load,store");
    // Keep whatever footer the CLI set (exit codes) below this probe's note.
    const std::string footer = cmd.get_footer();
    cmd.footer(
        "With neither --ladder nor --strides, both parts run. --strides without a list uses "
        "0:33,64." +
        (footer.empty() ? std::string() : "\n\n" + footer));
  }

  void use_quick_defaults() override {
    settings_.size = "8192";
    settings_.strides = "0,1,2,4,8,16,32,33";
    settings_.widths = "4,8,16";
    settings_.ops = {"load", "store"};
  }
  void validate() const override { resolve(settings_); }

  ProbeResult plan() const override {
    const Sweep sw = resolve(settings_);
    ProbeResult r = skeleton(sw);
    r.status = Status::kPlanned;
    if (sw.ladder) {
      for (const auto& k : kLadder)
        r.rows.push_back({ladder_params(k, sw.size), {}, {}, ladder_model(k), {}, {}});
    }
    if (sw.strides) {
      for (auto op : sw.ops)
        for (int w : sw.widths)
          for (auto s : sw.stride_list)
            r.rows.push_back({stride_params(op, w, s), {}, {}, stride_model(op, s, w), {}, {}});
    }
    return r;
  }

  ProbeResult run(runtime::ProbeContext& ctx) override;

 private:
  ProbeResult skeleton(const Sweep& sw) const {
    ProbeResult r;
    r.probe = name();
    std::string method;
    if (sw.ladder)
      method +=
          "ladder: N x N fp32, 32x32 tiles moved by 32x8 thread blocks (4 elements per thread), "
          "batches timed with CUDA events, bandwidth = 2*N*N*4 B (read + write) / time, every "
          "output element checked on the device";
    if (sw.ladder && sw.strides) method += "; ";
    if (sw.strides)
      method +=
          "strides: one wave of blocks filling every SM loops over warp-wide shared loads or "
          "stores, time = kernel time / warp shared instructions per SM, bandwidth = 32 lanes x "
          "element bytes per instruction / time";
    method += "; GB/s = 1e9 B/s";
    r.method = method;
    std::vector<std::string> parts;
    if (sw.ladder) parts.emplace_back("ladder");
    if (sw.strides) parts.emplace_back("strides");
    std::vector<std::string> ops;
    for (auto op : sw.ops)
      ops.emplace_back(op_name(op));
    r.params = {{"parts", fmt::format("{}", fmt::join(parts, ",")), ""}};
    if (sw.ladder) r.params.push_back({"size", static_cast<std::int64_t>(sw.size), ""});
    if (sw.strides) {
      r.params.push_back({"strides", settings_.strides, ""});
      r.params.push_back({"widths", join_ints(sw.widths), ""});
      r.params.push_back({"ops", fmt::format("{}", fmt::join(ops, ",")), ""});
    }
    return r;
  }

  void run_ladder(runtime::ProbeContext& ctx, const Sweep& sw, ProbeResult& result,
                  std::size_t& done, std::size_t total);
  void run_strides(runtime::ProbeContext& ctx, const Sweep& sw, ProbeResult& result,
                   std::size_t& done, std::size_t total);

  Settings settings_;
};

struct LadderPoint {
  double bandwidth = 0;  // median GB/s
  double noise = 0;      // rel_noise of the bandwidth samples
  double min = 0;        // slowest and fastest sample, GB/s
  double max = 0;
  std::size_t samples = 0;
};

void BankConflictsProbe::run_ladder(runtime::ProbeContext& ctx, const Sweep& sw,
                                    ProbeResult& result, std::size_t& done, std::size_t total) {
  const int n = sw.size;
  const std::size_t elements = static_cast<std::size_t>(n) * static_cast<std::size_t>(n);
  const std::size_t bytes = elements * sizeof(float);
  runtime::DeviceBuffer in(bytes);
  runtime::DeviceBuffer out(bytes);
  runtime::fill_pattern_device(in.get(), bytes, kMatrixSeed, ctx.stream());
  GP_CUDA(cudaStreamSynchronize(ctx.stream()));
  const float* in_ptr = in.as<const float>();
  float* out_ptr = out.as<float>();
  const cudaStream_t check_stream = ctx.stream();

  auto make_operation = [=](const LadderKernel& k, const std::string& label) {
    runtime::Operation op;
    op.label = label;
    const TransposeKernel kernel = k.kernel;
    // Poison: the pattern never has a zero word, so an element not written cannot pass.
    op.prepare = [=](cudaStream_t s) { GP_CUDA(cudaMemsetAsync(out_ptr, 0, bytes, s)); };
    op.lanes.push_back({k.name, 2.0 * static_cast<double>(bytes), [=](cudaStream_t s) {
                          bank::launch_transpose(kernel, in_ptr, out_ptr, n, s);
                        }});
    op.verify = [=]() -> std::string {
      const bool copy = kernel == TransposeKernel::kCopy;
      const std::uint64_t bad =
          copy ? runtime::count_mismatches_device(out_ptr, bytes, kMatrixSeed, check_stream)
               : bank::count_transpose_mismatches(out_ptr, n, kMatrixSeed, check_stream);
      if (bad == 0) return "";
      return fmt::format("{} of {} elements differ from the {}", bad, elements,
                         copy ? "input" : "transposed input");
    };
    return op;
  };

  std::map<std::string, LadderPoint> points;
  const std::size_t first_row = result.rows.size();
  for (const auto& k : kLadder) {
    const runtime::Operation op = make_operation(k, fmt::format("{} {}x{}", k.name, n, n));
    ctx.progress(done++, total, op.label);
    const SampleSet samples = ctx.measure(op);
    Row row;
    row.params = ladder_params(k, n);
    row.metrics.push_back(bandwidth_metric(samples.seconds, samples.total_bytes()));
    row.metrics.push_back(time_metric(samples));
    row.model = ladder_model(k);
    row.flags = samples.flags;
    const auto& bw = row.metrics[0].stats;
    points[k.name] = {bw.median, bw.rel_noise, bw.min, bw.max, bw.n};
    result.rows.push_back(std::move(row));
  }

  // copy once more, after the other four: the baseline of every ratio is measured first, so
  // this shows whether it moved while the ladder ran (a transient or an order effect) or not.
  const LadderKernel& copy_entry = kLadder[0];
  const runtime::Operation repeat =
      make_operation(copy_entry, fmt::format("{} {}x{} (again)", copy_entry.name, n, n));
  ctx.progress(done++, total, repeat.label);
  const SampleSet repeat_samples = ctx.measure(repeat);
  const Metric repeat_bw = bandwidth_metric(repeat_samples.seconds, repeat_samples.total_bytes());

  const LadderPoint copy = points["copy"];
  for (std::size_t i = first_row; i < result.rows.size(); ++i) {
    Row& row = result.rows[i];
    const double bw = row.metrics[0].stats.median;
    row.derived.push_back({"relative_to_copy", "x", bw / copy.bandwidth});
  }

  const LadderPoint naive = points["naive"];
  const LadderPoint tiled = points["tiled"];
  const LadderPoint padded = points["padded"];
  const LadderPoint swizzled = points["swizzled"];
  const std::pair<const char*, double> ratios[] = {
      {"padded ÷ tiled", padded.bandwidth / tiled.bandwidth},
      {"padded ÷ copy", padded.bandwidth / copy.bandwidth},
      {"swizzled ÷ padded", swizzled.bandwidth / padded.bandwidth},
      {"tiled ÷ copy", tiled.bandwidth / copy.bandwidth},
      {"naive ÷ copy", naive.bandwidth / copy.bandwidth},
  };
  for (const auto& [label, ratio] : ratios) {
    SummaryRow s;
    s.params = {{"comparison", std::string(label), ""}, {"size", static_cast<std::int64_t>(n), ""}};
    s.values = {{"bandwidth_ratio", "x", ratio}};
    result.summary.push_back(std::move(s));
  }

  const auto tiled_load =
      models::predict_tile_access(TileLayout::kPlain, models::TileAccess::kColumnRead);
  const auto padded_load =
      models::predict_tile_access(TileLayout::kPadded, models::TileAccess::kColumnRead);
  result.verdict.push_back(fmt::format(
      "padded [32][33]: {:.0f} GB/s = {:.0f}% of copy ({:.0f} GB/s); tiled [32][32]: {:.0f} GB/s "
      "= {:.0f}% of copy; padded is {:.2f}x tiled, {} (model: column reads {:.0f}-way -> "
      "{:.0f}-way)",
      padded.bandwidth, 100 * padded.bandwidth / copy.bandwidth, copy.bandwidth, tiled.bandwidth,
      100 * tiled.bandwidth / copy.bandwidth, padded.bandwidth / tiled.bandwidth,
      compare_text(padded.bandwidth, padded.noise, tiled.bandwidth, tiled.noise),
      tiled_load.conflict_ways, padded_load.conflict_ways));
  result.verdict.push_back(fmt::format(
      "swizzled (XOR, no padding): {:.0f} GB/s = {:.3f}x padded, {}", swizzled.bandwidth,
      swizzled.bandwidth / padded.bandwidth,
      compare_text(swizzled.bandwidth, swizzled.noise, padded.bandwidth, padded.noise)));
  const double naive_rel = naive.bandwidth / copy.bandwidth;
  const double tiled_rel = tiled.bandwidth / copy.bandwidth;
  const bool same = std::fabs(naive_rel - 1) <= 0.1 && std::fabs(tiled_rel - 1) <= 0.1;
  result.verdict.push_back(
      fmt::format("source claim \"the first three (copy, naive, tiled) are basically the "
                  "same\": naive {:.0f}%, tiled {:.0f}% of copy — {} on this GPU (measured, "
                  "+-10% band)",
                  100 * naive_rel, 100 * tiled_rel, same ? "holds" : "does not hold"));

  // copy is the baseline of every ratio above: say when and how it was measured, with its
  // sample count and spread (noise within this run only; docs/probes/bank-conflicts.md: copy
  // has differed between runs on one H100 by far more), and the repeat at the end.
  const double repeat_ratio = repeat_bw.stats.median / copy.bandwidth;
  result.notes.push_back(fmt::format(
      "ladder: kernels measured one after another in the order copy, naive, tiled, padded, "
      "swizzled, then copy again (each after its own warm-up batch); copy, the baseline of "
      "relative_to_copy and of the ratios: {} samples, {:.0f}-{:.0f} GB/s (noise within this "
      "run, not the variation between runs); copy again at the end: {} samples, median {:.0f} "
      "GB/s = {:.3f}x the first, {}",
      copy.samples, copy.min, copy.max, repeat_bw.stats.n, repeat_bw.stats.median, repeat_ratio,
      compare_text(repeat_bw.stats.median, repeat_bw.stats.rel_noise, copy.bandwidth, copy.noise)));
  const std::pair<const char*, LadderPoint> tiles[] = {{"padded", padded}, {"swizzled", swizzled}};
  for (const auto& [label, point] : tiles) {
    const double ratio = point.bandwidth / copy.bandwidth;
    if (compare_text(point.bandwidth, point.noise, copy.bandwidth, copy.noise) == "faster")
      result.notes.push_back(fmt::format(
          "ladder: {} ran at {:.2f}x copy, beyond the noise of both: in this run copy is not "
          "an upper bound for the transposes, so relative_to_copy is not a fraction of a "
          "roofline here",
          label, ratio));
  }

  const double working_set = 2.0 * static_cast<double>(bytes);
  const double l2 = static_cast<double>(ctx.device().l2_bytes);
  if (l2 > 0) {
    result.conditions.push_back({"working_set_over_l2", "x", working_set / l2});
    if (working_set < 4 * l2)
      result.notes.push_back(fmt::format(
          "ladder: the two matrices ({}) are not much larger than L2 ({}): copy and transposes "
          "may partly run from L2; use --size 8192 or more for DRAM behaviour",
          format_bytes(working_set), format_bytes(l2)));
  }
}

struct StridePoint {
  SharedOp op;
  int width;
  std::uint32_t stride;
  double time = 0;      // median seconds per instruction per SM
  double noise = 0;     // rel_noise of time
  double launch = 0;    // median seconds per launch
  std::size_t row = 0;  // index in result.rows
};

void BankConflictsProbe::run_strides(runtime::ProbeContext& ctx, const Sweep& sw,
                                     ProbeResult& result, std::size_t& done, std::size_t total) {
  const DeviceInfo& dev = ctx.device();
  const int sms = std::max(dev.sm_count, 1);
  const cudaStream_t check_stream = ctx.stream();
  const double clock_before_mhz = runtime::sample_sm_clock_mhz(ctx.stream());

  std::vector<StridePoint> points;
  std::vector<std::string> shapes;
  for (auto op : sw.ops) {
    for (int w : sw.widths) {
      const int per_sm = bank::stride_blocks_per_sm(op, w);
      const int blocks = sms * per_sm;
      const std::uint32_t steps = kStrideStepsAt4Bytes * 4 / static_cast<std::uint32_t>(w);
      const double per_warp = static_cast<double>(steps) * bank::kStrideUnroll;
      const double per_sm_instructions = per_sm * kWarpsPerStrideBlock * per_warp;
      const double requested_bytes =
          sms * per_sm_instructions * models::kWarpSize * static_cast<double>(w);
      shapes.push_back(fmt::format("{} B {}: {} blocks ({}/SM) x {} instructions per warp", w,
                                   op_name(op), blocks, per_sm, per_warp));
      const std::size_t out_words = static_cast<std::size_t>(blocks) * bank::kStrideThreads;
      runtime::DeviceBuffer out(out_words * sizeof(std::uint32_t));
      auto* out_ptr = out.as<std::uint32_t>();

      for (const std::uint32_t stride : sw.stride_list) {
        runtime::Operation operation;
        operation.label = fmt::format("{} B {} stride {}", w, op_name(op), stride);
        operation.prepare = [=](cudaStream_t s) {
          GP_CUDA(cudaMemsetAsync(out_ptr, 0, out_words * sizeof(std::uint32_t), s));
        };
        operation.lanes.push_back({operation.label, requested_bytes, [=](cudaStream_t s) {
                                     bank::launch_shared_stride(op, w, stride, steps, kStrideSeed,
                                                                blocks, out_ptr, s);
                                   }});
        operation.verify = [=]() -> std::string {
          std::vector<std::uint32_t> expected(models::kWarpSize);
          for (std::uint32_t lane = 0; lane < expected.size(); ++lane)
            expected[lane] = bank::expected_stride_output(op, w, stride, steps, kStrideSeed, lane);
          std::vector<std::uint32_t> got(out_words);
          GP_CUDA(cudaMemcpyAsync(got.data(), out_ptr, out_words * sizeof(std::uint32_t),
                                  cudaMemcpyDeviceToHost, check_stream));
          GP_CUDA(cudaStreamSynchronize(check_stream));
          std::size_t bad = 0;
          for (std::size_t t = 0; t < out_words; ++t)
            bad += got[t] != expected[t % models::kWarpSize];
          if (bad == 0) return "";
          return fmt::format(
              "{} of {} threads returned a wrong {}", bad, out_words,
              op == SharedOp::kLoad ? "sum of the words read" : "read-back of the words stored");
        };
        ctx.progress(done++, total, operation.label);
        const SampleSet samples = ctx.measure(operation);
        std::vector<double> per_instruction;
        per_instruction.reserve(samples.seconds.size());
        for (const double s : samples.seconds)
          per_instruction.push_back(s / per_sm_instructions);
        Row row;
        row.params = stride_params(op, w, stride);
        row.metrics.push_back(bandwidth_metric(samples.seconds, samples.total_bytes()));
        row.metrics.push_back({"time", "s", statistics_of(per_instruction)});
        row.model = stride_model(op, stride, w);
        row.flags = samples.flags;
        StridePoint p{op, w, stride};
        p.time = row.metrics[1].stats.median;
        p.noise = row.metrics[1].stats.rel_noise;
        p.launch = statistics_of(samples.seconds).median;
        p.row = result.rows.size();
        points.push_back(p);
        result.rows.push_back(std::move(row));
      }
    }
  }
  const double clock_after_mhz = runtime::sample_sm_clock_mhz(ctx.stream());
  double clock_mhz = (clock_before_mhz + clock_after_mhz) / 2;
  if (!(clock_before_mhz > 0 && clock_after_mhz > 0))
    clock_mhz = static_cast<double>(dev.sm_clock_khz) / 1e3;
  result.conditions.push_back({"stride_sweep_sm_clock", "MHz", clock_mhz});

  // Derived: slowdown against stride 1 of the same op and width; SM cycles per instruction.
  auto find = [&](SharedOp op, int w, std::uint32_t s) -> const StridePoint* {
    for (const auto& p : points) {
      if (p.op == op && p.width == w && p.stride == s) return &p;
    }
    return nullptr;
  };
  for (const auto& p : points) {
    const StridePoint* base = find(p.op, p.width, 1);
    Row& row = result.rows[p.row];
    row.derived.push_back(
        {"slowdown", "x", base ? std::optional<double>(p.time / base->time) : std::nullopt});
    row.derived.push_back(
        {"cycles_per_request", "cycles",
         clock_mhz > 0 ? std::optional<double>(p.time * clock_mhz * 1e6) : std::nullopt});
  }

  // Summary per (op, width), and how far the measured slowdowns are from the model.
  std::size_t compared = 0, within = 0;
  struct Miss {
    double off;
    std::string text;
  };
  std::vector<Miss> misses;
  for (auto op : sw.ops) {
    std::vector<std::string> parts;
    for (int w : sw.widths) {
      const StridePoint* base = find(op, w, 1);
      SummaryRow s;
      s.params = {{"op", std::string(op_name(op)), ""},
                  {"element_bytes", static_cast<std::int64_t>(w), "B"}};
      if (!base) {
        s.values = {{"stride1_bandwidth", "GB/s", std::nullopt}};
        result.summary.push_back(std::move(s));
        continue;
      }
      double max_slow = 0, max_model = 0, odd_lo = 0, odd_hi = 0;
      bool any_odd = false;
      std::vector<std::string> items;
      for (const auto& p : points) {
        if (p.op != op || p.width != w) continue;
        const double slow = p.time / base->time;
        const auto pred = models::predict_stride_access(p.stride, w, op);
        const double model = pred.wavefronts / models::predict_stride_access(1, w, op).wavefronts;
        max_slow = std::max(max_slow, slow);
        max_model = std::max(max_model, model);
        if (p.stride != 1) {
          ++compared;
          const double off = std::fabs(slow / model - 1);
          if (off <= 0.1)
            ++within;
          else
            misses.push_back({off, fmt::format("{} B {} stride {}: {:.2f}x vs {:g}x", w,
                                               op_name(op), p.stride, slow, model)});
        }
        if (p.stride % 2 == 1 && p.stride > 1) {
          odd_lo = any_odd ? std::min(odd_lo, slow) : slow;
          odd_hi = any_odd ? std::max(odd_hi, slow) : slow;
          any_odd = true;
        } else if (p.stride == 0 || p.stride == 2 || p.stride == 32) {
          items.push_back(
              fmt::format("{} {:.2f}x ({:g})",
                          p.stride == 0 ? std::string("broadcast") : fmt::format("s{}", p.stride),
                          slow, model));
        }
      }
      if (any_odd)
        items.push_back(odd_lo == odd_hi ? fmt::format("odd {:.2f}x (1)", odd_lo)
                                         : fmt::format("odd {:.2f}-{:.2f}x (1)", odd_lo, odd_hi));
      if (!items.empty()) parts.push_back(fmt::format("{} B: {}", w, fmt::join(items, ", ")));
      const Row& base_row = result.rows[base->row];
      s.values = {
          {"stride1_bandwidth", "GB/s", base_row.metrics[0].stats.median},
          {"stride1_cycles_per_request", "cycles",
           clock_mhz > 0 ? std::optional<double>(base->time * clock_mhz * 1e6) : std::nullopt},
          {"max_slowdown", "x", max_slow},
          {"model_max_slowdown", "x", max_model}};
      result.summary.push_back(std::move(s));
    }
    if (!parts.empty())
      result.verdict.push_back(fmt::format("{}s, slowdown vs stride 1 measured (model): {}",
                                           op_name(op), fmt::join(parts, "; ")));
  }
  if (compared > 0) {
    std::sort(misses.begin(), misses.end(),
              [](const Miss& a, const Miss& b) { return a.off > b.off; });
    std::string worst;
    for (std::size_t i = 0; i < misses.size() && i < 3; ++i)
      worst += (i ? "; " : "") + misses[i].text;
    result.verdict.push_back(fmt::format(
        "stride sweep: measured slowdown within 10% of the model on {} of {} rows{}", within,
        compared, worst.empty() ? std::string() : fmt::format(" (furthest: {})", worst)));
  } else {
    result.notes.push_back("stride sweep: no stride 1 in --strides, so no slowdown is derived");
  }

  result.notes.push_back(fmt::format("stride kernels, one wave on {} SMs, {} threads per block: {}",
                                     sms, bank::kStrideThreads, fmt::join(shapes, "; ")));
  std::vector<std::string> launches;
  for (const auto& p : points) {
    if (p.stride == 1)
      launches.push_back(
          fmt::format("{} B {} {}", p.width, op_name(p.op), format_seconds(p.launch)));
  }
  if (!launches.empty())
    result.notes.push_back(
        fmt::format("kernel time per launch at stride 1: {}", fmt::join(launches, ", ")));
  result.notes.push_back(fmt::format(
      "cycles_per_request = time x the SM clock sampled in-kernel around the sweep ({:.0f} MHz); "
      "the model expects 1 cycle per wavefront (32 banks x 4 B per clock per SM)",
      clock_mhz));
  result.notes.push_back(
      "bank-conflict counters (l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{ld,st}, "
      "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{ld,st}) are not collected yet: compare "
      "model wavefronts_per_request with them in Nsight Compute");
}

ProbeResult BankConflictsProbe::run(runtime::ProbeContext& ctx) {
  const Sweep sw = resolve(settings_);
  ProbeResult result = skeleton(sw);
  const std::size_t total =
      (sw.ladder ? std::size(kLadder) + 1 : 0) +  // + copy again at the end
      (sw.strides ? sw.ops.size() * sw.widths.size() * sw.stride_list.size() : 0);
  std::size_t done = 0;
  if (sw.ladder) run_ladder(ctx, sw, result, done, total);
  if (sw.strides) run_strides(ctx, sw, result, done, total);
  return result;
}

}  // namespace

std::unique_ptr<Probe> make_bank_conflicts_probe() {
  return std::make_unique<BankConflictsProbe>();
}

}  // namespace gpuprobe
