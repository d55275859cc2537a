// The PCIe byte counters (full CUPTI names) of the probes that move data over the host link
// (transfer, zerocopy, overlap): bytes that crossed PCIe during one repetition, device-wide.
#pragma once

#include <array>
#include <string_view>

namespace gpuprobe {

inline constexpr std::string_view kPcieRead = "pcie__read_bytes.sum";    // GPU read host memory
inline constexpr std::string_view kPcieWrite = "pcie__write_bytes.sum";  // GPU wrote host memory
inline constexpr std::array<std::string_view, 2> kPcieCounters = {kPcieRead, kPcieWrite};

}  // namespace gpuprobe
