// L2 hygiene: flushing the L2 before cold samples, resetting persisting-L2 state.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "gpuprobe/runtime/buffers.hpp"
#include "gpuprobe/runtime/operation.hpp"

namespace gpuprobe::runtime {

// Reads `bytes` of `buffer` (a multiple of 16, 16-byte aligned) on `stream` and writes nothing:
// the lines it replaces leave the L2, dirty ones written back to DRAM during the sweep. `sink`:
// 4 bytes the kernel may write so that its loads are kept.
void launch_l2_sweep(const void* buffer, std::size_t bytes, std::uint32_t* sink,
                     cudaStream_t stream);

// Owns a buffer twice the L2 size; flush() reads it on a stream so that no line of a probe's data
// stays in L2 and no dirty line is left behind: what the L2 holds afterwards is the flush
// buffer's clean lines, so the next work's DRAM writes are its own (the counter pass relies on
// that), and none of it is spent writing back earlier work.
class L2Flusher {
 public:
  explicit L2Flusher(std::size_t l2_bytes);
  void flush(cudaStream_t stream);

 private:
  DeviceBuffer buffer_;
  DeviceBuffer sink_;
};

// Sets the persisting-L2 limit to 0 and evicts persisting lines (no-op on GPUs without
// persisting L2). Called at every probe boundary so no probe inherits another's carve-out.
void reset_persisting_l2(std::size_t persisting_l2_max_bytes);

// The persisting-L2 limit (cudaLimitPersistingL2CacheSize) in force now; 0 on GPUs without
// persisting L2.
std::size_t persisting_l2_limit(std::size_t persisting_l2_max_bytes);

// Applies an operation's persisting-L2 setting (set-aside, then the window on each stream) for
// its lifetime and restores the device when it ends: no window on those streams, set-aside 0,
// persisting lines back to normal. Throws UnsupportedError when the GPU has no persisting L2
// (persisting_l2_max_bytes 0) and RunError on CUDA failures.
class PersistingScope {
 public:
  PersistingScope(const std::optional<PersistingL2>& setting,
                  const std::vector<cudaStream_t>& streams, std::size_t persisting_l2_max_bytes);
  ~PersistingScope();
  PersistingScope(const PersistingScope&) = delete;
  PersistingScope& operator=(const PersistingScope&) = delete;

 private:
  void restore() noexcept;
  std::vector<cudaStream_t> streams_;  // empty when there was no setting
};

// The access-policy window set on `stream` now (num_bytes 0 when none).
cudaAccessPolicyWindow stream_window(cudaStream_t stream);

// Evicts persisting lines to normal without touching the limit (an operation's cache state
// kFlushL2AndResetPersisting; no-op on GPUs without persisting L2).
void reset_persisting_lines(std::size_t persisting_l2_max_bytes);

}  // namespace gpuprobe::runtime
