// CountersUnavailable, and what each CUPTI failure means for the user and how to fix it.
#include "gpuprobe/counters/errors.hpp"

#include <fstream>
#include <string>

#include "cupti_call.hpp"

namespace gpuprobe::counters {

namespace {

std::string one_line(std::string code, const std::string& reason, const std::string& hint) {
  std::string text = "counters unavailable: " + reason;
  if (!code.empty()) text += " [" + code + "]";
  if (!hint.empty()) text += " (" + hint + ")";
  return text;
}

// The driver's profiling restriction as /proc shows it (open module: RmProfilingAdminOnly,
// older drivers: RestrictProfilingToAdminUsers), or empty when unreadable.
std::string profiling_restriction() {
  std::ifstream in("/proc/driver/nvidia/params");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("RmProfilingAdminOnly", 0) == 0 ||
        line.rfind("RestrictProfilingToAdminUsers", 0) == 0)
      return line;
  }
  return {};
}

}  // namespace

CountersUnavailable::CountersUnavailable(std::string code, std::string reason, std::string hint)
    : Error(ExitCode::kNoDevice, one_line(code, reason, hint)),
      code_(std::move(code)),
      reason_(std::move(reason)),
      hint_(std::move(hint)) {}

namespace detail {

std::string result_name(CUptiResult result) {
  const char* name = nullptr;
  if (cuptiGetResultString(result, &name) == CUPTI_SUCCESS && name != nullptr && *name != '\0')
    return name;
  return "CUPTI error " + std::to_string(static_cast<int>(result));
}

void throw_cupti(CUptiResult result, const char* call) {
  std::string reason;
  std::string hint;
  switch (result) {
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES: {
      reason = "GPU performance counters are restricted to admin users (ERR_NVGPUCTRPERM)";
      const std::string setting = profiling_restriction();
      if (!setting.empty()) reason += "; driver: " + setting;
      hint =
          "run as root or with CAP_PERFMON/CAP_SYS_ADMIN, or set "
          "NVreg_RestrictProfilingToAdminUsers=0; see developer.nvidia.com/ERR_NVGPUCTRPERM";
      break;
    }
    case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
      reason =
          "another profiler (ncu, nsys, cuda-gdb, a framework profiler or NVTX_INJECTION64_PATH) "
          "already uses CUPTI in this process";
      hint = "run without the other profiler to get counters; timing is unaffected";
      break;
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
      reason = "this virtualised GPU (vGPU) does not allow performance counters";
      hint = "enable profiling for the vGPU profile on the hypervisor, or use GPU pass-through";
      break;
    case CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED:
      reason = "performance counters are not available in confidential-computing mode";
      hint = "turn confidential computing off to get counters";
      break;
    case CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_SLI_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_WSL_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED:
      reason =
          "CUPTI does not support counters on this device configuration (CMP, SLI, WSL or MIG)";
      hint = "use a full GPU on native Linux to get counters";
      break;
    case CUPTI_ERROR_NOT_INITIALIZED:
      reason =
          "CUPTI could not initialise its profiler (libnvperf_host.so not loadable, or no driver)";
      hint =
          "make libnvperf_host.so from the CUDA toolkit's lib64 folder loadable (LD_LIBRARY_PATH)";
      break;
    case CUPTI_ERROR_INVALID_CHIP_NAME:
      reason = "this CUPTI does not know the GPU's chip";
      hint = "use a CUDA toolkit (CUPTI) at least as new as the GPU";
      break;
    case CUPTI_ERROR_NOT_SUPPORTED:
      reason = "CUPTI does not support this request on this device";
      hint = "check the metric names and the GPU architecture (compute capability 7.0+)";
      break;
    default:
      reason = "a CUPTI call failed";
      hint = "rerun with --no-counters; timing is unaffected";
      break;
  }
  throw CountersUnavailable(result_name(result), std::string(call) + ": " + reason, hint);
}

}  // namespace detail
}  // namespace gpuprobe::counters
