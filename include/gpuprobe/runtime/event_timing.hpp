// Event-timed seconds of one enqueue outside the harness: for sizing or tuning a workload before
// it is measured (overlap's balanced kernel), where the harness's rounds would be too slow.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <vector>

#include "gpuprobe/runtime/stream.hpp"

namespace gpuprobe::runtime {

// Seconds spent by `fastest` timing: runs go on until they add up to this (at least three).
inline constexpr double kFastestSeconds = 0.1;

// Seconds of one `enqueue(stream)`, event-timed: the median of three runs after a warm-up run, or
// with `fastest` the fastest run of as many as fit in kFastestSeconds (at least three), for work
// that only ever runs slower than its best (a copy over a link with other traffic).
template <typename F>
double event_seconds(cudaStream_t stream, F enqueue, bool fastest = false) {
  Event start, stop;
  std::vector<double> t;
  double spent = 0;
  enqueue(stream);
  while (t.size() < 3 || (fastest && spent < kFastestSeconds)) {
    start.record(stream);
    enqueue(stream);
    stop.record(stream);
    stop.synchronize();
    t.push_back(stop.seconds_since(start));
    spent += t.back();
  }
  std::sort(t.begin(), t.end());
  return fastest ? t.front() : t[t.size() / 2];
}

}  // namespace gpuprobe::runtime
