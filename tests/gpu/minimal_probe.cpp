// The smallest real probe on the kit, `d2d` (device-to-device copy bandwidth by size, its peak as
// a finding), shown whole in docs/writing-a-probe.md and run by test_minimal_probe_gpu.cpp. A
// point is a copy size: the framework plans its rows and runs measure() on the same points.
#include <fmt/format.h>

#include <algorithm>
#include <memory>

#include "gpuprobe/core/finding_def.hpp"
#include "gpuprobe/sweep_probe.hpp"

namespace gpuprobe::testing {
namespace {

// The finding, declared once: id, kind, fields with units, sentence.
constexpr Value<"bandwidth", "GB/s"> kBandwidth;
constexpr Size<"at"> kAt;
FindingList findings;
const auto kPeak =
    findings.verdict("d2d_peak", params(), values(kBandwidth), outcome(kAt), [](const auto& f) {
      return fmt::format("device-to-device copies peak at {} at {}", f[kBandwidth], f[kAt]);
    });

class DeviceCopyProbe final : public SweepProbe<std::uint64_t> {
 public:
  std::string name() const override { return "d2d"; }
  std::string description() const override { return "device-to-device copy bandwidth by size"; }
  std::vector<Axis> axes() const override {
    return {size_list_axis("sizes", "copy sizes", "1MiB:256MiB:x4", "1MiB:64MiB:x4")};
  }
  void add_words(Glossary& g) const override { g.add_findings(findings); }
  std::string method(const AxisValues&) const override {
    return "cudaMemcpyAsync device to device timed with CUDA events, bytes read + written; "
           "every copy verified";
  }
  std::vector<std::uint64_t> points(const AxisValues& v) const override { return v.list("sizes"); }
  Row row(const std::uint64_t& bytes) const override {
    return unmeasured_row({{"bytes", static_cast<std::int64_t>(bytes), "B"}});
  }
  Analysis measure(Sweep<std::uint64_t>& s) override {
    const std::uint64_t most = *std::max_element(s.points().begin(), s.points().end());
    runtime::DeviceBuffer src(most), dst(most);
    runtime::fill_pattern_device(src.get(), most, 0xD2Du, s.ctx().stream());
    GP_CUDA(cudaStreamSynchronize(s.ctx().stream()));
    s.measure_each([&](std::uint64_t bytes, runtime::Operation& op) {  // sharing the buffers
      const runtime::PatternBuffer out{"", dst.get(), bytes, 0xD2Du};
      op.lanes.push_back(
          {"copy", 2.0 * static_cast<double>(bytes), [=, in = src.get()](auto& l) {
             GP_CUDA(cudaMemcpyAsync(out.data, in, bytes, cudaMemcpyDeviceToDevice, l.stream()));
           }});
      op.prepare = [out](cudaStream_t st) { out.poison(st); };
      op.verify = [out, stream = s.ctx().stream()] { return out.verify(stream); };
    });
    return [](ProbeResult& r) {  // the analysis, on the finished rows (an error keeps them)
      const auto bandwidth = [](const Row& row) { return metric_median(row, "bandwidth"); };
      if (r.rows.empty()) return;
      const Row& best = *std::ranges::max_element(r.rows, {}, bandwidth);  // the peak's size
      r.findings.push_back(
          kPeak.make(kBandwidth(bandwidth(best)), kAt(*int_param_of(best, "bytes"))));
    };
  }
};

}  // namespace

std::unique_ptr<Probe> make_minimal_probe() {
  return std::make_unique<DeviceCopyProbe>();
}

}  // namespace gpuprobe::testing
