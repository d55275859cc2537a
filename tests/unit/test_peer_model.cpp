// Unit tests of the peer link model: NVLink generations x link counts, PCIe generations x
// widths, and the staged (through the host) limit, against figures computed by hand from the
// numbers cited in src/models/peer_model.cpp.
#include "gpuprobe/models/peer_model.hpp"

#include <gtest/gtest.h>

namespace gpuprobe::models {
namespace {

PeerLink nvlink(int generation, int links) {
  return {LinkKind::kNvlink, generation, links, 0};
}
PeerLink pcie(int generation, double gts, int width) {
  return {LinkKind::kPcie, generation, width, gts};
}

TEST(PeerModel, NvlinkPerLinkRates) {
  EXPECT_DOUBLE_EQ(nvlink_link_gbps(1), 20.0);
  EXPECT_DOUBLE_EQ(nvlink_link_gbps(2), 25.0);
  EXPECT_DOUBLE_EQ(nvlink_link_gbps(3), 25.0);
  EXPECT_DOUBLE_EQ(nvlink_link_gbps(4), 25.0);
  EXPECT_DOUBLE_EQ(nvlink_link_gbps(5), 50.0);
  EXPECT_DOUBLE_EQ(nvlink_link_gbps(0), 0.0);
  EXPECT_DOUBLE_EQ(nvlink_link_gbps(6), 0.0);
}

// The whitepapers' totals count both directions: half of them is one direction.
TEST(PeerModel, NvlinkGenerationsTimesLinksMatchTheWhitepaperTotals) {
  EXPECT_DOUBLE_EQ(link_raw_gbps(nvlink(1, 4)), 160.0 / 2);    // P100
  EXPECT_DOUBLE_EQ(link_raw_gbps(nvlink(2, 6)), 300.0 / 2);    // V100
  EXPECT_DOUBLE_EQ(link_raw_gbps(nvlink(3, 12)), 600.0 / 2);   // A100
  EXPECT_DOUBLE_EQ(link_raw_gbps(nvlink(4, 18)), 900.0 / 2);   // H100 SXM
  EXPECT_DOUBLE_EQ(link_raw_gbps(nvlink(5, 18)), 1800.0 / 2);  // B200
  EXPECT_DOUBLE_EQ(link_raw_gbps(nvlink(4, 4)), 100.0);        // a pair joined by 4 of the 18 links
  EXPECT_DOUBLE_EQ(link_raw_gbps(nvlink(4, 0)), 0.0);
}

TEST(PeerModel, PcieGenerationsTimesWidths) {
  EXPECT_DOUBLE_EQ(link_raw_gbps(pcie(1, 2.5, 16)), 2.5 * 16 * 0.8 / 8);  // 4 GB/s
  EXPECT_DOUBLE_EQ(link_raw_gbps(pcie(3, 8.0, 16)), 8.0 * 16 * 128.0 / 130.0 / 8);
  EXPECT_NEAR(link_raw_gbps(pcie(4, 16.0, 16)), 31.508, 0.001);
  EXPECT_NEAR(link_raw_gbps(pcie(5, 32.0, 16)), 63.015, 0.001);
  EXPECT_NEAR(link_raw_gbps(pcie(5, 32.0, 8)), 31.508, 0.001);
  EXPECT_DOUBLE_EQ(link_raw_gbps(pcie(6, 64.0, 16)), 128.0);
  EXPECT_DOUBLE_EQ(link_raw_gbps(pcie(0, 0.0, 16)), 0.0);
  EXPECT_DOUBLE_EQ(link_raw_gbps(PeerLink{}), 0.0);
}

TEST(PeerModel, StagedIsTheTwoLegsOneAfterTheOther) {
  EXPECT_NEAR(staged_raw_gbps(63.015, 63.015), 31.508, 0.001);
  EXPECT_DOUBLE_EQ(staged_raw_gbps(30.0, 60.0), 20.0);  // 1 / (1/30 + 1/60)
  EXPECT_DOUBLE_EQ(staged_raw_gbps(0.0, 60.0), 0.0);
}

// The driver's P2P-off path pipelines its two legs: the slower PCIe link is the limit, not the
// two one after the other.
TEST(PeerModel, DriverStagedIsTheSlowerLink) {
  EXPECT_DOUBLE_EQ(pipelined_staged_raw_gbps(30.0, 60.0), 30.0);
  EXPECT_DOUBLE_EQ(pipelined_staged_raw_gbps(60.0, 30.0), 30.0);
  EXPECT_NEAR(pipelined_staged_raw_gbps(63.015, 63.015), 63.015, 0.001);
  EXPECT_GT(pipelined_staged_raw_gbps(63.015, 63.015), staged_raw_gbps(63.015, 63.015));
  EXPECT_DOUBLE_EQ(pipelined_staged_raw_gbps(0.0, 60.0), 0.0);
  EXPECT_DOUBLE_EQ(pipelined_staged_raw_gbps(60.0, 0.0), 0.0);
}

TEST(PeerModel, LinkText) {
  EXPECT_EQ(link_text(nvlink(4, 18)), "NVLink4 x18");
  EXPECT_EQ(link_text(pcie(5, 32.0, 16)), "PCIe gen5 x16");
  EXPECT_EQ(link_text(PeerLink{}), "unknown");
}

}  // namespace
}  // namespace gpuprobe::models
