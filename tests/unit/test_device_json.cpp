// Unit tests for a device's JSON form: its keys in order, defaults for fields older files lack,
// and the integer checks with their messages.
#include <gtest/gtest.h>

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
                                             "peak_dram_estimate_gbps"};
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
  const ojson j = report_with(d);
  const RunReport back = report_from_json(j, "t.json");
  ASSERT_EQ(back.devices.size(), 1u);
  EXPECT_EQ(to_json(back)["devices"], j["devices"]);
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

}  // namespace
}  // namespace gpuprobe
