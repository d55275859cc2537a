// DeviceInfo's fields (and its peer links') as tables, in the order JSON carries them:
// json_write.cpp writes them and json_read.cpp reads them through them, so a new field is listed
// once (host-only).
#pragma once

#include "gpuprobe/core/result.hpp"

namespace gpuprobe {

// Calls f(key, field) for every field of `d` (DeviceInfo or const DeviceInfo), in JSON order.
template <typename Info, typename F>
void for_each_device_field(Info& d, F&& f) {
  f("index", d.index);
  f("name", d.name);
  f("uuid", d.uuid);
  f("pci_bus_id", d.pci_bus_id);
  f("compute_capability", d.compute_capability);
  f("sm_count", d.sm_count);
  f("sm_clock_khz", d.sm_clock_khz);
  f("memory_clock_khz", d.memory_clock_khz);
  f("memory_bus_width_bits", d.memory_bus_width_bits);
  f("total_memory_bytes", d.total_memory_bytes);
  f("l2_bytes", d.l2_bytes);
  f("persisting_l2_max_bytes", d.persisting_l2_max_bytes);
  f("access_policy_max_window_bytes", d.access_policy_max_window_bytes);
  f("shared_memory_per_sm_bytes", d.shared_memory_per_sm_bytes);
  f("shared_memory_per_block_optin_bytes", d.shared_memory_per_block_optin_bytes);
  f("async_engine_count", d.async_engine_count);
  f("can_map_host_memory", d.can_map_host_memory);
  f("integrated", d.integrated);
  f("ecc_enabled", d.ecc_enabled);
  f("pcie_link_gts", d.pcie_link_gts);
  f("pcie_link_width", d.pcie_link_width);
  f("peak_dram_estimate_gbps", d.peak_dram_estimate_gbps);
  f("link_source", d.link_source);
  f("pcie_generation", d.pcie_generation);
  f("pcie_max_generation", d.pcie_max_generation);
  f("pcie_max_width", d.pcie_max_width);
  f("numa_node", d.numa_node);
  f("cpu_affinity", d.cpu_affinity);
  f("nvml_unavailable", d.nvml_unavailable);
}

// Calls f(key, field) for every field of one entry of a device's "peer_links", in JSON order.
template <typename Link, typename F>
void for_each_peer_link_field(Link& l, F&& f) {
  f("peer", l.peer);
  f("peer_pci_bus_id", l.peer_pci_bus_id);
  f("nvlink_generation", l.nvlink_generation);
  f("nvlinks", l.nvlinks);
  f("via_nvswitch", l.via_nvswitch);
  f("nvlink_gbps_per_link", l.nvlink_gbps_per_link);
  f("topology", l.topology);
  f("p2p_read", l.p2p_read);
  f("p2p_write", l.p2p_write);
  f("p2p_nvlink", l.p2p_nvlink);
  f("p2p_atomics", l.p2p_atomics);
}

}  // namespace gpuprobe
