// The `overlap` probe: H2D -> kernel -> D2H staged over n chunks on n streams, against the
// sequential run and the solo stage times. Axes and operations here; the model columns, speed-ups
// and findings in analysis.cpp (host-only).
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <memory>
#include <vector>

#include "analysis.hpp"
#include "gpuprobe/core/calibrate.hpp"
#include "gpuprobe/core/errors.hpp"
#include "gpuprobe/core/units.hpp"
#include "gpuprobe/runtime/buffers.hpp"
#include "gpuprobe/runtime/context.hpp"
#include "gpuprobe/runtime/cuda_check.hpp"
#include "gpuprobe/runtime/event_timing.hpp"
#include "gpuprobe/runtime/pattern.hpp"
#include "gpuprobe/runtime/stream.hpp"
#include "gpuprobe/sweep_probe.hpp"
#include "kernels.hpp"
#include "registry.hpp"

namespace gpuprobe {
namespace {

using overlap::Buffers;
using overlap::Order;
using overlap::Stage;
using runtime::HostMemory;

constexpr std::uint32_t kInSeed = 0x0F1E2D3Cu;   // the pipeline's input
constexpr std::uint32_t kOutSeed = 0x5A6B7C8Du;  // what the solo D2H copies out
constexpr std::uint64_t kMaxBufferBytes = 16ull << 30;
constexpr std::uint32_t kMaxIterations = 1u << 22;

// Iterations per element of the balanced workload over those of the others.
constexpr double kCopyBoundShare = 0.25;
constexpr double kComputeBoundShare = 4.0;

Order order_of(const std::string& token) {
  return token == "batched" ? Order::kBatched : Order::kDepthFirst;
}

const char* stage_name(Stage s) {
  return s == Stage::kH2D ? "h2d" : s == Stage::kKernel ? "kernel" : "d2h";
}

// One measured configuration, as its row's params say it.
struct Point {
  std::string memory;    // "" for the kernel, which touches no host memory
  std::string workload;  // "" for the copies, which do not depend on it
  std::string run;       // h2d, d2h, h2d+d2h, kernel, <stage>-chunked, sequential, staged
  std::string order;     // staged only
  std::size_t streams = 1;
  std::size_t chunks = 1;
};

std::vector<std::size_t> staged_counts(const AxisValues& v) {
  std::vector<std::size_t> out;
  for (const auto n : v.list("streams"))
    if (n > 1) out.push_back(static_cast<std::size_t>(n));
  return out;
}

// The chunk count of the chunked solo runs (per-chunk costs): the largest staged count.
std::size_t chunked_count(const AxisValues& v) {
  const auto counts = staged_counts(v);
  return counts.empty() ? 1 : *std::max_element(counts.begin(), counts.end());
}

// Per memory kind the solo copies (whole, chunked), per workload the kernel (whole, chunked), then
// per memory kind and workload the sequential run and the staged runs.
std::vector<Point> sweep_points(const AxisValues& v) {
  std::vector<Point> out;
  const std::size_t most = chunked_count(v);
  for (const auto& m : v.choices("memory")) {
    for (const char* run : {"h2d", "d2h", "h2d+d2h"})
      out.push_back({m, "", run, "", 1, 1});
    if (most > 1) {
      out.push_back({m, "", "h2d-chunked", "", 1, most});
      out.push_back({m, "", "d2h-chunked", "", 1, most});
    }
  }
  for (const auto& w : v.choices("workload")) {
    out.push_back({"", w, "kernel", "", 1, 1});
    if (most > 1) out.push_back({"", w, "kernel-chunked", "", 1, most});
  }
  for (const auto& m : v.choices("memory")) {
    for (const auto& w : v.choices("workload")) {
      out.push_back({m, w, "sequential", "", 1, 1});
      for (const auto n : staged_counts(v))
        for (const auto& o : v.choices("order"))
          out.push_back({m, w, "staged", o, n, n});
    }
  }
  return out;
}

// Words of out[0, words) that differ from the transform of the input pattern.
Mismatches verify_transformed(const std::uint32_t* out, std::uint64_t words,
                              std::uint32_t iterations) {
  const overlap::Affine f = overlap::composed_steps(iterations);
  return find_mismatches(
      words, [&](std::uint64_t i) { return out[i] != f(runtime::pattern_word(i, kInSeed)); });
}

// What an operation writes, so prepare poisons it and verify checks it.
struct ToVerify {
  bool dev_in = false;    // H2D result: the input pattern
  bool dev_out = false;   // kernel result: the transformed pattern (checked on the host)
  bool host_out = false;  // D2H result: the transformed pattern (pipeline) or kOutSeed (solo)
  bool host_out_pattern = false;
};

void add_verification(runtime::Operation& op, const Buffers& b, ToVerify c) {
  const std::size_t bytes = b.words * sizeof(std::uint32_t);
  const runtime::PatternBuffer h2d{"h2d", b.dev_in, bytes, kInSeed};
  const runtime::PatternBuffer d2h{"d2h", b.host_out, bytes, kOutSeed, true};
  op.prepare = [b, c, bytes, h2d, d2h](cudaStream_t s) {
    if (c.dev_in) h2d.poison(s);
    if (!c.dev_in) runtime::fill_pattern_device(b.dev_in, bytes, kInSeed, s);
    if (c.host_out_pattern) runtime::fill_pattern_device(b.dev_out, bytes, kOutSeed, s);
    if (!c.host_out_pattern) GP_CUDA(cudaMemsetAsync(b.dev_out, 0, bytes, s));
    if (c.host_out) d2h.poison(s);
  };
  op.verify = [b, c, bytes, h2d, d2h]() {
    MismatchReport report;
    if (c.dev_in) h2d.verify_into(report, nullptr);
    if (c.dev_out) {
      std::vector<std::uint32_t> copy(b.words);
      GP_CUDA(cudaMemcpy(copy.data(), b.dev_out, bytes, cudaMemcpyDeviceToHost));
      report.add("kernel", verify_transformed(copy.data(), b.words, b.iterations), b.words);
    }
    if (c.host_out && c.host_out_pattern)
      d2h.verify_into(report, nullptr);
    else if (c.host_out)
      report.add("pipeline", verify_transformed(b.host_out, b.words, b.iterations), b.words);
    return report.text();
  };
}

runtime::Lane stage_lane(const char* name, const Buffers& b, Stage stage, std::size_t chunks) {
  const double bytes = static_cast<double>(b.words * sizeof(std::uint32_t));
  return {name, stage == Stage::kKernel ? 2 * bytes : bytes, [b, stage, chunks](auto& s) {
            overlap::enqueue_chunked_stage(b, stage, chunks, s.stream());
          }};
}

// The solo stages (whole or chunked) and both copies at once (two lanes).
runtime::Operation solo_operation(const Point& p, const Buffers& b) {
  runtime::Operation op;
  const bool h2d = p.run.starts_with("h2d");
  const bool kernel = p.run.starts_with("kernel");
  const bool d2h = p.run.starts_with("d2h") || p.run == "h2d+d2h";
  if (h2d) op.lanes.push_back(stage_lane("h2d", b, Stage::kH2D, p.chunks));
  if (kernel) op.lanes.push_back(stage_lane("kernel", b, Stage::kKernel, p.chunks));
  if (d2h) op.lanes.push_back(stage_lane("d2h", b, Stage::kD2H, p.chunks));
  add_verification(op, b, {h2d, kernel, d2h, d2h});
  return op;
}

runtime::Operation pipeline_operation(const Point& p, const Buffers& b) {
  runtime::Operation op;
  const double bytes = 2.0 * static_cast<double>(b.words * sizeof(std::uint32_t));
  const std::size_t n = p.chunks;
  const Order order = order_of(p.order);
  op.lanes.push_back({p.run, bytes, [b, n, order](runtime::LaunchScope& s) {
                        std::vector<cudaStream_t> streams;
                        if (n == 1) streams.push_back(s.stream());
                        for (std::size_t i = 0; n > 1 && i < n; ++i)
                          streams.push_back(s.fork(i));
                        overlap::enqueue_pipeline(b, streams, n, order);
                        if (n > 1) s.join();
                      }});
  add_verification(op, b, {true, false, true, false});
  return op;
}

// The buffers and intensities one run of the probe uses.
struct Setup {
  std::size_t bytes = 0;
  runtime::DeviceBuffer dev_in;
  runtime::DeviceBuffer dev_out;
  // By memory kind: the pipeline's input (pattern kInSeed) and output.
  std::map<std::string, std::unique_ptr<runtime::HostPair>> host;
  std::map<std::string, std::uint32_t> iterations;  // by workload
  double tuned_h2d = 0;  // the H2D time the balanced workload matches, s (0 with --intensity)

  explicit Setup(std::size_t b) : bytes(b), dev_in(b), dev_out(b) {}

  Buffers buffers(const std::string& memory, const std::string& workload) const {
    Buffers b;
    const runtime::HostPair* h =
        memory.empty() ? host.begin()->second.get() : host.at(memory).get();
    b.host_in = h->in.as<const std::uint32_t>();
    b.host_out = h->out.as<std::uint32_t>();
    b.dev_in = dev_in.as<std::uint32_t>();
    b.dev_out = dev_out.as<std::uint32_t>();
    b.words = bytes / sizeof(std::uint32_t);
    b.iterations = workload.empty() ? 0 : iterations.at(workload);
    return b;
  }
};

runtime::Operation make_operation(const Point& p, const Setup& setup) {
  const Buffers b = setup.buffers(p.memory, p.workload);
  runtime::Operation op =
      p.run == "sequential" || p.run == "staged" ? pipeline_operation(p, b) : solo_operation(p, b);
  op.label = fmt::format("{} {} {}{}{}", p.memory.empty() ? "device" : p.memory,
                         p.workload.empty() ? "copy" : p.workload, p.run,
                         p.order.empty() ? "" : " " + p.order,
                         p.chunks > 1 ? fmt::format(" x{}", p.chunks) : "");
  // A pageable copy is staged synchronously: gating it would deadlock, so the host clock times it.
  op.timing = p.memory == "pageable" ? runtime::Timing::kHostClock : runtime::Timing::kDeviceEvents;
  return op;
}

// Seconds the SMs are kept busy before the kernel is timed for tuning: an idle GPU runs at a low
// clock (345 MHz on the test H100) and takes milliseconds to boost, so a kernel timed cold is slow
// and the tuned count too small (a GPU test saw the tuned kernel at 0.43x the H2D time).
constexpr double kWarmSeconds = 0.05;
// Refinements of the tuned count at its own length (kernel time is linear in the count).
constexpr int kRefinements = 3;

// The balanced workload's iterations: the count whose kernel lasts as long as the whole-buffer
// H2D copy (calibrate_linear: the kernel time grows linearly with it), within 2%. The H2D time is
// the fastest of many copies: the link has slow stretches (a fresh pinned buffer's first copies,
// other traffic), which only ever make a copy slower. Kernel times are steady once the clock has
// boosted (the median of three).
void tune(Setup& setup, const std::string& memory, cudaStream_t stream) {
  Buffers b = setup.buffers(memory, "");
  const overlap::Chunk all{0, b.words};
  const double h2d = runtime::event_seconds(
      stream, [&](cudaStream_t s) { overlap::enqueue_stage(b, Stage::kH2D, all, s); }, true);
  const auto kernel = [&](std::uint32_t iterations) {
    b.iterations = iterations;
    return runtime::event_seconds(
        stream, [&](cudaStream_t s) { overlap::enqueue_stage(b, Stage::kKernel, all, s); });
  };
  for (double warm = 0; warm < kWarmSeconds;)
    warm += kernel(1024) * 4;  // event_seconds runs it four times
  setup.tuned_h2d = h2d;
  setup.iterations["balanced"] =
      calibrate_linear(kernel, h2d, {.max = kMaxIterations, .refinements = kRefinements});
}

// `preferred` when it was chosen, else the first token chosen.
std::string preferred(const std::vector<std::string>& tokens, const char* preferred) {
  return std::find(tokens.begin(), tokens.end(), preferred) != tokens.end() ? preferred
                                                                            : tokens.front();
}

// The balanced workload tuned on pinned memory when it was chosen.
void set_workloads(Setup& setup, const AxisValues& v, cudaStream_t stream) {
  if (v.number("intensity") > 0)
    setup.iterations["balanced"] = static_cast<std::uint32_t>(v.number("intensity"));
  else
    tune(setup, preferred(v.choices("memory"), "pinned"), stream);
  const double balanced = setup.iterations["balanced"];
  setup.iterations["copy-bound"] =
      static_cast<std::uint32_t>(std::max(1.0, std::round(balanced * kCopyBoundShare)));
  setup.iterations["compute-bound"] = static_cast<std::uint32_t>(
      std::min(double{kMaxIterations}, std::round(balanced * kComputeBoundShare)));
}

// The staged run the timeline shows: the first memory kind (pinned when asked for), balanced
// when asked for, the first order, and the stream count nearest 4. nullopt without staged runs.
std::optional<Point> timeline_point(const AxisValues& v) {
  const auto counts = staged_counts(v);
  if (counts.empty()) return std::nullopt;
  const std::size_t n = *std::ranges::min_element(
      counts, {}, [](std::size_t c) { return std::abs(std::log2(static_cast<double>(c)) - 2.0); });
  return Point{preferred(v.choices("memory"), "pinned"),
               preferred(v.choices("workload"), "balanced"),
               "staged",
               v.choices("order").front(),
               n,
               n};
}

// One extra, untimed staged run with events around every stage: per chunk and stage, start and
// end in seconds from the first event, as summary rows. Verified like the timed runs.
std::vector<SummaryRow> record_timeline(const Point& p, const Setup& setup) {
  const Buffers b = setup.buffers(p.memory, p.workload);
  runtime::Operation verification;
  add_verification(verification, b, {true, false, true, false});
  const std::vector<runtime::Stream> owned(p.streams);
  std::vector<cudaStream_t> streams;
  for (const auto& s : owned)
    streams.push_back(s.get());
  verification.prepare(streams.front());
  owned.front().synchronize();
  runtime::Event origin;
  origin.record(streams.front());
  for (std::size_t i = 1; i < streams.size(); ++i)
    GP_CUDA(cudaStreamWaitEvent(streams[i], origin.get(), 0));
  // Per chunk and stage (index chunk * 3 + stage), the events before and after it.
  const std::vector<runtime::Event> starts(p.chunks * 3), ends(p.chunks * 3);
  overlap::enqueue_pipeline(
      b, streams, p.chunks, order_of(p.order),
      [&](std::size_t chunk, Stage stage, bool end, cudaStream_t s) {
        (end ? ends : starts)[chunk * 3 + static_cast<std::size_t>(stage)].record(s);
      });
  for (const auto& s : owned)
    s.synchronize();
  if (const std::string problem = verification.verify(); !problem.empty())
    throw runtime::VerificationError("overlap timeline: " + problem);
  std::vector<SummaryRow> rows;
  for (std::size_t chunk = 0; chunk < p.chunks; ++chunk) {
    for (const Stage stage : overlap::kStages) {
      const std::size_t at = chunk * 3 + static_cast<std::size_t>(stage);
      rows.push_back({{{"memory", p.memory, ""},
                       {"workload", p.workload, ""},
                       {"order", p.order, ""},
                       {"streams", static_cast<std::int64_t>(p.streams), ""},
                       {"stream", static_cast<std::int64_t>(chunk % p.streams), ""},
                       {"chunk", static_cast<std::int64_t>(chunk), ""},
                       {"stage", std::string(stage_name(stage)), ""}},
                      {{"start", "s", starts[at].seconds_since(origin)},
                       {"end", "s", ends[at].seconds_since(origin)}}});
    }
  }
  return rows;
}

// Both copies at once: each lane's bandwidth and time beside the whole run's.
void add_lane_metrics(Row& row, const SampleSet& samples) {
  if (samples.lanes.size() < 2) return;
  for (std::size_t lane = 0; lane < samples.lanes.size(); ++lane) {
    row.metrics.push_back(lane_bandwidth_metric(samples, lane));
    row.metrics.push_back(lane_time_metric(samples, lane));
  }
}

class OverlapProbe final : public SweepProbe<Point> {
 public:
  std::string name() const override { return "overlap"; }
  std::string description() const override {
    return "copy/compute overlap: H2D -> kernel -> D2H staged over n streams vs sequential, "
           "against a pipeline model fed by the measured stage times";
  }
  std::vector<Axis> axes() const override;
  std::string memory_flags() const override { return "--size"; }
  std::string help_footer() const override {
    return "Runs: h2d, d2h, h2d+d2h (both at once), kernel, <stage>-chunked (the largest stream "
           "count's chunks back to back on one stream: per-chunk costs), sequential (one stream, "
           "one chunk) and staged (n chunks on n streams). --streams 1 adds nothing beyond the "
           "sequential run. --intensity 0 tunes the balanced kernel to the H2D time; copy-bound "
           "uses 1/4 of its iterations, compute-bound 4x.";
  }
  void add_words(Glossary& glossary) const override { overlap::add_words(glossary); }
  std::vector<std::string> counter_metrics() const override {
    return metric_names(overlap::kCounterMetrics);
  }
  std::string method(const AxisValues& /*values*/) const override {
    return "H2D cudaMemcpyAsync -> transform kernel (a chain of integer multiply-adds per 32-bit "
           "word) -> D2H on non-blocking streams; staged = n equal chunks, chunk i on forked "
           "stream i; pinned runs gated and timed with CUDA events, pageable with the host clock; "
           "solo stage times, both copies at once, sequential and staged runs in one batch of "
           "interleaved rounds; every run's output verified against the transformed input";
  }
  std::vector<Point> points(const AxisValues& v) const override { return sweep_points(v); }
  Row row(const Point& p) const override {
    return unmeasured_row({{"memory", p.memory, ""},
                           {"workload", p.workload, ""},
                           {"run", p.run, ""},
                           {"order", p.order, ""},
                           {"streams", static_cast<std::int64_t>(p.streams), ""},
                           {"chunks", static_cast<std::int64_t>(p.chunks), ""}});
  }
  Analysis measure(Sweep<Point>& s) override;
};

std::vector<Axis> OverlapProbe::axes() const {
  Axis streams = list_axis("streams", "stream counts of the staged run (chunks = streams)",
                           "1,2,4,8,16,32", "1,4,16");
  streams.min = 1;
  streams.max = 256;
  streams.max_items = 32;
  Axis size = size_axis("size", "buffer size (a multiple of 4 bytes)", "64MiB", "32MiB");
  size.min = 1 << 20;
  size.max = kMaxBufferBytes;
  size.validate = multiple_of(4, "4 bytes");
  Axis intensity = number_axis(
      "intensity",
      "multiply-adds per element of the balanced kernel; 0 = tuned so the kernel takes as long "
      "as the H2D copy",
      "0");
  intensity.max = kMaxIterations;
  return {choice_axis("memory", "host memory kinds", {"pinned", "pageable"}, "pinned"),
          choice_axis("workload", "kernel intensities", {"copy-bound", "balanced", "compute-bound"},
                      "all", "balanced"),
          choice_axis("order", "issue orders of the staged run", {"depth-first", "batched"}, "all",
                      "depth-first"),
          streams,
          size,
          intensity,
          switch_axis("timeline", "show the timeline of one staged run as text")};
}

OverlapProbe::Analysis OverlapProbe::measure(Sweep<Point>& s) {
  const AxisValues& values = s.values();
  const int engines = s.ctx().device().async_engine_count;
  if (engines < 1)
    throw UnsupportedError(
        "overlap: the device has no asynchronous copy engine (asyncEngineCount 0): copies "
        "cannot overlap kernels");
  Setup setup(static_cast<std::size_t>(values.number("size")));
  for (const auto& m : values.choices("memory"))
    setup.host[m] =
        std::make_unique<runtime::HostPair>(runtime::host_memory_of(m), setup.bytes, kInSeed);
  set_workloads(setup, values, s.ctx().stream());

  const std::vector<SampleSet> measured = s.measure_each(
      [&](const Point& p, runtime::Operation& op) { op = make_operation(p, setup); });
  for (std::size_t i = 0; i < measured.size(); ++i)
    add_lane_metrics(s.row(i), measured[i]);
  ProbeResult& result = s.result();
  if (const auto p = timeline_point(values)) {
    for (auto& row : record_timeline(*p, setup))
      result.summary.push_back(std::move(row));
  }
  result.conditions.push_back({"buffer_bytes", "B", static_cast<double>(setup.bytes)});
  result.conditions.push_back({"async_engine_count", "", static_cast<double>(engines)});
  if (setup.tuned_h2d > 0) result.conditions.push_back({"tuned_h2d_time", "s", setup.tuned_h2d});
  for (const auto& [workload, iterations] : setup.iterations) {
    if (values.has_choice("workload", workload))
      result.conditions.push_back({workload + "_iterations", "", static_cast<double>(iterations)});
  }
  return [timeline = values.on("timeline")](ProbeResult& r) { overlap::analyse(r, timeline); };
}

}  // namespace

std::unique_ptr<Probe> make_overlap_probe() {
  return std::make_unique<OverlapProbe>();
}

}  // namespace gpuprobe
