// The `coalescing` probe: offset and stride copy bandwidth by element width, beside a model of
// sectors and lines per request and DRAM fetch blocks per warp. Axes, sizing and operations
// here; the model columns, ratios, summary and findings in analysis.cpp (host-only).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "analysis.hpp"
#include "gpuprobe/core/errors.hpp"
#include "gpuprobe/core/units.hpp"
#include "gpuprobe/runtime/buffers.hpp"
#include "gpuprobe/runtime/context.hpp"
#include "gpuprobe/runtime/cuda_check.hpp"
#include "gpuprobe/runtime/device.hpp"
#include "gpuprobe/runtime/pattern.hpp"
#include "gpuprobe/sweep_probe.hpp"
#include "kernels.hpp"
#include "registry.hpp"

namespace gpuprobe {
namespace {

using coalescing::baseline_param;
using coalescing::pattern_name;
using models::CopyPattern;

constexpr std::uint32_t kSeed = 0xC0A1E5C3u;
constexpr std::uint64_t kMaxOffset = 65536;        // elements
constexpr std::uint64_t kMaxStride = 65536;        // elements
constexpr std::uint64_t kMaxL2Multiple = 64;       // x L2
constexpr std::uint64_t kElementQuantum = 1024;    // N is a multiple of this
constexpr std::uint64_t kFallbackL2 = 8ull << 20;  // when the driver reports no L2 size

coalescing::CopyKind kernel_kind(CopyPattern p) {
  return p == CopyPattern::kOffset ? coalescing::CopyKind::kOffset : coalescing::CopyKind::kStride;
}

// One sweep point. `baseline` marks a point measured only because the relative bandwidth
// needs it (offset 0 / stride 1 not in the user's list).
struct Point {
  CopyPattern pattern;
  int width;
  std::uint64_t param;
  bool baseline = false;
};

std::vector<int> widths_of(const AxisValues& v) {
  std::vector<int> widths;
  for (auto w : v.list("widths"))
    widths.push_back(static_cast<int>(w));
  return widths;
}

// Offsets before strides; per width, the baseline first when the list lacks it.
std::vector<Point> sweep_points(const AxisValues& v) {
  std::vector<Point> out;
  for (CopyPattern pattern : {CopyPattern::kOffset, CopyPattern::kStride}) {
    if (!v.has_choice("pattern", pattern_name(pattern))) continue;
    const auto& list = v.list(pattern == CopyPattern::kOffset ? "offsets" : "strides");
    for (int w : widths_of(v)) {
      const std::uint64_t base = baseline_param(pattern);
      if (std::find(list.begin(), list.end(), base) == list.end())
        out.push_back({pattern, w, base, true});
      for (auto p : list)
        out.push_back({pattern, w, p, false});
    }
  }
  return out;
}

// A point with its size, decided at run time.
struct Sized {
  Point point;
  std::size_t index = 0;       // of the point in the sweep
  std::uint64_t elements = 0;  // N
  std::uint64_t in_bytes = 0;  // input elements the launch reads from, in bytes
  double working_set_over_l2 = 0;
  bool clamped = false;  // N reduced below the width's default to fit the memory cap
};

class CoalescingProbe final : public SweepProbe<Point> {
 public:
  std::string name() const override { return "coalescing"; }
  std::string description() const override {
    return "global-memory coalescing: offset and stride copies of 4/8/16-byte elements, "
           "bandwidth beside a 32-byte sector model";
  }

  std::vector<Axis> axes() const override {
    Axis offsets =
        list_axis("offsets", "offsets in elements for out[i] = in[i + offset]: list or range",
                  "0:32", "0,1,2,4,8,16,32");
    offsets.unit = "elements";
    offsets.max = kMaxOffset;
    offsets.max_items = 1024;
    Axis strides = list_axis("strides",
                             "strides in elements for out[i] = in[i * stride]; strides whose "
                             "input does not fit the memory cap are dropped",
                             "1:32,64,128,256", "1,2,4,8,16,32");
    strides.unit = "elements";
    strides.min = 1;
    strides.max = kMaxStride;
    strides.max_items = 1024;
    Axis widths = list_axis("widths", "element widths in bytes: 4, 8, 16", "4,8,16");
    widths.unit = "B";
    widths.min = 1;
    widths.max_items = 1024;
    widths.validate = [](std::uint64_t w) {
      return w <= 16 && coalescing::copy_width_supported(static_cast<int>(w))
                 ? std::string()
                 : fmt::format("{}-byte elements are not supported (use 4, 8 or 16)", w);
    };
    Axis l2 = number_axis("l2-multiple",
                          "size each width's copy so that N x element bytes >= this x L2 per "
                          "direction",
                          "8", "4");
    l2.unit = "x";
    l2.min = 1;
    l2.max = kMaxL2Multiple;
    return {offsets, strides, widths,
            choice_axis("pattern", "which sweeps", {"offset", "stride"}, "all"), l2};
  }

  std::string memory_flags() const override { return "--l2-multiple"; }
  std::string help_footer() const override {
    return "Relative bandwidth is to offset 0 / stride 1 of the same width, measured even when "
           "not listed.";
  }

  void add_words(Glossary& glossary) const override { coalescing::add_words(glossary); }

  // Global load/store requests and the sectors they touched (sectors per request), L2 sectors
  // requested by L1, DRAM bytes, useful bytes per sector. 4 replay passes on GH100.
  std::vector<std::string> counter_metrics() const override {
    return metric_names(coalescing::kCounterMetrics);
  }

  std::vector<Point> points(const AxisValues& v) const override { return sweep_points(v); }
  Row row(const Point& p) const override {
    std::vector<std::string> flags;
    if (p.baseline) flags.push_back("baseline");
    return unmeasured_row(coalescing::row_params(p.pattern, p.width, p.param), flags);
  }
  void finish_plan(ProbeResult& r, const AxisValues& v, const std::vector<int>*) const override {
    coalescing::add_model(r, models::kSectorBytes);
    coalescing::add_plan_findings(r, v.number("l2-multiple"));
  }
  Analysis measure(Sweep<Point>& s) override;

  std::string method(const AxisValues& /*values*/) const override {
    return fmt::format(
        "one grid-stride copy kernel per (pattern, element width): SMs x resident blocks of {} "
        "threads, lane l of a warp copies element 32k+l, {} independent elements in flight per "
        "thread, plain global loads/stores (not the read-only path); launches batched, gated "
        "behind a spin kernel and timed with CUDA events, no L2 flush (the working set is many "
        "times the L2); bandwidth counts useful bytes only, 2 x N x element bytes per launch "
        "(read + written); GB/s = 1e9 B/s; every output element checked on the device after "
        "sampling",
        coalescing::kCopyThreads, coalescing::kCopyUnroll);
  }
};

runtime::Operation make_operation(const Sized& s, void* dst, const void* src, int grid,
                                  cudaStream_t verify_stream) {
  const Point p = s.point;
  const coalescing::CopyKind kind = kernel_kind(p.pattern);
  const std::uint64_t n = s.elements;
  const std::uint64_t out_len = n * static_cast<std::uint64_t>(p.width);
  runtime::Operation op;
  op.label = fmt::format("{} {}, {} B", pattern_name(p.pattern), p.param, p.width);
  op.timing = runtime::Timing::kDeviceEvents;
  op.cache = runtime::Cache::kAsLeft;  // the working set is many times the L2
  op.count_write_back = true;          // DRAM writes per launch: the kernel's own (counter pass)
  op.lanes.push_back({"copy", 2.0 * static_cast<double>(out_len), [=](runtime::LaunchScope& l) {
                        coalescing::launch_copy(kind, p.width, dst, src, n, p.param, grid,
                                                l.stream());
                      }});
  // Poisoned before each round (pattern words are never 0): an element skipped cannot pass.
  op.prepare = [=](cudaStream_t st) { GP_CUDA(cudaMemsetAsync(dst, 0, out_len, st)); };
  op.verify = [=]() {
    return mismatch_text(
        "", coalescing::verify_copy(kind, p.width, dst, n, p.param, kSeed, verify_stream),
        out_len / 4, "output words");
  };
  return op;
}

// What the analysis needs from the device: its L2 (or a fallback), the DRAM model's fetch
// block, the peak DRAM estimate; and the L2 multiple asked for.
coalescing::RunFacts run_facts(const DeviceInfo& dev, const AxisValues& values) {
  coalescing::RunFacts facts;
  coalescing::Sizing& z = facts.sizing;
  z.l2_bytes = dev.l2_bytes;
  if (z.l2_bytes == 0) {
    z.l2_bytes = kFallbackL2;
    z.l2_assumed = true;
  }
  z.l2_multiple = values.number("l2-multiple");
  // The DRAM model's fetch block. Optional query: a driver that does not report it gets the
  // sector (32 B) and a note.
  facts.reported_fetch = runtime::l2_fetch_granularity();
  facts.fetch_bytes = models::model_fetch_bytes(facts.reported_fetch.value_or(0));
  facts.peak_dram_gbps = dev.peak_dram_estimate_gbps;
  return facts;
}

// Default N of a width: N x width >= l2_multiple x L2, a multiple of kElementQuantum.
std::uint64_t default_elements(const coalescing::Sizing& z, int w) {
  const auto l2d = static_cast<double>(z.l2_bytes);
  const auto n =
      static_cast<std::uint64_t>(std::ceil(static_cast<double>(z.l2_multiple) * l2d / w));
  return (n + kElementQuantum - 1) / kElementQuantum * kElementQuantum;
}

// The memory cap, each width's default N, and the largest output.
void size_defaults(coalescing::Sizing& z, const std::vector<int>& widths,
                   const runtime::MemoryInfo& memory) {
  z.memory_cap = static_cast<std::uint64_t>(coalescing::kMemoryCapFraction *
                                            static_cast<double>(memory.free_bytes));
  for (int w : widths) {
    z.default_elements.push_back({w, default_elements(z, w)});
    z.out_bytes = std::max(z.out_bytes, default_elements(z, w) * static_cast<std::uint64_t>(w));
  }
}

// The N a stride point that does not fit runs with instead: the largest multiple of
// kElementQuantum whose input span fits `in_cap`; 0 when none does, or when its working set
// would fall below kClampedMinWorkingSet x L2 (then the point is dropped).
std::uint64_t clamped_elements(const Point& p, const coalescing::Sizing& z, std::uint64_t in_cap) {
  const auto w = static_cast<std::uint64_t>(p.width);
  std::uint64_t n = 0;
  if (p.pattern == CopyPattern::kStride && in_cap / w > 0)
    n = ((in_cap / w - 1) / p.param + 1) / kElementQuantum * kElementQuantum;
  if (n == 0) return 0;
  const double ws =
      static_cast<double>(models::copy_touched_bytes(p.pattern, p.width, p.param, n)) /
      static_cast<double>(z.l2_bytes);
  return ws < coalescing::kClampedMinWorkingSet ? 0 : n;
}

// A baseline whose input span does not fit the memory cap ends the run.
[[noreturn]] void throw_too_big(const Sized& s, const coalescing::Sizing& z,
                                const runtime::MemoryInfo& memory) {
  throw RunError(fmt::format(
      "coalescing: {} {}-byte elements ({} in + out) do not fit in {:.0f}% of the free "
      "device memory ({} of {} free)",
      s.elements, s.point.width, format_bytes(static_cast<double>(s.in_bytes + z.out_bytes)),
      coalescing::kMemoryCapFraction * 100, format_bytes(static_cast<double>(memory.free_bytes)),
      format_bytes(static_cast<double>(memory.total_bytes))));
}

// Sizes one point: its width's default N, or a clamped N for a stride whose input span does not
// fit `in_cap`; nullopt when it is dropped (recorded in `z`, as is a clamp).
std::optional<Sized> size_point(const Point& p, std::size_t index, coalescing::Sizing& z,
                                std::uint64_t in_cap, const runtime::MemoryInfo& memory) {
  Sized s{p, index};
  const auto w = static_cast<std::uint64_t>(p.width);
  s.elements = default_elements(z, p.width);
  s.in_bytes = models::copy_input_elements(p.pattern, p.param, s.elements) * w;
  if (s.in_bytes > in_cap) {
    if (p.param == baseline_param(p.pattern)) throw_too_big(s, z, memory);
    const std::uint64_t n = clamped_elements(p, z, in_cap);
    if (n == 0) {
      z.dropped.push_back({p.pattern, p.width, p.param});
      return std::nullopt;
    }
    s.elements = n;
    s.in_bytes = models::copy_input_elements(p.pattern, p.param, n) * w;
    s.clamped = true;
    z.clamped.push_back({p.width, p.param, n});
  }
  s.working_set_over_l2 =
      static_cast<double>(models::copy_touched_bytes(p.pattern, p.width, p.param, s.elements)) /
      static_cast<double>(z.l2_bytes);
  return s;
}

// One operation per sized point, all sharing `src` and `dst`, each (pattern, width) with its grid.
std::vector<runtime::Operation> make_operations(const std::vector<Sized>& sized, void* dst,
                                                const void* src, int sm_count,
                                                cudaStream_t verify_stream) {
  std::map<std::pair<CopyPattern, int>, int> blocks;
  for (const auto& s : sized) {
    const auto key = std::make_pair(s.point.pattern, s.point.width);
    if (!blocks.count(key))
      blocks[key] =
          coalescing::copy_grid_blocks(kernel_kind(s.point.pattern), s.point.width, sm_count);
  }
  std::vector<runtime::Operation> ops;
  for (const auto& s : sized)
    ops.push_back(
        make_operation(s, dst, src, blocks[{s.point.pattern, s.point.width}], verify_stream));
  return ops;
}

// Sizes the points (a stride that does not fit is clamped or dropped), measures them in one batch
// sharing one input and one output buffer; each row gets its working set.
CoalescingProbe::Analysis CoalescingProbe::measure(Sweep<Point>& s) {
  const DeviceInfo& dev = s.ctx().device();
  coalescing::RunFacts facts = run_facts(dev, s.values());
  coalescing::Sizing& z = facts.sizing;
  const runtime::MemoryInfo memory = runtime::device_memory();
  size_defaults(z, widths_of(s.values()), memory);
  const std::uint64_t in_cap = z.memory_cap > z.out_bytes ? z.memory_cap - z.out_bytes : 0;
  std::vector<Sized> sized;
  std::uint64_t in_bytes = 0, out_bytes = 0;  // the buffers every sized point fits in
  for (std::size_t i = 0; i < s.points().size(); ++i) {
    const std::optional<Sized> one = size_point(s.points()[i], i, z, in_cap, memory);
    if (!one) {
      s.drop(i);
      continue;
    }
    sized.push_back(*one);
    in_bytes = std::max(in_bytes, one->in_bytes);
    out_bytes = std::max(out_bytes, one->elements * static_cast<std::uint64_t>(one->point.width));
  }

  runtime::DeviceBuffer in(in_bytes);
  runtime::DeviceBuffer out(out_bytes);
  runtime::fill_pattern_device(in.get(), in_bytes, kSeed, s.ctx().stream());
  GP_CUDA(cudaStreamSynchronize(s.ctx().stream()));

  const std::vector<SampleSet> measured = s.ctx().measure_all(
      make_operations(sized, out.get(), in.get(), dev.sm_count, s.ctx().stream()));
  for (std::size_t k = 0; k < sized.size(); ++k) {
    Row& row = s.add(sized[k].index, measured[k]);
    row.derived.push_back({"working_set_over_l2", "x", sized[k].working_set_over_l2});
    if (sized[k].clamped) row.flags.push_back("clamped");
  }
  return [facts](ProbeResult& r) { coalescing::analyse(r, facts); };
}

}  // namespace

std::unique_ptr<Probe> make_coalescing_probe() {
  return std::make_unique<CoalescingProbe>();
}

}  // namespace gpuprobe
