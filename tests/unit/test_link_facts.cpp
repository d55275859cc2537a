// Unit tests of NVML's link facts without a driver: the interpretation (bus ids, topology, P2P,
// NVLink versions, field values, CPU masks) and fill_link_facts over a fake NVML (a table of
// functions answering from a described machine), directly joined pairs and NVSwitch systems.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "runtime/nvml/link_interpret.hpp"
#include "runtime/nvml/link_query.hpp"

namespace gpuprobe::runtime::nvml {
namespace {

TEST(LinkInterpret, BusIdsCompareAcrossSpellings) {
  EXPECT_EQ(normalized_bus_id("00000000:1B:00.0"), "0000:1b:00.0");
  EXPECT_EQ(normalized_bus_id("0000:1b:00.0"), "0000:1b:00.0");
  EXPECT_EQ(normalized_bus_id("0001:c3:1f.7"), "0001:c3:1f.7");
  EXPECT_EQ(normalized_bus_id("0000:1b:00"), "");
  EXPECT_EQ(normalized_bus_id("0000:1b:00.0x"), "");
  EXPECT_EQ(normalized_bus_id(""), "");
}

TEST(LinkInterpret, TopologyLevelsInWords) {
  EXPECT_EQ(topology_text(NVML_TOPOLOGY_INTERNAL), "same board");
  EXPECT_EQ(topology_text(NVML_TOPOLOGY_SINGLE), "one PCIe switch");
  EXPECT_EQ(topology_text(NVML_TOPOLOGY_MULTIPLE), "PCIe switches");
  EXPECT_EQ(topology_text(NVML_TOPOLOGY_HOSTBRIDGE), "host bridge");
  EXPECT_EQ(topology_text(NVML_TOPOLOGY_NODE), "same NUMA node");
  EXPECT_EQ(topology_text(NVML_TOPOLOGY_SYSTEM), "across sockets");
  EXPECT_EQ(topology_text(static_cast<nvmlGpuTopologyLevel_t>(60)), "");
}

TEST(LinkInterpret, P2pStatusesInWords) {
  EXPECT_EQ(p2p_status_text(NVML_P2P_STATUS_OK), "ok");
  EXPECT_EQ(p2p_status_text(NVML_P2P_STATUS_NOT_SUPPORTED), "not supported");
  EXPECT_EQ(p2p_status_text(NVML_P2P_STATUS_DISABLED_BY_REGKEY), "disabled by regkey");
  EXPECT_EQ(p2p_status_text(NVML_P2P_STATUS_CHIPSET_NOT_SUPPORTED), "chipset not supported");
  EXPECT_EQ(p2p_status_text(static_cast<nvmlGpuP2PStatus_t>(7)), "unknown");
}

TEST(LinkInterpret, NvlinkVersionsAreGenerations) {
  EXPECT_EQ(nvlink_generation(NVML_NVLINK_VERSION_1_0), 1);
  EXPECT_EQ(nvlink_generation(NVML_NVLINK_VERSION_2_2), 2);
  EXPECT_EQ(nvlink_generation(NVML_NVLINK_VERSION_3_1), 3);
  EXPECT_EQ(nvlink_generation(NVML_NVLINK_VERSION_4_0), 4);  // H100, H200
  EXPECT_EQ(nvlink_generation(NVML_NVLINK_VERSION_5_0), 5);  // B200
  EXPECT_EQ(nvlink_generation(NVML_NVLINK_VERSION_INVALID), 0);
  EXPECT_EQ(nvlink_generation(8), 0);
}

TEST(LinkInterpret, FieldValuesAndRates) {
  nvmlFieldValue_t v{};
  v.nvmlReturn = NVML_SUCCESS;
  v.valueType = NVML_VALUE_TYPE_UNSIGNED_INT;
  v.value.uiVal = 26562;
  EXPECT_EQ(field_number(v), 26562.0);
  EXPECT_EQ(link_gbps_from_mbps(field_number(v)), 26.562);
  v.valueType = NVML_VALUE_TYPE_UNSIGNED_LONG_LONG;
  v.value.ullVal = 50000;
  EXPECT_EQ(field_number(v), 50000.0);
  v.nvmlReturn = NVML_ERROR_NOT_SUPPORTED;
  EXPECT_FALSE(field_number(v).has_value());
  EXPECT_FALSE(link_gbps_from_mbps(0.0).has_value());
  EXPECT_FALSE(link_gbps_from_mbps(std::nullopt).has_value());
}

TEST(LinkInterpret, CpuMasksAsRanges) {
  constexpr int kBits = static_cast<int>(sizeof(unsigned long) * 8);
  std::vector<unsigned long> mask(2, 0);
  EXPECT_EQ(cpu_list_text(mask), "");
  mask[0] = 0xFUL | (1UL << 5);  // 0-3, 5
  mask[1] = 1UL;                 // kBits
  EXPECT_EQ(cpu_list_text(mask), "0-3,5," + std::to_string(kBits));
  mask[0] = ~0UL;  // a range across the word boundary
  EXPECT_EQ(cpu_list_text(mask), "0-" + std::to_string(kBits));
}

// ---- a fake NVML --------------------------------------------------------------------------

struct FakeLink {
  std::string remote;  // the remote end's bus id
  bool to_switch = false;
  bool active = true;
};

struct FakeGpu {
  std::string bus;  // as NVML spells it
  unsigned pcie_gen = 1, pcie_width = 16, max_gen = 5, max_width = 16;
  std::vector<FakeLink> links;
};

// The machine the fake answers for; NVML's order is the vector's.
struct FakeMachine {
  std::vector<FakeGpu> gpus;
  nvmlGpuP2PStatus_t nvlink_p2p = NVML_P2P_STATUS_OK;
  unsigned speed_mbps = 26562;
};
FakeMachine* g_machine = nullptr;

nvmlDevice_t handle_of(std::size_t i) {
  return reinterpret_cast<nvmlDevice_t>(static_cast<std::uintptr_t>(i + 1));
}
const FakeGpu& gpu_of(nvmlDevice_t d) {
  return g_machine->gpus.at(reinterpret_cast<std::uintptr_t>(d) - 1);
}

nvmlReturn_t fake_handle(const char* bus, nvmlDevice_t* out) {
  for (std::size_t i = 0; i < g_machine->gpus.size(); ++i) {
    if (normalized_bus_id(g_machine->gpus[i].bus) == normalized_bus_id(bus)) {
      *out = handle_of(i);
      return NVML_SUCCESS;
    }
  }
  return NVML_ERROR_NOT_FOUND;
}
nvmlReturn_t fake_gen(nvmlDevice_t d, unsigned* v) {
  *v = gpu_of(d).pcie_gen;
  return NVML_SUCCESS;
}
nvmlReturn_t fake_width(nvmlDevice_t d, unsigned* v) {
  *v = gpu_of(d).pcie_width;
  return NVML_SUCCESS;
}
nvmlReturn_t fake_max_gen(nvmlDevice_t d, unsigned* v) {
  *v = gpu_of(d).max_gen;
  return NVML_SUCCESS;
}
nvmlReturn_t fake_max_width(nvmlDevice_t d, unsigned* v) {
  *v = gpu_of(d).max_width;
  return NVML_SUCCESS;
}
nvmlReturn_t fake_numa(nvmlDevice_t, unsigned* v) {
  *v = 1;
  return NVML_SUCCESS;
}
nvmlReturn_t fake_affinity(nvmlDevice_t, unsigned size, unsigned long* set) {
  std::memset(set, 0, size * sizeof(unsigned long));
  set[0] = 0xFFUL;  // CPUs 0-7
  return NVML_SUCCESS;
}
nvmlReturn_t fake_ancestor(nvmlDevice_t, nvmlDevice_t, nvmlGpuTopologyLevel_t* level) {
  *level = NVML_TOPOLOGY_SYSTEM;
  return NVML_SUCCESS;
}
nvmlReturn_t fake_p2p(nvmlDevice_t, nvmlDevice_t, nvmlGpuP2PCapsIndex_t i, nvmlGpuP2PStatus_t* s) {
  *s = i == NVML_P2P_CAPS_INDEX_NVLINK ? g_machine->nvlink_p2p : NVML_P2P_STATUS_OK;
  return NVML_SUCCESS;
}
nvmlReturn_t fake_state(nvmlDevice_t d, unsigned link, nvmlEnableState_t* s) {
  const auto& links = gpu_of(d).links;
  if (link >= links.size()) return NVML_ERROR_INVALID_ARGUMENT;
  *s = links[link].active ? NVML_FEATURE_ENABLED : NVML_FEATURE_DISABLED;
  return NVML_SUCCESS;
}
nvmlReturn_t fake_version(nvmlDevice_t, unsigned, unsigned* v) {
  *v = NVML_NVLINK_VERSION_4_0;
  return NVML_SUCCESS;
}
nvmlReturn_t fake_remote_pci(nvmlDevice_t d, unsigned link, nvmlPciInfo_t* pci) {
  std::strncpy(pci->busId, gpu_of(d).links.at(link).remote.c_str(), sizeof pci->busId - 1);
  return NVML_SUCCESS;
}
nvmlReturn_t fake_remote_type(nvmlDevice_t d, unsigned link, nvmlIntNvLinkDeviceType_t* t) {
  *t = gpu_of(d).links.at(link).to_switch ? NVML_NVLINK_DEVICE_TYPE_SWITCH
                                          : NVML_NVLINK_DEVICE_TYPE_GPU;
  return NVML_SUCCESS;
}
nvmlReturn_t fake_fields(nvmlDevice_t, int count, nvmlFieldValue_t* values) {
  for (int i = 0; i < count; ++i) {
    values[i].nvmlReturn =
        values[i].fieldId == NVML_FI_DEV_NVLINK_GET_SPEED ? NVML_SUCCESS : NVML_ERROR_NOT_SUPPORTED;
    values[i].valueType = NVML_VALUE_TYPE_UNSIGNED_INT;
    values[i].value.uiVal = g_machine->speed_mbps;
  }
  return NVML_SUCCESS;
}

NvmlFunctions every_function() {
  NvmlFunctions f;
  f.handle_by_bus_id = fake_handle;
  f.pcie_generation = fake_gen;
  f.pcie_width = fake_width;
  f.pcie_max_generation = fake_max_gen;
  f.pcie_max_width = fake_max_width;
  f.numa_node = fake_numa;
  f.cpu_affinity = fake_affinity;
  f.common_ancestor = fake_ancestor;
  f.p2p_status = fake_p2p;
  f.nvlink_state = fake_state;
  f.nvlink_version = fake_version;
  f.nvlink_remote_pci = fake_remote_pci;
  f.nvlink_remote_type = fake_remote_type;
  f.field_values = fake_fields;
  return f;
}

// `n` links from a GPU, each to `remote`.
std::vector<FakeLink> links_to(const std::string& remote, int n, bool to_switch) {
  return std::vector<FakeLink>(static_cast<std::size_t>(n), FakeLink{remote, to_switch, true});
}

class LinkFacts : public ::testing::Test {
 protected:
  void SetUp() override { g_machine = &machine; }
  void TearDown() override { g_machine = nullptr; }
  // CUDA device `index` (CUDA's bus ids: `cuda_bus`) after fill_link_facts with `f`.
  DeviceInfo facts(int index, const std::vector<std::string>& cuda_bus, const NvmlFunctions& f) {
    DeviceInfo d;
    d.index = index;
    d.pci_bus_id = cuda_bus.at(static_cast<std::size_t>(index));
    fill_link_facts(f, d, cuda_bus);
    return d;
  }
  FakeMachine machine;
};

// Two H200s joined directly by 18 NVLinks; NVML lists them in the other order than CUDA.
TEST_F(LinkFacts, DirectPairInTheOtherOrder) {
  machine.gpus = {{"00000000:9A:00.0", 1, 16, 5, 16, links_to("00000000:1B:00.0", 18, false)},
                  {"00000000:1B:00.0", 1, 16, 5, 16, links_to("00000000:9A:00.0", 18, false)}};
  const std::vector<std::string> cuda = {"0000:1b:00.0", "0000:9a:00.0"};
  const DeviceInfo d = facts(0, cuda, every_function());
  EXPECT_EQ(d.link_source, "nvml");
  EXPECT_EQ(d.pcie_generation, 1);
  EXPECT_EQ(d.pcie_link_width, 16);
  EXPECT_EQ(d.pcie_max_generation, 5);
  EXPECT_EQ(d.pcie_max_width, 16);
  EXPECT_EQ(d.numa_node, std::optional<int>(1));
  EXPECT_EQ(d.cpu_affinity, "0-7");
  ASSERT_EQ(d.peer_links.size(), 1u);
  const PeerLinkInfo& l = d.peer_links[0];
  EXPECT_EQ(l.peer, 1);
  EXPECT_EQ(l.peer_pci_bus_id, "0000:9a:00.0");
  EXPECT_EQ(l.nvlinks, 18);
  EXPECT_FALSE(l.via_nvswitch);
  EXPECT_EQ(l.nvlink_generation, 4);
  EXPECT_DOUBLE_EQ(l.nvlink_gbps_per_link, 26.562);
  EXPECT_EQ(l.topology, "across sockets");
  EXPECT_EQ(l.p2p_read, "ok");
  EXPECT_EQ(l.p2p_nvlink, "ok");
}

// Three GPUs, 0 and 1 joined by 6 links, 2 joined to neither: links are counted per peer.
TEST_F(LinkFacts, LinksCountPerPeer) {
  std::vector<FakeLink> zero = links_to("0000:02:00.0", 6, false);
  zero.push_back({"0000:03:00.0", false, false});  // inactive: not counted
  machine.gpus = {{"0000:01:00.0", 4, 16, 4, 16, links_to("0000:02:00.0", 6, false)},
                  {"0000:02:00.0", 4, 16, 4, 16, links_to("0000:01:00.0", 6, false)},
                  {"0000:03:00.0", 4, 16, 4, 16, {}}};
  machine.gpus[0].links = zero;
  const std::vector<std::string> cuda = {"0000:01:00.0", "0000:02:00.0", "0000:03:00.0"};
  const DeviceInfo d = facts(0, cuda, every_function());
  ASSERT_EQ(d.peer_links.size(), 2u);
  EXPECT_EQ(d.peer_links[0].peer, 1);
  EXPECT_EQ(d.peer_links[0].nvlinks, 6);
  EXPECT_EQ(d.peer_links[1].peer, 2);
  EXPECT_EQ(d.peer_links[1].nvlinks, 0);
  EXPECT_EQ(d.peer_links[1].nvlink_generation, 0);
}

// Four GPUs whose 18 links each end at NVSwitches: every pair reaches the other by 18 links.
TEST_F(LinkFacts, NvswitchLinksReachEveryPeer) {
  for (int i = 0; i < 4; ++i)
    machine.gpus.push_back({"0000:0" + std::to_string(i + 1) + ":00.0", 5, 16, 5, 16,
                            links_to("0000:c0:00.0", 18, true)});
  const std::vector<std::string> cuda = {"0000:01:00.0", "0000:02:00.0", "0000:03:00.0",
                                         "0000:04:00.0"};
  const DeviceInfo d = facts(2, cuda, every_function());
  ASSERT_EQ(d.peer_links.size(), 3u);
  for (const auto& l : d.peer_links) {
    EXPECT_NE(l.peer, 2);
    EXPECT_EQ(l.nvlinks, 18);
    EXPECT_TRUE(l.via_nvswitch);
  }
  // Without nvmlDeviceGetNvLinkRemoteDeviceType: a remote end that is no GPU is a switch.
  NvmlFunctions older = every_function();
  older.nvlink_remote_type = nullptr;
  EXPECT_TRUE(facts(2, cuda, older).peer_links.at(0).via_nvswitch);
  EXPECT_EQ(facts(2, cuda, older).peer_links.at(0).nvlinks, 18);
  // NVML says NVLink P2P is impossible between them: no links counted.
  machine.nvlink_p2p = NVML_P2P_STATUS_NOT_SUPPORTED;
  EXPECT_EQ(facts(2, cuda, every_function()).peer_links.at(0).nvlinks, 0);
}

// A driver without most functions: NVML knows the device, every other fact is unknown.
TEST_F(LinkFacts, MissingFunctionsLeaveFactsUnknown) {
  machine.gpus = {{"0000:01:00.0", 4, 16, 4, 16, links_to("0000:02:00.0", 4, false)},
                  {"0000:02:00.0", 4, 16, 4, 16, links_to("0000:01:00.0", 4, false)}};
  NvmlFunctions bare;
  bare.handle_by_bus_id = fake_handle;
  const DeviceInfo d = facts(0, {"0000:01:00.0", "0000:02:00.0"}, bare);
  EXPECT_EQ(d.link_source, "nvml");
  EXPECT_EQ(d.pcie_generation, 0);
  EXPECT_EQ(d.pcie_max_width, 0);
  EXPECT_FALSE(d.numa_node.has_value());
  EXPECT_EQ(d.cpu_affinity, "");
  ASSERT_EQ(d.peer_links.size(), 1u);
  EXPECT_EQ(d.peer_links[0].nvlinks, 0);
  EXPECT_EQ(d.peer_links[0].p2p_read, "");
  EXPECT_EQ(d.peer_links[0].topology, "");
  // Links without a speed field: the rate is unknown, the count is not.
  NvmlFunctions no_speed = every_function();
  no_speed.field_values = nullptr;
  const DeviceInfo s = facts(0, {"0000:01:00.0", "0000:02:00.0"}, no_speed);
  EXPECT_EQ(s.peer_links.at(0).nvlinks, 4);
  EXPECT_EQ(s.peer_links.at(0).nvlink_gbps_per_link, 0.0);
}

// A GPU NVML does not know (another driver's view, a VM): nothing but the reason.
TEST_F(LinkFacts, UnknownDeviceSaysWhy) {
  machine.gpus = {{"0000:01:00.0", 4, 16, 4, 16, {}}};
  DeviceInfo d;
  d.pci_bus_id = "0000:77:00.0";
  d.link_source = "sysfs";
  fill_link_facts(every_function(), d, {"0000:77:00.0"});
  EXPECT_EQ(d.link_source, "sysfs");
  EXPECT_EQ(d.nvml_unavailable, "NVML does not know PCI 0000:77:00.0: NVML error 6");
  EXPECT_TRUE(d.peer_links.empty());
}

}  // namespace
}  // namespace gpuprobe::runtime::nvml
