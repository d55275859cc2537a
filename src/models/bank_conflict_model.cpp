// Shared-memory bank model: counts distinct words per bank in each phase of a warp access.
#include "gpuprobe/models/bank_conflict_model.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>
#include <string>
#include <vector>

namespace gpuprobe::models {
namespace {

struct PhaseCount {
  int wavefronts = 0;  // the largest number of distinct words any one bank must serve
  int ideal = 0;       // ceil(distinct words / 32): the fewest wavefronts for those words
};

PhaseCount count_phase(std::span<const std::uint64_t> addresses, int width_bytes) {
  std::array<std::vector<std::uint64_t>, kBanks> words_in_bank;
  const int words_per_lane = width_bytes / kBankBytes;
  for (const std::uint64_t address : addresses) {
    const std::uint64_t first = address / kBankBytes;
    for (int k = 0; k < words_per_lane; ++k) {
      const std::uint64_t word = first + static_cast<std::uint64_t>(k);
      auto& bank = words_in_bank[word % kBanks];
      if (std::find(bank.begin(), bank.end(), word) == bank.end()) bank.push_back(word);
    }
  }
  std::size_t most = 0, distinct = 0;
  for (const auto& bank : words_in_bank) {
    most = std::max(most, bank.size());
    distinct += bank.size();
  }
  return {static_cast<int>(most), static_cast<int>((distinct + kBanks - 1) / kBanks)};
}

void validate_access_width(int width_bytes) {
  if (width_bytes != 4 && width_bytes != 8 && width_bytes != 16)
    throw std::invalid_argument("shared access width must be 4, 8 or 16 bytes, not " +
                                std::to_string(width_bytes));
}

}  // namespace

AccessPrediction predict_warp_access(std::span<const std::uint64_t> byte_addresses, int width_bytes,
                                     AccessOp op) {
  validate_access_width(width_bytes);
  if (byte_addresses.size() > static_cast<std::size_t>(kWarpSize))
    throw std::invalid_argument("a warp has at most 32 lanes");
  for (const std::uint64_t a : byte_addresses) {
    if (a % static_cast<std::uint64_t>(width_bytes) != 0)
      throw std::invalid_argument("address " + std::to_string(a) + " is not aligned to " +
                                  std::to_string(width_bytes) + " bytes");
  }
  const auto phase_lanes = static_cast<std::size_t>(lanes_per_phase(width_bytes, op));
  AccessPrediction p;
  for (std::size_t begin = 0; begin < byte_addresses.size(); begin += phase_lanes) {
    const std::size_t count = std::min(phase_lanes, byte_addresses.size() - begin);
    const PhaseCount phase = count_phase(byte_addresses.subspan(begin, count), width_bytes);
    p.wavefronts += phase.wavefronts;
    p.ideal_wavefronts += phase.ideal;
  }
  p.conflict_ways = p.ideal_wavefronts > 0 ? p.wavefronts / p.ideal_wavefronts : 0;
  return p;
}

AccessPrediction predict_stride_access(std::uint64_t stride, int width_bytes, AccessOp op) {
  validate_access_width(width_bytes);
  const std::uint32_t capacity = stride_capacity(width_bytes);
  std::array<std::uint64_t, kWarpSize> addresses{};
  for (std::uint32_t lane = 0; lane < static_cast<std::uint32_t>(kWarpSize); ++lane)
    addresses[lane] = std::uint64_t{stride_element_index(lane, stride, capacity)} *
                      static_cast<std::uint64_t>(width_bytes);
  return predict_warp_access(addresses, width_bytes, op);
}

AccessPrediction predict_tile_access(TileLayout layout, TileAccess access) {
  const AccessOp op = access == TileAccess::kRowWrite ? AccessOp::kStore : AccessOp::kLoad;
  AccessPrediction total;
  int instructions = 0;
  for (int ty = 0; ty < kBlockRows; ++ty) {  // one warp per ty: lanes are tx = 0..31
    for (int j = 0; j < kTileDim; j += kBlockRows) {
      std::array<std::uint64_t, kWarpSize> addresses{};
      for (int tx = 0; tx < kWarpSize; ++tx) {
        const int word = access == TileAccess::kRowWrite ? tile_word(layout, ty + j, tx)
                                                         : tile_word(layout, tx, ty + j);
        addresses[static_cast<std::size_t>(tx)] = static_cast<std::uint64_t>(word) * kBankBytes;
      }
      const AccessPrediction one = predict_warp_access(addresses, kBankBytes, op);
      total.wavefronts += one.wavefronts;
      total.ideal_wavefronts += one.ideal_wavefronts;
      ++instructions;
    }
  }
  total.conflict_ways = total.wavefronts / total.ideal_wavefronts;
  total.wavefronts /= instructions;
  total.ideal_wavefronts /= instructions;
  return total;
}

}  // namespace gpuprobe::models
