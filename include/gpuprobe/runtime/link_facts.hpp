// A GPU's link facts from NVML (PCIe generation and width, NUMA node, nearby CPUs, NVLinks and
// P2P status to every other visible GPU), read through the driver's library opened at run time.
#pragma once

#include "gpuprobe/core/result.hpp"

namespace gpuprobe::runtime {

// Adds NVML's link facts to `device` (from query_device): its peers are the other visible GPUs,
// matched to NVML's devices by PCI bus id. Where NVML is missing (no driver), refuses or does not
// know the device, the facts stay unknown, device.link_source keeps the fallback's ("sysfs" or
// "") and device.nvml_unavailable says why; it never throws for NVML's sake.
void add_link_facts(DeviceInfo& device);

}  // namespace gpuprobe::runtime
