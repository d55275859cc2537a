// GPU tests of the harness: a copy that writes wrong data makes the probe `failed` with a "wrong
// result" reason and the device is usable again; the busy kernel lasts what it is asked; lanes
// fork work onto further streams that runs concurrently and is joined into the timing.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <memory>
#include <vector>

#include "gpu_test_support.hpp"
#include "gpuprobe/core/samples.hpp"
#include "gpuprobe/runner/runner.hpp"
#include "gpuprobe/runtime/buffers.hpp"
#include "gpuprobe/runtime/busy.hpp"
#include "gpuprobe/runtime/context.hpp"
#include "gpuprobe/runtime/cuda_check.hpp"
#include "gpuprobe/runtime/device.hpp"
#include "gpuprobe/runtime/pattern.hpp"
#include "gpuprobe/runtime/stream.hpp"

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
      return runtime::PatternBuffer{"", dst.get(), kBytes, kSeed}.verify(ctx.stream());
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
  EXPECT_NE(r.reason.find("1 of 262144 words wrong, the first at index 262143"), std::string::npos)
      << r.reason;
  EXPECT_TRUE(r.rows.empty());
  // The next probe starts on a working device.
  const ProbeResult after = run_copy(0);
  EXPECT_EQ(after.status, Status::kOk) << after.reason;
}

// The pattern check finds every wrong word and the lowest one, on the device (the tally the
// probes' check kernels count into) and on the host alike; a poisoned buffer is wrong throughout.
TEST(VerificationGpu, PatternCheckCountsWrongWordsAndFindsTheFirst) {
  GP_REQUIRE_GPU();
  constexpr std::size_t kWords = kBytes / 4;
  runtime::DeviceBuffer dev(kBytes);
  runtime::HostBuffer host(runtime::HostMemory::kPinned, kBytes);
  runtime::fill_pattern_device(dev.get(), kBytes, kSeed, nullptr);
  runtime::fill_pattern_host(host.get(), kBytes, kSeed);
  const std::uint32_t zero = 0;
  for (const std::size_t word : {kWords - 1, std::size_t{70001}, std::size_t{9}}) {
    GP_CUDA(cudaMemcpy(dev.as<std::uint32_t>() + word, &zero, 4, cudaMemcpyHostToDevice));
    host.as<std::uint32_t>()[word] = 0;
  }
  const Mismatches on_device = runtime::verify_pattern_device(dev.get(), kBytes, kSeed, nullptr);
  const Mismatches on_host = runtime::verify_pattern_host(host.get(), kBytes, kSeed);
  for (const Mismatches& m : {on_device, on_host}) {
    EXPECT_EQ(m.count, 3u);
    EXPECT_EQ(m.first, 9u);
  }
  const runtime::PatternBuffer buffer{"out", dev.get(), kBytes, kSeed};
  buffer.poison(nullptr);
  EXPECT_EQ(buffer.verify(nullptr),
            fmt::format("out: {} of {} words wrong, the first at index 0", kWords, kWords));
  runtime::fill_pattern_device(dev.get(), kBytes, kSeed, nullptr);
  EXPECT_EQ(buffer.verify(nullptr), "");
}

// Buffers of an operation across GPUs (two per GPU, up to two GPUs), each on a stream of its own
// GPU: filled, every one passes; poison_all leaves each wrong throughout, and verify_all names
// every one in its report.
TEST(VerificationGpu, BuffersAcrossGpusArePoisonedAndVerifiedEachOnItsGpu) {
  GP_REQUIRE_GPU();
  constexpr std::size_t kWords = kBytes / 4;
  std::vector<std::unique_ptr<runtime::DeviceBuffer>> memory;
  std::vector<std::unique_ptr<runtime::Stream>> streams;
  std::vector<runtime::GpuPatternBuffer> all;
  for (int gpu = 0; gpu < std::min(runtime::device_count(), 2); ++gpu) {
    const runtime::DeviceGuard guard(gpu);
    for (std::uint32_t k = 0; k < 2; ++k) {
      memory.push_back(std::make_unique<runtime::DeviceBuffer>(kBytes));
      streams.push_back(std::make_unique<runtime::Stream>());
      runtime::fill_pattern_device(memory.back()->get(), kBytes, kSeed + k, streams.back()->get());
      streams.back()->synchronize();
      all.push_back(
          {gpu,
           streams.back()->get(),
           {fmt::format("GPU {} out {}", gpu, k), memory.back()->get(), kBytes, kSeed + k}});
    }
  }
  EXPECT_EQ(runtime::verify_all(all), "");
  runtime::poison_all(all);
  const std::string report = runtime::verify_all(all);
  for (const auto& b : all)
    EXPECT_NE(report.find(mismatch_text(b.buffer.what, {kWords, 0}, kWords)), std::string::npos)
        << report;
}

// The busy kernel lasts what it was asked for, by the events' clock: overlap's compute stage and
// the concurrency test below rest on it.
TEST(BusyKernelGpu, LastsTheTimeAskedFor) {
  GP_REQUIRE_GPU();
  runtime::use_device(0);
  const DeviceInfo device = runtime::query_device(0);
  runtime::MeasureOptions options;
  options.rule.fixed_samples = 5;
  runtime::ProbeContext ctx(device, options, {}, "test", 2);
  for (const std::uint64_t ns : {std::uint64_t{200'000}, std::uint64_t{2'000'000}}) {
    runtime::Operation op;
    op.label = "busy";
    op.lanes.push_back({"busy", 0.0, [ns](runtime::LaunchScope& s) {
                          runtime::launch_busy_wait(s.stream(), ns);
                        }});
    const double t = statistics_of(ctx.measure(op).seconds).median;
    EXPECT_NEAR(t / (static_cast<double>(ns) * 1e-9), 1.0, 0.05)
        << ns << " ns asked, " << t << " s";
  }
}

// A lane that forks four busy kernels onto further streams and joins them runs them at the same
// time: it takes about one kernel's time, not four (the serial lane), and not less than one (the
// join is inside the timed window). This is the difference the overlap probe measures.
TEST(ForkJoinGpu, ForkedWorkRunsConcurrentlyAndIsJoinedIntoTheTiming) {
  GP_REQUIRE_GPU();
  runtime::use_device(0);
  const DeviceInfo device = runtime::query_device(0);
  runtime::MeasureOptions options;
  options.rule.fixed_samples = 5;
  runtime::ProbeContext ctx(device, options, {}, "test", 2);
  constexpr std::uint64_t kNs = 500'000;
  auto make = [&](bool fork) {
    runtime::Operation op;
    op.label = fork ? "forked" : "serial";
    op.lanes.push_back({"busy", 0.0, [fork](runtime::LaunchScope& s) {
                          for (std::size_t i = 0; i < 4; ++i)
                            runtime::launch_busy_wait(fork ? s.fork(i) : s.stream(), kNs);
                          if (fork) s.join();
                        }});
    return op;
  };
  const double serial = statistics_of(ctx.measure(make(false)).seconds).median;
  const double forked = statistics_of(ctx.measure(make(true)).seconds).median;
  const double one = static_cast<double>(kNs) * 1e-9;
  EXPECT_GT(serial, 3.8 * one) << "serial " << serial << " s";
  EXPECT_LT(forked, 0.5 * serial) << "forked " << forked << " s, serial " << serial << " s";
  EXPECT_GT(forked, 0.95 * one) << "forked " << forked << " s: the join is not timed";
}

}  // namespace
}  // namespace gpuprobe
