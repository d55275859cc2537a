// The smallest real probe on the kit, `d2d` (device-to-device copy bandwidth by size, its peak as
// a finding), shown whole in docs/writing-a-probe.md and run by test_minimal_probe_gpu.cpp.
#include <fmt/format.h>

#include <algorithm>
#include <memory>

#include "gpuprobe/core/analysis_guard.hpp"
#include "gpuprobe/core/finding_def.hpp"
#include "gpuprobe/core/samples.hpp"
#include "gpuprobe/core/units.hpp"
#include "gpuprobe/probe.hpp"
#include "gpuprobe/runtime/buffers.hpp"
#include "gpuprobe/runtime/context.hpp"
#include "gpuprobe/runtime/cuda_check.hpp"
#include "gpuprobe/runtime/pattern.hpp"

namespace gpuprobe::testing {
namespace {

constexpr std::uint32_t kSeed = 0xD2Du;
constexpr const char* kMethod =
    "cudaMemcpyAsync device to device, gated batches timed with CUDA events; bandwidth counts "
    "bytes read + written; GB/s = 1e9 B/s; every copy verified after sampling";

std::vector<Param> row_params(std::uint64_t bytes) {
  return {{"bytes", static_cast<std::int64_t>(bytes), "B"}};
}

// The finding, declared once: its id, kind, fields (with units) and sentence.
constexpr Value<"bandwidth", "GB/s"> kBandwidth;
constexpr Size<"at"> kAt;
FindingList findings;
const auto kPeak =
    findings.verdict("d2d_peak", params(), values(kBandwidth), outcome(kAt), [](const auto& f) {
      return fmt::format("device-to-device copies peak at {} at {} (measured)", f[kBandwidth],
                         f[kAt]);
    });

// The analysis (host-only): the size with the highest median bandwidth, as data.
void analyse(ProbeResult& result) {
  const Row* best = nullptr;
  for (const Row& row : result.rows) {
    if (!best || metric_median(row, "bandwidth") > metric_median(*best, "bandwidth")) best = &row;
  }
  if (!best) return;
  result.findings.push_back(kPeak.make(kBandwidth(metric_median(*best, "bandwidth")),
                                       kAt(*int_param_of(*best, "bytes"))));
}

class DeviceCopyProbe final : public Probe {
 public:
  std::string name() const override { return "d2d"; }
  std::string description() const override { return "device-to-device copy bandwidth by size"; }
  std::vector<Axis> axes() const override {
    Axis sizes = size_list_axis("sizes", "copy sizes", "1MiB:256MiB:x4", "1MiB:64MiB:x4");
    sizes.check = [](std::uint64_t b) {
      return b % 4 == 0 ? std::string() : fmt::format("{} is not a multiple of 4 bytes", b);
    };
    return {sizes};
  }
  void add_words(Glossary& g) const override { g.add_findings(findings); }
  ProbeResult plan(const AxisValues& values) const override {
    ProbeResult r = new_result(kMethod);
    for (const auto bytes : values.list("sizes"))
      r.rows.push_back(unmeasured_row(row_params(bytes)));
    return r;
  }
  ProbeResult run(runtime::ProbeContext& ctx, const AxisValues& values) override {
    const std::vector<std::uint64_t>& sizes = values.list("sizes");
    const std::uint64_t most = *std::max_element(sizes.begin(), sizes.end());
    runtime::DeviceBuffer src(most), dst(most);
    runtime::fill_pattern_device(src.get(), most, kSeed, ctx.stream());
    GP_CUDA(cudaStreamSynchronize(ctx.stream()));
    std::vector<runtime::Operation> ops;  // one per size, sharing the buffers
    for (const std::uint64_t bytes : sizes) {
      const runtime::PatternBuffer out{"", dst.get(), bytes, kSeed};
      const void* in = src.get();
      runtime::Operation op;
      op.label = fmt::format("d2d {}", format_bytes(static_cast<double>(bytes)));
      op.lanes.push_back(
          {"copy", 2.0 * static_cast<double>(bytes), [=](runtime::LaunchScope& l) {
             GP_CUDA(cudaMemcpyAsync(out.data, in, bytes, cudaMemcpyDeviceToDevice, l.stream()));
           }});
      op.prepare = [=](cudaStream_t s) { out.poison(s); };
      op.verify = [=, check = ctx.stream()] { return out.verify(check); };
      ops.push_back(std::move(op));
    }
    const std::vector<SampleSet> measured = ctx.measure_all(ops);
    ProbeResult r = new_result(kMethod);
    for (std::size_t i = 0; i < sizes.size(); ++i)
      r.rows.push_back(measured_row(row_params(sizes[i]), measured[i]));
    analyse_keeping_rows(r, [&] { analyse(r); });  // an analysis error keeps the rows
    return r;
  }
};

}  // namespace

std::unique_ptr<Probe> make_minimal_probe() {
  return std::make_unique<DeviceCopyProbe>();
}

}  // namespace gpuprobe::testing
