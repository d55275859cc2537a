// Unit tests for a device's JSON form: its keys in order, defaults for fields older files lack,
// and the integer checks with their messages.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "gpuprobe/core/errors.hpp"
#include "gpuprobe/core/json_io.hpp"

namespace gpuprobe {
namespace {

using ojson = nlohmann::ordered_json;

ojson report_with(const DeviceInfo& d) {
  RunReport report;
  report.devices = {d};
  return to_json(report);
}

TEST(DeviceJson, WritesEveryKeyInOrder) {
  const ojson j = report_with(DeviceInfo{})["devices"][0];
  std::vector<std::string> keys;
  for (auto it = j.begin(); it != j.end(); ++it)
    keys.push_back(it.key());
  const std::vector<std::string> expected = {"index",
                                             "name",
                                             "uuid",
                                             "pci_bus_id",
                                             "compute_capability",
                                             "sm_count",
                                             "sm_clock_khz",
                                             "memory_clock_khz",
                                             "memory_bus_width_bits",
                                             "total_memory_bytes",
                                             "l2_bytes",
                                             "persisting_l2_max_bytes",
                                             "access_policy_max_window_bytes",
                                             "shared_memory_per_sm_bytes",
                                             "shared_memory_per_block_optin_bytes",
                                             "async_engine_count",
                                             "can_map_host_memory",
                                             "integrated",
                                             "ecc_enabled",
                                             "pcie_link_gts",
                                             "pcie_link_width",
                                             "peak_dram_estimate_gbps",
                                             "link_source",
                                             "pcie_generation",
                                             "pcie_max_generation",
                                             "pcie_max_width",
                                             "numa_node",
                                             "cpu_affinity",
                                             "nvml_unavailable",
                                             "peer_links"};
  EXPECT_EQ(keys, expected);
}

TEST(DeviceJson, RoundTripsEveryField) {
  DeviceInfo d;
  d.index = 2;
  d.name = "GPU";
  d.uuid = "GPU-1";
  d.pci_bus_id = "0:1";
  d.compute_capability = "9.0";
  d.sm_count = 3;
  d.sm_clock_khz = 4;
  d.memory_clock_khz = 5;
  d.memory_bus_width_bits = 6;
  d.total_memory_bytes = 7;
  d.l2_bytes = 8;
  d.persisting_l2_max_bytes = 9;
  d.access_policy_max_window_bytes = 10;
  d.shared_memory_per_sm_bytes = 11;
  d.shared_memory_per_block_optin_bytes = 12;
  d.async_engine_count = 13;
  d.can_map_host_memory = true;
  d.integrated = true;
  d.ecc_enabled = true;
  d.pcie_link_gts = 16.5;
  d.pcie_link_width = 14;
  d.peak_dram_estimate_gbps = 15.25;
  d.link_source = "nvml";
  d.pcie_generation = 1;
  d.pcie_max_generation = 5;
  d.pcie_max_width = 16;
  d.numa_node = 1;
  d.cpu_affinity = "0-31,64-95";
  d.nvml_unavailable = "why";
  d.peer_links.push_back(
      {3, "0000:1b:00.0", 4, 18, true, 26.562, "across sockets", "ok", "ok", "ok", "ok"});
  const ojson j = report_with(d);
  const RunReport back = report_from_json(j, "t.json");
  ASSERT_EQ(back.devices.size(), 1u);
  EXPECT_EQ(to_json(back)["devices"], j["devices"]);
  const DeviceInfo& b = back.devices[0];
  EXPECT_EQ(b.numa_node, std::optional<int>(1));
  ASSERT_EQ(b.peer_links.size(), 1u);
  EXPECT_EQ(b.peer_links[0].peer, 3);
  EXPECT_EQ(b.peer_links[0].nvlinks, 18);
  EXPECT_TRUE(b.peer_links[0].via_nvswitch);
  EXPECT_DOUBLE_EQ(b.peer_links[0].nvlink_gbps_per_link, 26.562);
  EXPECT_EQ(b.peer_links[0].p2p_atomics, "ok");
}

TEST(DeviceJson, UnknownNumaNodeIsNull) {
  const ojson j = report_with(DeviceInfo{})["devices"][0];
  EXPECT_TRUE(j["numa_node"].is_null());
  EXPECT_TRUE(j["peer_links"].is_array());
  EXPECT_TRUE(j["peer_links"].empty());
}

TEST(DeviceJson, MissingFieldsDefault) {
  ojson j = report_with(DeviceInfo{});
  j["devices"][0] = ojson{{"index", 5}, {"name", "old"}};
  const DeviceInfo d = report_from_json(j, "old.json").devices.at(0);
  EXPECT_EQ(d.index, 5);
  EXPECT_EQ(d.name, "old");
  EXPECT_EQ(d.uuid, "");
  EXPECT_EQ(d.l2_bytes, 0u);
  EXPECT_FALSE(d.ecc_enabled);
  EXPECT_EQ(d.pcie_link_gts, 0.0);
  // Files written before link facts: none known.
  EXPECT_EQ(d.link_source, "");
  EXPECT_FALSE(d.numa_node.has_value());
  EXPECT_TRUE(d.peer_links.empty());
}

std::string rejection(const ojson& j) {
  try {
    report_from_json(j, "bad.json");
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

TEST(DeviceJson, RejectsBadIntegersByName) {
  ojson j = report_with(DeviceInfo{});
  j["devices"][0]["l2_bytes"] = -1;
  EXPECT_EQ(rejection(j), "bad.json: not a gpuprobe result file: 'l2_bytes' = -1 is out of range");
  j["devices"][0]["l2_bytes"] = 1.5;
  EXPECT_EQ(rejection(j), "bad.json: not a gpuprobe result file: 'l2_bytes' is not an integer");
}

TEST(DeviceJson, RejectsMalformedPeerLinks) {
  ojson j = report_with(DeviceInfo{});
  j["devices"][0]["peer_links"] = 3;
  EXPECT_EQ(rejection(j),
            "bad.json: not a gpuprobe result file: a device's 'peer_links' is not an array");
  j["devices"][0]["peer_links"] = ojson::array({1});
  EXPECT_EQ(rejection(j),
            "bad.json: not a gpuprobe result file: an entry of a device's "
            "'peer_links' is not an object");
  j["devices"][0]["peer_links"] = ojson::array({ojson{{"nvlinks", 2.5}}});
  EXPECT_EQ(rejection(j), "bad.json: not a gpuprobe result file: 'nvlinks' is not an integer");
}

}  // namespace
}  // namespace gpuprobe
