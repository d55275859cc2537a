// Link facts for a CUDA device: the visible GPUs' PCI bus ids from CUDA, the facts from NVML.
#include "gpuprobe/runtime/link_facts.hpp"

#include <string>
#include <vector>

#include "gpuprobe/runtime/cuda_check.hpp"
#include "gpuprobe/runtime/device.hpp"
#include "nvml/link_query.hpp"

namespace gpuprobe::runtime {
namespace {

// Every visible GPU's PCI bus id, in CUDA's order (NVML's order may differ).
std::vector<std::string> visible_bus_ids() {
  std::vector<std::string> out;
  const int count = device_count();
  for (int i = 0; i < count; ++i) {
    char bus[64] = {};
    GP_CUDA(cudaDeviceGetPCIBusId(bus, sizeof bus, i));
    out.emplace_back(bus);
  }
  return out;
}

}  // namespace

void add_link_facts(DeviceInfo& device) {
  std::string why;
  const nvml::NvmlFunctions* functions = nvml::loaded_nvml(why);
  if (!functions) {
    device.nvml_unavailable = why;
    return;
  }
  nvml::fill_link_facts(*functions, device, visible_bus_ids());
}

}  // namespace gpuprobe::runtime
