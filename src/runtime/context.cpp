// The per-device probe context and the runner that wraps every probe run.
#include "gpuprobe/runtime/context.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <thread>

#include "gpuprobe/core/errors.hpp"
#include "gpuprobe/runtime/buffers.hpp"
#include "gpuprobe/runtime/clock.hpp"
#include "gpuprobe/runtime/cuda_check.hpp"
#include "gpuprobe/runtime/device.hpp"
#include "gpuprobe/runtime/l2.hpp"

namespace gpuprobe::runtime {

ProbeContext::ProbeContext(const DeviceInfo& device, const MeasureOptions& options,
                           ProgressFn progress, std::string probe_name)
    : device_(device),
      measurer_(options, device.l2_bytes),
      progress_(std::move(progress)),
      probe_name_(std::move(probe_name)) {}

void ProbeContext::progress(std::size_t done, std::size_t total, const std::string& label) const {
  if (progress_) progress_(probe_name_, done, total, label);
}

namespace {

ProbeResult failed(const Probe& probe, int device, const std::string& reason) {
  ProbeResult r;
  r.probe = probe.name();
  r.device = device;
  r.status = Status::kFailed;
  r.reason = reason;
  return r;
}

// The driver scrubs freed device memory in the background, and that takes DRAM bandwidth
// from whatever runs next: on an H100, copy bandwidth was 11% lower for about 25 ms after 8 GiB
// were freed, and normal after a 200 ms pause (scripts/experiments/after_free.cu). Nothing the
// runtime reports shows when it ends (free memory is back at once), so before a probe starts,
// wait in proportion to what earlier probes freed, at a rate well below the one measured.
constexpr std::uint64_t kSettleMinBytes = 256ull << 20;  // less than this: a dip under 1 ms
constexpr double kSettleBytesPerSecond = 100e9;          // measured ~340 GB/s on an H100
constexpr double kSettleMaxSeconds = 1.0;

struct Settle {
  std::uint64_t freed = 0;  // bytes freed since the previous probe started
  double waited = 0;        // seconds
};

Settle settle_after_frees(int device) {
  Settle s{take_device_bytes_freed(device), 0};
  if (s.freed < kSettleMinBytes) return s;
  s.waited = std::min(kSettleMaxSeconds, static_cast<double>(s.freed) / kSettleBytesPerSecond);
  std::this_thread::sleep_for(std::chrono::duration<double>(s.waited));
  return s;
}

// After a failure the context may hold a sticky error: start the next probe on a fresh one.
void recover_device(int index) {
  (void)cudaGetLastError();
  (void)cudaDeviceReset();
  (void)cudaSetDevice(index);
}

}  // namespace

ProbeResult run_probe(Probe& probe, const DeviceInfo& device, const MeasureOptions& options,
                      const ProgressFn& progress) {
  use_device(device.index);
  try {
    const Settle settle = settle_after_frees(device.index);
    reset_persisting_l2(device.persisting_l2_max_bytes);
    ProbeContext context(device, options, progress, probe.name());
    const double clock_before = sample_sm_clock_mhz(context.stream());
    ProbeResult result = probe.run(context);
    const double clock_after = sample_sm_clock_mhz(context.stream());
    reset_persisting_l2(device.persisting_l2_max_bytes);
    result.probe = probe.name();
    result.device = device.index;
    const double max_mhz = static_cast<double>(device.sm_clock_khz) / 1e3;
    result.conditions.insert(result.conditions.begin(), {{"sm_clock_before", "MHz", clock_before},
                                                         {"sm_clock_after", "MHz", clock_after},
                                                         {"sm_clock_max", "MHz", max_mhz}});
    if (settle.waited > 0) {
      result.conditions.push_back({"freed_before_start", "B", static_cast<double>(settle.freed)});
      result.conditions.push_back({"settle_wait", "s", settle.waited});
    }
    // The stopping rule in force, so a reader can tell how every sample set was gathered.
    const StoppingRule& rule = options.rule;
    if (rule.fixed_samples) {
      result.conditions.push_back(
          {"rule_fixed_samples", "", static_cast<double>(*rule.fixed_samples)});
    } else {
      result.conditions.push_back({"rule_min_samples", "", static_cast<double>(rule.min_samples)});
      result.conditions.push_back({"rule_min_time", "s", rule.min_time});
      result.conditions.push_back({"rule_max_time", "s", rule.max_time});
    }
    // The bound the `noisy` flag is judged against, in both modes.
    result.conditions.push_back({"rule_max_noise", "%", rule.max_noise * 100});
    if (max_mhz > 0 && std::min(clock_before, clock_after) < 0.8 * max_mhz) {
      result.notes.push_back(fmt::format(
          "SM clock measured at {:.0f}/{:.0f} MHz (before/after), under 80% of the {:.0f} MHz "
          "maximum: the GPU may be throttled or idle-clocked; compare results with care",
          clock_before, clock_after, max_mhz));
    }
    return result;
  } catch (const VerificationError& e) {
    recover_device(device.index);
    return failed(probe, device.index, fmt::format("wrong result: {}", e.what()));
  } catch (const UnsupportedError& e) {
    ProbeResult r = failed(probe, device.index, e.what());
    r.status = Status::kSkipped;
    return r;
  } catch (const NoDeviceError&) {
    throw;
  } catch (const Error& e) {
    recover_device(device.index);
    return failed(probe, device.index, e.what());
  } catch (const std::exception& e) {
    recover_device(device.index);
    return failed(probe, device.index, fmt::format("unexpected error: {}", e.what()));
  }
}

}  // namespace gpuprobe::runtime
