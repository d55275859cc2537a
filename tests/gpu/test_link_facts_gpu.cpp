// GPU tests of NVML's link facts: NVML knows every visible GPU (matched by PCI bus id), a pair
// that CUDA and NVML both say talks over NVLink has links counted both ways, and the peer probe's
// P2P rows then stay within the NVLink raw limit. Skipped, visibly, without a GPU or below two.
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <iostream>
#include <optional>
#include <set>

#include "gpu_test_support.hpp"
#include "gpuprobe/runtime/device.hpp"
#include "gpuprobe/runtime/link_facts.hpp"
#include "registry.hpp"

namespace gpuprobe {
namespace {

std::vector<DeviceInfo> every_gpu_with_links() {
  std::vector<DeviceInfo> out;
  for (int i = 0; i < runtime::device_count(); ++i) {
    out.push_back(runtime::query_device(i));
    runtime::add_link_facts(out.back());
  }
  return out;
}

const PeerLinkInfo* link_to(const DeviceInfo& d, int peer) {
  for (const auto& l : d.peer_links)
    if (l.peer == peer) return &l;
  return nullptr;
}

// On a machine with the NVIDIA driver, NVML answers for every GPU CUDA sees, with one link entry
// per other GPU (each named once, never itself).
TEST(LinkFactsGpu, NvmlKnowsEveryVisibleGpu) {
  GP_REQUIRE_GPU();
  const auto gpus = every_gpu_with_links();
  for (const auto& d : gpus) {
    EXPECT_EQ(d.link_source, "nvml") << "GPU " << d.index << ": " << d.nvml_unavailable;
    EXPECT_EQ(d.nvml_unavailable, "");
    EXPECT_EQ(d.peer_links.size(), gpus.size() - 1) << "GPU " << d.index;
    std::set<int> peers;
    for (const auto& l : d.peer_links) {
      EXPECT_NE(l.peer, d.index);
      peers.insert(l.peer);
    }
    EXPECT_EQ(peers.size(), d.peer_links.size());
    if (d.pcie_max_generation > 0 && d.pcie_generation > 0) {
      EXPECT_LE(d.pcie_generation, d.pcie_max_generation) << "GPU " << d.index;
    }
  }
}

// Where CUDA allows P2P and NVML says the pair's P2P goes over NVLink, NVML reports active links
// between them, the same number both ways.
TEST(LinkFactsGpu, NvlinkPairsHaveLinksBothWays) {
  GP_REQUIRE_GPU();
  const auto gpus = every_gpu_with_links();
  if (gpus.size() < 2) GTEST_SKIP() << "needs two GPUs; " << gpus.size() << " visible";
  int nvlink_pairs = 0;
  for (const auto& a : gpus) {
    for (const auto& b : gpus) {
      if (a.index == b.index) continue;
      int can = 0;
      ASSERT_EQ(cudaDeviceCanAccessPeer(&can, a.index, b.index), cudaSuccess);
      const PeerLinkInfo* ab = link_to(a, b.index);
      const PeerLinkInfo* ba = link_to(b, a.index);
      ASSERT_TRUE(ab && ba) << a.index << " <-> " << b.index;
      if (!can || ab->p2p_nvlink != "ok") continue;
      ++nvlink_pairs;
      EXPECT_GT(ab->nvlinks, 0) << a.index << " -> " << b.index;
      EXPECT_EQ(ab->nvlinks, ba->nvlinks) << a.index << " <-> " << b.index;
      EXPECT_EQ(ab->via_nvswitch, ba->via_nvswitch);
      std::cout << "[ info ] GPU " << a.index << " -> GPU " << b.index << ": NVLink"
                << ab->nvlink_generation << " x" << ab->nvlinks
                << (ab->via_nvswitch ? " via NVSwitch" : "") << ", " << ab->nvlink_gbps_per_link
                << " GB/s per link, " << ab->topology << "\n";
    }
  }
  if (nvlink_pairs == 0) GTEST_SKIP() << "no pair talks over NVLink (PCIe only)";
}

// The peer probe's P2P rows on an NVLink pair: NVML's facts, and within the raw limit.
TEST(LinkFactsGpu, PeerRowsOverNvlinkStayWithinTheRawLimit) {
  GP_REQUIRE_GPU();
  const auto gpus = every_gpu_with_links();
  if (gpus.size() < 2) GTEST_SKIP() << "needs two GPUs; " << gpus.size() << " visible";
  const PeerLinkInfo* l = link_to(gpus[0], 1);
  if (!l || l->nvlinks == 0) GTEST_SKIP() << "GPUs 0 and 1 are not joined by NVLink";
  auto probe = make_peer_probe();
  const ProbeResult r = testing::run_probe_across(
      *probe, {"--mode", "ce,sm-read,sm-write", "--sizes", "256MiB"}, {0, 1}, 5, false);
  ASSERT_EQ(r.status, Status::kOk) << r.reason;
  ASSERT_FALSE(r.rows.empty());
  for (const auto& row : r.rows) {
    EXPECT_EQ(text_param_of(row, "link_source"), std::optional<std::string>("nvml"));
    EXPECT_EQ(text_param_of(row, "link").value_or("").rfind("NVLink", 0), 0u);
    EXPECT_LE(testing::derived_of(row, "fraction_of_raw"), 1.0)
        << text_param_of(row, "mode").value_or("") << " "
        << text_param_of(row, "direction").value_or("") << " "
        << int_param_of(row, "src").value_or(-1) << "->" << int_param_of(row, "dst").value_or(-1);
  }
}

}  // namespace
}  // namespace gpuprobe
