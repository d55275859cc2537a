// coalescing's analysis (host-only, tested in CI): measured rows -> model columns, relative and
// implied DRAM bandwidth, summary rows per (pattern, width) (analysis.cpp); its findings and
// words (findings.cpp).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gpuprobe/core/dram_counters.hpp"
#include "gpuprobe/core/glossary.hpp"
#include "gpuprobe/core/result.hpp"
#include "gpuprobe/models/coalescing_model.hpp"

namespace gpuprobe::coalescing {

// The DRAM counters (core/dram_counters.hpp), by this probe's name too.
using gpuprobe::kDramRead;
using gpuprobe::kDramWrite;
using gpuprobe::kDramWriteBack;

using models::CopyPattern;

// The counters the probe collects (full CUPTI names), over one launch of the row's copy kernel
// (N elements read, N written). kCounterMetrics lists them in the order asked for; the analysis
// reads the named ones.
inline constexpr std::string_view kLoadRequests = "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum";
inline constexpr std::string_view kLoadSectors = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum";
inline constexpr std::string_view kStoreRequests =
    "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum";
inline constexpr std::string_view kStoreSectors = "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum";
inline constexpr std::string_view kL2ReadSectors = "lts__t_sectors_srcunit_tex_op_read.sum";
inline constexpr std::string_view kL2WriteSectors = "lts__t_sectors_srcunit_tex_op_write.sum";
inline constexpr std::string_view kLoadBytesPerSector =
    "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct";
// Load sectors that hit in L1 (the rest are sent on to L2).
inline constexpr std::string_view kLoadHitSectors =
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum";
inline constexpr std::array<std::string_view, 10> kCounterMetrics = {
    kLoadRequests,   kLoadSectors, kStoreRequests, kStoreSectors,       kL2ReadSectors,
    kL2WriteSectors, kDramRead,    kDramWrite,     kLoadBytesPerSector, kLoadHitSectors};

// Sizing rules shared by the probe (which applies them) and the findings (which state them).
inline constexpr double kMemoryCapFraction = 0.25;    // of free device memory, inputs + output
inline constexpr double kClampedMinWorkingSet = 4.0;  // x L2: floor for strides run with less N

const char* pattern_name(CopyPattern pattern);  // "offset", "stride"
CopyPattern pattern_from_name(const std::string& name);
// The baseline of a pattern's sweep: offset 0, stride 1.
std::uint64_t baseline_param(CopyPattern pattern);

// A row's params: pattern, offset or stride (elements), element_bytes (B).
std::vector<Param> row_params(CopyPattern pattern, int element_bytes, std::uint64_t param);

// The model columns of every row of `result` (read from its params) with G = fetch_bytes, the
// DRAM model's fetch block. --plan uses the sector (32 B), a run the device's granularity.
void add_model(ProbeResult& result, int fetch_bytes);

// How a run was sized (probes/coalescing/probe.cpp decides it; the findings state it).
struct Sizing {
  std::uint64_t l2_bytes = 0;  // the L2 size the run was sized against
  bool l2_assumed = false;     // the driver reported none: l2_bytes is a fallback
  std::uint64_t l2_multiple = 8;
  std::uint64_t memory_cap = 0;  // B: input + output buffers stay within this
  std::uint64_t out_bytes = 0;   // B: the largest output (bytes per direction at baseline)
  std::vector<std::pair<int, std::uint64_t>> default_elements;  // (width, N), in sweep order
  struct Clamped {
    int element_bytes;
    std::uint64_t stride;
    std::uint64_t elements;  // the smaller N it ran with
  };
  std::vector<Clamped> clamped;
  struct Dropped {
    CopyPattern pattern;
    int element_bytes;
    std::uint64_t param;
  };
  std::vector<Dropped> dropped;
};

// What the analysis needs from the device besides the rows.
struct RunFacts {
  int fetch_bytes = models::kSectorBytes;       // G of the DRAM model (models::model_fetch_bytes)
  std::optional<std::uint64_t> reported_fetch;  // cudaLimitMaxL2FetchGranularity, when reported
  double peak_dram_gbps = 0;                    // estimate from attributes; 0 = unknown
  Sizing sizing;
};

// Reads the measured rows of `result` (params pattern, offset|stride, element_bytes; metric
// bandwidth; derived working_set_over_l2 set by the sizing; flag baseline) and adds: the model
// columns, relative_bandwidth (first) and implied_dram_bandwidth (last) to each row's derived,
// one summary row per (pattern, width), the conditions and the findings. Rows with counters (one
// launch of the row's copy) also get each counter-measured quantity beside the model's (`<name>`,
// `<name>_vs_model`: load, store and L2 sectors per request, DRAM bytes read and written per
// useful byte; the terms in findings.cpp say each), flag ctr-vs-model where one is more than 5%
// off, and one coalescing_counter_* finding per quantity.
void analyse(ProbeResult& result, const RunFacts& facts);

// The findings of --plan: what a run would size and which fetch block it would model.
void add_plan_findings(ProbeResult& result, std::uint64_t l2_multiple);

// The findings' sentences and the columns' short headers.
void add_words(Glossary& glossary);

}  // namespace gpuprobe::coalescing
