// The `zerocopy` probe: kernels reading and writing mapped host memory (zero-copy) against an
// explicit copy plus a kernel on device memory, by reuse count, stride and element width; the
// explicit copy alone as the reference; bandwidth against bytes in flight. Axes, sizing and
// operations here; the model columns, break-even counts and findings in analysis.cpp.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <tuple>

#include "analysis.hpp"
#include "gpuprobe/core/errors.hpp"
#include "gpuprobe/core/units.hpp"
#include "gpuprobe/models/zerocopy_model.hpp"
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

using runtime::HostMemory;

constexpr std::uint32_t kReadSeed = 0x2E0C0B1u;
constexpr std::uint32_t kWriteSeed = 0x5E7F00Du;
constexpr std::uint64_t kMaxReuse = 1024;
constexpr std::uint64_t kMaxStride = 4096;
constexpr std::uint64_t kMaxBlocks = 65536;
constexpr std::uint64_t kMinSpan = 64 * 1024;
constexpr std::uint64_t kMaxSpan = 16ull << 30;
constexpr std::uint64_t kSpanQuantum = 4096;

// The axis's words: both kinds mapped into the device's address space.
HostMemory kind_of(const std::string& memory) {
  return memory == "registered" ? HostMemory::kRegisteredMapped : HostMemory::kMapped;
}

// One sweep point. blocks: an in-flight row (a given grid); else the full grid. span: --bytes.
struct Point {
  std::uint64_t span = 0;
  std::string mode;
  std::string memory;
  std::string direction;
  std::uint64_t reuse = 1;
  std::uint64_t stride = 1;
  int width = 0;  // 0: a memcpy row
  std::optional<std::uint64_t> blocks;
};

std::uint64_t elements_of(const Point& p) {
  return p.width > 0 ? p.span / (p.stride * static_cast<std::uint64_t>(p.width)) : 0;
}

// Payload bytes of a point: elements x width, or the copied span for memcpy.
std::uint64_t payload_of(const Point& p) {
  return p.width > 0 ? elements_of(p) * static_cast<std::uint64_t>(p.width) : p.span;
}

std::vector<Param> row_params(const Point& p) {
  std::vector<Param> params = {
      {"mode", p.mode, ""}, {"memory", p.memory, ""}, {"direction", p.direction, ""}};
  if (p.width > 0) {
    params.push_back({"reuse", static_cast<std::int64_t>(p.reuse), ""});
    params.push_back({"stride", static_cast<std::int64_t>(p.stride), ""});
    params.push_back({"element_bytes", static_cast<std::int64_t>(p.width), "B"});
  }
  params.push_back({"bytes", static_cast<std::int64_t>(payload_of(p)), "B"});
  if (p.blocks) params.push_back({"blocks", static_cast<std::int64_t>(*p.blocks), ""});
  return params;
}

int widest(const AxisValues& v) {
  const auto& w = v.list("widths");
  return static_cast<int>(*std::max_element(w.begin(), w.end()));
}

// The in-flight rows: zero-copy reads of the first memory kind, widest width, stride 1, reuse 1.
void add_in_flight(const AxisValues& v, std::vector<Point>& out) {
  if (!v.has_choice("mode", zerocopy::kZeroCopy) || !v.has_choice("direction", "read")) return;
  for (auto b : v.list("blocks")) {
    if (b > 0)
      out.push_back({v.number("bytes"), zerocopy::kZeroCopy, v.choices("memory").front(), "read", 1,
                     1, widest(v), b});
  }
}

// Per direction: the memcpy reference of each memory kind, then per memory, width, stride and
// reuse the modes side by side; the in-flight rows last.
std::vector<Point> sweep_points(const AxisValues& v) {
  std::vector<Point> out;
  for (const auto& dir : v.choices("direction")) {
    for (const auto& memory : v.choices("memory"))
      out.push_back({v.number("bytes"), zerocopy::kMemcpy, memory, dir, 1, 1, 0, std::nullopt});
    for (const auto& memory : v.choices("memory"))
      for (auto w : v.list("widths"))
        for (auto s : v.list("strides"))
          for (auto k : v.list("reuse"))
            for (const auto& mode : v.choices("mode"))
              out.push_back(
                  {v.number("bytes"), mode, memory, dir, k, s, static_cast<int>(w), std::nullopt});
  }
  add_in_flight(v, out);
  return out;
}

// Everything the operations share: host buffers by memory kind (both mapped, cudaHostAlloc or
// cudaHostRegister; `in` holds the read pattern, `out` receives the writes), device buffers for
// the copy mode, the per-thread sums of the read kernel, the expected element sums by (width,
// stride).
struct Shared {
  std::uint64_t span = 0;
  std::map<std::string, runtime::HostPair> host;
  runtime::DeviceBuffer dev_in;
  runtime::DeviceBuffer dev_out;
  runtime::DeviceBuffer sums;
  std::map<std::pair<int, std::uint64_t>, std::vector<std::uint32_t>> element_sums;
  std::map<std::pair<bool, int>, int> full_grid;  // (write, width) -> blocks
  cudaStream_t verify_stream = nullptr;
};

int grid_of(const Point& p, Shared& sh, int sm_count) {
  if (p.blocks) return static_cast<int>(*p.blocks);
  const auto key = std::make_pair(p.direction == "write", p.width);
  if (!sh.full_grid.count(key))
    sh.full_grid[key] = zerocopy::full_grid_blocks(key.first, p.width, sm_count);
  return sh.full_grid[key];
}

// Checks the read kernel's per-thread sums against reuse x the sums of each thread's elements.
std::string verify_sums(const std::vector<std::uint32_t>& elements, std::uint64_t threads,
                        std::uint32_t reuse, const void* device_sums) {
  std::vector<std::uint32_t> expected(threads, 0);
  for (std::uint64_t i = 0; i < elements.size(); ++i)
    expected[i % threads] += elements[i];
  std::vector<std::uint32_t> got(threads);
  GP_CUDA(cudaMemcpy(got.data(), device_sums, threads * 4, cudaMemcpyDeviceToHost));
  return mismatch_text(
      "", find_mismatches(threads, [&](std::uint64_t t) { return got[t] != expected[t] * reuse; }),
      threads, "thread sums");
}

// A read point: zero-copy (the kernel reads the mapped buffer) or copy (H2D of the span, then
// the kernel on device memory). Sums poisoned before each round; the copy's target too.
runtime::Operation read_operation(const Point& p, Shared& sh, int grid) {
  const std::uint64_t n = elements_of(p);
  const std::uint64_t span = models::span_bytes({true, p.stride, p.width, n, 1});
  const bool zero_copy = p.mode == zerocopy::kZeroCopy;
  runtime::HostPair& h = sh.host.at(p.memory);
  const void* src = zero_copy ? h.in.device_pointer() : sh.dev_in.get();
  void* dev_in = sh.dev_in.get();
  const void* host_in = h.in.get();
  auto* sums = sh.sums.as<std::uint32_t>();
  const auto threads = static_cast<std::uint64_t>(grid) * zerocopy::kThreads;
  const int w = p.width;
  const auto stride = p.stride;
  const auto reuse = static_cast<std::uint32_t>(p.reuse);
  runtime::Operation op;
  op.lanes.push_back(
      {"read", static_cast<double>(n * w), [=](runtime::LaunchScope& l) {
         if (!zero_copy)
           GP_CUDA(cudaMemcpyAsync(dev_in, host_in, span, cudaMemcpyHostToDevice, l.stream()));
         zerocopy::launch_read(w, src, stride, n, reuse, sums, grid, l.stream());
       }});
  op.prepare = [=](cudaStream_t s) {
    GP_CUDA(cudaMemsetAsync(sums, 0xFF, threads * 4, s));
    if (!zero_copy) GP_CUDA(cudaMemsetAsync(dev_in, 0, span, s));
  };
  auto* elements = &sh.element_sums[{w, stride}];
  if (elements->empty()) *elements = zerocopy::element_sums(w, stride, n, kReadSeed);
  op.verify = [=]() { return verify_sums(*elements, threads, reuse, sums); };
  return op;
}

// A write point: zero-copy (the kernel writes the mapped buffer) or copy (the kernel writes
// device memory, then D2H of the span). The host buffer (and the device one) poisoned before
// each round: the pattern never has a 0 word.
runtime::Operation write_operation(const Point& p, Shared& sh, int grid) {
  const std::uint64_t n = elements_of(p);
  const std::uint64_t span = models::span_bytes({true, p.stride, p.width, n, 1});
  const bool zero_copy = p.mode == zerocopy::kZeroCopy;
  runtime::HostPair& h = sh.host.at(p.memory);
  void* dst = zero_copy ? h.out.device_pointer() : sh.dev_out.get();
  void* dev_out = sh.dev_out.get();
  void* host_out = h.out.get();
  const int w = p.width;
  const auto stride = p.stride;
  const auto reuse = static_cast<std::uint32_t>(p.reuse);
  runtime::Operation op;
  op.lanes.push_back(
      {"write", static_cast<double>(n * w), [=](runtime::LaunchScope& l) {
         zerocopy::launch_write(w, dst, stride, n, reuse, kWriteSeed, grid, l.stream());
         if (!zero_copy)
           GP_CUDA(cudaMemcpyAsync(host_out, dev_out, span, cudaMemcpyDeviceToHost, l.stream()));
       }});
  op.prepare = [=](cudaStream_t s) {
    GP_CUDA(cudaStreamSynchronize(s));
    std::memset(host_out, 0, span);
    if (!zero_copy) GP_CUDA(cudaMemsetAsync(dev_out, 0, span, s));
  };
  op.verify = [=]() {
    return mismatch_text("", zerocopy::verify_writes(w, host_out, stride, n, kWriteSeed, reuse),
                         n * w / 4, "written words");
  };
  return op;
}

// The explicit copy alone, of the whole span: H2D from the read buffer (read) or D2H into the
// write buffer (write), the reference the zero-copy rows are held against.
runtime::Operation memcpy_operation(const Point& p, Shared& sh) {
  const std::uint64_t span = sh.span;
  runtime::HostPair& h = sh.host.at(p.memory);
  const bool h2d = p.direction == "read";
  void* dev = h2d ? sh.dev_in.get() : sh.dev_out.get();
  void* host = h2d ? h.in.get() : h.out.get();
  const cudaStream_t verify_stream = sh.verify_stream;
  runtime::Operation op;
  op.lanes.push_back({h2d ? "h2d" : "d2h", static_cast<double>(span), [=](runtime::LaunchScope& l) {
                        GP_CUDA(cudaMemcpyAsync(
                            h2d ? dev : host, h2d ? host : dev, span,
                            h2d ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost, l.stream()));
                      }});
  // The copy's destination, poisoned before each round; d2h's source filled with the pattern.
  const runtime::PatternBuffer copied =
      h2d ? runtime::PatternBuffer{"", dev, span, kReadSeed}
          : runtime::PatternBuffer{"", host, span, kWriteSeed, true};
  op.prepare = [=](cudaStream_t s) {
    if (!h2d) runtime::fill_pattern_device(dev, span, kWriteSeed, s);
    copied.poison(s);
  };
  op.verify = [=]() { return copied.verify(verify_stream); };
  return op;
}

runtime::Operation make_operation(const Point& p, Shared& sh, int sm_count) {
  runtime::Operation op;
  if (p.width == 0) {
    op = memcpy_operation(p, sh);
  } else {
    const int grid = grid_of(p, sh, sm_count);
    op = p.direction == "write" ? write_operation(p, sh, grid) : read_operation(p, sh, grid);
  }
  // Short labels: they name the counter pass's CUPTI ranges ("<index> <label>"). On the H100,
  // ranges named with 61 characters or more came back dropped (54 were fine), and a sweep whose
  // names reached 64 characters crashed in the counter pass; with these labels neither happened.
  op.label = p.width == 0
                 ? fmt::format("memcpy {} {}", p.memory, p.direction)
                 : fmt::format("{} {} {} {}B s{} k{}{}", p.mode, p.memory, p.direction, p.width,
                               p.stride, p.reuse, p.blocks ? fmt::format(" b{}", *p.blocks) : "");
  op.timing = runtime::Timing::kDeviceEvents;
  op.cache = runtime::Cache::kFlushL2;  // no row finds another row's host data in L2
  return op;
}

// An in-flight row's bytes in flight: the grid's loads, at most the elements.
void add_bytes_in_flight(Row& row, const Point& p, int grid) {
  if (!p.blocks) return;
  const std::uint64_t threads = static_cast<std::uint64_t>(grid) * zerocopy::kThreads;
  const std::uint64_t in_flight =
      std::min<std::uint64_t>(threads * zerocopy::kUnroll, elements_of(p));
  row.derived.push_back({"bytes_in_flight", "B",
                         static_cast<double>(in_flight * static_cast<std::uint64_t>(p.width))});
}

// What the analysis needs from the device; `span` from --bytes.
zerocopy::RunFacts run_facts(const DeviceInfo& dev, std::uint64_t span, bool query) {
  zerocopy::RunFacts facts;
  facts.can_map_host_memory = dev.can_map_host_memory;
  facts.integrated = dev.integrated;
  facts.span_bytes = span;
  facts.l2_bytes = dev.l2_bytes;
  if (query) {
    int uva = 0;
    GP_CUDA(cudaDeviceGetAttribute(&uva, cudaDevAttrUnifiedAddressing, dev.index));
    facts.unified_addressing = uva != 0;
    facts.reported_fetch = runtime::l2_fetch_granularity();
  }
  return facts;
}

class ZeroCopyProbe final : public SweepProbe<Point> {
 public:
  std::string name() const override { return "zerocopy"; }
  std::string description() const override {
    return "kernels reading/writing mapped host memory vs explicit copies: reuse, stride and "
           "width sweep, break-even reuse, PCIe bytes beside a TLP model";
  }

  std::vector<Axis> axes() const override {
    Axis reuse = list_axis("reuse", "passes the kernel makes over the data", "1,2,4,8,16", "1,2,8");
    reuse.min = 1;
    reuse.max = kMaxReuse;
    Axis strides = list_axis("strides", "element strides: element i at i x stride", "1,32");
    strides.unit = "elements";
    strides.min = 1;
    strides.max = kMaxStride;
    Axis widths = list_axis("widths", "element widths in bytes per lane: 4, 8, 16", "4,8,16", "16");
    widths.unit = "B";
    widths.validate = [](std::uint64_t w) {
      return w <= 16 && zerocopy::width_supported(static_cast<int>(w))
                 ? std::string()
                 : fmt::format("{}-byte elements are not supported (use 4, 8 or 16)", w);
    };
    Axis bytes = size_axis("bytes",
                           "host buffer span every row's elements lie in (stride s reads every "
                           "s-th element of it)",
                           "64MiB", "16MiB");
    bytes.min = kMinSpan;
    bytes.max = kMaxSpan;
    bytes.validate = multiple_of(kSpanQuantum, "4 KiB");
    Axis blocks = list_axis("blocks",
                            "grid sizes of the in-flight sweep (zero-copy read, widest width, "
                            "stride 1, reuse 1); 0 = none",
                            "1,2,4,8,16,32,64,128", "1,8");
    blocks.max = kMaxBlocks;
    return {choice_axis("mode",
                        "zerocopy (kernel on mapped host memory) and/or copy "
                        "(explicit copy + kernel on device memory)",
                        {"zerocopy", "copy"}, "all"),
            choice_axis("memory",
                        "host memory: cudaHostAlloc or malloc + cudaHostRegister, both "
                        "Mapped",
                        {"hostalloc", "registered"}, "all", "hostalloc"),
            choice_axis("direction", "read (H2D side) and/or write (D2H side)", {"read", "write"},
                        "all"),
            reuse,
            strides,
            widths,
            bytes,
            blocks};
  }

  std::string memory_flags() const override { return "--bytes"; }
  std::string help_footer() const override {
    return "Every row's elements lie in one --bytes host buffer: stride s reads or writes every "
           "s-th element (payload = span / s); the copy mode copies the whole span. memcpy rows "
           "time the explicit copy alone, the reference for zero-copy bandwidth.";
  }

  void validate(const AxisValues& v) const override {
    const auto& s = v.list("strides");
    const std::uint64_t spacing = *std::max_element(s.begin(), s.end()) * 16;
    if (v.number("bytes") < spacing * zerocopy::kThreads)
      throw UsageError(
          fmt::format("--bytes: {} holds fewer than {} elements at the largest stride and width",
                      v.number("bytes"), zerocopy::kThreads));
  }

  void add_words(Glossary& glossary) const override { zerocopy::add_words(glossary); }

  // PCIe bytes each way, device-wide (CUPTI puts them in a configuration of their own).
  std::vector<std::string> counter_metrics() const override {
    return metric_names(zerocopy::kCounterMetrics);
  }

  std::vector<Point> points(const AxisValues& v) const override { return sweep_points(v); }
  Row row(const Point& p) const override { return unmeasured_row(row_params(p)); }
  void finish_plan(ProbeResult& r, const AxisValues&, const std::vector<int>*) const override {
    zerocopy::add_model(r);
  }
  Analysis measure(Sweep<Point>& s) override;

  std::string method(const AxisValues& /*values*/) const override {
    return fmt::format(
        "read: a grid-stride kernel (SMs x resident blocks of {} threads, {} independent loads in "
        "flight per thread, volatile ld.global.cg) sums every element `reuse` times, reading "
        "mapped "
        "host memory (zerocopy) or device memory after cudaMemcpyAsync of the span (copy, the copy "
        "timed too); write: the same shape storing pattern words `reuse` times into mapped host "
        "memory, or into device memory then D2H; memcpy rows: the copy alone; gated batches timed "
        "with CUDA events, L2 flushed before each sample; bandwidth = payload (elements x width, "
        "counted once whatever the reuse) / time; GB/s = 1e9 B/s; every row's result checked after "
        "sampling (read sums and written host memory on the host, the memcpy H2D copy on the "
        "device)",
        zerocopy::kThreads, zerocopy::kUnroll);
  }
};

void require_mapping(const DeviceInfo& dev) {
  if (!dev.can_map_host_memory)
    throw UnsupportedError("zerocopy: this GPU cannot map host memory (canMapHostMemory = 0)");
  if (dev.integrated)
    throw UnsupportedError(
        "zerocopy: integrated GPU (host and device share memory, no PCIe copy to weigh "
        "zero-copy against)");
}

ZeroCopyProbe::Analysis ZeroCopyProbe::measure(Sweep<Point>& s) {
  const DeviceInfo& dev = s.ctx().device();
  require_mapping(dev);
  Shared sh;
  sh.span = s.values().number("bytes");
  sh.verify_stream = s.ctx().stream();
  for (const auto& memory : s.values().choices("memory"))
    sh.host.try_emplace(memory, kind_of(memory), sh.span, kReadSeed);
  sh.dev_in = runtime::DeviceBuffer(sh.span);
  sh.dev_out = runtime::DeviceBuffer(sh.span);
  std::vector<int> grids;
  std::uint64_t max_threads = 1;
  for (const auto& p : s.points()) {
    grids.push_back(p.width ? grid_of(p, sh, dev.sm_count) : 0);
    max_threads = std::max<std::uint64_t>(max_threads, grids.back() * zerocopy::kThreads);
  }
  sh.sums = runtime::DeviceBuffer(max_threads * 4);
  s.measure_each(
      [&](const Point& p, runtime::Operation& op) { op = make_operation(p, sh, dev.sm_count); });
  for (std::size_t i = 0; i < grids.size(); ++i)
    add_bytes_in_flight(s.row(i), s.points()[i], grids[i]);
  const zerocopy::RunFacts facts = run_facts(dev, sh.span, true);
  return [facts](ProbeResult& r) { zerocopy::analyse(r, facts); };
}

}  // namespace

std::unique_ptr<Probe> make_zerocopy_probe() {
  return std::make_unique<ZeroCopyProbe>();
}

}  // namespace gpuprobe
