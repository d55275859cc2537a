// transfer's sweep split into the copies measured in round processes and the others; point keys.
#include "sweep.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <sstream>

#include "gpuprobe/core/errors.hpp"

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

std::string point_key(const PointKey& key) {
  return fmt::format("{} {} {}", key.memory, key.direction, key.bytes);
}

PointKey parse_point_key(const std::string& key) {
  std::istringstream in(key);
  PointKey out;
  std::string bytes;
  std::string rest;
  if (!(in >> out.memory >> out.direction >> bytes) || (in >> rest) || bytes.empty() ||
      !std::all_of(bytes.begin(), bytes.end(), [](char c) { return c >= '0' && c <= '9'; }) ||
      bytes.size() > 19) {
    throw UsageError(fmt::format("transfer point '{}': expected 'memory direction bytes'", key));
  }
  constexpr const char* kMemories[] = {"pageable", "pinned", "wc", "registered"};
  constexpr const char* kDirections[] = {"h2d", "d2h", "bidir"};
  const auto known = [](const std::string& word, const auto& list) {
    return std::find(std::begin(list), std::end(list), word) != std::end(list);
  };
  if (!known(out.memory, kMemories) || !known(out.direction, kDirections))
    throw UsageError(fmt::format("transfer point '{}': unknown memory kind or direction", key));
  out.bytes = std::stoull(bytes);
  if (out.bytes == 0) throw UsageError(fmt::format("transfer point '{}': zero bytes", key));
  return out;
}

}  // namespace gpuprobe::transfer
