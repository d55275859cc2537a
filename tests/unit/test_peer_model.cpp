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
  PeerLink switched = nvlink(4, 18);
  switched.via_nvswitch = true;
  EXPECT_EQ(link_text(switched), "NVLink4 x18 via NVSwitch");
  EXPECT_EQ(link_text(pcie(5, 32.0, 16)), "PCIe gen5 x16");
  EXPECT_EQ(link_text(PeerLink{}), "unknown");
}

// Two GPUs as NVML would describe them: the H200 pair of issue 30 (18 NVLinks via NVSwitch,
// 26.562 GB/s per link, PCIe gen5 x16 at most, idling at gen1).
DeviceInfo nvml_gpu(int index, int peer, int nvlinks, double gbps_per_link) {
  DeviceInfo d;
  d.index = index;
  d.link_source = "nvml";
  d.pcie_generation = 1;
  d.pcie_link_gts = 2.5;
  d.pcie_link_width = 16;
  d.pcie_max_generation = 5;
  d.pcie_max_width = 16;
  PeerLinkInfo l;
  l.peer = peer;
  l.nvlink_generation = 4;
  l.nvlinks = nvlinks;
  l.via_nvswitch = true;
  l.nvlink_gbps_per_link = gbps_per_link;
  d.peer_links.push_back(l);
  return d;
}

DeviceInfo sysfs_gpu(int index, double gts, int width) {
  DeviceInfo d;
  d.index = index;
  d.link_source = "sysfs";
  d.pcie_link_gts = gts;
  d.pcie_link_width = width;
  return d;
}

TEST(PeerModel, NvmlNvlinkRateIsTheRawLimit) {
  const PathLimit ce = peer_path_limit(nvml_gpu(0, 1, 18, 26.562), nvml_gpu(1, 0, 18, 26.562),
                                       PeerPath::kP2p, false);
  EXPECT_EQ(ce.link.source, "nvml");
  EXPECT_EQ(link_text(ce.link.link), "NVLink4 x18 via NVSwitch");
  EXPECT_NEAR(ce.raw_gbps, 478.116, 1e-9);  // 18 x 26.562, not the PCIe gen5 x16 63.0
  const PathLimit both =
      peer_path_limit(nvml_gpu(0, 1, 18, 26.562), nvml_gpu(1, 0, 18, 26.562), PeerPath::kP2p, true);
  EXPECT_NEAR(both.raw_gbps, 2 * 478.116, 1e-9);
  // The measurement of issue 30 (up to 618% of PCIe gen5 x16: ~390 GB/s) is inside it.
  EXPECT_LE(6.18 * 63.015, ce.raw_gbps);
}

TEST(PeerModel, NvmlWithoutARateFallsBackToTheWhitepaperRate) {
  const PathLimit ce =
      peer_path_limit(nvml_gpu(0, 1, 18, 0.0), nvml_gpu(1, 0, 18, 0.0), PeerPath::kP2p, false);
  EXPECT_DOUBLE_EQ(ce.raw_gbps, 18 * 25.0);
}

TEST(PeerModel, EitherSidesNvlinkFactsServe) {
  DeviceInfo src = nvml_gpu(0, 1, 18, 26.562);
  const DeviceInfo dst = nvml_gpu(1, 0, 12, 26.562);
  src.peer_links.clear();  // only dst knows the link
  const ChosenLink link = peer_link_between(src, dst);
  EXPECT_EQ(link.link.kind, LinkKind::kNvlink);
  EXPECT_EQ(link.link.lanes, 12);
}

TEST(PeerModel, NoNvlinkToThePeerMeansPcieAtNvmlsMaximum) {
  // src's NVLinks go to GPU 2, not to dst: the pair talks over PCIe, gen5 x16 (the maximum), not
  // the gen1 the GPUs idle at.
  const PathLimit ce = peer_path_limit(nvml_gpu(0, 2, 18, 26.562), nvml_gpu(1, 2, 18, 26.562),
                                       PeerPath::kP2p, false);
  EXPECT_EQ(ce.link.source, "nvml");
  EXPECT_EQ(link_text(ce.link.link), "PCIe gen5 x16");
  EXPECT_NEAR(ce.raw_gbps, 63.015, 0.001);
}

TEST(PeerModel, StagedUsesTheTwoPcieLinksEvenOverNvlink) {
  const PathLimit staged = peer_path_limit(nvml_gpu(0, 1, 18, 26.562), nvml_gpu(1, 0, 18, 26.562),
                                           PeerPath::kStagedSerial, false);
  EXPECT_EQ(link_text(staged.link.link), "PCIe gen5 x16");
  EXPECT_NEAR(staged.raw_gbps, 31.508, 0.001);
  // The driver's P2P-off path keeps both PCIe links busy at once: the slower link's rate.
  const PathLimit driver = peer_path_limit(nvml_gpu(0, 1, 18, 26.562), sysfs_gpu(1, 16.0, 16),
                                           PeerPath::kStagedPipelined, true);
  EXPECT_EQ(link_text(driver.link.link), "PCIe gen4 x16");
  EXPECT_NEAR(driver.raw_gbps, 2 * 31.508, 0.002);
}

TEST(PeerModel, SysfsFallbackIsTheNarrowerPcieEnd) {
  const PathLimit ce =
      peer_path_limit(sysfs_gpu(0, 32.0, 16), sysfs_gpu(1, 16.0, 16), PeerPath::kP2p, false);
  EXPECT_EQ(ce.link.source, "sysfs");
  EXPECT_EQ(link_text(ce.link.link), "PCIe gen4 x16");
  EXPECT_NEAR(ce.raw_gbps, 31.508, 0.001);
  // One end from NVML, the other from sysfs: not NVML's facts.
  EXPECT_EQ(peer_link_between(nvml_gpu(0, 2, 1, 1.0), sysfs_gpu(1, 32.0, 16)).source, "sysfs");
}

TEST(PeerModel, NothingKnownIsNoLimit) {
  const PathLimit ce = peer_path_limit(DeviceInfo{}, DeviceInfo{}, PeerPath::kP2p, true);
  EXPECT_EQ(ce.link.source, "");
  EXPECT_EQ(ce.raw_gbps, 0.0);
  EXPECT_EQ(pcie_gts_of_generation(5), 32.0);
  EXPECT_EQ(pcie_gts_of_generation(7), 0.0);
}

}  // namespace
}  // namespace gpuprobe::models
