// constant's analysis (host-only, tested in CI): the sweep's points, the lookup rows' model and
// counter columns, the chase rows' levels (latency::find_levels; analysis.cpp); the findings and
// the words (findings.cpp).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuprobe/core/axes.hpp"
#include "gpuprobe/core/counter_agreement.hpp"
#include "gpuprobe/core/finding_def.hpp"
#include "gpuprobe/core/glossary.hpp"
#include "gpuprobe/core/result.hpp"
#include "gpuprobe/models/constant_model.hpp"
#include "latency/analysis.hpp"

namespace gpuprobe::constant {

// Row params and metrics (names shared by the probe, the analysis and the tests).
inline constexpr const char* kMode = "mode";             // kLookup or kChase
inline constexpr const char* kLookup = "lookup";         // throughput: every thread looks up
inline constexpr const char* kChase = "chase";           // latency: one thread's dependent chase
inline constexpr const char* kPath = "path";             // constant, readonly, texture, global
inline constexpr const char* kWidth = "width";           // element bytes (lookup rows)
inline constexpr const char* kDistinct = "distinct";     // addresses per warp (lookup rows)
inline constexpr const char* kBytes = "bytes";           // table size
inline constexpr const char* kLookups = "lookups";       // metric: lookups/s
inline constexpr const char* kCycles = "latency";        // metric: cycles per chased lookup
inline constexpr const char* kSeconds = "latency_time";  // metric: s per chased lookup
inline constexpr const char* kWarpLookups = "warp_lookups";  // derived: warp lookups per launch

// The counters over one launch: LDCs and the indexed constant cache (idc); l1tex global loads
// (__ldg, ld.global) and texture sectors; L2 reads from L1 (tex) and the GPC constant cache (gcc).
inline constexpr std::string_view kIdcRequests = "idc__requests.sum";
inline constexpr std::string_view kIdcHits = "idc__requests_lookup_hit.sum";
inline constexpr std::string_view kLdc = "smsp__inst_executed_op_ldc.sum";
inline constexpr std::string_view kLsuRequests = "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum";
inline constexpr std::string_view kLsuSectors = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum";
inline constexpr std::string_view kTexSectors = "l1tex__t_sectors_pipe_tex_mem_texture.sum";
inline constexpr std::string_view kL2FromL1 = "lts__t_sectors_srcunit_tex_op_read.sum";
inline constexpr std::string_view kL2FromGcc = "lts__t_sectors_srcunit_gcc_op_read.sum";
// (Texture requests are left out: they make the set 4 replay passes instead of 3.)
inline constexpr std::array<std::string_view, 8> kCounterMetrics = {
    kIdcRequests, kIdcHits, kLdc, kLsuRequests, kLsuSectors, kTexSectors, kL2FromL1, kL2FromGcc};

// One sweep point: a lookup (path, width, distinct, bytes) or a chase (path, bytes; elements
// kChaseStride apart holding 4-byte offsets (constant, texture) or 8-byte addresses).
struct Point {
  std::string mode;
  models::LookupPath path = models::LookupPath::kGlobal;
  int width = 4, distinct = 1;
  std::uint64_t bytes = 0;
};

// The points in measuring order: the lookups (per path, width, distinct, size), then the chases
// (per path, kChaseMin to --chase-max, --per-octave sizes per doubling). The constant path stops
// at models::kConstantTableMax; the lookup points it skips are counted in `constant_skipped`.
inline constexpr std::uint64_t kChaseMin = 1024;
std::vector<Point> points(const AxisValues& values, std::size_t* constant_skipped = nullptr);
std::vector<Param> row_params(const Point& p);

// Reads the rows and adds the lookups' model and counter columns and the findings.
struct RunFacts {
  std::size_t constant_skipped = 0;  // lookup sizes over 64 KiB the constant path did not run
  std::size_t dropped = 0;           // points that did not fit the memory or a texture object
};
void analyse(ProbeResult& result, const RunFacts& facts);

void add_words(Glossary& glossary);

// The analysis internals (analysis.cpp, findings.cpp).
using models::LookupPath;

// A lookup row read by name (rate: its lookups/s metric) and its model.
struct Lookup {
  Row* row = nullptr;
  LookupPath path = LookupPath::kGlobal;
  int width = 0, distinct = 0;
  std::uint64_t bytes = 0;
  const Metric* rate = nullptr;
  models::LookupPrediction model;
};

// One path's chase rows in size order, ns per cycle of each, and the levels found in them.
struct ChaseSeries {
  LookupPath path = LookupPath::kGlobal;
  std::vector<latency::SeriesPoint> points;
  std::vector<double> ns_per_cycle;
  std::vector<latency::Level> levels;
};

// The counters beside the model: the path's requests per warp lookup (LDCs, texture or load
// requests) and transactions per request (idc per LDC, sectors per request); measured only: L2
// sectors per warp lookup, the idc hit rate.
void add_counters(const std::vector<Lookup>& rows, std::vector<Finding>& out);

// At the narrowest width: broadcast against the most distinct addresses per (path, size), the
// winner at each (distinct, size), where constant and texture beat plain loads (the textbook);
// one finding per level of each chase series; the sizing note.
void add_findings(const std::vector<Lookup>& rows, const std::vector<ChaseSeries>& series,
                  const RunFacts& facts, std::vector<Finding>& out);

}  // namespace gpuprobe::constant
