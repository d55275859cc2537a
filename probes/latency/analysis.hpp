// latency's analysis (host-only, tested in CI): the level boundaries found from the measured
// chase rows (change points), the per-access trace split into near and far clusters, the counters
// that say which level served each plateau (analysis.cpp), the findings (findings.cpp) and the
// words (words.cpp).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gpuprobe/core/curve_levels.hpp"
#include "gpuprobe/core/glossary.hpp"
#include "gpuprobe/core/result.hpp"

namespace gpuprobe::latency {

// Row params and metrics (names shared by the probe, the analysis and the tests).
inline constexpr const char* kMode = "mode";             // kChase or kTrace
inline constexpr const char* kChase = "chase";           // the timed chase at one working set
inline constexpr const char* kTrace = "trace";           // per-access times at an L2-resident set
inline constexpr const char* kStride = "stride";         // bytes between chased elements
inline constexpr const char* kCarveout = "carveout";     // shared-memory carve-out, %
inline constexpr const char* kBytes = "bytes";           // the working set: elements x stride
inline constexpr const char* kL2Pct = "l2_pct";          // trace rows: working set in % of L2
inline constexpr const char* kCycles = "latency";        // metric: cycles per access
inline constexpr const char* kSeconds = "latency_time";  // metric: s per access (global timer)
inline constexpr const char* kClock = "clock_mhz";       // derived: SM clock during the row

// The counters over one chase launch (its warm-up steps and its timed ones; the parallel warm
// read runs outside the range).
inline constexpr std::string_view kL1Sectors = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum";
inline constexpr std::string_view kL1Hits =
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum";
inline constexpr std::string_view kL2Reads = "lts__t_sectors_srcunit_tex_op_read.sum";
inline constexpr std::string_view kL2Hits = "lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum";
// Reads that went on over the L2 fabric to the other partition.
inline constexpr std::string_view kFabricReads = "lts__t_sectors_srcunit_ltcfabric_op_read.sum";
inline constexpr std::string_view kDramRead = "dram__bytes_read.sum";
inline constexpr std::array<std::string_view, 6> kCounterMetrics = {
    kL1Sectors, kL1Hits, kL2Reads, kL2Hits, kFabricReads, kDramRead};

// Level detection, documented in docs/probes/latency.md.
inline constexpr double kMinStep = 0.15;      // adjacent levels differ by >= 15 % in latency
inline constexpr std::size_t kMinPoints = 2;  // a level has >= 2 working sets
inline constexpr double kPlateauBand = 0.10;  // a point within 10 % of its level's median is on it
inline constexpr std::size_t kMaxLevels = 8;

// One point of a series: a working set and its median cycles per access.
struct SeriesPoint {
  std::uint64_t bytes = 0;
  double cycles = 0;
};

// A level (core/curve_levels.hpp: the segment, its plateau and the plateau's latency) and its
// size: the largest working set on the plateau; the next working set measured, past it.
struct Level : CurveLevel {
  std::uint64_t smallest = 0;              // smallest working set on the plateau
  std::uint64_t size = 0;                  // largest working set on the plateau
  std::optional<std::uint64_t> next_size;  // the next working set measured after it
};

// The levels of log(cycles) over the points in size order (curve_levels): kLevelRule for a page
// series (a TLB level may be one working set) and constant's tables; kCacheLevelRule for a cache
// series, where a working set alone between two levels is a transition (docs/probes/latency.md).
inline constexpr LevelRule kLevelRule{kMinStep, kMinPoints, kPlateauBand, kMaxLevels};
inline constexpr LevelRule kCacheLevelRule{kMinStep, kMinPoints, kPlateauBand, kMaxLevels, true};
std::vector<Level> find_levels(std::span<const SeriesPoint> points,
                               const LevelRule& rule = kLevelRule);

// Two clusters of per-access times (core/curve_levels.hpp: split_two_clusters), and whether they
// are two.
struct Clusters : TwoClusters {
  bool two = false;  // eta >= kMinEta, slow share in [kMinShare, 1 - kMinShare], ratio >= 1.2
};
inline constexpr double kMinEta = 0.75;
inline constexpr double kMinShare = 0.05;
inline constexpr double kMinClusterRatio = 1.2;
Clusters two_clusters(std::vector<double> values);
// The rule of Clusters::two.
bool clusters_apart(double fast_median, double slow_median, double slow_share, double eta);

// Which level the counters say served a chase row: L1, L2 or DRAM, from the L1 hit rate and DRAM
// bytes per access (the share of L2 reads that crossed the L2 fabric is reported beside; it does
// not tell the near and the far partition apart: about half of an L2-resident chase's reads cross
// it on an H100 at the near-L2 latency, so the far L2 is told by the traces' clusters instead).
inline constexpr double kDramBytesPerMiss = 64;  // H100: ~62 B read per access at 95 % L2 misses
struct Served {
  double l1_hit = 0;
  double l2_hit = 0;
  double fabric_share = 0;
  double dram_per_access = 0;  // B
  std::string level;
};
std::optional<Served> served_by(const Row& row, double accesses);

// How the run was set up (the probe decides; the analysis states it and computes with it).
struct RunFacts {
  std::uint64_t l2_bytes = 0;
  std::uint64_t steps = 0;                                      // timed steps per launch
  std::map<std::uint64_t, std::uint64_t> l1_model_by_carveout;  // B; empty: no model
};

// Strides from here chase pages (the TLB series, loads that bypass L1: ld.global.cg, so every
// access is served by L2 and a step is address translation); below, cache levels.
inline constexpr std::uint64_t kPageStrideFrom = 65536;
// Working sets whose footprint is over this multiple of the L2 start each sample with the L2
// flushed (no warm read): what L2 kept of them would serve a random share of the chase and blur
// the DRAM plateau.
inline constexpr std::uint64_t kFlushFromL2Multiple = 2;
// The bytes of cache a chase's elements occupy: one sector each up to 32-byte strides, one line
// (128 B) each from line strides on (a page chase over 16 GiB holds 8192 lines: 1 MiB).
inline std::uint64_t footprint_bytes(std::uint64_t elements, std::uint64_t stride) {
  constexpr std::uint64_t kLine = 128;
  return elements * (stride < kLine ? stride : kLine);
}
inline bool flushed_first(std::uint64_t elements, std::uint64_t stride, std::uint64_t l2_bytes) {
  return l2_bytes > 0 && footprint_bytes(elements, stride) > kFlushFromL2Multiple * l2_bytes;
}
// The chase's own warm-up: the whole chain when it has at most kFullWarmMax elements (so L1
// holds what fits), else kShortWarm steps (the parallel warm read has put the chain in L2).
inline constexpr std::uint64_t kFullWarmMax = 8192;
inline constexpr std::uint64_t kShortWarm = 1024;
inline std::uint64_t warm_steps(std::uint64_t elements) {
  return elements <= kFullWarmMax ? elements : kShortWarm;
}

// Reads the rows (chase rows by stride and carve-out; trace rows' derived clusters) and adds the
// levels, the far-L2 evidence, the TLB steps, the clock and the counters' verdicts as findings.
void analyse(ProbeResult& result, const RunFacts& facts);

// The trace row's derived values from its per-access cycles (cluster medians, shares, eta,
// percentiles).
void add_trace_values(Row& row, std::vector<double> cycles);

void add_words(Glossary& glossary);

// The note on points dropped for want of device memory (findings.cpp).
Finding memory_note(std::uint64_t dropped);

}  // namespace gpuprobe::latency
