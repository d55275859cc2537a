// The partitions probe's sizing and the GT200 partition model (partitions_model.hpp).
#include "gpuprobe/models/partitions_model.hpp"

#include <algorithm>
#include <bitset>
#include <numeric>

namespace gpuprobe::models {

std::uint64_t stream_extent(std::uint64_t stride, std::uint64_t streams, std::uint64_t steps) {
  if (streams == 0 || steps == 0) return 0;
  return stream_offset(streams - 1, steps - 1, stride, streams) + kChunkBytes;
}

StreamLayout stream_layout(std::uint64_t stride, std::uint64_t full_blocks,
                           std::uint64_t full_region, std::uint64_t cap_bytes) {
  const std::uint64_t total = full_blocks * kStreamsPerBlock * full_region;
  StreamLayout l;
  for (l.blocks = std::max<std::uint64_t>(full_blocks, 1);; l.blocks /= 2) {
    l.streams = l.blocks * kStreamsPerBlock;
    l.region_bytes = std::max(total / l.streams / kChunkBytes, std::uint64_t{1}) * kChunkBytes;
    l.steps = l.region_bytes / kChunkBytes;
    l.extent = stream_extent(stride, l.streams, l.steps);
    if (l.extent <= cap_bytes || l.blocks == 1) return l;
  }
}

std::uint64_t scatter_multiplier(std::uint64_t blocks) {
  if (blocks < 3) return 1;
  std::uint64_t m = (blocks * 0x9E3779B9ull >> 32) | 1u;  // odd, near blocks / phi
  while (std::gcd(m, blocks) != 1)
    m += 2;
  return m % blocks;
}

Gt200Prediction gt200_streams(std::uint64_t stride, std::uint64_t streams, std::uint64_t steps) {
  Gt200Prediction p;
  const std::uint64_t looked = std::min(steps, kGt200Steps);
  if (looked == 0 || streams == 0) return p;
  double hit = 0;
  for (std::uint64_t i = 0; i < looked; ++i) {
    std::bitset<kGt200Partitions> seen;
    for (std::uint64_t k = 0; k < streams && !seen.all(); ++k)
      seen.set(static_cast<std::size_t>(gt200_partition(stream_offset(k, i, stride, streams))));
    hit += static_cast<double>(seen.count());
  }
  p.partitions_hit = hit / static_cast<double>(looked);
  p.slowdown = kGt200Partitions / p.partitions_hit;
  return p;
}

Gt200Transpose gt200_transpose(std::uint64_t n, bool diagonal, std::uint64_t wave_blocks) {
  Gt200Transpose t;
  const auto grid = static_cast<std::uint32_t>(n / kTile);
  const std::uint64_t blocks = std::min<std::uint64_t>(wave_blocks, std::uint64_t{grid} * grid);
  if (blocks == 0) return t;
  std::bitset<kGt200Partitions> read, write;
  for (std::uint64_t b = 0; b < blocks; ++b) {
    const TileXY tile = transpose_tile(static_cast<std::uint32_t>(b % grid),
                                       static_cast<std::uint32_t>(b / grid), grid, diagonal);
    for (std::uint64_t r = 0; r < static_cast<std::uint64_t>(kTile); ++r) {
      // A tile row is kTile floats (128 B) at a multiple of 128 B: inside one partition.
      read.set(static_cast<std::size_t>(
          gt200_partition(((std::uint64_t{tile.y} * kTile + r) * n + tile.x * kTile) * 4)));
      write.set(static_cast<std::size_t>(
          gt200_partition(((std::uint64_t{tile.x} * kTile + r) * n + tile.y * kTile) * 4)));
    }
  }
  t.read_hit = static_cast<double>(read.count());
  t.write_hit = static_cast<double>(write.count());
  t.slowdown = (kGt200Partitions / t.read_hit + kGt200Partitions / t.write_hit) / 2;
  return t;
}

}  // namespace gpuprobe::models
