// Unit tests of peer's sweep: the points (sm-latency has no bidir point), which take their rounds
// in processes of their own, the GPU that runs each path, and the latency chain (one cycle through
// every node, its end after n hops).
#include <gtest/gtest.h>

#include <set>

#include "peer/sweep.hpp"

namespace gpuprobe::peer {
namespace {

TEST(PeerSweep, LatencyHasNoBidirPoint) {
  const auto points = pair_sweep({0, 1}, {"ce", "sm-latency"}, {"uni", "bidir"}, {4096, 65536});
  // 2 pairs x (ce: 2 directions + sm-latency: uni only) x 2 sizes
  EXPECT_EQ(points.size(), 2u * 3u * 2u);
  for (const auto& p : points)
    EXPECT_FALSE(p.mode == "sm-latency" && p.direction == "bidir");
  EXPECT_EQ(points.front().src, 0);
  EXPECT_EQ(points.front().dst, 1);
  EXPECT_EQ(points.front().bytes, 4096u);
}

TEST(PeerSweep, SmallCopiesAndChasesRunTheirRoundsInProcesses) {
  EXPECT_TRUE(process_level({0, 1, "ce", "uni", kProcessLevelMaxBytes}));
  EXPECT_FALSE(process_level({0, 1, "ce", "uni", 2 * kProcessLevelMaxBytes}));
  EXPECT_TRUE(process_level({0, 1, "sm-latency", "uni", 512u << 20}));
}

TEST(PeerSweep, ExecutingGpu) {
  EXPECT_EQ(executing_gpu("ce", 0, 1), 1);
  EXPECT_EQ(executing_gpu("ce-nop2p", 0, 1), 1);
  EXPECT_EQ(executing_gpu("sm-read", 0, 1), 1);
  EXPECT_EQ(executing_gpu("sm-latency", 0, 1), 1);
  EXPECT_EQ(executing_gpu("staged", 0, 1), 1);
  EXPECT_EQ(executing_gpu("sm-write", 0, 1), 0);
  EXPECT_EQ(executing_gpu("ce-write", 2, 1), 2);
}

TEST(PeerChase, NodesArePowersOfTwoAtLeastOne) {
  EXPECT_EQ(chase_nodes(16), 1u);
  EXPECT_EQ(chase_nodes(128), 1u);
  EXPECT_EQ(chase_nodes(4096), 32u);
  EXPECT_EQ(chase_nodes(4096 + 128), 32u);  // 33 slots: the power of two below
  EXPECT_EQ(chase_nodes(std::uint64_t{256} << 20), std::uint64_t{2} << 20);
}

// Every node once per lap: a chain that fell into a short cycle would stay in a few lines (in
// cache) and measure less than the buffer's size claims.
TEST(PeerChase, OneCycleThroughEveryNode) {
  for (const std::uint64_t nodes : {1ull, 2ull, 32ull, 4096ull, 1ull << 16}) {
    std::set<std::uint64_t> seen;
    std::uint64_t node = 0;
    for (std::uint64_t i = 0; i < nodes; ++i) {
      seen.insert(node);
      node = chase_next(node, nodes);
    }
    EXPECT_EQ(seen.size(), nodes) << nodes << " nodes";
    EXPECT_EQ(node, 0u) << nodes << " nodes: back at the start after one lap";
  }
}

TEST(PeerChase, EndAfterHops) {
  // Modulo 32 the step is 13 x node + 15: from 0 the chain runs 15, 18, 25, ...
  EXPECT_EQ(chase_end(1, 32), 15u);
  EXPECT_EQ(chase_end(3, 32), 25u);
  EXPECT_EQ(chase_end(32, 32), 0u);  // one lap
  // A repetition's 512 hops through 4096 nodes (512 KiB) and 2^20 (128 MiB), worked out in Python.
  EXPECT_EQ(chase_end(kChaseHops, 4096), 2560u);
  EXPECT_EQ(chase_end(kChaseHops, 1u << 20), 920064u);
}

using Copies = std::vector<std::pair<int, int>>;

TEST(PeerPatterns, AllToOneOneToAllAllToAll) {
  const auto points = pattern_sweep({0, 1, 2}, {"pairs", "all-to-one", "one-to-all", "all-to-all"},
                                    {"ce", "sm-read", "ce-write"}, {4096});
  // (3 receivers + 3 senders + 1 all-to-all) x 2 modes (sm-read has no pattern) x 1 size
  ASSERT_EQ(points.size(), 7u * 2u);
  EXPECT_EQ(points[0].pattern, "all-to-one");
  EXPECT_EQ(points[0].gpu, 0);
  EXPECT_EQ(points[0].mode, "ce");
  EXPECT_EQ(points[0].copies, (Copies{{1, 0}, {2, 0}}));
  EXPECT_EQ(points[1].mode, "ce-write");
  EXPECT_EQ(points[6].pattern, "one-to-all");
  EXPECT_EQ(points[6].gpu, 0);
  EXPECT_EQ(points[6].copies, (Copies{{0, 1}, {0, 2}}));
  const PatternPoint& all = points.back();
  EXPECT_EQ(all.pattern, "all-to-all");
  EXPECT_EQ(all.gpu, -1);
  EXPECT_EQ(all.copies.size(), 6u);
  EXPECT_TRUE(pattern_sweep({0, 1}, {"pairs"}, {"ce"}, {4096}).empty());
}

TEST(PeerPatterns, ReportedGpusAndTheirCopies) {
  const auto points =
      pattern_sweep({0, 1, 2}, {"all-to-one", "one-to-all", "all-to-all"}, {"ce"}, {4096});
  ASSERT_EQ(points.size(), 7u);
  EXPECT_EQ(reported_gpus(points[1], {0, 1, 2}), std::vector<int>{1});
  EXPECT_EQ(copies_of(points[1], 1), (std::vector<std::size_t>{0, 1}));  // into 1: both
  EXPECT_EQ(copies_of(points[4], 1), (std::vector<std::size_t>{0, 1}));  // from 1: both
  const PatternPoint& all = points.back();
  EXPECT_EQ(reported_gpus(all, {0, 1, 2}), (std::vector<int>{0, 1, 2}));
  // all-to-all copies (0,1) (0,2) (1,0) (1,2) (2,0) (2,1): into 2 are (0,2) and (1,2)
  EXPECT_EQ(copies_of(all, 2), (std::vector<std::size_t>{1, 3}));
}

// Every sender of a receiver lands in a slot of its own: no two copies write the same bytes.
TEST(PeerPatterns, InboxSlotsAreDistinct) {
  const std::vector<int> devices = {0, 1, 2, 3};
  EXPECT_EQ(inbox_slot(devices, 1, 0), 0u);
  EXPECT_EQ(inbox_slot(devices, 2, 0), 1u);
  EXPECT_EQ(inbox_slot(devices, 3, 0), 2u);
  EXPECT_EQ(inbox_slot(devices, 0, 2), 0u);
  EXPECT_EQ(inbox_slot(devices, 1, 2), 1u);
  EXPECT_EQ(inbox_slot(devices, 3, 2), 2u);
}

}  // namespace
}  // namespace gpuprobe::peer
