// GPU tests of the harness: a copy that writes wrong data makes the probe `failed` with a "wrong
// result" reason and the device is usable again; the pass loop re-runs one operation with its
// per-pass reset and gets identical verified results; lanes fork and join further streams.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <CLI/CLI.hpp>

#include "gpu_test_support.hpp"
#include "gpuprobe/core/samples.hpp"
#include "gpuprobe/runner/runner.hpp"
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
  std::string description() const override { return "device copy for harness tests"; }
  std::vector<Axis> axes() const override { return {}; }
  void add_words(Glossary&) const override {}
  ProbeResult plan(const AxisValues&) const override { return {}; }

  ProbeResult run(runtime::ProbeContext& ctx, const AxisValues&) override {
    runtime::DeviceBuffer src(kBytes);
    runtime::DeviceBuffer dst(kBytes);
    runtime::fill_pattern_device(src.get(), kBytes, kSeed, ctx.stream());
    runtime::Operation op;
    op.label = "test copy";
    op.prepare = [&](cudaStream_t s) { GP_CUDA(cudaMemsetAsync(dst.get(), 0, kBytes, s)); };
    const std::size_t copied = kBytes - short_by_;
    op.lanes.push_back({"copy", static_cast<double>(kBytes), [&, copied](runtime::LaunchScope& s) {
                          GP_CUDA(cudaMemcpyAsync(dst.get(), src.get(), copied,
                                                  cudaMemcpyDeviceToDevice, s.stream()));
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
  return runner::run_probe(probe, {}, runtime::query_device(0), options, runner::CounterOptions{},
                           {}, core_glossary());
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
  EXPECT_EQ(noise->value, StoppingRule{}.max_noise * 100);
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

// The pass loop the counter collector drives: each pass resets (poisons) the destination, runs
// one repetition and verifies; a correct copy is right in every pass, a short one wrong in every
// pass (the reset makes each pass stand on its own), and a wrapper sees each pass once, in order.
TEST(PassLoopGpu, RerunsOneOperationWithResetsAndGetsIdenticalVerifiedResults) {
  GP_REQUIRE_GPU();
  runtime::use_device(0);
  const DeviceInfo device = runtime::query_device(0);
  runtime::MeasureOptions options;
  options.rule.fixed_samples = 3;
  runtime::ProbeContext ctx(device, options, {}, "test", 1);
  runtime::DeviceBuffer src(kBytes);
  runtime::DeviceBuffer dst(kBytes);
  runtime::fill_pattern_device(src.get(), kBytes, kSeed, ctx.stream());
  for (const std::size_t short_by : {std::size_t{0}, std::size_t{4}}) {
    runtime::Operation op;
    op.label = "pass copy";
    std::size_t resets = 0;
    op.reset_pass = [&](cudaStream_t s) {
      ++resets;
      GP_CUDA(cudaMemsetAsync(dst.get(), 0, kBytes, s));
    };
    op.cache = runtime::Cache::kFlushL2;
    op.lanes.push_back({"copy", static_cast<double>(kBytes), [&](runtime::LaunchScope& s) {
                          GP_CUDA(cudaMemcpyAsync(dst.get(), src.get(), kBytes - short_by,
                                                  cudaMemcpyDeviceToDevice, s.stream()));
                        }});
    op.verify = [&]() -> std::string {
      const auto bad = runtime::count_mismatches_device(dst.get(), kBytes, kSeed, ctx.stream());
      return bad == 0 ? "" : fmt::format("{} words differ", bad);
    };
    std::vector<std::size_t> wrapped;
    const auto problems = ctx.run_passes(op, 4, [&](std::size_t i, const auto& pass) {
      wrapped.push_back(i);
      pass();
    });
    EXPECT_EQ(resets, 4u);
    EXPECT_EQ(wrapped, (std::vector<std::size_t>{0, 1, 2, 3}));
    ASSERT_EQ(problems.size(), 4u);
    for (const auto& p : problems)
      EXPECT_EQ(p, short_by == 0 ? "" : "1 words differ") << "short by " << short_by;
  }
}

// A lane forks its copy into four quarter copies on further streams and joins them: the data is
// complete, the measurement covers all four, and a repeat of the same operation gives the same.
TEST(ForkJoinGpu, ForkedQuartersAreJoinedIntoTheLanesTiming) {
  GP_REQUIRE_GPU();
  runtime::use_device(0);
  const DeviceInfo device = runtime::query_device(0);
  runtime::MeasureOptions options;
  options.rule.fixed_samples = 5;
  runtime::ProbeContext ctx(device, options, {}, "test", 2);
  constexpr std::size_t kBig = std::size_t{256} << 20;
  runtime::DeviceBuffer src(kBig);
  runtime::DeviceBuffer dst(kBig);
  runtime::fill_pattern_device(src.get(), kBig, kSeed, ctx.stream());
  auto make = [&](bool fork) {
    runtime::Operation op;
    op.label = fork ? "forked copy" : "one copy";
    op.prepare = [&](cudaStream_t s) { GP_CUDA(cudaMemsetAsync(dst.get(), 0, kBig, s)); };
    op.lanes.push_back({"copy", 2.0 * kBig, [&, fork](runtime::LaunchScope& s) {
                          if (!fork) {
                            GP_CUDA(cudaMemcpyAsync(dst.get(), src.get(), kBig,
                                                    cudaMemcpyDeviceToDevice, s.stream()));
                            return;
                          }
                          const std::size_t q = kBig / 4;
                          for (std::size_t i = 0; i < 4; ++i) {
                            GP_CUDA(cudaMemcpyAsync(static_cast<char*>(dst.get()) + i * q,
                                                    static_cast<const char*>(src.get()) + i * q, q,
                                                    cudaMemcpyDeviceToDevice, s.fork(i)));
                          }
                          if (fork) s.join();
                        }});
    op.verify = [&]() -> std::string {
      const auto bad = runtime::count_mismatches_device(dst.get(), kBig, kSeed, ctx.stream());
      return bad == 0 ? "" : fmt::format("{} words differ", bad);
    };
    return op;
  };
  const SampleSet one = ctx.measure(make(false));
  const SampleSet forked = ctx.measure(make(true));
  const double t1 = statistics_of(one.seconds).median;
  const double t4 = statistics_of(forked.seconds).median;
  // Four quarters in parallel move the same bytes through the same DRAM: if the join were
  // missing, the timing would stop after enqueueing and read far below the one-copy time.
  EXPECT_GT(t4, 0.7 * t1) << "one copy " << t1 << " s, forked " << t4 << " s";
  EXPECT_LT(t4, 1.5 * t1) << "one copy " << t1 << " s, forked " << t4 << " s";
}

}  // namespace
}  // namespace gpuprobe
