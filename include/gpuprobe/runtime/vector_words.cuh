// The vector type of a 4-, 8- or 16-byte access (uint32_t, uint2, uint4) and the sum of its 32-bit
// words, for kernels that sweep the access width (.cu files only): bank-conflicts and occupancy.
#pragma once

#include <cstdint>

namespace gpuprobe::runtime {

template <int kWidth>
struct VectorOf;
template <>
struct VectorOf<4> {
  using type = std::uint32_t;
};
template <>
struct VectorOf<8> {
  using type = uint2;
};
template <>
struct VectorOf<16> {
  using type = uint4;
};

__device__ __forceinline__ std::uint32_t word_sum(std::uint32_t v) {
  return v;
}
__device__ __forceinline__ std::uint32_t word_sum(uint2 v) {
  return v.x + v.y;
}
__device__ __forceinline__ std::uint32_t word_sum(uint4 v) {
  return v.x + v.y + v.z + v.w;
}

}  // namespace gpuprobe::runtime
