// GPU tests of the overlap probe: every run verified, balanced stages overlap beyond noise.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <utility>
#include <variant>

#include "gpu_test_support.hpp"
#include "registry.hpp"

namespace gpuprobe {
namespace {

TEST(OverlapGpu, BalancedFourStreamsBeatSequentialBeyondNoise) {
  GP_REQUIRE_GPU();
  auto probe = make_overlap_probe();
  const ProbeResult r = testing::run_probe(*probe, {"--workload", "balanced", "--streams", "1,4",
                                                    "--order", "depth-first", "--size", "64MiB"});
  ASSERT_EQ(r.status, Status::kOk) << r.reason;  // failed if any run's output was wrong
  const Row* seq = testing::find_row(r, {{"run", "sequential"}, {"workload", "balanced"}});
  const Row* staged = testing::find_row(r, {{"run", "staged"}, {"streams", "4"}});
  ASSERT_NE(seq, nullptr);
  ASSERT_NE(staged, nullptr);
  // The interval of the speed-up (bootstrap over the rounds) lies above 1.
  EXPECT_GT(testing::derived_of(*staged, "speedup_low"), 1.0);
  // Three balanced stages on 4 chunks overlap far: the model says 0.5x, demand at least 0.8x.
  EXPECT_LT(testing::median_of(*staged, "time"), 0.8 * testing::median_of(*seq, "time"));
  // The kernel was tuned to the copy: within a factor of two of the H2D time.
  const Row* h2d = testing::find_row(r, {{"run", "h2d"}});
  const Row* kernel = testing::find_row(r, {{"run", "kernel"}});
  ASSERT_NE(h2d, nullptr);
  ASSERT_NE(kernel, nullptr);
  const double ratio = testing::median_of(*kernel, "time") / testing::median_of(*h2d, "time");
  EXPECT_GT(ratio, 0.5);
  EXPECT_LT(ratio, 2.0);
}

TEST(OverlapGpu, PageableVerifiedAndTimelineRecorded) {
  GP_REQUIRE_GPU();
  auto probe = make_overlap_probe();
  const ProbeResult r = testing::run_probe(
      *probe, {"--memory", "pinned,pageable", "--workload", "balanced", "--streams", "4", "--order",
               "batched", "--size", "16MiB", "--timeline"});
  ASSERT_EQ(r.status, Status::kOk) << r.reason;
  EXPECT_NE(testing::find_row(r, {{"memory", "pageable"}, {"run", "staged"}}), nullptr);
  // The timeline: 4 chunks x 3 stages, each ending after it starts, H2D of a chunk before its
  // kernel, the kernel before its D2H (the events are on one stream per chunk).
  std::map<std::int64_t, std::map<std::string, std::pair<double, double>>> chunks;
  for (const auto& s : r.summary) {
    const Param* chunk = find_param(s.params, "chunk");
    if (!chunk) continue;
    const double start = *find_quantity(s.values, "start")->value;
    const double end = *find_quantity(s.values, "end")->value;
    EXPECT_GE(start, 0.0);
    EXPECT_GT(end, start);
    chunks[std::get<std::int64_t>(chunk->value)]
          [std::get<std::string>(find_param(s.params, "stage")->value)] = {start, end};
  }
  std::size_t entries = 0;
  for (const auto& [chunk, stages] : chunks) {
    entries += stages.size();
    ASSERT_EQ(stages.size(), 3u) << chunk;
    EXPECT_LE(stages.at("h2d").second, stages.at("kernel").first) << chunk;
    EXPECT_LE(stages.at("kernel").second, stages.at("d2h").first) << chunk;
  }
  EXPECT_EQ(entries, 12u);
  EXPECT_NE(find_finding(r, "overlap_timeline"), nullptr);
}

}  // namespace
}  // namespace gpuprobe
