// Sector, line and fetch-block counting for the coalescing probe: per warp request, per warp
// in DRAM, per launch.
#include "gpuprobe/models/coalescing_model.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

namespace gpuprobe::models {
namespace {

constexpr int kAveragedWarps = 8;        // request level: average over this many warps
constexpr std::uint64_t kRunWarps = 64;  // DRAM level: steady state measured over this run

void validate_element_width(int element_bytes) {
  const bool power_of_two = element_bytes > 0 && (element_bytes & (element_bytes - 1)) == 0;
  if (!power_of_two || element_bytes > kSectorBytes) {
    throw std::invalid_argument(
        "coalescing model: element_bytes must be a power of two from 1 to "
        "32, not " +
        std::to_string(element_bytes));
  }
}

void validate_point(CopyPattern pattern, int element_bytes, std::uint64_t offset_or_stride) {
  validate_element_width(element_bytes);
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

// Appends the aligned unit_bytes-byte blocks (sectors, lines, fetch blocks) of one warp's
// access to `units` (unsorted, may repeat).
void append_units(const LaneMap& lanes, int element_bytes, int unit_bytes,
                  std::vector<std::uint64_t>& units) {
  const auto w = static_cast<std::uint64_t>(element_bytes);
  const auto u = static_cast<std::uint64_t>(unit_bytes);
  for (std::uint64_t l = 0; l < kWarpLanes; ++l) {
    const std::uint64_t first_byte = (lanes.first + l * lanes.step) * w;
    const std::uint64_t last_byte = first_byte + w - 1;
    for (std::uint64_t b = first_byte / u; b <= last_byte / u; ++b)
      units.push_back(b);
  }
}

std::size_t distinct(std::vector<std::uint64_t>& units) {
  std::sort(units.begin(), units.end());
  return static_cast<std::size_t>(std::unique(units.begin(), units.end()) - units.begin());
}

// Distinct units touched by warps [0, warps) of one kind of access.
template <typename MapFn>
std::size_t union_units(std::uint64_t warps, int element_bytes, int unit_bytes, MapFn map) {
  std::vector<std::uint64_t> units;
  for (std::uint64_t k = 0; k < warps; ++k)
    append_units(map(k), element_bytes, unit_bytes, units);
  return distinct(units);
}

// Request-level units per warp, averaged over kAveragedWarps consecutive warps.
template <typename MapFn>
double average_request_units(int element_bytes, int unit_bytes, MapFn map) {
  std::size_t total = 0;
  for (std::uint64_t k = 0; k < kAveragedWarps; ++k) {
    std::vector<std::uint64_t> units;
    append_units(map(k), element_bytes, unit_bytes, units);
    total += distinct(units);
  }
  return static_cast<double>(total) / kAveragedWarps;
}

// Steady-state distinct units per warp: what warps [W, 2W) add to warps [0, W).
template <typename MapFn>
double run_units_per_warp(int element_bytes, int unit_bytes, MapFn map) {
  const std::size_t first_half = union_units(kRunWarps, element_bytes, unit_bytes, map);
  const std::size_t both = union_units(2 * kRunWarps, element_bytes, unit_bytes, map);
  return static_cast<double>(both - first_half) / static_cast<double>(kRunWarps);
}

struct Counts {
  double load_sectors;
  double store_sectors;
  double load_lines;
  double dram_load_bytes;          // G-byte blocks x G, each block fetched once per run
  double dram_store_bytes;         // the same for the stores
  double dram_load_bytes_refetch;  // G-byte blocks x G, each block once per request touching it
};

Counts count(CopyPattern pattern, int element_bytes, std::uint64_t param, int fetch_bytes) {
  auto loads = [&](std::uint64_t k) { return load_lanes(pattern, param, k); };
  auto stores = [](std::uint64_t k) { return store_lanes(k); };
  const double g = fetch_bytes;
  return {average_request_units(element_bytes, kSectorBytes, loads),
          average_request_units(element_bytes, kSectorBytes, stores),
          average_request_units(element_bytes, kLineBytes, loads),
          run_units_per_warp(element_bytes, fetch_bytes, loads) * g,
          run_units_per_warp(element_bytes, fetch_bytes, stores) * g,
          average_request_units(element_bytes, fetch_bytes, loads) * g};
}

void validate_fetch(int fetch_bytes) {
  const bool power_of_two = fetch_bytes > 0 && (fetch_bytes & (fetch_bytes - 1)) == 0;
  if (!power_of_two || fetch_bytes < kSectorBytes || fetch_bytes > kLineBytes) {
    throw std::invalid_argument(
        "coalescing model: fetch_bytes must be a power of two from 32 to 128, not " +
        std::to_string(fetch_bytes));
  }
}

int warp_units(std::uint64_t first_element, std::uint64_t step_elements, int element_bytes,
               int unit_bytes) {
  validate_element_width(element_bytes);
  if (step_elements == 0) throw std::invalid_argument("coalescing model: step must be at least 1");
  std::vector<std::uint64_t> units;
  append_units({first_element, step_elements}, element_bytes, unit_bytes, units);
  return static_cast<int>(distinct(units));
}

}  // namespace

int warp_sectors(std::uint64_t first_element, std::uint64_t step_elements, int element_bytes) {
  return warp_units(first_element, step_elements, element_bytes, kSectorBytes);
}

int warp_sectors_at(std::span<const std::uint64_t> elements, int element_bytes) {
  validate_element_width(element_bytes);
  // A power-of-two element no wider than a sector, aligned, lies in one sector.
  std::vector<std::uint64_t> units;
  for (const std::uint64_t e : elements)
    units.push_back(e * static_cast<std::uint64_t>(element_bytes) / kSectorBytes);
  return static_cast<int>(distinct(units));
}

int warp_lines(std::uint64_t first_element, std::uint64_t step_elements, int element_bytes) {
  return warp_units(first_element, step_elements, element_bytes, kLineBytes);
}

int model_fetch_bytes(std::uint64_t reported_bytes) {
  int g = kSectorBytes;
  while (g < kLineBytes && static_cast<std::uint64_t>(2 * g) <= reported_bytes)
    g *= 2;
  return g;
}

CopyPrediction predict_copy(CopyPattern pattern, int element_bytes, std::uint64_t offset_or_stride,
                            int fetch_bytes) {
  validate_point(pattern, element_bytes, offset_or_stride);
  validate_fetch(fetch_bytes);
  const std::uint64_t baseline_param = pattern == CopyPattern::kOffset ? 0 : 1;
  const Counts here = count(pattern, element_bytes, offset_or_stride, fetch_bytes);
  const Counts base = count(pattern, element_bytes, baseline_param, fetch_bytes);
  CopyPrediction p;
  p.load_sectors_per_request = here.load_sectors;
  p.store_sectors_per_request = here.store_sectors;
  p.load_lines_per_request = here.load_lines;
  const double useful = static_cast<double>(kWarpLanes) * element_bytes;
  p.sector_efficiency = 100.0 * useful / (here.load_sectors * kSectorBytes);
  p.predicted_relative_bandwidth =
      (base.load_sectors + base.store_sectors) / (here.load_sectors + here.store_sectors);
  p.fetch_bytes = fetch_bytes;
  p.dram_load_bytes_per_warp = here.dram_load_bytes;
  p.dram_store_bytes_per_warp = here.dram_store_bytes;
  p.dram_load_bytes_per_warp_refetch = here.dram_load_bytes_refetch;
  p.dram_bytes_per_warp = here.dram_load_bytes + here.dram_store_bytes;
  p.predicted_relative_bandwidth_dram =
      (base.dram_load_bytes + base.dram_store_bytes) / p.dram_bytes_per_warp;
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
  validate_point(pattern, element_bytes, offset_or_stride);
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
