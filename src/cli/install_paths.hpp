// Where an installed gpuprobe finds its data: <prefix>/share/gpuprobe next to <prefix>/bin, found
// from the running executable, so that a package or `cmake --install` works at any prefix.
#pragma once

#include <optional>
#include <string>

namespace gpuprobe::cli {

// <prefix>/share/gpuprobe/<relative> when the running binary is <prefix>/bin/gpuprobe and that
// path exists; nullopt in a build tree (or when /proc/self/exe cannot be read).
std::optional<std::string> installed_data(const std::string& relative);

}  // namespace gpuprobe::cli
