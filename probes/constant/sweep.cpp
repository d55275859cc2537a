// constant's sweep (host-only): the points of the axes (lookups, then the chases' ladders) and
// their row params.
#include <algorithm>

#include "analysis.hpp"
#include "gpuprobe/models/latency_model.hpp"

namespace gpuprobe::constant {

using models::LookupPath;

std::vector<Point> points(const AxisValues& v, std::size_t* constant_skipped) {
  std::vector<Point> out;
  std::size_t skipped = 0;
  for (const std::string& name : v.choices("path")) {
    const LookupPath path = models::lookup_path_from_name(name);
    for (const std::uint64_t w : v.list("width"))
      for (const std::uint64_t d : v.list("distinct"))
        for (const std::uint64_t b : v.list("sizes")) {
          if (path == LookupPath::kConstant && b > models::kConstantTableMax) {
            ++skipped;
            continue;
          }
          out.push_back({kLookup, path, static_cast<int>(w), static_cast<int>(d), b});
        }
  }
  for (const std::string& name : v.choices("path")) {
    const LookupPath path = models::lookup_path_from_name(name);
    const std::uint64_t top = path == LookupPath::kConstant
                                  ? std::min(v.number("chase-max"), models::kConstantTableMax)
                                  : v.number("chase-max");
    for (const std::uint64_t b :
         models::size_ladder(kChaseMin, top, v.number("per-octave"), models::kChaseStride))
      out.push_back({kChase, path, 4, 1, b});
  }
  if (constant_skipped) *constant_skipped = skipped;
  return out;
}

std::vector<Param> row_params(const Point& p) {
  std::vector<Param> params = {{kMode, p.mode, ""}, {kPath, models::lookup_path_name(p.path), ""}};
  if (p.mode == kLookup) {
    params.push_back({kWidth, static_cast<std::int64_t>(p.width), "B"});
    params.push_back({kDistinct, static_cast<std::int64_t>(p.distinct), ""});
  }
  params.push_back({kBytes, static_cast<std::int64_t>(p.bytes), "B"});
  return params;
}

}  // namespace gpuprobe::constant
