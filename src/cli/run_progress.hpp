// The progress line of a whole run on a terminal: probe k of n, the point within it, the time
// spent and an estimate of the time left (host-only, unit-tested).
#pragma once

#include <chrono>
#include <cstddef>
#include <string>

namespace gpuprobe::cli {

class RunProgress {
 public:
  using Clock = std::chrono::steady_clock;
  // `runs`: the probe runs to come (a device-scoped probe once per GPU, a host-scoped one once).
  RunProgress(std::size_t runs, Clock::time_point start);
  // The line for point `done` of `total` of the current probe run; at most `width` columns.
  std::string line(const std::string& probe, std::size_t done, std::size_t total,
                   const std::string& label, Clock::time_point now, std::size_t width) const;
  // The current probe run has ended: the next line counts the next one.
  void run_done();

 private:
  std::size_t runs_;
  std::size_t finished_ = 0;
  Clock::time_point start_;
};

// "0:07", "1:02:03": seconds as a clock reading.
std::string clock_text(double seconds);

}  // namespace gpuprobe::cli
