// The runner's checks on each GPU at a probe's boundaries: settling after earlier frees, the
// persisting-L2 leak guard, SM clocks; and the conditions and findings they make.
#include "boundary.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <set>
#include <string>
#include <thread>

#include "gpuprobe/core/glossary.hpp"
#include "gpuprobe/core/runner_findings.hpp"
#include "gpuprobe/runtime/buffers.hpp"
#include "gpuprobe/runtime/clock.hpp"
#include "gpuprobe/runtime/device.hpp"
#include "gpuprobe/runtime/l2.hpp"
#include "gpuprobe/runtime/stream.hpp"

namespace gpuprobe::runner {
namespace {

// The driver scrubs freed device memory in the background, and that takes DRAM bandwidth
// from whatever runs next: on an H100, copy bandwidth was 11% lower for about 25 ms after 8 GiB
// were freed, and normal after a 200 ms pause (scripts/experiments/after_free.cu). Nothing the
// runtime reports shows when it ends (free memory is back at once), so before a probe starts,
// wait in proportion to what earlier probes freed, at a rate well below the one measured.
constexpr std::uint64_t kSettleMinBytes = 256ull << 20;  // less than this: a dip under 1 ms
constexpr double kSettleBytesPerSecond = 100e9;          // measured ~340 GB/s on an H100
constexpr double kSettleMaxSeconds = 1.0;

double settle_seconds(std::uint64_t freed) {
  if (freed < kSettleMinBytes) return 0;
  return std::min(kSettleMaxSeconds, static_cast<double>(freed) / kSettleBytesPerSecond);
}

// The leak guard: persisting-L2 state found at a probe's boundaries. Before it, a limit is
// reported (the driver's default on the first probe of a device in this process, else left by
// someone else: an earlier probe, the embedding program), then reset so the probe starts clean;
// after it, a limit or a window on the harness's stream the probe left behind is reported, then
// reset. Persisting lines themselves cannot be read back; the reset evicts them.
bool first_probe_on(int device) {
  static std::set<int> seen;
  return seen.insert(device).second;
}

// "sm_clock_before" for the harness's GPU, "sm_clock_before_gpu1" for another.
std::string named(const std::string& name, const Boundary& b, bool harness) {
  return harness ? name : fmt::format("{}_gpu{}", name, b.device->index);
}

// The scope of another GPU's findings: its index.
std::optional<std::int64_t> scope_of(const Boundary& b, bool harness) {
  if (harness) return std::nullopt;
  return b.device->index;
}

void add_guard(ProbeResult& result, const Boundary& b, bool harness) {
  if (b.device->persisting_l2_max_bytes == 0) return;
  result.conditions.push_back(
      {named("persisting_l2_limit_before", b, harness), "B", static_cast<double>(b.limit_before)});
  result.conditions.push_back(
      {named("persisting_l2_limit_after", b, harness), "B", static_cast<double>(b.limit_after)});
  using namespace runner_findings;
  const auto device = kDevice(scope_of(b, harness));
  if (b.limit_before > 0 && b.first)
    result.findings.push_back(kPersistingL2Default.make(device, kLimit(b.limit_before)));
  if (b.limit_before > 0 && !b.first)
    result.findings.push_back(kPersistingL2LeftBefore.make(device, kLimit(b.limit_before)));
  if (b.limit_after > 0 || b.window_after > 0)
    result.findings.push_back(
        kPersistingL2LeftAfter.make(device, kLimit(b.limit_after), kWindowBytes(b.window_after)));
}

void add_clocks(ProbeResult& result, const Boundary& b, bool harness) {
  const double max_mhz = static_cast<double>(b.device->sm_clock_khz) / 1e3;
  // The harness's clocks lead the conditions, as they always have.
  const std::vector<Quantity> clocks{{named("sm_clock_before", b, harness), "MHz", b.clock_before},
                                     {named("sm_clock_after", b, harness), "MHz", b.clock_after},
                                     {named("sm_clock_max", b, harness), "MHz", max_mhz}};
  result.conditions.insert(harness ? result.conditions.begin() : result.conditions.end(),
                           clocks.begin(), clocks.end());
  if (max_mhz > 0 && std::min(b.clock_before, b.clock_after) < 0.8 * max_mhz) {
    using namespace runner_findings;
    result.findings.push_back(kSmClockLow.make(kDevice(scope_of(b, harness)),
                                               kSmClockBefore(b.clock_before),
                                               kSmClockAfter(b.clock_after), kSmClockMax(max_mhz)));
  }
}

}  // namespace

std::vector<Boundary> open_boundaries(const std::vector<DeviceInfo>& devices, double& waited) {
  std::vector<Boundary> out;
  waited = 0;
  for (const auto& d : devices) {
    runtime::use_device(d.index);
    Boundary b;
    b.device = &d;
    b.freed = runtime::take_device_bytes_freed(d.index);
    waited = std::max(waited, settle_seconds(b.freed));
    b.first = first_probe_on(d.index);
    b.limit_before = runtime::persisting_l2_limit(d.persisting_l2_max_bytes);
    runtime::reset_persisting_l2(d.persisting_l2_max_bytes);
    out.push_back(b);
  }
  runtime::use_device(devices.front().index);
  if (waited > 0) std::this_thread::sleep_for(std::chrono::duration<double>(waited));
  return out;
}

void sample_clocks(std::vector<Boundary>& boundaries, cudaStream_t harness, bool after) {
  for (std::size_t i = 0; i < boundaries.size(); ++i) {
    Boundary& b = boundaries[i];
    double mhz = 0;
    if (i == 0) {
      mhz = runtime::sample_sm_clock_mhz(harness);
    } else {
      runtime::use_device(b.device->index);
      const runtime::Stream own;
      mhz = runtime::sample_sm_clock_mhz(own.get());
    }
    (after ? b.clock_after : b.clock_before) = mhz;
  }
  runtime::use_device(boundaries.front().device->index);
}

void close_boundaries(std::vector<Boundary>& boundaries, cudaStream_t harness) {
  boundaries.front().window_after = runtime::stream_window(harness).num_bytes;
  for (auto& b : boundaries) {
    runtime::use_device(b.device->index);
    b.limit_after = runtime::persisting_l2_limit(b.device->persisting_l2_max_bytes);
    runtime::reset_persisting_l2(b.device->persisting_l2_max_bytes);
  }
  runtime::use_device(boundaries.front().device->index);
}

void add_boundary_results(ProbeResult& result, const std::vector<Boundary>& boundaries,
                          double waited) {
  // Clocks of the other GPUs first, so that the harness's three lead the list.
  for (std::size_t i = boundaries.size(); i-- > 0;)
    add_clocks(result, boundaries[i], i == 0);
  std::uint64_t freed = 0;
  for (const auto& b : boundaries)
    freed += b.freed;
  if (waited > 0) {
    result.conditions.push_back({"freed_before_start", "B", static_cast<double>(freed)});
    result.conditions.push_back({"settle_wait", "s", waited});
  }
  for (std::size_t i = 0; i < boundaries.size(); ++i)
    add_guard(result, boundaries[i], i == 0);
}

}  // namespace gpuprobe::runner
