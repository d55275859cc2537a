// What the runner checks on each GPU at a probe's boundaries: settling after earlier frees, the
// persisting-L2 leak guard, the SM clock before and after; and the conditions and findings they
// leave in the result. A device-scoped probe has one GPU here, a host-scoped one every GPU it
// spans (the harness's first).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "gpuprobe/core/result.hpp"

namespace gpuprobe::runner {

// One GPU's state at the boundaries of one probe.
struct Boundary {
  const DeviceInfo* device = nullptr;
  std::uint64_t freed = 0;       // bytes freed on it since the previous probe started
  bool first = false;            // the first probe on this GPU in this process
  std::size_t limit_before = 0;  // persisting-L2 limit found before the probe
  std::size_t limit_after = 0;   // and after it
  std::size_t window_after = 0;  // window bytes left on the harness's stream (harness only)
  double clock_before = 0;       // SM clock, MHz
  double clock_after = 0;
};

// The GPUs' boundaries of a probe about to start: what each had freed and its persisting-L2
// limit (then reset to 0). Waits for the driver's scrubbing of earlier frees (the longest wait of
// any GPU, as they scrub at once) and returns that wait in seconds through `waited`. Leaves the
// harness's device (devices.front()) current.
std::vector<Boundary> open_boundaries(const std::vector<DeviceInfo>& devices, double& waited);

// Samples each GPU's SM clock (clock_before, or clock_after when `after`): the harness's on its
// stream `harness`, the others' on a stream of their own. Leaves the harness's device current.
void sample_clocks(std::vector<Boundary>& boundaries, cudaStream_t harness, bool after);

// After the probe: the persisting-L2 state each GPU was left with (then reset), and the window on
// the harness's stream. Leaves the harness's device current.
void close_boundaries(std::vector<Boundary>& boundaries, cudaStream_t harness);

// The conditions and findings of the boundaries: the harness's under the usual names
// (sm_clock_before, persisting_l2_limit_before, ...), the other GPUs' with a suffix "_gpuN" and
// their findings with a `device` param.
void add_boundary_results(ProbeResult& result, const std::vector<Boundary>& boundaries,
                          double waited);

}  // namespace gpuprobe::runner
