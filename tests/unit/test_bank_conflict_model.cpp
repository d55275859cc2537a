// Unit tests for the shared-memory bank model: hand-computed strides, widths, ops and tiles.
#include "gpuprobe/models/bank_conflict_model.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <numeric>
#include <stdexcept>
#include <vector>

namespace gpuprobe::models {
namespace {

constexpr AccessOp kLoad = AccessOp::kLoad;
constexpr AccessOp kStore = AccessOp::kStore;
constexpr AccessOp kBothOps[] = {AccessOp::kLoad, AccessOp::kStore};

// Loads: 32 lanes per phase at 4 and 8 B, 16 at 16 B (as measured on sm_90).
// Stores: 128 B of lanes per phase: 32, 16, 8.
TEST(BankConflictModel, LanesPerPhase) {
  EXPECT_EQ(lanes_per_phase(4, kLoad), 32);
  EXPECT_EQ(lanes_per_phase(8, kLoad), 32);
  EXPECT_EQ(lanes_per_phase(16, kLoad), 16);
  EXPECT_EQ(lanes_per_phase(4, kStore), 32);
  EXPECT_EQ(lanes_per_phase(8, kStore), 16);
  EXPECT_EQ(lanes_per_phase(16, kStore), 8);
}

// 4-byte words, stride 1: lane l -> word l -> bank l. 32 banks, one word each: 1 wavefront.
TEST(BankConflictModel, Stride1WordsAreConflictFree) {
  for (const AccessOp op : kBothOps) {
    const AccessPrediction p = predict_stride_access(1, 4, op);
    EXPECT_EQ(p.wavefronts, 1);
    EXPECT_EQ(p.ideal_wavefronts, 1);
    EXPECT_EQ(p.conflict_ways, 1);
  }
}

// Stride 2: lane l -> word 2l -> bank 2l mod 32. Lanes l and l+16 share bank 2l (words 2l and
// 2l+32): 16 even banks with 2 distinct words each -> 2 wavefronts, 2-way.
TEST(BankConflictModel, Stride2WordsIsTwoWay) {
  for (const AccessOp op : kBothOps) {
    const AccessPrediction p = predict_stride_access(2, 4, op);
    EXPECT_EQ(p.wavefronts, 2);
    EXPECT_EQ(p.conflict_ways, 2);
  }
}

// Stride 32: lane l -> word 32l -> bank 0 for every lane, 32 distinct words -> 32-way.
TEST(BankConflictModel, Stride32WordsIsThirtyTwoWay) {
  EXPECT_EQ(predict_stride_access(32, 4, kLoad).conflict_ways, 32);
  EXPECT_EQ(predict_stride_access(32, 4, kStore).conflict_ways, 32);
}

// Stride 64: lane l -> word 64l (at most 1984 < 8192 words, no wrap) -> bank 0, 32 words.
TEST(BankConflictModel, Stride64WordsIsThirtyTwoWay) {
  EXPECT_EQ(predict_stride_access(64, 4, kLoad).conflict_ways, 32);
  EXPECT_EQ(predict_stride_access(64, 4, kStore).conflict_ways, 32);
}

// Odd stride s: s*l = s*l' (mod 32) only if l = l' (s is invertible mod 32): 32 banks.
TEST(BankConflictModel, OddStridesAreConflictFree) {
  for (const AccessOp op : kBothOps)
    for (std::uint64_t s : {1u, 3u, 5u, 7u, 17u, 31u, 33u})
      EXPECT_EQ(predict_stride_access(s, 4, op).conflict_ways, 1) << "stride " << s;
}

// Broadcast loads (stride 0, every lane on element 0): the element's w/4 words sit in w/4
// different banks, served once per phase. 4 B: one 32-lane phase, word 0 -> 1 wavefront.
// 8 B: one 32-lane phase, words 0 and 1 in banks 0 and 1 -> 1 wavefront (the old 16-lane
// phases gave 2; the H100 measured 1.05 cycles). 16 B: two 16-lane phases, words 0..3 in
// banks 0..3 -> 1 each, 2 in all (old 8-lane phases: 4; measured 2.09 cycles).
TEST(BankConflictModel, BroadcastLoads) {
  const double expected[] = {1, 1, 2};  // at 4, 8, 16 B
  int i = 0;
  for (int w : {4, 8, 16}) {
    const AccessPrediction p = predict_stride_access(0, w, kLoad);
    EXPECT_EQ(p.wavefronts, expected[i]) << w;
    EXPECT_EQ(p.ideal_wavefronts, expected[i]) << w;  // ceil(w/4 distinct words / 32) per phase
    EXPECT_EQ(p.conflict_ways, 1) << w;
    ++i;
  }
  // Half the stride-1 cost at 8 and 16 B (stride 1: 2 and 4 wavefronts).
  EXPECT_EQ(
      predict_stride_access(0, 8, kLoad).wavefronts / predict_stride_access(1, 8, kLoad).wavefronts,
      0.5);
  EXPECT_EQ(predict_stride_access(0, 16, kLoad).wavefronts /
                predict_stride_access(1, 16, kLoad).wavefronts,
            0.5);
}

// Broadcast stores: phases of 128 B of lanes, each writes the element's words once:
// 1 wavefront per phase -> 1, 2, 4 at 4, 8, 16 B (as measured: 1.03, 2.03, 4.07 cycles).
TEST(BankConflictModel, BroadcastStores) {
  for (int w : {4, 8, 16}) {
    const AccessPrediction p = predict_stride_access(0, w, kStore);
    EXPECT_EQ(p.wavefronts, w / 4) << w;
    EXPECT_EQ(p.ideal_wavefronts, w / 4) << w;
    EXPECT_EQ(p.conflict_ways, 1) << w;
  }
}

// 8-byte load, stride 1: one 32-lane phase, lane l covers words 2l, 2l+1 -> words 0..63, two
// in every bank -> 2 wavefronts; 64 distinct words -> ideal 2 -> 1-way.
TEST(BankConflictModel, EightByteLoadStride1IsIdeal) {
  const AccessPrediction p = predict_stride_access(1, 8, kLoad);
  EXPECT_EQ(p.wavefronts, 2);
  EXPECT_EQ(p.ideal_wavefronts, 2);
  EXPECT_EQ(p.conflict_ways, 1);
}

// 8-byte store, stride 1: two 16-lane phases, each words 0..31 of its 128 B, one per bank ->
// 1 + 1 = 2 wavefronts = ideal -> 1-way.
TEST(BankConflictModel, EightByteStoreStride1IsIdeal) {
  const AccessPrediction p = predict_stride_access(1, 8, kStore);
  EXPECT_EQ(p.wavefronts, 2);
  EXPECT_EQ(p.ideal_wavefronts, 2);
  EXPECT_EQ(p.conflict_ways, 1);
}

// 8-byte elements, stride 2: lane l covers words 4l, 4l+1 (banks 4l, 4l+1 mod 32).
// Load (one phase): lanes l, l+8, l+16, l+24 share banks 4l, 4l+1 with 4 distinct words ->
// 4 wavefronts; 64 distinct words -> ideal 2 -> 2-way.
// Store (16-lane phases): lanes l and l+8 share them -> 2 per phase, 4 in all, ideal 2.
TEST(BankConflictModel, EightByteStride2IsTwoWay) {
  for (const AccessOp op : kBothOps) {
    const AccessPrediction p = predict_stride_access(2, 8, op);
    EXPECT_EQ(p.wavefronts, 4);
    EXPECT_EQ(p.ideal_wavefronts, 2);
    EXPECT_EQ(p.conflict_ways, 2);
  }
}

// 8-byte elements, stride 16: lanes 128 B apart -> words 32l, 32l+1 in banks 0 and 1.
// Load: all 32 lanes in one phase -> 32 distinct words in bank 0 -> 32 wavefronts, 16-way.
// Store: 16 per 16-lane phase, 2 phases -> 32 as well.
TEST(BankConflictModel, EightByteStride16IsSixteenWay) {
  for (const AccessOp op : kBothOps) {
    const AccessPrediction p = predict_stride_access(16, 8, op);
    EXPECT_EQ(p.wavefronts, 32);
    EXPECT_EQ(p.conflict_ways, 16);
  }
}

// 16-byte elements, stride 1. Load: 16-lane phases of 16 x 4 = 64 words, 2 per bank -> 2 per
// phase, 4 in all, ideal 2 + 2. Store: 8-lane phases of 32 words, 1 per bank -> 4 x 1.
TEST(BankConflictModel, SixteenByteStride1IsIdeal) {
  for (const AccessOp op : kBothOps) {
    const AccessPrediction p = predict_stride_access(1, 16, op);
    EXPECT_EQ(p.wavefronts, 4);
    EXPECT_EQ(p.ideal_wavefronts, 4);
    EXPECT_EQ(p.conflict_ways, 1);
  }
}

// 16-byte elements, stride 8: lane l at byte 128l -> words 32l..32l+3 -> banks 0..3 for all.
// Load: a 16-lane phase puts 16 distinct words in bank 0 -> 16 x 2 phases = 32; 8-way.
// Store: an 8-lane phase puts 8 words in bank 0 -> 8 x 4 phases = 32; 8-way.
TEST(BankConflictModel, SixteenByteStride8IsEightWay) {
  for (const AccessOp op : kBothOps) {
    const AccessPrediction p = predict_stride_access(8, 16, op);
    EXPECT_EQ(p.wavefronts, 32);
    EXPECT_EQ(p.ideal_wavefronts, 4);
    EXPECT_EQ(p.conflict_ways, 8);
  }
}

// 16-byte elements, stride 32: lane l at byte 512l -> words 128l..128l+3 -> banks 0..3, as
// stride 8: 32 wavefronts, 8-way, for both ops.
TEST(BankConflictModel, SixteenByteStride32IsEightWay) {
  for (const AccessOp op : kBothOps) {
    const AccessPrediction p = predict_stride_access(32, 16, op);
    EXPECT_EQ(p.wavefronts, 32);
    EXPECT_EQ(p.conflict_ways, 8);
  }
}

// The closed form for full warps without wrap: gcd(s, 128 / w), for both ops.
TEST(BankConflictModel, MatchesGcdClosedForm) {
  for (const AccessOp op : kBothOps) {
    for (int w : {4, 8, 16}) {
      const std::uint64_t lanes = static_cast<std::uint64_t>(128 / w);
      for (std::uint64_t s = 1; s <= 64; ++s)
        EXPECT_EQ(predict_stride_access(s, w, op).conflict_ways,
                  static_cast<double>(std::gcd(s, lanes)))
            << "width " << w << " stride " << s;
    }
  }
}

// The load and store rules agree on every stride except broadcast at 8 and 16 B: the wavefront
// counts are equal for s = 1..64 at every width.
TEST(BankConflictModel, LoadsAndStoresDifferOnlyOnWideBroadcast) {
  for (int w : {4, 8, 16}) {
    for (std::uint64_t s = 1; s <= 64; ++s)
      EXPECT_EQ(predict_stride_access(s, w, kLoad).wavefronts,
                predict_stride_access(s, w, kStore).wavefronts)
          << "width " << w << " stride " << s;
  }
  EXPECT_EQ(predict_stride_access(0, 4, kLoad).wavefronts,
            predict_stride_access(0, 4, kStore).wavefronts);
}

// Two lanes on the same word: served once.
TEST(BankConflictModel, SameWordIsMulticast) {
  for (const AccessOp op : kBothOps) {
    // Lanes 0..15 on word 0, lanes 16..31 on word 32 (bank 0 again): 2 distinct words, 2-way.
    std::vector<std::uint64_t> a(32, 0);
    for (int l = 16; l < 32; ++l)
      a[static_cast<std::size_t>(l)] = 128;
    EXPECT_EQ(predict_warp_access(a, 4, op).conflict_ways, 2);
    // Pairs of lanes on the same word, 16 distinct words in 16 banks: conflict-free.
    for (int l = 0; l < 32; ++l)
      a[static_cast<std::size_t>(l)] = static_cast<std::uint64_t>(l / 2) * 4;
    EXPECT_EQ(predict_warp_access(a, 4, op).conflict_ways, 1);
  }
}

// Where the load rule goes beyond what the stride sweep measured (header: "Assumptions").
// 8 B, lane l and lane l + 16 on the same element l (l < 16): 32 distinct words, one per bank.
// Load: one phase -> 1 wavefront. Store: two 16-lane phases of 1 each -> 2.
TEST(BankConflictModel, EightByteHalfWarpsOnTheSameWords) {
  std::array<std::uint64_t, 32> a{};
  for (std::uint64_t l = 0; l < 32; ++l)
    a[l] = (l % 16) * 8;
  EXPECT_EQ(predict_warp_access(a, 8, kLoad).wavefronts, 1);
  EXPECT_EQ(predict_warp_access(a, 8, kLoad).conflict_ways, 1);
  EXPECT_EQ(predict_warp_access(a, 8, kStore).wavefronts, 2);
}

// 8 B, lanes 0..15 at words 32k (banks 0, 1), lanes 16..31 at words 32k + 2 (banks 2, 3),
// k = lane mod 16: each half-warp 16-way in its own two banks. Load: one phase, bank 0 and
// bank 2 with 16 words each -> 16 wavefronts. Store: 16 + 16 = 32. Both ideal 2 (64 words).
TEST(BankConflictModel, EightByteHalfWarpsConflictingInDifferentBanks) {
  std::array<std::uint64_t, 32> a{};
  for (std::uint64_t l = 0; l < 32; ++l)
    a[l] = (l % 16) * 128 + (l < 16 ? 0 : 8);
  const AccessPrediction load = predict_warp_access(a, 8, kLoad);
  const AccessPrediction store = predict_warp_access(a, 8, kStore);
  EXPECT_EQ(load.wavefronts, 16);
  EXPECT_EQ(load.ideal_wavefronts, 2);
  EXPECT_EQ(load.conflict_ways, 8);
  EXPECT_EQ(store.wavefronts, 32);
  EXPECT_EQ(store.ideal_wavefronts, 2);
  EXPECT_EQ(store.conflict_ways, 16);
}

// A uniform shift by whole elements (what the kernel's unrolled steps add) keeps the count.
TEST(BankConflictModel, UniformElementShiftKeepsPrediction) {
  for (const AccessOp op : kBothOps) {
    for (int w : {4, 8, 16}) {
      for (std::uint64_t s : {0u, 1u, 2u, 3u, 8u, 32u}) {
        std::array<std::uint64_t, 32> a{};
        for (std::uint32_t l = 0; l < 32; ++l)
          a[l] =
              (stride_element_index(l, s, stride_capacity(w)) + 7) * static_cast<std::uint64_t>(w);
        EXPECT_EQ(predict_warp_access(a, w, op).wavefronts,
                  predict_stride_access(s, w, op).wavefronts)
            << "width " << w << " stride " << s;
      }
    }
  }
}

// float tile[32][32], column read (a load): lane tx reads word 32*tx + c -> bank c for all 32
// lanes, 32 distinct words -> 32-way. Row write (a store): word 32*r + tx -> bank tx -> 1-way.
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
  EXPECT_THROW(predict_warp_access(misaligned, 8, kLoad), std::invalid_argument);
  EXPECT_THROW(predict_stride_access(1, 2, kStore), std::invalid_argument);
  const std::vector<std::uint64_t> too_many(33, 0);
  EXPECT_THROW(predict_warp_access(too_many, 4, kLoad), std::invalid_argument);
}

// A partial warp: only the active lanes count.
TEST(BankConflictModel, PartialWarp) {
  // 8 lanes of 4 bytes: 1 wavefront, either op.
  const std::array<std::uint64_t, 8> a{0, 4, 8, 12, 16, 20, 24, 28};
  for (const AccessOp op : kBothOps) {
    const AccessPrediction p = predict_warp_access(a, 4, op);
    EXPECT_EQ(p.wavefronts, 1);
    EXPECT_EQ(p.ideal_wavefronts, 1);
  }
  // 20 lanes of 8 bytes at consecutive elements: words 0..39. Load: one phase, banks 0..7 hold
  // 2 words -> 2, ideal ceil(40 / 32) = 2. Store: lanes 0..15 (words 0..31) 1, lanes 16..19 1.
  std::array<std::uint64_t, 20> b{};
  for (std::uint64_t l = 0; l < b.size(); ++l)
    b[l] = l * 8;
  EXPECT_EQ(predict_warp_access(b, 8, kLoad).wavefronts, 2);
  EXPECT_EQ(predict_warp_access(b, 8, kLoad).ideal_wavefronts, 2);
  EXPECT_EQ(predict_warp_access(b, 8, kStore).wavefronts, 2);
  EXPECT_EQ(predict_warp_access(b, 8, kStore).ideal_wavefronts, 2);
}

}  // namespace
}  // namespace gpuprobe::models
