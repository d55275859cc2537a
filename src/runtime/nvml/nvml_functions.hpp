// The NVML functions gpuprobe uses, as a table of typed pointers: resolved from the driver's
// libnvidia-ml.so.1 at run time (nvml_loader.cpp), or filled by a test with fakes.
#pragma once

#include <nvml.h>

#include <string>

namespace gpuprobe::runtime::nvml {

// Each pointer has the type of the NVML function it stands for; a null pointer is a function the
// installed driver lacks, and every fact that needs it is unknown.
struct NvmlFunctions {
  decltype(&nvmlErrorString) error_string = nullptr;
  decltype(&nvmlDeviceGetHandleByPciBusId_v2) handle_by_bus_id = nullptr;
  decltype(&nvmlDeviceGetCurrPcieLinkGeneration) pcie_generation = nullptr;
  decltype(&nvmlDeviceGetCurrPcieLinkWidth) pcie_width = nullptr;
  decltype(&nvmlDeviceGetMaxPcieLinkGeneration) pcie_max_generation = nullptr;
  decltype(&nvmlDeviceGetMaxPcieLinkWidth) pcie_max_width = nullptr;
  decltype(&nvmlDeviceGetNumaNodeId) numa_node = nullptr;
  decltype(&nvmlDeviceGetCpuAffinity) cpu_affinity = nullptr;
  decltype(&nvmlDeviceGetTopologyCommonAncestor) common_ancestor = nullptr;
  decltype(&nvmlDeviceGetP2PStatus) p2p_status = nullptr;
  decltype(&nvmlDeviceGetNvLinkState) nvlink_state = nullptr;
  decltype(&nvmlDeviceGetNvLinkVersion) nvlink_version = nullptr;
  decltype(&nvmlDeviceGetNvLinkRemotePciInfo_v2) nvlink_remote_pci = nullptr;
  decltype(&nvmlDeviceGetNvLinkRemoteDeviceType) nvlink_remote_type = nullptr;
  decltype(&nvmlDeviceGetFieldValues) field_values = nullptr;
};

// NVML's words for a return code ("Not Supported"), or "NVML error N" without nvmlErrorString.
std::string error_text(const NvmlFunctions& f, nvmlReturn_t status);

// The driver's NVML, loaded and initialised once per process (never shut down: it lives as long
// as the process). nullptr when it cannot be used; then `why` says why in one line
// ("libnvidia-ml.so.1 not found (...)", "nvmlInit: Driver Not Loaded").
const NvmlFunctions* loaded_nvml(std::string& why);

}  // namespace gpuprobe::runtime::nvml
