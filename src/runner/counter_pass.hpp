// The counter pass of one probe on one device: opens a CUPTI session for the probe's metrics and
// re-runs each timed operation under it; a refusal leaves timing intact and says why.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gpuprobe/core/result.hpp"
#include "gpuprobe/runner/runner.hpp"
#include "gpuprobe/runtime/context.hpp"

namespace gpuprobe::counters {
class CounterSession;
}

namespace gpuprobe::runner {

class CounterPassDriver {
 public:
  // Decides whether the probe gets a counter pass on `device` and opens the session if so.
  // Never throws for counter trouble: status() then says refused and why.
  CounterPassDriver(const std::vector<std::string>& probe_metrics, int device,
                    const CounterOptions& options);
  ~CounterPassDriver();
  CounterPassDriver(const CounterPassDriver&) = delete;
  CounterPassDriver& operator=(const CounterPassDriver&) = delete;

  // What the ProbeContext calls after timing each operation; empty when there is no pass.
  runtime::CounterPass pass();

  // Releases the CUPTI session (before the probe's result is returned).
  void close();

  // The state, the metrics and the passes; reason and hint when refused.
  const CounterStatus& status() const { return status_; }
  // Findings about the pass: refusal, metrics that came back without a value, the SM clock.
  std::vector<Finding> findings() const;
  // SM clock over the counter pass (min and max of the ranges, MHz), when it was read.
  std::vector<Quantity> conditions() const;

 private:
  std::vector<std::optional<std::vector<Quantity>>> collect(
      const std::vector<runtime::CounterPoint>& points);
  // One CUPTI collection over points[first, first + count).
  void collect_chunk(const std::vector<runtime::CounterPoint>& points, std::size_t first,
                     std::size_t count, std::vector<std::optional<std::vector<Quantity>>>& out);
  void refuse(const std::string& reason, const std::string& hint);

  int device_;
  std::size_t ranges_named_ = 0;  // ranges collected so far (for unique range names)
  CounterStatus status_;
  std::unique_ptr<counters::CounterSession> session_;
  std::map<std::string, std::string> missing_;  // metric -> why it has no value (first reason)
  std::optional<double> clock_min_hz_, clock_max_hz_;
  bool refused_during_run_ = false;
};

}  // namespace gpuprobe::runner
