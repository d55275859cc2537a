// NVML's answers in gpuprobe's terms (pure functions, unit-tested without a driver): PCI bus ids
// compared, topology levels, P2P statuses, NVLink versions, field values and CPU masks.
#pragma once

#include <nvml.h>

#include <optional>
#include <string>
#include <vector>

namespace gpuprobe::runtime::nvml {

// A PCI bus id in one spelling, so CUDA's and NVML's compare: "0000:18:00.0" from
// "00000000:18:00.0" or "0000:18:00.0" (any case); "" when it does not parse.
std::string normalized_bus_id(const std::string& bus_id);

// The closest common ancestor of two GPUs in words: "same board" (INTERNAL), "one PCIe switch"
// (SINGLE), "PCIe switches" (MULTIPLE), "host bridge" (HOSTBRIDGE), "same NUMA node" (NODE),
// "across sockets" (SYSTEM); "" for a value this build does not know.
std::string topology_text(nvmlGpuTopologyLevel_t level);

// "ok", "not supported", "chipset not supported", "GPU not supported", "topology not supported",
// "disabled by regkey", "unknown".
std::string p2p_status_text(nvmlGpuP2PStatus_t status);

// The NVLink generation (1..5) of nvmlDeviceGetNvLinkVersion's value (nvmlNvlinkVersion_t:
// 1 = 1.0, 2 = 2.0, 3 = 2.2, 4 = 3.0, 5 = 3.1, 6 = 4.0, 7 = 5.0); 0 for any other.
int nvlink_generation(unsigned int version);

// A field value as a number, nullopt when NVML did not give it.
std::optional<double> field_number(const nvmlFieldValue_t& value);

// NVML's link speed in MBps (10^6 bytes per second, as nvidia-smi shows it: 26562 -> 26.562
// GB/s) as GB/s; nullopt for 0 or none.
std::optional<double> link_gbps_from_mbps(std::optional<double> mbps);

// The CPUs of a cpuset mask (words of 8 * sizeof(unsigned long) bits, CPU 0 in the low bit of the
// first) as ranges: "0-31,64-95"; "" for an empty mask.
std::string cpu_list_text(const std::vector<unsigned long>& mask);

}  // namespace gpuprobe::runtime::nvml
