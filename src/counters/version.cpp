// CUPTI's API version (include/gpuprobe/counters/version.hpp).
#include "gpuprobe/counters/version.hpp"

#include <cupti.h>

namespace gpuprobe::counters {

std::optional<unsigned> cupti_api_version() {
  uint32_t version = 0;
  if (cuptiGetVersion(&version) != CUPTI_SUCCESS) return std::nullopt;
  return version;
}

}  // namespace gpuprobe::counters
