// Device discovery and the facts recorded with every run.
#include "gpuprobe/runtime/device.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <fstream>

#include "gpuprobe/core/errors.hpp"
#include "gpuprobe/core/units.hpp"
#include "gpuprobe/runtime/cuda_check.hpp"

namespace gpuprobe::runtime {
namespace {

int attribute(cudaDeviceAttr attr, int device) {
  int value = 0;
  GP_CUDA(cudaDeviceGetAttribute(&value, attr, device));
  return value;
}

std::string uuid_text(const cudaUUID_t& uuid) {
  const auto* b = reinterpret_cast<const unsigned char*>(uuid.bytes);
  return fmt::format(
      "GPU-{:02x}{:02x}{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}{:02x}{:02x}"
      "{:02x}{:02x}",
      b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14],
      b[15]);
}

std::string cpu_name() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(" \t", colon + 1));
    }
  }
  return "unknown";
}

// Reads the PCIe link from sysfs.
void read_pcie_link(DeviceInfo& d) {
  const std::string base = pci_sysfs_dir(d.pci_bus_id);
  std::ifstream speed(base + "current_link_speed");
  std::ifstream width(base + "current_link_width");
  double gts = 0;
  int lanes = 0;
  if (speed >> gts && width >> lanes && gts > 0 && lanes > 0) {
    d.pcie_link_gts = gts;
    d.pcie_link_width = lanes;
    d.link_source = "sysfs";
  }
}

}  // namespace

void initialize() {
  static bool done = false;
  if (done) return;
  // Load every module at context creation, so no lazy loading lands inside a timed region.
  ::setenv("CUDA_MODULE_LOADING", "EAGER", 1);
  done = true;
  device_count();
}

int device_count() {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess || count == 0) {
    (void)cudaGetLastError();
    throw NoDeviceError(no_device_text(status == cudaSuccess ? cudaErrorNoDevice : status));
  }
  return count;
}

std::optional<std::vector<std::uint64_t>> parse_device_spec(const std::string& spec) {
  if (spec == "all") return std::nullopt;
  try {
    return parse_list(spec, {ListKind::kInt, true, 64, "GPU index"});
  } catch (const UsageError& e) {
    throw UsageError(
        fmt::format("--device: {}; use a GPU index, a list like 0,2, or 'all'", e.what()));
  }
}

std::vector<int> select_devices(const std::string& spec) {
  const auto indices = parse_device_spec(spec);
  const int count = device_count();
  std::vector<int> out;
  if (!indices) {
    for (int i = 0; i < count; ++i)
      out.push_back(i);
    return out;
  }
  for (auto i : *indices) {
    if (i >= static_cast<std::uint64_t>(count)) {
      throw NoDeviceError(fmt::format("--device {}: there is no GPU {} (found {}: 0..{})", spec, i,
                                      count, count - 1));
    }
    out.push_back(static_cast<int>(i));
  }
  return out;
}

void use_device(int index) {
  GP_CUDA(cudaSetDevice(index));
}

DeviceGuard::DeviceGuard(int index) {
  GP_CUDA(cudaGetDevice(&previous_));
  GP_CUDA(cudaSetDevice(index));
}

DeviceGuard::~DeviceGuard() {
  (void)cudaSetDevice(previous_);
}

std::string pci_sysfs_dir(const std::string& pci_bus_id) {
  std::string id = pci_bus_id;
  for (auto& c : id)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const auto colon = id.find(':');
  if (colon != std::string::npos && colon > 4) id = id.substr(colon - 4);
  return "/sys/bus/pci/devices/" + id + "/";
}

DeviceInfo query_device(int index) {
  cudaDeviceProp prop{};
  GP_CUDA(cudaGetDeviceProperties(&prop, index));
  DeviceInfo d;
  d.index = index;
  d.name = prop.name;
  d.uuid = uuid_text(prop.uuid);
  char bus[64] = {};
  GP_CUDA(cudaDeviceGetPCIBusId(bus, sizeof bus, index));
  d.pci_bus_id = bus;
  d.compute_capability = fmt::format("{}.{}", prop.major, prop.minor);
  d.sm_count = attribute(cudaDevAttrMultiProcessorCount, index);
  d.sm_clock_khz = attribute(cudaDevAttrClockRate, index);
  d.memory_clock_khz = attribute(cudaDevAttrMemoryClockRate, index);
  d.memory_bus_width_bits = attribute(cudaDevAttrGlobalMemoryBusWidth, index);
  d.total_memory_bytes = prop.totalGlobalMem;
  d.l2_bytes = static_cast<std::uint64_t>(attribute(cudaDevAttrL2CacheSize, index));
  d.persisting_l2_max_bytes =
      static_cast<std::uint64_t>(attribute(cudaDevAttrMaxPersistingL2CacheSize, index));
  d.access_policy_max_window_bytes =
      static_cast<std::uint64_t>(attribute(cudaDevAttrMaxAccessPolicyWindowSize, index));
  d.shared_memory_per_sm_bytes =
      static_cast<std::uint64_t>(attribute(cudaDevAttrMaxSharedMemoryPerMultiprocessor, index));
  d.shared_memory_per_block_optin_bytes =
      static_cast<std::uint64_t>(attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin, index));
  d.async_engine_count = attribute(cudaDevAttrAsyncEngineCount, index);
  d.can_map_host_memory = attribute(cudaDevAttrCanMapHostMemory, index) != 0;
  d.integrated = attribute(cudaDevAttrIntegrated, index) != 0;
  d.ecc_enabled = attribute(cudaDevAttrEccEnabled, index) != 0;
  // Double data rate: two transfers per memory clock, bus width in bits.
  d.peak_dram_estimate_gbps =
      2.0 * static_cast<double>(d.memory_clock_khz) * 1e3 * (d.memory_bus_width_bits / 8.0) / 1e9;
  read_pcie_link(d);
  return d;
}

HostInfo query_host() {
  HostInfo h;
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) == 0) h.hostname = name;
  h.cpu = cpu_name();
  int v = 0;
  if (cudaDriverGetVersion(&v) == cudaSuccess) h.driver_version = v;
  if (cudaRuntimeGetVersion(&v) == cudaSuccess) h.runtime_version = v;
  (void)cudaGetLastError();
  return h;
}

MemoryInfo device_memory() {
  std::size_t free_bytes = 0, total_bytes = 0;
  GP_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
  return {free_bytes, total_bytes};
}

std::optional<std::uint64_t> l2_fetch_granularity() {
  std::size_t bytes = 0;
  if (cudaDeviceGetLimit(&bytes, cudaLimitMaxL2FetchGranularity) == cudaSuccess) return bytes;
  (void)cudaGetLastError();  // an optional query: clear the error it leaves
  return std::nullopt;
}

}  // namespace gpuprobe::runtime
