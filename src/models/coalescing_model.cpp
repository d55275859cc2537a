// Sector counting for the coalescing probe: per warp request, per warp in DRAM, per launch.
#include "gpuprobe/models/coalescing_model.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

namespace gpuprobe::models {
namespace {

constexpr int kAveragedWarps = 8;        // request level: average over this many warps
constexpr std::uint64_t kRunWarps = 64;  // DRAM level: steady state measured over this run

void check_width(int element_bytes) {
  const bool power_of_two = element_bytes > 0 && (element_bytes & (element_bytes - 1)) == 0;
  if (!power_of_two || element_bytes > kSectorBytes) {
    throw std::invalid_argument(
        "coalescing model: element_bytes must be a power of two from 1 to "
        "32, not " +
        std::to_string(element_bytes));
  }
}

void check_point(CopyPattern pattern, int element_bytes, std::uint64_t offset_or_stride) {
  check_width(element_bytes);
  if (pattern == CopyPattern::kStride && offset_or_stride == 0)
    throw std::invalid_argument("coalescing model: stride must be at least 1");
}

// First element and step of the loads of warp k (lanes 32k .. 32k+31 of the grid).
struct LaneMap {
  std::uint64_t first;
  std::uint64_t step;
};

LaneMap load_lanes(CopyPattern pattern, std::uint64_t param, std::uint64_t warp) {
  const std::uint64_t i0 = warp * kWarpLanes;  // element index of the warp's lane 0
  if (pattern == CopyPattern::kOffset) return {i0 + param, 1};
  return {i0 * param, param};
}

LaneMap store_lanes(std::uint64_t warp) {
  return {warp * kWarpLanes, 1};
}

// Appends the sectors of one warp's access to `sectors` (unsorted, may repeat).
void append_sectors(const LaneMap& lanes, int element_bytes, std::vector<std::uint64_t>& sectors) {
  const auto w = static_cast<std::uint64_t>(element_bytes);
  for (std::uint64_t l = 0; l < kWarpLanes; ++l) {
    const std::uint64_t first_byte = (lanes.first + l * lanes.step) * w;
    const std::uint64_t last_byte = first_byte + w - 1;
    for (std::uint64_t s = first_byte / kSectorBytes; s <= last_byte / kSectorBytes; ++s)
      sectors.push_back(s);
  }
}

std::size_t distinct(std::vector<std::uint64_t>& sectors) {
  std::sort(sectors.begin(), sectors.end());
  return static_cast<std::size_t>(std::unique(sectors.begin(), sectors.end()) - sectors.begin());
}

// Distinct sectors touched by warps [0, warps) of one kind of access.
template <typename MapFn>
std::size_t union_sectors(std::uint64_t warps, int element_bytes, MapFn map) {
  std::vector<std::uint64_t> sectors;
  for (std::uint64_t k = 0; k < warps; ++k)
    append_sectors(map(k), element_bytes, sectors);
  return distinct(sectors);
}

// Request-level sectors, averaged over kAveragedWarps consecutive warps.
template <typename MapFn>
double average_request_sectors(int element_bytes, MapFn map) {
  std::size_t total = 0;
  for (std::uint64_t k = 0; k < kAveragedWarps; ++k) {
    std::vector<std::uint64_t> sectors;
    append_sectors(map(k), element_bytes, sectors);
    total += distinct(sectors);
  }
  return static_cast<double>(total) / kAveragedWarps;
}

// Steady-state distinct sectors per warp: what warps [W, 2W) add to warps [0, W).
template <typename MapFn>
double dram_sectors_per_warp(int element_bytes, MapFn map) {
  const std::size_t first_half = union_sectors(kRunWarps, element_bytes, map);
  const std::size_t both = union_sectors(2 * kRunWarps, element_bytes, map);
  return static_cast<double>(both - first_half) / static_cast<double>(kRunWarps);
}

struct Counts {
  double load_request;
  double store_request;
  double dram;  // loads + stores
};

Counts count(CopyPattern pattern, int element_bytes, std::uint64_t param) {
  auto loads = [&](std::uint64_t k) { return load_lanes(pattern, param, k); };
  auto stores = [](std::uint64_t k) { return store_lanes(k); };
  return {
      average_request_sectors(element_bytes, loads), average_request_sectors(element_bytes, stores),
      dram_sectors_per_warp(element_bytes, loads) + dram_sectors_per_warp(element_bytes, stores)};
}

}  // namespace

int warp_sectors(std::uint64_t first_element, std::uint64_t step_elements, int element_bytes) {
  check_width(element_bytes);
  if (step_elements == 0) throw std::invalid_argument("coalescing model: step must be at least 1");
  std::vector<std::uint64_t> sectors;
  append_sectors({first_element, step_elements}, element_bytes, sectors);
  return static_cast<int>(distinct(sectors));
}

CopyPrediction predict_copy(CopyPattern pattern, int element_bytes,
                            std::uint64_t offset_or_stride) {
  check_point(pattern, element_bytes, offset_or_stride);
  const std::uint64_t baseline_param = pattern == CopyPattern::kOffset ? 0 : 1;
  const Counts here = count(pattern, element_bytes, offset_or_stride);
  const Counts base = count(pattern, element_bytes, baseline_param);
  CopyPrediction p;
  p.load_sectors_per_request = here.load_request;
  p.store_sectors_per_request = here.store_request;
  const double useful = static_cast<double>(kWarpLanes) * element_bytes;
  p.sector_efficiency = 100.0 * useful / (here.load_request * kSectorBytes);
  p.predicted_relative_bandwidth =
      (base.load_request + base.store_request) / (here.load_request + here.store_request);
  p.dram_sectors_per_warp = here.dram;
  p.predicted_relative_bandwidth_dram = base.dram / here.dram;
  return p;
}

std::uint64_t copy_input_elements(CopyPattern pattern, std::uint64_t offset_or_stride,
                                  std::uint64_t elements) {
  if (elements == 0) return 0;
  if (pattern == CopyPattern::kOffset) return elements + offset_or_stride;
  return (elements - 1) * offset_or_stride + 1;
}

std::uint64_t copy_touched_bytes(CopyPattern pattern, int element_bytes,
                                 std::uint64_t offset_or_stride, std::uint64_t elements) {
  check_point(pattern, element_bytes, offset_or_stride);
  if (elements == 0) return 0;
  const auto w = static_cast<std::uint64_t>(element_bytes);
  constexpr auto kSector = static_cast<std::uint64_t>(kSectorBytes);
  std::uint64_t in_sectors = 0;
  if (pattern == CopyPattern::kOffset) {
    // One contiguous run of elements [offset, offset + elements).
    const std::uint64_t first = offset_or_stride * w / kSector;
    const std::uint64_t last = ((offset_or_stride + elements) * w - 1) / kSector;
    in_sectors = last - first + 1;
  } else {
    const std::uint64_t distance = offset_or_stride * w;  // bytes between element starts
    if (distance >= kSector) {
      // Elements are power-of-two sized and aligned, so none straddles a sector, and
      // starts >= 32 B apart never share one: one sector per element.
      in_sectors = elements;
    } else {
      // Starts < 32 B apart: every sector of the span holds a start, so all are touched.
      in_sectors = ((elements - 1) * distance + w - 1) / kSector + 1;
    }
  }
  const std::uint64_t out_sectors = (elements * w - 1) / kSector + 1;
  return (in_sectors + out_sectors) * kSector;
}

}  // namespace gpuprobe::models
