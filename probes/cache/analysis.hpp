// cache's analysis (host-only, tested in CI): the bandwidth-against-working-set curves -> plateaus
// (found by segmenting each curve), knees between them, the model beside them, the level the
// counters say served each plateau (analysis.cpp); findings (findings.cpp); words (words.cpp).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gpuprobe/core/curve_levels.hpp"
#include "gpuprobe/core/glossary.hpp"
#include "gpuprobe/core/result.hpp"

namespace gpuprobe::cache {

// Row params and their tokens.
inline constexpr const char* kScope = "scope";  // kShared, kSm, kDevice
inline constexpr const char* kOp = "op";        // kRead, kWrite, kCopy
inline constexpr const char* kBytes = "working_set_bytes";
inline constexpr const char* kShared = "shared";
inline constexpr const char* kSm = "sm";
inline constexpr const char* kDevice = "device";
inline constexpr const char* kRead = "read";
inline constexpr const char* kWrite = "write";
inline constexpr const char* kCopy = "copy";

// The counters over one repetition (full CUPTI names).
inline constexpr std::string_view kL1Sectors = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum";
inline constexpr std::string_view kL1Hits =
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum";
inline constexpr std::string_view kL2Reads = "lts__t_sectors_srcunit_tex_op_read.sum";
inline constexpr std::string_view kL2ReadHits = "lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum";
inline constexpr std::string_view kDramRead = "dram__bytes_read.sum";
inline constexpr std::string_view kDramWrite = "dram__bytes_write.sum";
inline constexpr std::array<std::string_view, 6> kCounterMetrics = {
    kL1Sectors, kL1Hits, kL2Reads, kL2ReadHits, kDramRead, kDramWrite};

// The curve method's constants (docs/probes/cache.md): two neighbouring segments are different
// plateaus when their medians differ by more than kStep; a size belongs to its segment's plateau
// (its core) when within kFlat of the segment's median; a plateau needs kMinCore such sizes.
inline constexpr double kStep = 0.15;
inline constexpr double kFlat = 0.10;
inline constexpr std::size_t kMinCore = 3;
inline constexpr std::size_t kMaxSegments = 5;
inline constexpr PlateauRule kPlateauRule{kStep, kFlat, kMinCore, kMaxSegments};

// A curve's sizes (their bandwidth) and its plateaus: core/curve_levels.hpp.
using gpuprobe::CurvePoint;
using gpuprobe::Plateau;

// The curve method with cache's constants (core/curve_levels.hpp): the segments of a curve
// sorted by size, the plateaus among them, the knee between two neighbouring plateaus.
inline std::vector<std::pair<std::size_t, std::size_t>> segments(
    const std::vector<CurvePoint>& points) {
  return curve_segments(points, kPlateauRule);
}
inline std::vector<Plateau> plateaus(const std::vector<CurvePoint>& points) {
  return curve_plateaus(points, kPlateauRule);
}
inline std::optional<double> knee_between(const std::vector<CurvePoint>& points, const Plateau& a,
                                          const Plateau& b) {
  return curve_knee(points, a, b);
}

// What the run knew of the device (the probe fills it; the analysis states and uses it).
struct RunFacts {
  int sm_count = 0;
  double clock_mhz = 0;        // SM clock measured before and after the sweep (mean)
  double l1_peak_gbps = 0;     // model: 128 B/clk/SM x SMs x clock
  double dram_peak_gbps = 0;   // model: 2 x memory clock x bus width
  std::uint64_t l1_bytes = 0;  // the unified L1/shared capacity per SM the architecture has
  std::uint64_t l2_bytes = 0;
};

// Rows (params scope, op, working_set_bytes; metric bandwidth with samples) -> model columns,
// counter columns (l1_hit_rate, l2_hit_rate, dram_bytes_per_byte), summary rows per plateau and
// knee, the findings.
void analyse(ProbeResult& result, const RunFacts& facts);

void add_words(Glossary& glossary);

}  // namespace gpuprobe::cache
