// The `bank-conflicts` probe: transpose ladder (copy..swizzled) and shared-memory stride sweep.
// Axes, sizing and operations here; ratios, slowdowns and findings in analysis.cpp (host-only).
#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "analysis.hpp"
#include "gpuprobe/core/errors.hpp"
#include "gpuprobe/runtime/buffers.hpp"
#include "gpuprobe/runtime/clock.hpp"
#include "gpuprobe/runtime/context.hpp"
#include "gpuprobe/runtime/cuda_check.hpp"
#include "gpuprobe/runtime/pattern.hpp"
#include "gpuprobe/sweep_probe.hpp"
#include "kernels.hpp"
#include "registry.hpp"

namespace gpuprobe {
namespace {

using bank::SharedOp;
using bank::TransposeKernel;

constexpr std::uint32_t kMatrixSeed = 0xB4C0u;
constexpr std::uint32_t kStrideSeed = 0x1000u;  // small: stored words never wrap to 0
// Unrolled steps per launch at 4-byte elements (x kStrideUnroll instructions per warp);
// halved for 8 and quartered for 16 bytes, so every width requests the same bytes per launch.
constexpr std::uint32_t kStrideStepsAt4Bytes = 256;
constexpr std::uint64_t kMaxSize = 65536;  // 2 x 16 GiB matrices
constexpr std::uint64_t kMaxStride = 65536;
constexpr int kWarpsPerStrideBlock = bank::kStrideThreads / models::kWarpSize;

// The ladder's kernels, in bank::kLadderKernels order.
constexpr TransposeKernel kLadder[] = {TransposeKernel::kCopy, TransposeKernel::kNaive,
                                       TransposeKernel::kTiled, TransposeKernel::kPadded,
                                       TransposeKernel::kSwizzled};

SharedOp op_of(const std::string& op) {
  return op == "load" ? SharedOp::kLoad : SharedOp::kStore;
}

// The parts that run: --parts when given; else --ladder and/or --strides LIST; else both.
struct Parts {
  bool ladder = true;
  bool strides = true;
};

Parts parts_of(const AxisValues& v) {
  if (v.given("parts")) return {v.has_choice("parts", "ladder"), v.has_choice("parts", "strides")};
  if (v.on("ladder") || v.given("strides")) return {v.on("ladder"), v.given("strides")};
  return {};
}

// A point: a ladder kernel at the matrix size, or a stride sweep's (op, width, stride).
struct Point {
  const char* kernel = nullptr;  // the ladder's (bank::kLadderKernels); null: the stride sweep
  std::uint64_t size = 0;
  std::string op;
  std::uint64_t width = 0;
  std::uint64_t stride = 0;
};

// The ladder's kernels, then per op and width the strides.
std::vector<Point> sweep_points(const AxisValues& v) {
  const Parts parts = parts_of(v);
  std::vector<Point> out;
  for (std::size_t i = 0; parts.ladder && i < std::size(bank::kLadderKernels); ++i)
    out.push_back({bank::kLadderKernels[i], v.number("size"), "", 0, 0});
  if (!parts.strides) return out;
  for (const auto& op : v.choices("ops"))
    for (auto w : v.list("widths"))
      for (auto s : v.list("strides"))
        out.push_back({nullptr, 0, op, w, s});
  return out;
}

// A point's params and model, without metrics (what --plan shows).
Row planned_row(const Point& p) {
  Row row;
  if (p.kernel) {
    row.params = {{"kernel", std::string(p.kernel), ""},
                  {"size", static_cast<std::int64_t>(p.size), ""}};
    row.model = bank::ladder_model(p.kernel);
    return row;
  }
  row.params = {{"op", p.op, ""},
                {"element_bytes", static_cast<std::int64_t>(p.width), "B"},
                {"stride", static_cast<std::int64_t>(p.stride), ""}};
  row.model = bank::stride_model(p.op, p.stride, static_cast<int>(p.width));
  return row;
}

class BankConflictsProbe final : public SweepProbe<Point> {
 public:
  std::string name() const override { return "bank-conflicts"; }
  std::string description() const override {
    return "shared-memory bank conflicts: transpose ladder (copy, naive, tiled, padded, "
           "swizzled) and stride x element-width sweep, beside an n-way conflict model";
  }

  std::vector<Axis> axes() const override {
    Axis size = number_axis("size", "transpose matrix size N (N x N fp32, a multiple of 32)",
                            "8192", "8192");
    size.max = kMaxSize;
    size.validate = [](std::uint64_t n) -> std::string {
      if (n < models::kTileDim)
        return fmt::format(
            "{} is too small: N must be a positive multiple of 32 (the transpose tile)", n);
      if (n % models::kTileDim == 0) return "";
      const std::uint64_t below = n / models::kTileDim * models::kTileDim;
      return fmt::format("{} is not a multiple of 32 (the transpose tile); use e.g. {} or {}", n,
                         below, below + models::kTileDim);
    };
    Axis strides = list_axis("strides",
                             "stride sweep strides in elements (list or range, e.g. 1,2,4 or "
                             "0:33); 0 = broadcast (every lane on one element); given alone, only "
                             "the stride sweep runs",
                             "0:33,64", "0,1,2,4,8,16,32,33");
    strides.unit = "elements";
    strides.max = kMaxStride;
    Axis widths = list_axis("widths", "stride sweep element widths: 4, 8, 16 bytes", "4,8,16");
    widths.unit = "B";
    widths.max_items = 16;
    widths.validate = [](std::uint64_t w) {
      return w == 4 || w == 8 || w == 16
                 ? std::string()
                 : fmt::format("element width {} is not 4, 8 or 16 bytes", w);
    };
    return {choice_axis("parts", "parts to run", {"ladder", "strides"}, "all"),
            switch_axis("ladder", "run the transpose ladder (alone unless --strides is given)"),
            size,
            strides,
            widths,
            choice_axis("ops", "stride sweep operations", {"load", "store"}, "all")};
  }

  std::string memory_flags() const override { return "--size"; }
  std::string help_footer() const override {
    return "Parts: --parts ladder,strides picks them; without --parts, --ladder runs the ladder "
           "and --strides LIST the stride sweep (both when both are given); with none of the "
           "three, both parts run. --strides needs a list: for the stride sweep alone at the "
           "default strides use --parts strides.";
  }

  void validate(const AxisValues& v) const override {
    if (!v.given("parts")) return;
    if (v.on("ladder") && !v.has_choice("parts", "ladder"))
      throw UsageError(fmt::format("--ladder: --parts {} leaves the ladder out; give one of them",
                                   v.text("parts")));
    if (v.given("strides") && !v.has_choice("parts", "strides"))
      throw UsageError(
          fmt::format("--strides: --parts {} leaves the stride sweep out; add strides to --parts",
                      v.text("parts")));
  }

  void add_words(Glossary& glossary) const override { bank::add_words(glossary); }

  // Shared load/store instructions, the wavefronts they took and the bank conflicts counted
  // (wavefronts beyond the minimum). 1 replay pass on GH100.
  std::vector<std::string> counter_metrics() const override {
    return metric_names(bank::kCounterMetrics);
  }

  std::vector<Point> points(const AxisValues& v) const override { return sweep_points(v); }
  Row row(const Point& p) const override { return planned_row(p); }
  Analysis measure(Sweep<Point>& s) override;

  std::string method(const AxisValues& v) const override {
    const Parts parts = parts_of(v);
    std::vector<std::string> method;
    if (parts.ladder)
      method.emplace_back(
          "ladder: N x N fp32, 32x32 tiles moved by 32x8 thread blocks (4 elements per thread), "
          "batches timed with CUDA events, bandwidth = 2*N*N*4 B (read + write) / time, every "
          "output element checked on the device");
    if (parts.strides)
      method.emplace_back(
          "strides: one wave of blocks filling every SM loops over warp-wide shared loads or "
          "stores, time_per_instruction = kernel time / warp shared instructions per SM, "
          "bandwidth = 32 lanes x element bytes per instruction / time");
    method.emplace_back("GB/s = 1e9 B/s");
    return fmt::format("{}", fmt::join(method, "; "));
  }

 private:
  static void run_ladder(Sweep<Point>& s, bank::Inputs& in);
  static void run_strides(Sweep<Point>& s, bank::Inputs& in);
};

// The ladder's points (the sweep's first), then copy once more: see below.
void BankConflictsProbe::run_ladder(Sweep<Point>& sw, bank::Inputs& in) {
  runtime::ProbeContext& ctx = sw.ctx();
  const std::uint64_t size = sw.values().number("size");
  const int n = static_cast<int>(size);
  const std::size_t elements = static_cast<std::size_t>(size) * static_cast<std::size_t>(size);
  const std::size_t bytes = elements * sizeof(float);
  runtime::DeviceBuffer in_buf(bytes);
  runtime::DeviceBuffer out_buf(bytes);
  runtime::fill_pattern_device(in_buf.get(), bytes, kMatrixSeed, ctx.stream());
  GP_CUDA(cudaStreamSynchronize(ctx.stream()));
  const float* in_ptr = in_buf.as<const float>();
  float* out_ptr = out_buf.as<float>();
  const cudaStream_t verify_stream = ctx.stream();

  auto make_operation = [=](std::size_t i, const std::string& label) {
    runtime::Operation op;
    op.label = label;
    const TransposeKernel kernel = kLadder[i];
    // Poisoned before each round (pattern words are never 0): an element not written cannot pass.
    const runtime::PatternBuffer output{"", out_ptr, bytes, kMatrixSeed};
    op.prepare = [=](cudaStream_t s) { output.poison(s); };
    op.lanes.push_back(
        {bank::kLadderKernels[i], 2.0 * static_cast<double>(bytes), [=](runtime::LaunchScope& s) {
           bank::launch_transpose(kernel, in_ptr, out_ptr, n, s.stream());
         }});
    op.verify = [=]() {
      if (kernel == TransposeKernel::kCopy) return output.verify(verify_stream);
      return mismatch_text("transpose",
                           bank::verify_transpose(out_ptr, n, kMatrixSeed, verify_stream), elements,
                           "elements");
    };
    return op;
  };

  std::vector<runtime::Operation> ops;
  for (std::size_t i = 0; i < std::size(kLadder); ++i)
    ops.push_back(make_operation(i, fmt::format("{} {}x{}", bank::kLadderKernels[i], n, n)));
  // copy once more, after the other four: the baseline of every ratio is measured first, so
  // this shows whether it moved while the ladder ran (a transient or an order effect) or not.
  ops.push_back(make_operation(0, fmt::format("copy {}x{} (again)", n, n)));
  const std::vector<SampleSet> measured = ctx.measure_all(ops);
  for (std::size_t i = 0; i < std::size(kLadder); ++i)
    sw.add(i, measured[i]);
  in.copy_repeat = bandwidth_metric(measured.back());
}

// The stride sweep's points (after the ladder's), one batch per (op, width).
void BankConflictsProbe::run_strides(Sweep<Point>& sw, bank::Inputs& in) {
  runtime::ProbeContext& ctx = sw.ctx();
  const AxisValues& v = sw.values();
  std::size_t point = parts_of(v).ladder ? std::size(kLadder) : 0;
  const int sms = std::max(ctx.device().sm_count, 1);
  const cudaStream_t verify_stream = ctx.stream();
  in.sweep_clock_before_mhz = runtime::sample_sm_clock_mhz(ctx.stream());
  for (const auto& op_name : v.choices("ops")) {
    const SharedOp op = op_of(op_name);
    for (const auto width : v.list("widths")) {
      const int w = static_cast<int>(width);
      const int per_sm = bank::stride_blocks_per_sm(op, w);
      const int blocks = sms * per_sm;
      const std::uint32_t steps = kStrideStepsAt4Bytes * 4 / static_cast<std::uint32_t>(w);
      const double per_warp = static_cast<double>(steps) * bank::kStrideUnroll;
      const double per_sm_instructions = per_sm * kWarpsPerStrideBlock * per_warp;
      const double requested_bytes =
          sms * per_sm_instructions * models::kWarpSize * static_cast<double>(w);
      in.shapes.push_back({op_name, w, per_sm, bank::kStrideThreads, per_warp});
      const std::size_t out_words = static_cast<std::size_t>(blocks) * bank::kStrideThreads;
      runtime::DeviceBuffer out(out_words * sizeof(std::uint32_t));
      auto* out_ptr = out.as<std::uint32_t>();

      std::vector<runtime::Operation> ops;  // one per stride, sharing `out`
      for (const auto stride64 : v.list("strides")) {
        const auto stride = static_cast<std::uint32_t>(stride64);
        runtime::Operation operation;
        operation.label = fmt::format("{} B {} stride {}", w, op_name, stride);
        operation.prepare = [=](cudaStream_t s) {
          GP_CUDA(cudaMemsetAsync(out_ptr, 0, out_words * sizeof(std::uint32_t), s));
        };
        operation.lanes.push_back({operation.label, requested_bytes, [=](runtime::LaunchScope& s) {
                                     bank::launch_shared_stride(op, w, stride, steps, kStrideSeed,
                                                                blocks, out_ptr, s.stream());
                                   }});
        operation.verify = [=]() {
          return mismatch_text(
              op == SharedOp::kLoad ? "sums of the words read" : "read-backs of the words stored",
              bank::verify_stride_output(op, w, stride, steps, kStrideSeed, out_ptr, out_words,
                                         verify_stream),
              out_words, "threads");
        };
        ops.push_back(std::move(operation));
      }
      const std::vector<SampleSet> measured = ctx.measure_all(ops);
      for (const SampleSet& samples : measured) {
        Row& row = sw.add(point++, samples);
        // Per instruction instead of per repetition: replaces measured_row's "time".
        row.metrics.back() = mapped_metric(samples, samples.seconds, "time_per_instruction", "s",
                                           [=](double t) { return t / per_sm_instructions; });
      }
    }
  }
  in.sweep_clock_after_mhz = runtime::sample_sm_clock_mhz(ctx.stream());
}

BankConflictsProbe::Analysis BankConflictsProbe::measure(Sweep<Point>& s) {
  const Parts parts = parts_of(s.values());
  const DeviceInfo& dev = s.ctx().device();
  bank::Inputs in;
  in.sm_count = std::max(dev.sm_count, 1);
  in.l2_bytes = static_cast<double>(dev.l2_bytes);
  in.sm_clock_max_mhz = static_cast<double>(dev.sm_clock_khz) / 1e3;
  if (parts.ladder) run_ladder(s, in);
  if (parts.strides) run_strides(s, in);
  return [in](ProbeResult& r) { bank::analyse(r, in); };
}

}  // namespace

std::unique_ptr<Probe> make_bank_conflicts_probe() {
  return std::make_unique<BankConflictsProbe>();
}

}  // namespace gpuprobe
