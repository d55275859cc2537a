// l2-persist's analysis (host-only, tested in CI): measured rows -> hot-kernel times, speed-ups
// over the no-window baseline with their interval over the rounds, model columns, counters
// beside the model (analysis.cpp); its findings and words (findings.cpp).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuprobe/core/glossary.hpp"
#include "gpuprobe/core/result.hpp"

namespace gpuprobe::l2_persist {

// Row params (names and tokens shared by the probe, the analysis and the tests).
inline constexpr const char* kWorkload = "workload";  // kPhases, kBpg, kStreamOnly
inline constexpr const char* kSetAside = "setaside_bytes";
inline constexpr const char* kHot = "hot_bytes";
inline constexpr const char* kSetAsidePct = "setaside_pct";
inline constexpr const char* kHotPct = "hot_pct";
inline constexpr const char* kHitRatio = "hit_ratio";  // null on rows without a window
inline constexpr const char* kWindow = "window";       // kNone, kStream, kLaunch, kAfterSweep
inline constexpr const char* kPhases = "phases";
inline constexpr const char* kBpg = "bpg";
inline constexpr const char* kStreamOnly = "stream-only";
inline constexpr const char* kNone = "none";
inline constexpr const char* kStream = "stream";
inline constexpr const char* kLaunch = "launch";
inline constexpr const char* kAfterSweep = "none-after-sweep";
inline constexpr const char* kTunedFlag = "tuned";  // the row's hit ratio is set-aside / window

// The counters the probe collects over one repetition (full CUPTI names).
inline constexpr std::string_view kL2Reads = "lts__t_sectors_srcunit_tex_op_read.sum";
inline constexpr std::string_view kL2ReadHits = "lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum";
// Reads that miss the L2 slice an SM sent them to and go on to the other L2 partition (over the
// L2 fabric), and those of them that hit there.
inline constexpr std::string_view kFabricReads = "lts__t_sectors_srcunit_ltcfabric_op_read.sum";
inline constexpr std::string_view kFabricReadHits =
    "lts__t_sectors_srcunit_ltcfabric_op_read_lookup_hit.sum";
inline constexpr std::string_view kEvictLast = "lts__t_sectors_srcunit_tex_evict_last.sum";
inline constexpr std::string_view kDramRead = "dram__bytes_read.sum";
inline constexpr std::string_view kDramWrite = "dram__bytes_write.sum";
inline constexpr std::array<std::string_view, 7> kCounterMetrics = {
    kL2Reads, kL2ReadHits, kFabricReads, kFabricReadHits, kEvictLast, kDramRead, kDramWrite};

// How a run was set up (the probe decides; the analysis states it and computes with it).
struct RunFacts {
  std::uint64_t l2_bytes = 0;
  std::uint64_t persisting_max = 0;  // persistingL2CacheMaxSize
  std::uint64_t window_max = 0;      // accessPolicyMaxWindowSize
  std::uint64_t stream_bytes = 0;    // the streaming region of both workloads
  int iterations = 0;                // phases: (stream, hot) pairs per repetition
};

// One row's params before and after sizing: --plan has no device, so sizes are shares of the
// device's maximum set-aside (setaside_pct, hot_pct) and bytes come with the run.
struct RowSpec {
  std::string workload;
  std::uint64_t setaside_pct = 0;               // % of persistingL2CacheMaxSize
  std::uint64_t hot_pct = 0;                    // % of persistingL2CacheMaxSize
  std::optional<std::uint64_t> setaside_bytes;  // nullopt in a plan
  std::optional<std::uint64_t> hot_bytes;
  std::optional<double> hit_ratio;  // nullopt: no window
  std::string window;
};
std::vector<Param> row_params(const RowSpec& spec);

// Model columns of every row (persisting_fraction, overcommit, hot_hit_share), from its params;
// `window_max` clamps the window as the probe does.
void add_model(ProbeResult& result, std::uint64_t window_max);

// Reads the measured rows (params above, metric time with samples by round) and adds to derived:
// hot_time (phases: (repetition - stream-only repetition at the same set-aside) / iterations;
// bpg: the kernel's time), hot_bandwidth (phases: 2 x hot bytes / hot_time), speedup (baseline
// hot_time / hot_time) with speedup_low / speedup_high (the smallest and largest per-round
// speed-up); with counters: hot_read_hit_share, hot_dram_bytes, evict_last_share (phases: the
// repetition's counters less the stream-only row's); the conditions and the findings.
void analyse(ProbeResult& result, const RunFacts& facts);

// The note that hot regions over accessPolicyMaxWindowSize (`window_max`, bytes) get a window
// over their first window_max bytes only.
Finding window_clamped_note(double window_max);

// The findings' sentences and the columns' short headers.
void add_words(Glossary& glossary);

}  // namespace gpuprobe::l2_persist
