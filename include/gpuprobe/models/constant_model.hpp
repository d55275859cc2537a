// The `constant` probe's model and index functions: which table element each lane of a warp looks
// up (shared with the kernels), the value each table word holds, and what one warp lookup costs
// per path: constant-cache transactions (one per distinct address) or L1 sectors (coalescing's
// sector model).
#pragma once

#include <cstdint>
#include <string>

#ifdef __CUDACC__
#define GP_CONSTANT_HD __host__ __device__
#else
#define GP_CONSTANT_HD
#endif

namespace gpuprobe::models {

// The four ways the probe serves one table lookup.
enum class LookupPath { kConstant, kReadOnly, kTexture, kGlobal };
const char* lookup_path_name(LookupPath path);  // "constant", "readonly", "texture", "global"
LookupPath lookup_path_from_name(const std::string& name);  // throws std::invalid_argument

inline constexpr std::uint64_t kConstantTableMax = 65536;  // __constant__ space of one module
inline constexpr std::uint64_t kChaseStride = 64;          // bytes between chased elements
inline constexpr int kConstantLoadMax = 8;                 // widest LDC: 64 bits

// The element lane `lane` (0..31) of a warp looks up when `distinct` (a power of two, 1..32)
// addresses are shared by the warp: the lanes form `distinct` groups of 32 / distinct
// consecutive lanes, group g reads element base + g x (elements / distinct), wrapped to the
// table (`elements` a power of two).
GP_CONSTANT_HD inline std::uint64_t lane_element(std::uint64_t base, int lane, int distinct,
                                                 std::uint64_t elements) {
  const std::uint64_t group = static_cast<std::uint64_t>(lane / (32 / distinct));
  const std::uint64_t spread = elements / static_cast<std::uint64_t>(distinct);
  return (base + group * (spread == 0 ? 1 : spread)) & (elements - 1);
}

// The value of 32-bit word `word` of the lookup table (never 0 for word < 2^31).
GP_CONSTANT_HD inline std::uint32_t table_word(std::uint64_t word) {
  return static_cast<std::uint32_t>(word * 2654435761ull) ^ 0x9E3779B9u;
}

// One warp lookup of an element `element_bytes` wide (4, 8 or 16) with `distinct` addresses in a
// table of `elements` elements:
// - constant: transactions, one per distinct address per LDC (16-byte elements take two 8-byte
//   LDCs);
// - readonly, global: one l1tex request per warp lookup and its L1 sectors (coalescing's sector
//   model over the lanes' elements);
// - texture: the fetch is split into requests of at most kTextureRequestBytes of texels (8 lanes of
//   4 or 8 bytes, 4 lanes of 16: what GH100's l1tex counters show, 4 or 8 requests per warp),
//   each request its own sectors (the same sector model over its lanes), so a broadcast costs a
//   sector per request;
// and the model's time against the same path's broadcast (distinct = 1): transactions, or sectors
// per warp lookup, in proportion.
inline constexpr int kTextureRequestBytes = 64;
inline constexpr int kTextureRequestLanes = 8;
struct LookupPrediction {
  double constant_transactions = 0;  // per warp lookup, constant path
  double requests_per_lookup = 0;    // LDCs (constant) or l1tex requests per warp lookup
  double sectors_per_request = 0;    // L1 sectors per request, the other paths
  double sectors_per_lookup = 0;     // L1 sectors per warp lookup, the other paths
  double relative_time = 0;          // x the same path's broadcast
};
// Throws std::invalid_argument for a width other than 4, 8, 16, a distinct count that is not a
// power of two from 1 to 32, or a table of fewer than 32 elements or not a power of two.
LookupPrediction predict_lookup(LookupPath path, int element_bytes, int distinct,
                                std::uint64_t elements);

}  // namespace gpuprobe::models
