// occupancy's analysis (host-only, tested in CI): per op bandwidth against bytes in flight per SM
// -> plateau, knees beside Little's law, cheapest route, reads against writes, counters
// (analysis.cpp); findings (findings.cpp); words (words.cpp); the sweep's points (sweep.cpp).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "gpuprobe/core/axes.hpp"
#include "gpuprobe/core/dram_counters.hpp"
#include "gpuprobe/core/glossary.hpp"
#include "gpuprobe/core/result.hpp"

namespace gpuprobe::occupancy {

// The DRAM counters (core/dram_counters.hpp), by this probe's name too.
using gpuprobe::kDramRead;
using gpuprobe::kDramWrite;
using gpuprobe::kDramWriteBack;

// Row params and their tokens.
inline constexpr const char* kOp = "op";        // kRead, kWrite, kCopy
inline constexpr const char* kWarps = "warps";  // resident warps per SM asked for
inline constexpr const char* kIlp = "ilp";      // independent accesses per thread
inline constexpr const char* kWidth = "width";  // bytes per access
inline constexpr const char *kRead = "read", *kWrite = "write", *kCopy = "copy";

// Derived values the probe puts into each row (from the launch and the compiled function).
inline constexpr const char* kInFlight = "bytes_in_flight";  // per SM: warps x 32 x ilp x width
inline constexpr const char* kBlockThreads = "block_threads";
inline constexpr const char* kBlocksPerSm = "blocks_per_sm";  // theoretical (occupancy API)
inline constexpr const char* kSharedBytes = "shared_bytes";   // dynamic, per block: the limiter
inline constexpr const char* kRegisters = "registers";        // per thread (numRegs)
inline constexpr const char* kRegistersPerSm = "registers_per_sm";
inline constexpr const char* kOccupancy = "occupancy";      // theoretical: resident warps / most, %
inline constexpr const char* kStreamed = "streamed_bytes";  // read + written by one repetition

// The counters over one repetition (full CUPTI names).
inline constexpr std::string_view kAchieved = "sm__warps_active.avg.pct_of_peak_sustained_active";
inline constexpr std::array<std::string_view, 3> kCounterMetrics = {kAchieved, kDramRead,
                                                                    kDramWrite};

// The shares of the plateau whose knees are reported, and the band within which a measured knee
// counts as the prediction's.
inline constexpr std::array<double, 2> kKneeLevels = {0.90, 0.95};
inline constexpr double kKneeBand = 0.25;

// One point of the sweep.
struct Point {
  std::string op;
  int warps = 0, ilp = 0, width = 0;
  bool operator==(const Point&) const = default;
};
// Per op: every warp count of --warps at the smallest ILP and width, then at each of --at-warps
// every ILP x width (a point already listed is not repeated).
std::vector<Point> points(const AxisValues& v);
std::vector<Param> row_params(const Point& p);

// What the run knew or measured beside the rows (the probe fills it).
struct RunFacts {
  int sm_count = 0;
  double latency_s = 0;       // unloaded DRAM latency: one thread's chase after an L2 flush
  double latency_cycles = 0;  // the same in SM cycles
  std::uint64_t chase_bytes = 0, chase_stride = 0;
  std::uint64_t working_set = 0, l2_bytes = 0;  // the working set: per buffer, at most
  std::vector<std::string> dropped;             // points that could not be made resident as asked
};

// Rows (params op, warps, ilp, width; metric bandwidth; derived as above) -> the model bandwidth
// per row, counters beside the model, the findings.
void analyse(ProbeResult& result, const RunFacts& facts);

void add_words(Glossary& glossary);

}  // namespace gpuprobe::occupancy
