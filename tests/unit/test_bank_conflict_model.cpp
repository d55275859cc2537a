// Unit tests for the shared-memory bank model: hand-computed strides, widths and tiles.
#include "gpuprobe/models/bank_conflict_model.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <numeric>
#include <stdexcept>
#include <vector>

namespace gpuprobe::models {
namespace {

// 4-byte words, stride 1: lane l -> word l -> bank l. 32 banks, one word each: 1 wavefront.
TEST(BankConflictModel, Stride1WordsAreConflictFree) {
  const AccessPrediction p = predict_stride_access(1, 4);
  EXPECT_EQ(p.wavefronts, 1);
  EXPECT_EQ(p.ideal_wavefronts, 1);
  EXPECT_EQ(p.conflict_ways, 1);
}

// Stride 2: lane l -> word 2l -> bank 2l mod 32. Lanes l and l+16 share bank 2l (words 2l and
// 2l+32): 16 even banks with 2 distinct words each -> 2 wavefronts, 2-way.
TEST(BankConflictModel, Stride2WordsIsTwoWay) {
  const AccessPrediction p = predict_stride_access(2, 4);
  EXPECT_EQ(p.wavefronts, 2);
  EXPECT_EQ(p.conflict_ways, 2);
}

// Stride 32: lane l -> word 32l -> bank 0 for every lane, 32 distinct words -> 32-way.
TEST(BankConflictModel, Stride32WordsIsThirtyTwoWay) {
  EXPECT_EQ(predict_stride_access(32, 4).conflict_ways, 32);
}

// Stride 64: lane l -> word 64l (at most 1984 < 8192 words, no wrap) -> bank 0, 32 words.
TEST(BankConflictModel, Stride64WordsIsThirtyTwoWay) {
  EXPECT_EQ(predict_stride_access(64, 4).conflict_ways, 32);
}

// Odd stride s: s*l = s*l' (mod 32) only if l = l' (s is invertible mod 32): 32 banks.
TEST(BankConflictModel, OddStridesAreConflictFree) {
  for (std::uint64_t s : {1u, 3u, 5u, 7u, 17u, 31u, 33u})
    EXPECT_EQ(predict_stride_access(s, 4).conflict_ways, 1) << "stride " << s;
}

// Stride 0 (broadcast): every lane reads word 0; bank 0 serves one distinct word once.
TEST(BankConflictModel, BroadcastIsOneWavefront) {
  for (int w : {4, 8, 16}) {
    const AccessPrediction p = predict_stride_access(0, w);
    EXPECT_EQ(p.conflict_ways, 1) << w;
    EXPECT_EQ(p.wavefronts, w / 4) << w;  // one per phase: 1, 2, 4
  }
}

// 8-byte elements, stride 1: phase = 16 lanes; lane l covers words 2l, 2l+1 -> words 0..31 of
// the phase's 128 B, one per bank. 2 phases -> 2 wavefronts = ideal -> 1-way.
TEST(BankConflictModel, EightByteStride1IsIdeal) {
  const AccessPrediction p = predict_stride_access(1, 8);
  EXPECT_EQ(p.wavefronts, 2);
  EXPECT_EQ(p.ideal_wavefronts, 2);
  EXPECT_EQ(p.conflict_ways, 1);
}

// 8-byte elements, stride 2: lane l covers words 4l, 4l+1. In phase 0 (lanes 0..15) lanes l
// and l+8 share banks 4l, 4l+1 (words 4l vs 4l+32): 2 per phase, 4 in all, ideal 2 -> 2-way.
TEST(BankConflictModel, EightByteStride2IsTwoWay) {
  const AccessPrediction p = predict_stride_access(2, 8);
  EXPECT_EQ(p.wavefronts, 4);
  EXPECT_EQ(p.conflict_ways, 2);
}

// 16-byte elements, stride 1: phase = 8 lanes x 4 words = words 0..31: 1 each; 4 phases.
TEST(BankConflictModel, SixteenByteStride1IsIdeal) {
  const AccessPrediction p = predict_stride_access(1, 16);
  EXPECT_EQ(p.wavefronts, 4);
  EXPECT_EQ(p.ideal_wavefronts, 4);
  EXPECT_EQ(p.conflict_ways, 1);
}

// 16-byte elements, stride 32: lane l at byte 512l -> words 128l..128l+3 -> banks 0..3 for all
// lanes; a phase of 8 lanes puts 8 distinct words in bank 0 -> 8 per phase, 32 in all -> 8-way.
TEST(BankConflictModel, SixteenByteStride32IsEightWay) {
  const AccessPrediction p = predict_stride_access(32, 16);
  EXPECT_EQ(p.wavefronts, 32);
  EXPECT_EQ(p.conflict_ways, 8);
}

// 8-byte elements, stride 16: 128 B apart -> banks 0 and 1 for all 16 lanes of a phase: 16-way.
TEST(BankConflictModel, EightByteStride16IsSixteenWay) {
  EXPECT_EQ(predict_stride_access(16, 8).conflict_ways, 16);
}

// The closed form for full warps without wrap: gcd(s, lanes per phase).
TEST(BankConflictModel, MatchesGcdClosedForm) {
  for (int w : {4, 8, 16}) {
    const std::uint64_t lanes_per_phase = static_cast<std::uint64_t>(128 / w);
    for (std::uint64_t s = 1; s <= 64; ++s)
      EXPECT_EQ(predict_stride_access(s, w).conflict_ways,
                static_cast<double>(std::gcd(s, lanes_per_phase)))
          << "width " << w << " stride " << s;
  }
}

// Two lanes on different bytes-of-words of the same word, or on the same word: served once.
TEST(BankConflictModel, SameWordIsMulticast) {
  // Lanes 0..15 on word 0, lanes 16..31 on word 32 (bank 0 again): 2 distinct words -> 2-way.
  std::vector<std::uint64_t> a(32, 0);
  for (int l = 16; l < 32; ++l)
    a[static_cast<std::size_t>(l)] = 128;
  EXPECT_EQ(predict_warp_access(a, 4).conflict_ways, 2);
  // Pairs of lanes on the same word, 16 distinct words in 16 banks: conflict-free.
  for (int l = 0; l < 32; ++l)
    a[static_cast<std::size_t>(l)] = static_cast<std::uint64_t>(l / 2) * 4;
  EXPECT_EQ(predict_warp_access(a, 4).conflict_ways, 1);
}

// A uniform shift by whole elements (what the kernel's unrolled steps add) keeps the count.
TEST(BankConflictModel, UniformElementShiftKeepsPrediction) {
  for (int w : {4, 8, 16}) {
    for (std::uint64_t s : {1u, 2u, 3u, 8u, 32u}) {
      std::array<std::uint64_t, 32> a{};
      for (std::uint32_t l = 0; l < 32; ++l)
        a[l] = (stride_element_index(l, s, stride_capacity(w)) + 7) * static_cast<std::uint64_t>(w);
      EXPECT_EQ(predict_warp_access(a, w).wavefronts, predict_stride_access(s, w).wavefronts)
          << "width " << w << " stride " << s;
    }
  }
}

// float tile[32][32], column read: lane tx reads word 32*tx + c -> bank c for all 32 lanes,
// 32 distinct words -> 32-way. Row write: word 32*r + tx -> bank tx -> 1-way.
TEST(BankConflictModel, PlainTileColumnReadIsThirtyTwoWay) {
  EXPECT_EQ(predict_tile_access(TileLayout::kPlain, TileAccess::kColumnRead).conflict_ways, 32);
  EXPECT_EQ(predict_tile_access(TileLayout::kPlain, TileAccess::kColumnRead).wavefronts, 32);
  EXPECT_EQ(predict_tile_access(TileLayout::kPlain, TileAccess::kRowWrite).conflict_ways, 1);
}

// float tile[32][33], column read: word 33*tx + c -> bank (tx + c) mod 32, all distinct -> 1.
TEST(BankConflictModel, PaddedTileIsConflictFree) {
  EXPECT_EQ(predict_tile_access(TileLayout::kPadded, TileAccess::kColumnRead).conflict_ways, 1);
  EXPECT_EQ(predict_tile_access(TileLayout::kPadded, TileAccess::kRowWrite).conflict_ways, 1);
}

// Swizzled tile, column read: word 32*tx + (c ^ tx) -> bank c ^ tx, distinct for distinct tx
// (XOR with a fixed c is a bijection on 0..31) -> 1. Row write: bank tx ^ r, also distinct.
TEST(BankConflictModel, SwizzledTileIsConflictFree) {
  EXPECT_EQ(predict_tile_access(TileLayout::kSwizzled, TileAccess::kColumnRead).conflict_ways, 1);
  EXPECT_EQ(predict_tile_access(TileLayout::kSwizzled, TileAccess::kRowWrite).conflict_ways, 1);
}

// The swizzle is a permutation of each row: every element has its own word, none outside.
TEST(BankConflictModel, SwizzleIsAPermutationOfTheTile) {
  std::vector<int> seen(static_cast<std::size_t>(tile_words(TileLayout::kSwizzled)), 0);
  for (int r = 0; r < 32; ++r)
    for (int c = 0; c < 32; ++c)
      ++seen.at(static_cast<std::size_t>(tile_word(TileLayout::kSwizzled, r, c)));
  for (int n : seen)
    EXPECT_EQ(n, 1);
  EXPECT_EQ(tile_words(TileLayout::kPadded), 32 * 33);
}

TEST(BankConflictModel, RejectsBadInput) {
  const std::array<std::uint64_t, 1> misaligned{4};
  EXPECT_THROW(predict_warp_access(misaligned, 8), std::invalid_argument);
  EXPECT_THROW(predict_stride_access(1, 2), std::invalid_argument);
  const std::vector<std::uint64_t> too_many(33, 0);
  EXPECT_THROW(predict_warp_access(too_many, 4), std::invalid_argument);
}

// A partial warp: only the active lanes count; 8 lanes of 4 bytes need 1 wavefront.
TEST(BankConflictModel, PartialWarp) {
  const std::array<std::uint64_t, 8> a{0, 4, 8, 12, 16, 20, 24, 28};
  const AccessPrediction p = predict_warp_access(a, 4);
  EXPECT_EQ(p.wavefronts, 1);
  EXPECT_EQ(p.ideal_wavefronts, 1);
}

}  // namespace
}  // namespace gpuprobe::models
