// runtime::HostPair without a GPU (pageable memory needs none): `in` holds the pattern of its
// seed, `out` is a second buffer of the same size and kind, and a pair moves whole.
#include <gtest/gtest.h>

#include <utility>

#include "gpuprobe/runtime/buffers.hpp"
#include "gpuprobe/runtime/pattern.hpp"

namespace gpuprobe {
namespace {

TEST(HostPair, InHoldsThePatternOfItsSeedOutIsASecondBufferOfTheSameKind) {
  constexpr std::size_t kBytes = 1 << 16;
  runtime::HostPair pair(runtime::HostMemory::kPageable, kBytes, 0xABCDu);
  EXPECT_EQ(runtime::verify_pattern_host(pair.in.get(), kBytes, 0xABCDu).count, 0u);
  EXPECT_GT(runtime::verify_pattern_host(pair.in.get(), kBytes, 0xABCEu).count, 0u);
  EXPECT_EQ(pair.out.bytes(), kBytes);
  EXPECT_EQ(pair.out.kind(), runtime::HostMemory::kPageable);
  EXPECT_NE(pair.out.get(), pair.in.get());
  const void* in = pair.in.get();
  const runtime::HostPair moved = std::move(pair);
  EXPECT_EQ(moved.in.get(), in);
}

}  // namespace
}  // namespace gpuprobe
