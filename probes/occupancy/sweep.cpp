// occupancy's sweep (host-only): the points of the axes (the warps sweep at the smallest ILP and
// width, then the ILP x width grid at a few warp counts) and their row params.
#include <algorithm>

#include "analysis.hpp"

namespace gpuprobe::occupancy {

std::vector<Point> points(const AxisValues& v) {
  std::vector<Point> out;
  const auto ilps = v.list("ilp"), widths = v.list("width");
  if (ilps.empty() || widths.empty()) return out;
  const int ilp0 = static_cast<int>(*std::min_element(ilps.begin(), ilps.end()));
  const int width0 = static_cast<int>(*std::min_element(widths.begin(), widths.end()));
  const auto add = [&](const Point& p) {
    if (std::find(out.begin(), out.end(), p) == out.end()) out.push_back(p);
  };
  for (const std::string& op : v.choices("op")) {
    for (const std::uint64_t w : v.list("warps"))
      add({op, static_cast<int>(w), ilp0, width0});
    for (const std::uint64_t w : v.list("at-warps"))
      for (const std::uint64_t i : ilps)
        for (const std::uint64_t b : widths)
          add({op, static_cast<int>(w), static_cast<int>(i), static_cast<int>(b)});
  }
  return out;
}

std::vector<Param> row_params(const Point& p) {
  return {{kOp, p.op, ""},
          {kWarps, static_cast<std::int64_t>(p.warps), ""},
          {kIlp, static_cast<std::int64_t>(p.ilp), ""},
          {kWidth, static_cast<std::int64_t>(p.width), "B"}};
}

}  // namespace gpuprobe::occupancy
