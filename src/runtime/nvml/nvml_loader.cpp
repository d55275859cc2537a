// Opens the driver's libnvidia-ml.so.1 at run time, resolves the NVML functions gpuprobe uses and
// initialises NVML, once per process; a machine without the driver gets a reason, never an abort.
#include <dlfcn.h>
#include <fmt/format.h>

#include <mutex>

#include "nvml_functions.hpp"

namespace gpuprobe::runtime::nvml {
namespace {

constexpr const char* kLibrary = "libnvidia-ml.so.1";

template <typename F>
void resolve(void* library, const char* name, F& out) {
  out = reinterpret_cast<F>(dlsym(library, name));
}

void resolve_all(void* lib, NvmlFunctions& f) {
  resolve(lib, "nvmlErrorString", f.error_string);
  resolve(lib, "nvmlDeviceGetHandleByPciBusId_v2", f.handle_by_bus_id);
  resolve(lib, "nvmlDeviceGetCurrPcieLinkGeneration", f.pcie_generation);
  resolve(lib, "nvmlDeviceGetCurrPcieLinkWidth", f.pcie_width);
  resolve(lib, "nvmlDeviceGetMaxPcieLinkGeneration", f.pcie_max_generation);
  resolve(lib, "nvmlDeviceGetMaxPcieLinkWidth", f.pcie_max_width);
  resolve(lib, "nvmlDeviceGetNumaNodeId", f.numa_node);
  resolve(lib, "nvmlDeviceGetCpuAffinity", f.cpu_affinity);
  resolve(lib, "nvmlDeviceGetTopologyCommonAncestor", f.common_ancestor);
  resolve(lib, "nvmlDeviceGetP2PStatus", f.p2p_status);
  resolve(lib, "nvmlDeviceGetNvLinkState", f.nvlink_state);
  resolve(lib, "nvmlDeviceGetNvLinkVersion", f.nvlink_version);
  resolve(lib, "nvmlDeviceGetNvLinkRemotePciInfo_v2", f.nvlink_remote_pci);
  resolve(lib, "nvmlDeviceGetNvLinkRemoteDeviceType", f.nvlink_remote_type);
  resolve(lib, "nvmlDeviceGetFieldValues", f.field_values);
}

// Loads and initialises NVML; on failure returns false with the reason in `why`.
bool open_nvml(NvmlFunctions& f, std::string& why) {
  // Kept loaded for the life of the process (never dlclose'd), like NVML's own state.
  void* lib = dlopen(kLibrary, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char* error = dlerror();
    why = fmt::format("{} not found ({}); NVML comes with the NVIDIA driver", kLibrary,
                      error ? error : "dlopen failed");
    return false;
  }
  decltype(&nvmlInit_v2) init = nullptr;
  resolve(lib, "nvmlInit_v2", init);
  resolve_all(lib, f);
  if (!init || !f.handle_by_bus_id) {
    why =
        fmt::format("{} lacks nvmlInit_v2 or nvmlDeviceGetHandleByPciBusId_v2 (too old)", kLibrary);
    return false;
  }
  const nvmlReturn_t status = init();
  if (status != NVML_SUCCESS) {
    why = fmt::format("nvmlInit: {}", error_text(f, status));
    return false;
  }
  return true;
}

}  // namespace

std::string error_text(const NvmlFunctions& f, nvmlReturn_t status) {
  const char* text = f.error_string ? f.error_string(status) : nullptr;
  return text ? std::string(text) : fmt::format("NVML error {}", static_cast<int>(status));
}

const NvmlFunctions* loaded_nvml(std::string& why) {
  static std::once_flag once;
  static NvmlFunctions functions;
  static bool usable = false;
  static std::string reason;
  std::call_once(once, [] { usable = open_nvml(functions, reason); });
  why = reason;
  return usable ? &functions : nullptr;
}

}  // namespace gpuprobe::runtime::nvml
