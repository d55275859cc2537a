// partitions' analysis (host-only, tested in CI): the sweep's points and row params (sweep.cpp);
// the GT200 model beside every row, each aligned stride against its padded companion, the block
// orders, the transpose orders, the per-slice counters (analysis.cpp); the findings
// (findings.cpp) and the words (words.cpp).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "gpuprobe/core/axes.hpp"
#include "gpuprobe/core/glossary.hpp"
#include "gpuprobe/core/result.hpp"

namespace gpuprobe::partitions {

// Row params and their tokens.
inline constexpr const char* kMode = "mode";  // kStride or kTranspose
inline constexpr const char* kStrideMode = "stride";
inline constexpr const char* kTransposeMode = "transpose";
inline constexpr const char* kOrder = "order";  // kRow, kScatter (stride), kDiagonal (transpose)
inline constexpr const char* kRow = "row";
inline constexpr const char* kScatter = "scatter";
inline constexpr const char* kDiagonal = "diagonal";
inline constexpr const char* kPad = "pad";        // B added to the swept stride (0: aligned)
inline constexpr const char* kStride = "stride";  // B between the regions streams read at once
inline constexpr const char* kSide = "n";         // transpose: the matrix side, floats

// Derived values the probe puts into each row (from the launch it made).
inline constexpr const char* kStreams = "streams";           // stride: regions read at once
inline constexpr const char* kRegionBytes = "region_bytes";  // stride: bytes per stream
inline constexpr const char* kSteps = "steps";               // stride: chunks per stream
inline constexpr const char* kWaveBlocks = "wave_blocks";    // transpose: blocks resident at once
inline constexpr const char* kBandwidth = "bandwidth";       // metric: bytes moved / time

// The counters over one launch: L2 sectors from the SMs and DRAM bytes, summed over the instances
// (slices, channels) and their most and mean (CUPTI's .max / .avg rollups: the per-slice spread
// without per-instance values); the fabric: L2 sectors that crossed to the other L2 partition.
inline constexpr std::string_view kL2Sum = "lts__t_sectors_srcunit_tex.sum";
inline constexpr std::string_view kL2Max = "lts__t_sectors_srcunit_tex.max";
inline constexpr std::string_view kL2Avg = "lts__t_sectors_srcunit_tex.avg";
inline constexpr std::string_view kDramSum = "dram__bytes.sum";
inline constexpr std::string_view kDramMax = "dram__bytes.max";
inline constexpr std::string_view kDramAvg = "dram__bytes.avg";
inline constexpr std::string_view kFabric = "lts__t_sectors_srcunit_ltcfabric.sum";
inline constexpr std::array<std::string_view, 7> kCounterMetrics = {
    kL2Sum, kL2Max, kL2Avg, kDramSum, kDramMax, kDramAvg, kFabric};

// One point: a stride (order row or scatter; stride = swept + pad) or a transpose (order row or
// diagonal; side n).
struct Point {
  std::string mode, order;
  std::uint64_t stride = 0, pad = 0, n = 0;
};
// The points in measuring order: strides per order and pad, then transposes per side and order.
std::vector<Point> points(const AxisValues& v);
std::vector<Param> row_params(const Point& p);

// Rows (the params above; metric bandwidth; derived streams, region_bytes, steps or
// wave_blocks) -> GT200 model columns, each aligned stride against its padded companion, the
// counters' per-slice spread, the findings.
void analyse(ProbeResult& result);
void add_words(Glossary& glossary);

}  // namespace gpuprobe::partitions
