// Device discovery: CUDA start-up, the list of usable GPUs and their facts, host facts.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gpuprobe/core/result.hpp"

namespace gpuprobe::runtime {

// Prepares CUDA before its first call: eager module loading (so no lazy load or JIT lands
// in a timed region). Idempotent. Throws NoDeviceError if no GPU is usable.
void initialize();

// Number of CUDA devices; throws NoDeviceError when there are none or no driver.
int device_count();

// Checks the syntax of "--device" ("0", "0,2", "all") without touching CUDA: the indices, or
// nullopt for "all". Throws UsageError naming --device for a bad token.
std::optional<std::vector<std::uint64_t>> parse_device_spec(const std::string& spec);

// Parses "--device" ("0", "1", "all") against the devices present. Throws UsageError for
// a bad token and NoDeviceError for an index that is not present.
std::vector<int> select_devices(const std::string& spec);

DeviceInfo query_device(int index);
HostInfo query_host();

// Makes `index` the current device for the calling thread.
void use_device(int index);

// Makes `index` the current device of the calling thread for the guard's lifetime, then restores
// the one before (streams, events and kernels belong to the device current when made or launched).
class DeviceGuard {
 public:
  explicit DeviceGuard(int index);
  ~DeviceGuard();
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  int previous_ = 0;
};

// The sysfs folder of a GPU's PCI function: CUDA names the bus "00000000:18:00.0", sysfs
// "/sys/bus/pci/devices/0000:18:00.0/".
std::string pci_sysfs_dir(const std::string& pci_bus_id);

// Device memory of the current device now: what is free and the total.
struct MemoryInfo {
  std::uint64_t free_bytes = 0;
  std::uint64_t total_bytes = 0;
};
MemoryInfo device_memory();
// The L2 fetch granularity the driver reports (cudaLimitMaxL2FetchGranularity), nullopt where
// it reports none.
std::optional<std::uint64_t> l2_fetch_granularity();

}  // namespace gpuprobe::runtime
