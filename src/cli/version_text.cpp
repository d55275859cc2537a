// `gpuprobe --version` (src/cli/version_text.hpp).
#include "version_text.hpp"

#include <fmt/format.h>

#include "gpuprobe/counters/version.hpp"
#include "gpuprobe/runtime/device.hpp"
#include "gpuprobe/version.hpp"

namespace gpuprobe::cli {
namespace {

// 13000 -> "13.0".
std::string cuda_version(int v) {
  return fmt::format("{}.{}", v / 1000, (v % 1000) / 10);
}

}  // namespace

std::string version_text() {
  const HostInfo host = runtime::query_host();
  std::string out = fmt::format("gpuprobe {} ({})\n", kToolVersion, kToolGit);
  out += fmt::format("CUDA runtime {} (static), driver {}\n",
                     host.runtime_version ? cuda_version(*host.runtime_version) : "unknown",
                     host.driver_version && *host.driver_version > 0
                         ? cuda_version(*host.driver_version)
                         : "none found (no NVIDIA driver loaded)");
  const auto cupti = counters::cupti_api_version();
  out += fmt::format("CUPTI API {}\n", cupti ? std::to_string(*cupti) : "unknown");
  out += fmt::format("GPU code for CMAKE_CUDA_ARCHITECTURES {}", GPUPROBE_CUDA_ARCHITECTURES);
  return out;
}

}  // namespace gpuprobe::cli
