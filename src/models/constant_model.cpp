// The constant probe's model: constant-cache transactions per warp lookup (one per distinct
// address), L1 sectors per request from coalescing's sector model, the time against a broadcast.
#include "gpuprobe/models/constant_model.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <span>
#include <stdexcept>

#include "gpuprobe/models/coalescing_model.hpp"

namespace gpuprobe::models {
namespace {

constexpr std::array<const char*, 4> kPathNames = {"constant", "readonly", "texture", "global"};

void validate(int element_bytes, int distinct, std::uint64_t elements) {
  if (element_bytes != 4 && element_bytes != 8 && element_bytes != 16)
    throw std::invalid_argument("constant model: element width must be 4, 8 or 16 bytes, not " +
                                std::to_string(element_bytes));
  if (distinct < 1 || distinct > kWarpLanes ||
      !std::has_single_bit(static_cast<std::uint64_t>(distinct)))
    throw std::invalid_argument(
        "constant model: distinct addresses must be a power of two from 1 to 32, not " +
        std::to_string(distinct));
  if (elements < static_cast<std::uint64_t>(kWarpLanes) || !std::has_single_bit(elements))
    throw std::invalid_argument(
        "constant model: a table must hold a power of two of at least 32 elements, not " +
        std::to_string(elements));
}

// Sectors per warp lookup when the warp's lanes are split into requests of `lanes` lanes: each
// request's distinct sectors (lanes' elements from base 0: every group starts a whole number of
// elements / distinct apart, so any base gives the same count on an aligned table), summed.
int sectors(int element_bytes, int distinct, std::uint64_t elements, int lanes) {
  int total = 0;
  for (int first = 0; first < kWarpLanes; first += lanes) {
    std::array<std::uint64_t, kWarpLanes> at{};
    for (int l = 0; l < lanes; ++l)
      at[static_cast<std::size_t>(l)] = lane_element(0, first + l, distinct, elements);
    total += warp_sectors_at(std::span(at.data(), static_cast<std::size_t>(lanes)), element_bytes);
  }
  return total;
}

// Lanes per request: the whole warp, or (texture) at most kTextureRequestBytes of texels.
int request_lanes(LookupPath path, int element_bytes) {
  if (path != LookupPath::kTexture) return kWarpLanes;
  return std::min(kTextureRequestLanes, kTextureRequestBytes / element_bytes);
}

}  // namespace

const char* lookup_path_name(LookupPath path) {
  return kPathNames[static_cast<std::size_t>(path)];
}

LookupPath lookup_path_from_name(const std::string& name) {
  for (std::size_t i = 0; i < kPathNames.size(); ++i)
    if (name == kPathNames[i]) return static_cast<LookupPath>(i);
  throw std::invalid_argument("constant model: no lookup path '" + name + "'");
}

LookupPrediction predict_lookup(LookupPath path, int element_bytes, int distinct,
                                std::uint64_t elements) {
  validate(element_bytes, distinct, elements);
  LookupPrediction p;
  const double ldc = element_bytes > kConstantLoadMax ? 2.0 : 1.0;
  p.constant_transactions = ldc * distinct;
  const int lanes = request_lanes(path, element_bytes);
  p.requests_per_lookup = path == LookupPath::kConstant ? ldc : kWarpLanes / lanes;
  p.sectors_per_lookup = sectors(element_bytes, distinct, elements, lanes);
  p.sectors_per_request = p.sectors_per_lookup / (kWarpLanes / lanes);
  p.relative_time = path == LookupPath::kConstant
                        ? static_cast<double>(distinct)
                        : p.sectors_per_lookup / sectors(element_bytes, 1, elements, lanes);
  return p;
}

}  // namespace gpuprobe::models
