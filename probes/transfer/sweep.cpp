// transfer's sweep split into the copies measured in round processes and the others.
#include "sweep.hpp"

#include <algorithm>

namespace gpuprobe::transfer {

SweepParts split_by_process_level(std::span<const std::uint64_t> bytes) {
  SweepParts out;
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    const bool small = bytes[i] <= kProcessLevelMaxBytes;
    (small ? out.round_processes : out.one_process).push_back(i);
    std::uint64_t& max = small ? out.round_processes_max : out.one_process_max;
    max = std::max(max, bytes[i]);
  }
  return out;
}

}  // namespace gpuprobe::transfer
