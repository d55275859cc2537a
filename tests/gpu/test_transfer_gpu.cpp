// GPU tests of the transfer probe: data verified, shape and sane ranges on a real device.
#include <gtest/gtest.h>

#include "gpu_test_support.hpp"
#include "registry.hpp"

namespace gpuprobe {
namespace {

TEST(TransferGpu, PinnedBothDirectionsVerifiedAndFast) {
  GP_REQUIRE_GPU();
  auto probe = make_transfer_probe();
  const ProbeResult r = testing::run_probe(
      *probe, {"--pinned", "--pageable", "--sizes", "4KiB,64MiB", "--direction", "all"});
  ASSERT_EQ(r.status, Status::kOk) << r.reason;
  ASSERT_EQ(r.rows.size(), 2u * 3u * 2u);
  for (const char* dir : {"h2d", "d2h"}) {
    const Row* big =
        testing::find_row(r, {{"memory", "pinned"}, {"direction", dir}, {"bytes", "67108864"}});
    const Row* small =
        testing::find_row(r, {{"memory", "pinned"}, {"direction", dir}, {"bytes", "4096"}});
    ASSERT_NE(big, nullptr);
    ASSERT_NE(small, nullptr);
    const double bw = find_metric(*big, "bandwidth")->stats.median;
    // Any PCIe x16 link from gen3 up moves 64 MiB at well over 5 GB/s, and nothing beats 1 TB/s.
    EXPECT_GT(bw, 5.0) << dir;
    EXPECT_LT(bw, 1000.0) << dir;
    // Fixed per-copy cost: a 4 KiB copy gets far less bandwidth than a 64 MiB one.
    EXPECT_LT(find_metric(*small, "bandwidth")->stats.median, 0.5 * bw) << dir;
    // The time metric agrees with bandwidth: t = bytes / bw.
    EXPECT_NEAR(find_metric(*big, "time")->stats.median, 67108864.0 / (bw * 1e9),
                0.05 * find_metric(*big, "time")->stats.median);
  }
  const Row* bidir =
      testing::find_row(r, {{"memory", "pinned"}, {"direction", "bidir"}, {"bytes", "67108864"}});
  ASSERT_NE(bidir, nullptr);
  ASSERT_NE(find_metric(*bidir, "bandwidth_h2d"), nullptr);
  ASSERT_NE(find_metric(*bidir, "bandwidth_d2h"), nullptr);
  // The sum is at least each direction alone.
  EXPECT_GE(find_metric(*bidir, "bandwidth")->stats.median,
            find_metric(*bidir, "bandwidth_h2d")->stats.median * 0.99);
  // A fit per (memory, direction), with positive latency and bandwidth.
  ASSERT_EQ(r.summary.size() >= 6u, true);
  for (const auto& s : r.summary) {
    if (const Quantity* bwq = find_quantity(s.values, "fit_bandwidth")) {
      ASSERT_TRUE(bwq->value.has_value());
      EXPECT_GT(*bwq->value, 0.0);
    }
  }
}

// PCIe counters of the counter pass: a 64 MiB pinned copy puts about its payload on the link in
// its own direction (CUPTI counts payload at 512 B granularity, plus background traffic).
TEST(TransferGpu, LinkBytesMatchThePayload) {
  GP_REQUIRE_GPU();
  auto probe = make_transfer_probe();
  const ProbeResult r =
      testing::run_probe(*probe, {"--pinned", "--sizes", "64MiB", "--direction", "h2d,d2h"}, 3);
  ASSERT_EQ(r.status, Status::kOk) << r.reason;
  ASSERT_TRUE(r.counters);
  if (r.counters->state == CounterState::kRefused)
    GTEST_SKIP() << "counters refused here: " << r.counters->reason;
  for (const char* dir : {"h2d", "d2h"}) {
    const Row* row =
        testing::find_row(r, {{"memory", "pinned"}, {"direction", dir}, {"bytes", "67108864"}});
    ASSERT_NE(row, nullptr);
    const Quantity* link = find_quantity(row->derived, "link_bytes_per_payload");
    ASSERT_NE(link, nullptr) << dir;
    EXPECT_GT(link->value.value_or(0), 0.99) << dir;
    EXPECT_LT(link->value.value_or(0), 1.25) << dir;
  }
}

TEST(TransferGpu, EveryHostMemoryKindVerifies) {
  GP_REQUIRE_GPU();
  auto probe = make_transfer_probe();
  const ProbeResult r =
      testing::run_probe(*probe, {"--sizes", "1MiB,3MiB", "--direction", "all"}, 3);
  ASSERT_EQ(r.status, Status::kOk) << r.reason;
  EXPECT_EQ(r.rows.size(), 4u * 3u * 2u);
  for (const char* kind : {"pageable", "pinned", "wc", "registered"}) {
    EXPECT_NE(testing::find_row(r, {{"memory", kind}, {"direction", "d2h"}, {"bytes", "3145728"}}),
              nullptr)
        << kind;
  }
}

}  // namespace
}  // namespace gpuprobe
