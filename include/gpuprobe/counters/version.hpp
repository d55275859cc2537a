// The CUPTI API version this build links (for `gpuprobe --version`), without exposing CUPTI.
#pragma once

#include <optional>

namespace gpuprobe::counters {

// cuptiGetVersion's API version (e.g. 130000 for CUPTI 13.0); nullopt when CUPTI refuses.
std::optional<unsigned> cupti_api_version();

}  // namespace gpuprobe::counters
