// GPU tests of the harness's correctness path: a copy that writes wrong data makes the probe
// `failed` with a "wrong result" reason, and the device is usable again for the next probe.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <CLI/CLI.hpp>

#include "gpu_test_support.hpp"
#include "gpuprobe/core/samples.hpp"
#include "gpuprobe/runtime/buffers.hpp"
#include "gpuprobe/runtime/context.hpp"
#include "gpuprobe/runtime/cuda_check.hpp"
#include "gpuprobe/runtime/device.hpp"
#include "gpuprobe/runtime/pattern.hpp"

namespace gpuprobe {
namespace {

constexpr std::size_t kBytes = 1 << 20;
constexpr std::uint32_t kSeed = 0xC0FFEEu;

// A device-to-device copy of kBytes that copies `short_by` bytes fewer than it claims, then
// verifies the destination with the same pattern check the probes use.
class CopyProbe : public Probe {
 public:
  explicit CopyProbe(std::size_t short_by) : short_by_(short_by) {}
  std::string name() const override { return "test-copy"; }
  std::string summary() const override { return "device copy for harness tests"; }
  void add_options(CLI::App&) override {}
  void use_quick_defaults() override {}
  ProbeResult plan() const override { return {}; }

  ProbeResult run(runtime::ProbeContext& ctx) override {
    runtime::DeviceBuffer src(kBytes);
    runtime::DeviceBuffer dst(kBytes);
    runtime::fill_pattern_device(src.get(), kBytes, kSeed, ctx.stream());
    runtime::Operation op;
    op.label = "test copy";
    op.prepare = [&](cudaStream_t s) { GP_CUDA(cudaMemsetAsync(dst.get(), 0, kBytes, s)); };
    const std::size_t copied = kBytes - short_by_;
    op.lanes.push_back(
        {"copy", static_cast<double>(kBytes), [&, copied](cudaStream_t s) {
           GP_CUDA(cudaMemcpyAsync(dst.get(), src.get(), copied, cudaMemcpyDeviceToDevice, s));
         }});
    op.verify = [&]() -> std::string {
      const auto bad = runtime::count_mismatches_device(dst.get(), kBytes, kSeed, ctx.stream());
      return bad == 0 ? "" : fmt::format("{} of {} words differ", bad, kBytes / 4);
    };
    const SampleSet samples = ctx.measure(op);
    ProbeResult result;
    Row row;
    row.metrics.push_back(time_metric(samples));
    result.rows.push_back(std::move(row));
    return result;
  }

 private:
  std::size_t short_by_;
};

ProbeResult run_copy(std::size_t short_by) {
  CopyProbe probe(short_by);
  runtime::MeasureOptions options;
  options.rule.fixed_samples = 3;
  return runtime::run_probe(probe, runtime::query_device(0), options, {});
}

TEST(VerificationGpu, ExactCopyPasses) {
  GP_REQUIRE_GPU();
  const ProbeResult r = run_copy(0);
  EXPECT_EQ(r.status, Status::kOk) << r.reason;
  EXPECT_EQ(r.rows.size(), 1u);
  // The runner echoes the stopping rule: fixed count, and the noise bound `noisy` is judged by.
  const Quantity* fixed = find_quantity(r.conditions, "rule_fixed_samples");
  ASSERT_NE(fixed, nullptr);
  EXPECT_EQ(fixed->value, 3.0);
  const Quantity* noise = find_quantity(r.conditions, "rule_max_noise");
  ASSERT_NE(noise, nullptr);
  EXPECT_EQ(noise->value, 2.0);
  EXPECT_EQ(find_quantity(r.conditions, "rule_min_samples"), nullptr);
}

// Freed device memory is scrubbed in the background: the next probe waits in proportion.
TEST(VerificationGpu, NextProbeSettlesAfterALargeFree) {
  GP_REQUIRE_GPU();
  (void)run_copy(0);  // whatever earlier tests freed is accounted for here
  { runtime::DeviceBuffer big(std::size_t{512} << 20); }
  const ProbeResult r = run_copy(0);
  ASSERT_EQ(r.status, Status::kOk) << r.reason;
  const Quantity* freed = find_quantity(r.conditions, "freed_before_start");
  const Quantity* wait = find_quantity(r.conditions, "settle_wait");
  ASSERT_NE(freed, nullptr);
  ASSERT_NE(wait, nullptr);
  EXPECT_EQ(*freed->value, 512.0 * (1 << 20) + 2.0 * kBytes);  // the big buffer + one run's two
  EXPECT_NEAR(*wait->value, *freed->value / 100e9, 1e-9);
  // A small free (the previous run's 2 MiB) is below the threshold: no wait.
  const ProbeResult again = run_copy(0);
  EXPECT_EQ(find_quantity(again.conditions, "settle_wait"), nullptr);
}

TEST(VerificationGpu, CopyMissingItsLastWordFailsAsWrongResult) {
  GP_REQUIRE_GPU();
  const ProbeResult r = run_copy(4);
  EXPECT_EQ(r.status, Status::kFailed);
  EXPECT_NE(r.reason.find("wrong result"), std::string::npos) << r.reason;
  EXPECT_NE(r.reason.find("1 of 262144 words differ"), std::string::npos) << r.reason;
  EXPECT_TRUE(r.rows.empty());
  // The next probe starts on a working device.
  const ProbeResult after = run_copy(0);
  EXPECT_EQ(after.status, Status::kOk) << after.reason;
}

}  // namespace
}  // namespace gpuprobe
