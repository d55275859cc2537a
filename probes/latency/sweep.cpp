// latency's sweep (host-only): the points of the axes and their row params.
#include "sweep.hpp"

#include <algorithm>

#include "gpuprobe/models/latency_model.hpp"

namespace gpuprobe::latency {

std::vector<Point> points(const AxisValues& v) {
  std::vector<Point> out;
  const auto& carveouts = v.list("carveout");
  const auto& strides = v.list("stride");
  const std::uint64_t per_octave = v.number("per-octave");
  for (std::size_t ci = 0; ci < carveouts.size(); ++ci) {
    for (std::uint64_t s : strides) {
      const bool pages = s >= kPageStrideFrom;
      if (pages && ci > 0) continue;
      const std::uint64_t lo = pages ? kMinPages * s : kMinBytes;
      const std::uint64_t hi = pages     ? v.number("tlb-max")
                               : ci == 0 ? v.number("max-size")
                                         : std::min(v.number("max-size"), kCarveoutMaxBytes);
      for (std::uint64_t b : models::size_ladder(lo, hi, per_octave, s))
        out.push_back({kChase, s, carveouts[ci], b, 0});
    }
  }
  std::uint64_t line = 0;
  for (std::uint64_t s : strides)
    if (s < kPageStrideFrom && (line == 0 || s < line)) line = s;
  if (line == 0) return out;
  for (std::uint64_t pct : v.list("trace")) {
    if (pct == 0) continue;
    out.push_back({kTrace, line, carveouts.front(), 0, pct});
  }
  return out;
}

void size_traces(std::vector<Point>& points, std::uint64_t l2_bytes) {
  for (Point& p : points)
    if (p.mode == kTrace) p.bytes = l2_bytes * p.l2_pct / 100 / p.stride * p.stride;
}

std::vector<Param> row_params(const Point& p) {
  std::vector<Param> params = {{kMode, p.mode, ""},
                               {kStride, static_cast<std::int64_t>(p.stride), "B"},
                               {kCarveout, static_cast<std::int64_t>(p.carveout), ""}};
  if (p.mode == kTrace) params.push_back({kL2Pct, static_cast<std::int64_t>(p.l2_pct), "%"});
  if (p.bytes > 0) params.push_back({kBytes, static_cast<std::int64_t>(p.bytes), "B"});
  return params;
}

}  // namespace gpuprobe::latency
