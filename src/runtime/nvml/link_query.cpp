// One GPU's link facts from NVML: PCIe link now and at most, NUMA node, nearby CPUs, and per other
// GPU the NVLinks that reach it (directly or through NVSwitch), their rate, P2P status, topology.
#include "link_query.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "gpuprobe/models/peer_model.hpp"
#include "link_interpret.hpp"

namespace gpuprobe::runtime::nvml {
namespace {

// One active NVLink of a GPU: where it ends, and what NVML says of it.
struct ActiveLink {
  unsigned int link = 0;
  bool to_switch = false;
  std::string remote;  // the remote end's normalized bus id (a GPU's when !to_switch)
  int generation = 0;
  std::optional<double> gbps;
};

std::optional<unsigned> uint_fact(nvmlReturn_t (*fn)(nvmlDevice_t, unsigned*), nvmlDevice_t dev) {
  unsigned value = 0;
  if (fn && fn(dev, &value) == NVML_SUCCESS) return value;
  return std::nullopt;
}

std::optional<double> field(const NvmlFunctions& f, nvmlDevice_t dev, unsigned id, unsigned scope) {
  if (!f.field_values) return std::nullopt;
  nvmlFieldValue_t value{};
  value.fieldId = id;
  value.scopeId = scope;
  if (f.field_values(dev, 1, &value) != NVML_SUCCESS) return std::nullopt;
  return field_number(value);
}

// Whether the far end of a link is an NVSwitch: NVML's remote device type where the driver has
// it, else "not a GPU NVML knows".
bool ends_at_switch(const NvmlFunctions& f, nvmlDevice_t dev, unsigned link,
                    const std::string& remote_bus) {
  nvmlIntNvLinkDeviceType_t type = NVML_NVLINK_DEVICE_TYPE_UNKNOWN;
  if (f.nvlink_remote_type && f.nvlink_remote_type(dev, link, &type) == NVML_SUCCESS &&
      type != NVML_NVLINK_DEVICE_TYPE_UNKNOWN)
    return type == NVML_NVLINK_DEVICE_TYPE_SWITCH;
  nvmlDevice_t other = nullptr;
  return f.handle_by_bus_id(remote_bus.c_str(), &other) != NVML_SUCCESS;
}

std::vector<ActiveLink> active_links(const NvmlFunctions& f, nvmlDevice_t dev) {
  std::vector<ActiveLink> out;
  if (!f.nvlink_state || !f.nvlink_remote_pci) return out;
  for (unsigned link = 0; link < NVML_NVLINK_MAX_LINKS; ++link) {
    nvmlEnableState_t state = NVML_FEATURE_DISABLED;
    if (f.nvlink_state(dev, link, &state) != NVML_SUCCESS || state != NVML_FEATURE_ENABLED)
      continue;
    nvmlPciInfo_t pci{};
    if (f.nvlink_remote_pci(dev, link, &pci) != NVML_SUCCESS) continue;
    ActiveLink a;
    a.link = link;
    a.remote = normalized_bus_id(pci.busId);
    a.to_switch = ends_at_switch(f, dev, link, pci.busId);
    unsigned version = 0;
    if (f.nvlink_version && f.nvlink_version(dev, link, &version) == NVML_SUCCESS)
      a.generation = nvlink_generation(version);
    a.gbps = link_gbps_from_mbps(field(f, dev, NVML_FI_DEV_NVLINK_GET_SPEED, link));
    if (!a.gbps)
      a.gbps = link_gbps_from_mbps(field(f, dev, NVML_FI_DEV_NVLINK_SPEED_MBPS_COMMON, 0));
    out.push_back(std::move(a));
  }
  return out;
}

std::string p2p(const NvmlFunctions& f, nvmlDevice_t a, nvmlDevice_t b, nvmlGpuP2PCapsIndex_t i) {
  nvmlGpuP2PStatus_t status = NVML_P2P_STATUS_UNKNOWN;
  if (!f.p2p_status || f.p2p_status(a, b, i, &status) != NVML_SUCCESS) return {};
  return p2p_status_text(status);
}

// The NVLinks of `mine` that reach the peer: those ending at it, else (NVSwitch) the switch links
// of both ends, as many as the fewer side has, unless NVML says NVLink P2P is not possible.
void count_nvlinks(PeerLinkInfo& l, const std::vector<ActiveLink>& mine,
                   const std::vector<ActiveLink>& theirs, const std::string& peer_bus) {
  std::vector<const ActiveLink*> used;
  for (const auto& a : mine)
    if (!a.to_switch && a.remote == peer_bus) used.push_back(&a);
  if (used.empty() && (l.p2p_nvlink.empty() || l.p2p_nvlink == "ok")) {
    const auto switched = [](const ActiveLink& a) { return a.to_switch; };
    const auto theirs_n = std::count_if(theirs.begin(), theirs.end(), switched);
    for (const auto& a : mine)
      if (a.to_switch && static_cast<long>(used.size()) < theirs_n) used.push_back(&a);
    l.via_nvswitch = !used.empty();
  }
  l.nvlinks = static_cast<int>(used.size());
  for (const ActiveLink* a : used) {
    l.nvlink_generation = std::max(l.nvlink_generation, a->generation);
    if (a->gbps && (l.nvlink_gbps_per_link == 0 || *a->gbps < l.nvlink_gbps_per_link))
      l.nvlink_gbps_per_link = *a->gbps;
  }
}

PeerLinkInfo peer_link(const NvmlFunctions& f, nvmlDevice_t dev, nvmlDevice_t peer,
                       const std::vector<ActiveLink>& mine, int index, const std::string& bus) {
  PeerLinkInfo l;
  l.peer = index;
  l.peer_pci_bus_id = bus;
  nvmlGpuTopologyLevel_t level{};
  if (f.common_ancestor && f.common_ancestor(dev, peer, &level) == NVML_SUCCESS)
    l.topology = topology_text(level);
  l.p2p_read = p2p(f, dev, peer, NVML_P2P_CAPS_INDEX_READ);
  l.p2p_write = p2p(f, dev, peer, NVML_P2P_CAPS_INDEX_WRITE);
  l.p2p_nvlink = p2p(f, dev, peer, NVML_P2P_CAPS_INDEX_NVLINK);
  l.p2p_atomics = p2p(f, dev, peer, NVML_P2P_CAPS_INDEX_ATOMICS);
  count_nvlinks(l, mine, active_links(f, peer), normalized_bus_id(bus));
  return l;
}

void fill_pcie(const NvmlFunctions& f, nvmlDevice_t dev, DeviceInfo& d) {
  const auto gen = uint_fact(f.pcie_generation, dev), width = uint_fact(f.pcie_width, dev);
  if (gen && width && *gen > 0 && *width > 0) {
    d.pcie_generation = static_cast<int>(*gen);
    d.pcie_link_width = static_cast<int>(*width);
    d.pcie_link_gts = models::pcie_gts_of_generation(d.pcie_generation);
  }
  d.pcie_max_generation = static_cast<int>(uint_fact(f.pcie_max_generation, dev).value_or(0));
  d.pcie_max_width = static_cast<int>(uint_fact(f.pcie_max_width, dev).value_or(0));
}

void fill_host_side(const NvmlFunctions& f, nvmlDevice_t dev, DeviceInfo& d) {
  if (const auto node = uint_fact(f.numa_node, dev)) d.numa_node = static_cast<int>(*node);
  std::vector<unsigned long> mask(64);  // 4096 CPUs
  if (f.cpu_affinity &&
      f.cpu_affinity(dev, static_cast<unsigned>(mask.size()), mask.data()) == NVML_SUCCESS)
    d.cpu_affinity = cpu_list_text(mask);
}

}  // namespace

void fill_link_facts(const NvmlFunctions& f, DeviceInfo& d,
                     const std::vector<std::string>& bus_ids) {
  nvmlDevice_t dev = nullptr;
  const nvmlReturn_t found = f.handle_by_bus_id(d.pci_bus_id.c_str(), &dev);
  if (found != NVML_SUCCESS) {
    d.nvml_unavailable =
        fmt::format("NVML does not know PCI {}: {}", d.pci_bus_id, error_text(f, found));
    return;
  }
  d.link_source = "nvml";
  fill_pcie(f, dev, d);
  fill_host_side(f, dev, d);
  const std::vector<ActiveLink> mine = active_links(f, dev);
  for (std::size_t i = 0; i < bus_ids.size(); ++i) {
    nvmlDevice_t peer = nullptr;
    if (static_cast<int>(i) == d.index ||
        f.handle_by_bus_id(bus_ids[i].c_str(), &peer) != NVML_SUCCESS)
      continue;
    d.peer_links.push_back(peer_link(f, dev, peer, mine, static_cast<int>(i), bus_ids[i]));
  }
}

}  // namespace gpuprobe::runtime::nvml
