// What `gpuprobe --version` prints: the tool and its git revision, the CUDA runtime it was built
// with and the driver found (or none), CUPTI's API version, the GPU architectures compiled in.
#pragma once

#include <string>

namespace gpuprobe::cli {

std::string version_text();

}  // namespace gpuprobe::cli
