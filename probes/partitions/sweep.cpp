// partitions' sweep (host-only): the points of the axes (strides per order and pad, then the
// transposes) and their row params.
#include "analysis.hpp"

namespace gpuprobe::partitions {

std::vector<Point> points(const AxisValues& v) {
  std::vector<Point> out;
  if (v.has_choice("mode", kStrideMode))
    for (const std::string& order : v.choices("order")) {
      if (order == kDiagonal) continue;  // a 2-D order: the transpose's
      for (const std::uint64_t pad : v.list("pads"))
        for (const std::uint64_t s : v.list("strides"))
          out.push_back({kStrideMode, order, s + pad, pad, 0});
    }
  if (v.has_choice("mode", kTransposeMode))
    for (const std::uint64_t n : v.list("transpose"))
      for (const std::string& order : v.choices("order")) {
        if (order == kScatter) continue;  // a 1-D order: the stride sweep's
        out.push_back({kTransposeMode, order, 0, 0, n});
      }
  return out;
}

std::vector<Param> row_params(const Point& p) {
  std::vector<Param> params = {{kMode, p.mode, ""}, {kOrder, p.order, ""}};
  if (p.mode == kStrideMode) {
    params.push_back({kPad, static_cast<std::int64_t>(p.pad), "B"});
    params.push_back({kStride, static_cast<std::int64_t>(p.stride), "B"});
  } else {
    params.push_back({kSide, static_cast<std::int64_t>(p.n), ""});
  }
  return params;
}

}  // namespace gpuprobe::partitions
