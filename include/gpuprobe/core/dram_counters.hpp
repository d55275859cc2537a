// The DRAM byte counters (full CUPTI names) of the probes that stream device memory and compare
// its traffic with a model (coalescing, occupancy), and the name of the write-back value the
// counter pass adds for an operation with runtime::Operation::count_write_back.
#pragma once

#include <string_view>

namespace gpuprobe {

inline constexpr std::string_view kDramRead = "dram__bytes_read.sum";
inline constexpr std::string_view kDramWrite = "dram__bytes_write.sum";
// The DRAM writes of the lines an operation left dirty in the L2, counted in a range of their own
// after it (the counter pass: counters::kWriteBackPrefix + counters::kDramWriteBytes); with the
// range's kDramWrite, all it wrote.
inline constexpr std::string_view kDramWriteBack = "write_back.dram__bytes_write.sum";

}  // namespace gpuprobe
