// local's analysis (host-only, tested in CI): per (kernel, carve-out) the register caps' rows ->
// slowdown against the compiler's own choice, spill traffic and footprint beside the model, the
// counters' local traffic and where it was served (analysis.cpp); findings (findings.cpp); words
// (words.cpp).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "gpuprobe/core/glossary.hpp"
#include "gpuprobe/core/result.hpp"

namespace gpuprobe::local {

// Row params and their tokens.
inline constexpr const char* kKernel = "kernel";  // kCompute, kMemory
inline constexpr const char* kCarveout = "carveout";
inline constexpr const char* kMaxRegisters = "max_registers";  // 0: the compiler's choice
inline constexpr const char* kComputeName = "compute";
inline constexpr const char* kMemoryName = "memory";

// Metrics and the derived values the probe puts into each row (from the compiled function and
// the launch; never assumed).
inline constexpr const char* kStepTime = "step_time";      // ps per thread-step, whole GPU
inline constexpr const char* kRegisters = "registers";     // cudaFuncAttributes::numRegs
inline constexpr const char* kLocalBytes = "local_bytes";  // localSizeBytes: the stack frame
inline constexpr const char* kBlocksPerSm = "blocks_per_sm";
inline constexpr const char* kOccupancy = "occupancy";  // resident warps / the SM's most, %
inline constexpr const char* kThreads = "threads";      // launched
inline constexpr const char* kSteps = "steps";          // per thread
inline constexpr const char* kTouches = "touches";  // times each spilled byte is stored + loaded

// The counters over one repetition (full CUPTI names).
inline constexpr std::string_view kLocalLoad = "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum";
inline constexpr std::string_view kLocalStore = "l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum";
inline constexpr std::string_view kLocalLoadHits =
    "l1tex__t_sectors_pipe_lsu_mem_local_op_ld_lookup_hit.sum";
inline constexpr std::string_view kL2Reads = "lts__t_sectors_srcunit_tex_op_read.sum";
inline constexpr std::string_view kL2Writes = "lts__t_sectors_srcunit_tex_op_write.sum";
inline constexpr std::string_view kDramRead = "dram__bytes_read.sum";
inline constexpr std::string_view kDramWrite = "dram__bytes_write.sum";
inline constexpr std::string_view kAchieved = "sm__warps_active.avg.pct_of_peak_sustained_active";
inline constexpr std::array<std::string_view, 8> kCounterMetrics = {
    kLocalLoad, kLocalStore, kLocalLoadHits, kL2Reads, kL2Writes, kDramRead, kDramWrite, kAchieved};

// A spilled footprint counts as served by L1 when at least this share of the local load sectors
// hit L1.
inline constexpr double kL1Served = 0.5;

// What the run knew or measured beside the rows (the probe fills it).
struct RunFacts {
  int sm_count = 0;
  double clock_mhz = 0;            // SM clock measured during the run
  double l1_bytes_per_second = 0;  // models::l1_peak_gbps x 1e9
  double l1_latency_s = 0;         // measured: latency's chase kernel over an L1-sized set
  double l2_latency_s = 0;         // measured: the same over the chase table, bypassing L1
  std::uint64_t table_bytes = 0;   // the memory kernel's chase table
  std::map<std::uint64_t, std::uint64_t> l1_by_carveout;  // L1 bytes a carve-out leaves
};

// Rows (params kernel, carveout, max_registers; metric step_time; derived registers, local_bytes,
// blocks_per_sm, occupancy, threads, steps, touches) -> slowdown, model spill traffic, footprint,
// level and cost columns, counters beside the model, the findings.
void analyse(ProbeResult& result, const RunFacts& facts);

void add_words(Glossary& glossary);

}  // namespace gpuprobe::local
