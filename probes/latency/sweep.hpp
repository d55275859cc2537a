// latency's sweep (host-only, tested in CI): the points the axes ask for — per carve-out and
// stride a ladder of working sets, and the trace points at shares of the L2 — and their params.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis.hpp"
#include "gpuprobe/core/axes.hpp"

namespace gpuprobe::latency {

// Carve-outs after the first sweep only the sizes up to this (the L1 is what they move).
inline constexpr std::uint64_t kCarveoutMaxBytes = 1ull << 20;
inline constexpr std::uint64_t kMinBytes = 1024;  // the smallest working set of a cache chase
inline constexpr std::uint64_t kMinPages = 16;    // a page chase starts at 16 strides

// One sweep point: a chase (mode kChase) or a trace (kTrace, at l2_pct % of the L2).
struct Point {
  std::string mode;
  std::uint64_t stride = 0;
  std::uint64_t carveout = 0;
  std::uint64_t bytes = 0;   // 0 for a trace point until size_traces
  std::uint64_t l2_pct = 0;  // trace points only
  std::uint64_t elements() const { return bytes / stride; }
};

// The points in measuring order: per carve-out (the first carve-out gets the whole ladders, the
// others cache strides up to kCarveoutMaxBytes), per stride (page strides with the first
// carve-out only, from kMinPages strides to --tlb-max), then the traces (smallest cache stride,
// first carve-out). A trace point's bytes are 0 here: its size comes with the device
// (size_traces), so a plan and a run have the same points.
std::vector<Point> points(const AxisValues& values);
// The trace points' working sets on a device with `l2_bytes` of L2: l2_pct % of it, in whole
// strides.
void size_traces(std::vector<Point>& points, std::uint64_t l2_bytes);

// A point's params: mode, stride, carve-out, a trace's l2_pct, then bytes where known (a sized
// trace's bytes come last, after the params its planned row has).

std::vector<Param> row_params(const Point& p);

}  // namespace gpuprobe::latency
