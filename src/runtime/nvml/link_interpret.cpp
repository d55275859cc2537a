// NVML's answers in gpuprobe's terms: bus ids, topology levels, P2P statuses, NVLink versions,
// field values and CPU masks (pure functions).
#include "link_interpret.hpp"

#include <fmt/format.h>

#include <climits>
#include <cstdio>

namespace gpuprobe::runtime::nvml {

std::string normalized_bus_id(const std::string& bus_id) {
  unsigned domain = 0, bus = 0, device = 0, function = 0;
  char tail = 0;
  // domain:bus:device.function, hexadecimal digits only (no "0x"); nothing may follow.
  if (bus_id.find_first_not_of("0123456789abcdefABCDEF:.") != std::string::npos) return {};
  if (std::sscanf(bus_id.c_str(), "%x:%x:%x.%x%c", &domain, &bus, &device, &function, &tail) != 4)
    return {};
  return fmt::format("{:04x}:{:02x}:{:02x}.{:x}", domain, bus, device, function);
}

std::string topology_text(nvmlGpuTopologyLevel_t level) {
  switch (level) {
    case NVML_TOPOLOGY_INTERNAL:
      return "same board";
    case NVML_TOPOLOGY_SINGLE:
      return "one PCIe switch";
    case NVML_TOPOLOGY_MULTIPLE:
      return "PCIe switches";
    case NVML_TOPOLOGY_HOSTBRIDGE:
      return "host bridge";
    case NVML_TOPOLOGY_NODE:
      return "same NUMA node";
    case NVML_TOPOLOGY_SYSTEM:
      return "across sockets";
  }
  return {};
}

std::string p2p_status_text(nvmlGpuP2PStatus_t status) {
  switch (status) {
    case NVML_P2P_STATUS_OK:
      return "ok";
    case NVML_P2P_STATUS_CHIPSET_NOT_SUPPORTED:
      return "chipset not supported";
    case NVML_P2P_STATUS_GPU_NOT_SUPPORTED:
      return "GPU not supported";
    case NVML_P2P_STATUS_IOH_TOPOLOGY_NOT_SUPPORTED:
      return "topology not supported";
    case NVML_P2P_STATUS_DISABLED_BY_REGKEY:
      return "disabled by regkey";
    case NVML_P2P_STATUS_NOT_SUPPORTED:
      return "not supported";
    case NVML_P2P_STATUS_UNKNOWN:
      return "unknown";
  }
  return "unknown";
}

int nvlink_generation(unsigned int version) {
  switch (version) {
    case NVML_NVLINK_VERSION_1_0:
      return 1;
    case NVML_NVLINK_VERSION_2_0:
    case NVML_NVLINK_VERSION_2_2:
      return 2;
    case NVML_NVLINK_VERSION_3_0:
    case NVML_NVLINK_VERSION_3_1:
      return 3;
    case NVML_NVLINK_VERSION_4_0:
      return 4;
    case NVML_NVLINK_VERSION_5_0:
      return 5;
    default:
      return 0;
  }
}

std::optional<double> field_number(const nvmlFieldValue_t& v) {
  if (v.nvmlReturn != NVML_SUCCESS) return std::nullopt;
  switch (v.valueType) {
    case NVML_VALUE_TYPE_DOUBLE:
      return v.value.dVal;
    case NVML_VALUE_TYPE_UNSIGNED_INT:
      return static_cast<double>(v.value.uiVal);
    case NVML_VALUE_TYPE_UNSIGNED_LONG:
      return static_cast<double>(v.value.ulVal);
    case NVML_VALUE_TYPE_UNSIGNED_LONG_LONG:
      return static_cast<double>(v.value.ullVal);
    case NVML_VALUE_TYPE_SIGNED_LONG_LONG:
      return static_cast<double>(v.value.sllVal);
    case NVML_VALUE_TYPE_SIGNED_INT:
      return static_cast<double>(v.value.siVal);
    case NVML_VALUE_TYPE_UNSIGNED_SHORT:
      return static_cast<double>(v.value.usVal);
    default:
      return std::nullopt;
  }
}

std::optional<double> link_gbps_from_mbps(std::optional<double> mbps) {
  if (!mbps || *mbps <= 0) return std::nullopt;
  return *mbps / 1000.0;
}

std::string cpu_list_text(const std::vector<unsigned long>& mask) {
  constexpr int kBits = static_cast<int>(sizeof(unsigned long) * CHAR_BIT);
  const int total = static_cast<int>(mask.size()) * kBits;
  auto set = [&](int cpu) { return (mask[cpu / kBits] >> (cpu % kBits)) & 1UL; };
  std::string out;
  for (int cpu = 0; cpu < total; ++cpu) {
    if (!set(cpu)) continue;
    int last = cpu;
    while (last + 1 < total && set(last + 1))
      ++last;
    if (!out.empty()) out += ",";
    out += last == cpu ? fmt::format("{}", cpu) : fmt::format("{}-{}", cpu, last);
    cpu = last;
  }
  return out;
}

}  // namespace gpuprobe::runtime::nvml
