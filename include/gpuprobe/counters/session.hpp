// Collecting counters on a GPU: availability check and a user-range / user-replay session.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "gpuprobe/counters/catalog.hpp"
#include "gpuprobe/counters/values.hpp"

namespace gpuprobe::counters {

// Whether counters can be collected on a device, and why not. Never throws.
struct CounterAvailability {
  bool available = false;
  std::string chip;  // "GH100", when CUPTI got that far
  std::string code;  // CUPTI result name of the failure, e.g. "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES"
  std::string reason;  // one line: why not
  std::string hint;    // one line: how to enable them
};

// The caller's work for one collect(): `work(r)` runs inside range r; `before(r)` and
// `after(r)` run outside it, just before the range is pushed and just after it is popped, in
// every pass (put resets and cache flushes in `before`, verification in `after`: they are not
// counted).
struct RangeWork {
  std::function<void(std::size_t)> before;  // optional
  std::function<void(std::size_t)> work;
  std::function<void(std::size_t)> after;  // optional
};

// The chip name CUPTI gives `device` ("GH100"), for host-side metric validation and listing.
// Throws CountersUnavailable when CUPTI cannot tell (another profiler attached, nvperf missing).
std::string counters_chip(int device);

// Checks device support, initialises the profiler and runs a tiny canary session (enable,
// configure, one empty range, decode), then tears everything down again. Catches every error,
// including ERR_NVGPUCTRPERM (insufficient privileges), another profiler attached (ncu/nsys:
// MULTIPLE_SUBSCRIBERS), a virtualised or unsupported device, and libnvperf_host missing.
CounterAvailability counters_availability(int device) noexcept;

// One counter collection on one device (the CUDA primary context of `device`), for a fixed
// list of metrics. Uses CUPTI's range profiler with user ranges and user replay: collect()
// runs the caller's work once per pass and range, and the work must redo identical GPU work
// each time (the caller resets its state). At most one session is open per device at a time.
// Every CUPTI failure is thrown as CountersUnavailable; unknown metric names as UsageError.
// Close explicitly (the destructor closes too, never from a static destructor).
class CounterSession {
 public:
  // metrics: full names (validated against the device's chip); sm__cycles_elapsed.avg.per_second
  // is added when missing, so every range records the SM clock. max_ranges: most ranges one
  // collect() may name (sizes the counter-data image).
  CounterSession(int device, std::vector<std::string> metrics, std::size_t max_ranges);
  ~CounterSession();
  CounterSession(const CounterSession&) = delete;
  CounterSession& operator=(const CounterSession&) = delete;

  // Replays needed by one collect(), over all configurations.
  std::size_t passes() const;
  const MetricGrouping& grouping() const;
  const std::string& chip() const;
  int device() const;

  // Runs `work(range_index)` inside the range named range_names[range_index], for every range,
  // once per pass of every configuration (passes() times in all). Names must be unique and at
  // most max_ranges (UsageError otherwise). Returns one entry per range, in order, with every
  // metric. If `work` throws, the pass is closed, the profiler disabled and the exception
  // rethrown. When GPUPROBE_CAPTURE_COUNTER_DATA names a folder (or set_capture() was called),
  // the raw counter data of every configuration is written there (see capture.hpp).
  std::vector<RangeCounters> collect(const std::vector<std::string>& range_names,
                                     const std::function<void(std::size_t)>& work);
  // The same, with steps outside each range (see RangeWork).
  std::vector<RangeCounters> collect(const std::vector<std::string>& range_names,
                                     const RangeWork& work);

  // Writes captures of the next collect() calls to `dir` with file names starting `stem`.
  void set_capture(std::string dir, std::string stem);

  // Releases the profiler (idempotent). Later collect() calls throw.
  void close();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gpuprobe::counters
