// Asks NVML (through a table of functions: the driver's, or a test's fakes) for one GPU's link
// facts: its PCIe link, NUMA node and CPUs, and its links to every other visible GPU.
#pragma once

#include <string>
#include <vector>

#include "gpuprobe/core/result.hpp"
#include "nvml_functions.hpp"

namespace gpuprobe::runtime::nvml {

// Fills `device`'s link facts (device.pci_bus_id finds it in NVML; `bus_ids` are the PCI bus ids
// of every visible GPU in CUDA order, so peer_links name CUDA indices whatever NVML's order).
// Sets link_source "nvml" when NVML knows the device; each fact NVML refuses stays unknown. When
// NVML does not know the device, only nvml_unavailable is set (saying so).
void fill_link_facts(const NvmlFunctions& f, DeviceInfo& device,
                     const std::vector<std::string>& bus_ids);

}  // namespace gpuprobe::runtime::nvml
