// transfer's sweep split by where its rounds run (host-only, tested in CI): copies up to
// kProcessLevelMaxBytes with each round in a child process of its own, larger ones in this one.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace gpuprobe::transfer {

// Copies up to this size hold one speed per process on the test machine (docs/method.md,
// "Rounds in processes"): a run's rounds agree within 1% while runs differ by 5-15%. They are
// measured with each round in a process of its own, in a batch with host buffers of their largest
// size. Larger copies move enough bytes that the level is under 1% of them; they stay in this
// process, so their large buffers are made once.
inline constexpr std::uint64_t kProcessLevelMaxBytes = std::uint64_t{1} << 20;

// The sweep's points (by their copy sizes, in sweep order) in two parts, each as indices in sweep
// order with its largest size (0 when empty).
struct SweepParts {
  std::vector<std::size_t> round_processes;  // bytes <= kProcessLevelMaxBytes
  std::uint64_t round_processes_max = 0;
  std::vector<std::size_t> one_process;  // larger
  std::uint64_t one_process_max = 0;
};
SweepParts split_by_process_level(std::span<const std::uint64_t> bytes);

}  // namespace gpuprobe::transfer
