// Finds and loads libnvperf_host.so once per process (ld path, next to libcupti, the toolkit).
#include "nvperf_loader.hpp"

#include <cupti.h>
#include <dlfcn.h>

#include <filesystem>
#include <mutex>
#include <string>
#include <vector>

#include "gpuprobe/counters/errors.hpp"

namespace gpuprobe::counters::detail {
namespace {

constexpr const char* kName = "libnvperf_host.so";

// Where to look, in order: the loader's own search (LD_LIBRARY_PATH, ld cache), the folder
// libcupti was loaded from, the toolkit gpuprobe was built with, the usual install.
std::vector<std::string> candidates() {
  std::vector<std::string> out{kName};
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&cuptiGetVersion), &info) != 0 && info.dli_fname) {
    out.push_back((std::filesystem::path(info.dli_fname).parent_path() / kName).string());
  }
  out.push_back(std::string(GPUPROBE_CUDA_LIBRARY_DIR) + "/" + kName);
  out.push_back(std::string("/usr/local/cuda/lib64/") + kName);
  return out;
}

}  // namespace

void load_nvperf_host() {
  static std::once_flag once;
  static bool loaded = false;
  static const std::string* looked = nullptr;  // leaked: no static destructor
  std::call_once(once, [] {
    std::string tried;
    for (const auto& path : candidates()) {
      // Kept loaded for the life of the process (never dlclose'd): CUPTI holds on to it.
      if (dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL) != nullptr) {
        loaded = true;
        return;
      }
      if (!tried.empty()) tried += ", ";
      tried += path;
    }
    looked = new std::string(std::move(tried));
  });
  if (loaded) return;
  throw CountersUnavailable(
      "GPUPROBE_NO_NVPERF", std::string(kName) + " was not found (looked for " + *looked + ")",
      "install the CUDA toolkit's CUPTI libraries, or add the folder holding " +
          std::string(kName) + " to LD_LIBRARY_PATH");
}

}  // namespace gpuprobe::counters::detail
