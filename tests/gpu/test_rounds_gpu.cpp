// GPU tests of rounds: operations that share a buffer each verify their own result, samples carry
// their rounds and a fixed count stays exact, and a point measured in rounds agrees with the same
// point measured in one round.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "gpu_test_support.hpp"
#include "gpuprobe/core/samples.hpp"
#include "gpuprobe/runtime/buffers.hpp"
#include "gpuprobe/runtime/context.hpp"
#include "gpuprobe/runtime/cuda_check.hpp"
#include "gpuprobe/runtime/device.hpp"
#include "gpuprobe/runtime/pattern.hpp"

namespace gpuprobe {
namespace {

// A device-to-device copy of `bytes` from `src` (filled with `seed`) into `dst`, poisoned first
// and verified against the seed after.
runtime::Operation copy_op(const std::string& label, void* src, void* dst, std::size_t bytes,
                           std::uint32_t seed, cudaStream_t check) {
  runtime::Operation op;
  op.label = label;
  op.prepare = [=](cudaStream_t s) { GP_CUDA(cudaMemsetAsync(dst, 0, bytes, s)); };
  op.lanes.push_back({"copy", 2.0 * static_cast<double>(bytes), [=](runtime::LaunchScope& s) {
                        GP_CUDA(
                            cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, s.stream()));
                      }});
  op.verify = [=]() -> std::string {
    return runtime::PatternBuffer{"", dst, bytes, seed}.verify(check);
  };
  return op;
}

struct Fixture {
  DeviceInfo device = runtime::query_device(0);
};

TEST(RoundsGpu, OperationsSharingABufferEachVerifyTheirOwnResult) {
  GP_REQUIRE_GPU();
  Fixture f;
  constexpr std::size_t kBytes = 1 << 20;
  runtime::MeasureOptions options;
  options.rule.fixed_samples = 6;
  options.rounds = 3;
  runtime::ProbeContext ctx(f.device, options, {}, "test-rounds", 2);
  runtime::DeviceBuffer a(kBytes), b(kBytes), shared(kBytes);
  runtime::fill_pattern_device(a.get(), kBytes, 1u, ctx.stream());
  runtime::fill_pattern_device(b.get(), kBytes, 2u, ctx.stream());
  GP_CUDA(cudaStreamSynchronize(ctx.stream()));
  // Both write `shared`: each must be verified right after its own last round, before the other
  // overwrites it (verifying after the whole batch would fail one of them).
  const std::vector<runtime::Operation> ops = {
      copy_op("from a", a.get(), shared.get(), kBytes, 1u, ctx.stream()),
      copy_op("from b", b.get(), shared.get(), kBytes, 2u, ctx.stream())};
  std::vector<SampleSet> out;
  ASSERT_NO_THROW(out = ctx.measure_all(ops));
  ASSERT_EQ(out.size(), 2u);
}

TEST(RoundsGpu, SamplesCarryTheirRoundsAndAFixedCountStaysExact) {
  GP_REQUIRE_GPU();
  Fixture f;
  constexpr std::size_t kBytes = 1 << 20;
  runtime::MeasureOptions options;
  options.rule.fixed_samples = 7;
  options.rounds = 3;
  std::vector<std::string> visits;
  const runtime::ProgressFn progress = [&](const std::string&, std::size_t, std::size_t,
                                           const std::string& label) { visits.push_back(label); };
  runtime::ProbeContext ctx(f.device, options, progress, "test-rounds", 2);
  runtime::DeviceBuffer src(kBytes), d1(kBytes), d2(kBytes);
  runtime::fill_pattern_device(src.get(), kBytes, 5u, ctx.stream());
  GP_CUDA(cudaStreamSynchronize(ctx.stream()));
  const auto out = ctx.measure_all({copy_op("one", src.get(), d1.get(), kBytes, 5u, ctx.stream()),
                                    copy_op("two", src.get(), d2.get(), kBytes, 5u, ctx.stream())});
  EXPECT_EQ(visits.size(), 6u);  // every point visited once per round
  for (const SampleSet& s : out) {
    ASSERT_EQ(s.seconds.size(), 7u);
    const Metric m = time_metric(s);
    ASSERT_EQ(m.samples.size(), 3u);
    EXPECT_EQ(m.samples[0].size(), 3u);  // 7 = 3 + 2 + 2
    EXPECT_EQ(m.samples[1].size(), 2u);
    EXPECT_EQ(m.samples[2].size(), 2u);
  }
}

// The property rounds must keep: spreading a point's samples over rounds (with a prepare step and
// a warm-up batch before each) measures the same thing as taking them in one stretch.
TEST(RoundsGpu, APointInRoundsAgreesWithTheSamePointInOneRound) {
  GP_REQUIRE_GPU();
  Fixture f;
  constexpr std::size_t kBytes = std::size_t{64} << 20;
  runtime::DeviceBuffer src(kBytes), dst(kBytes);
  auto median_gbps = [&](std::size_t rounds) {
    runtime::MeasureOptions options;
    options.rounds = rounds;
    options.rule.fixed_samples = 40;
    runtime::ProbeContext ctx(f.device, options, {}, "test-rounds", 1);
    runtime::fill_pattern_device(src.get(), kBytes, 9u, ctx.stream());
    GP_CUDA(cudaStreamSynchronize(ctx.stream()));
    const auto out =
        ctx.measure_all({copy_op("copy", src.get(), dst.get(), kBytes, 9u, ctx.stream())});
    return bandwidth_metric(out.front()).stats.median;
  };
  const double one = median_gbps(1);
  const double five = median_gbps(5);
  // A 64 MiB device copy on an idle GPU varies by well under 1% between runs.
  EXPECT_NEAR(five / one, 1.0, 0.02) << "1 round " << one << " GB/s, 5 rounds " << five;
  EXPECT_GT(one, 100.0);  // a device copy, not a host transfer: hundreds of GB/s at least
}

// An operation without round set-up (transfer's large copies) is prepared before its first round
// and its verified last one only, and warms up only with its first round's calibration; by
// default every round is prepared and warmed up. Counted: prepare calls and launches of one
// repetition per batch (a target batch time of zero keeps a batch one repetition).
TEST(RoundsGpu, RoundSetUpRunsEveryRoundUnlessTheOperationOptsOut) {
  GP_REQUIRE_GPU();
  Fixture f;
  constexpr std::size_t kBytes = std::size_t{16} << 20;
  runtime::DeviceBuffer src(kBytes), dst(kBytes);
  auto count = [&](bool every_round) {
    runtime::MeasureOptions options;
    options.rounds = 4;
    options.rule.fixed_samples = 8;
    options.target_batch_seconds = 0;
    runtime::ProbeContext ctx(f.device, options, {}, "test-rounds", 1);
    runtime::fill_pattern_device(src.get(), kBytes, 4u, ctx.stream());
    GP_CUDA(cudaStreamSynchronize(ctx.stream()));
    auto prepares = std::make_shared<int>(0);
    auto launches = std::make_shared<int>(0);
    runtime::Operation op = copy_op("copy", src.get(), dst.get(), kBytes, 4u, ctx.stream());
    const auto poison = op.prepare;
    op.prepare = [=](cudaStream_t s) {
      ++*prepares;
      poison(s);
    };
    const auto copy = op.lanes[0].launch;
    op.lanes[0].launch = [=](runtime::LaunchScope& l) {
      ++*launches;
      copy(l);
    };
    op.rewarm_each_round = every_round;
    op.prepare_every_round = every_round;
    EXPECT_NO_THROW(ctx.measure_all({op}));  // verified after the last round
    return std::pair{*prepares, *launches};
  };
  // The calibration (one repetition, also the first round's warm-up), a warm-up in each of the
  // three later rounds, eight samples.
  EXPECT_EQ(count(true), std::pair(4, 1 + 3 + 8));
  EXPECT_EQ(count(false), std::pair(2, 1 + 8));
}

}  // namespace
}  // namespace gpuprobe
