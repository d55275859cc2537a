// Fuzz target: the axis parser (resolve_axes) over every axis kind, as a probe's flags use it.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "gpuprobe/core/axes.hpp"
#include "gpuprobe/core/errors.hpp"

namespace {

std::vector<gpuprobe::Axis> make_axes() {
  using namespace gpuprobe;
  std::vector<Axis> axes;
  axes.push_back(size_list_axis("sizes", "bytes", "4KiB:256MiB:x4", "64MiB"));
  axes.back().min = 1;
  axes.back().max = std::uint64_t{1} << 40;
  axes.push_back(list_axis("strides", "elements", "1:32"));
  axes.back().min = 1;
  axes.back().validate = [](std::uint64_t v) {
    return v % 3 == 0 ? std::string("is a multiple of 3") : std::string();
  };
  axes.push_back(number_axis("size", "edge", "8192"));
  axes.back().max = 65536;
  axes.push_back(choice_axis("memory", "kind", {"pageable", "pinned", "mapped"}, "all", "pinned"));
  axes.back().switch_per_choice = true;
  axes.push_back(switch_axis("timeline", "show it"));
  return axes;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::vector<gpuprobe::Axis> axes = make_axes();
  // The input is up to four texts separated by NUL, one per valued axis; a missing one is not
  // given. The first byte's bits add switches and say whether `all`'s quick defaults apply.
  if (size == 0) return 0;
  const std::uint8_t bits = data[0];
  const std::string rest(reinterpret_cast<const char*>(data + 1), size - 1);
  gpuprobe::AxisInput input;
  std::size_t start = 0;
  for (std::size_t i = 0; i < 4 && start <= rest.size(); ++i) {
    const std::size_t end = std::min(rest.find('\0', start), rest.size());
    if ((bits >> i) & 1) input.text[axes[i].name] = rest.substr(start, end - start);
    start = end + 1;
  }
  if (bits & 0x10) input.switches.insert("timeline");
  if (bits & 0x20) input.choice_switches["memory"].insert("pinned");
  try {
    const auto values = gpuprobe::resolve_axes(axes, input, (bits & 0x40) != 0);
    for (auto v : values.list("sizes")) {
      if (v < 1 || v > (std::uint64_t{1} << 40)) __builtin_trap();  // bounds must hold
    }
    for (auto v : values.list("strides")) {
      if (v % 3 == 0) __builtin_trap();  // the check must hold
    }
    if (values.number("size") > 65536) __builtin_trap();
    (void)gpuprobe::axis_params(axes, values);
  } catch (const gpuprobe::UsageError&) {
  }
  return 0;
}
