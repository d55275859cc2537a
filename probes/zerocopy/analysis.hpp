// zerocopy's analysis (host-only, tested in CI): measured rows -> the PCIe byte model beside the
// counters, break-even reuse counts, the strided collapse, read-once against the explicit copy,
// bytes in flight (analysis.cpp, findings.cpp); its words in findings.cpp.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gpuprobe/core/glossary.hpp"
#include "gpuprobe/core/pcie_counters.hpp"
#include "gpuprobe/core/result.hpp"

namespace gpuprobe::zerocopy {

// The counters it collects: the PCIe bytes of one repetition, read and write.
inline constexpr auto kCounterMetrics = kPcieCounters;

// Row params' values.
inline constexpr const char* kZeroCopy = "zerocopy";  // mode: the kernel uses mapped host memory
inline constexpr const char* kCopy = "copy";          // mode: explicit copy + kernel on device
inline constexpr const char* kMemcpy = "memcpy";      // mode: the explicit copy alone (reference)

// One reuse count of one access pattern: the whole operation's median time in each mode.
struct ReusePoint {
  double reuse = 0;
  double zero_copy_s = 0;
  double copy_s = 0;
  // Which is faster beyond noise (order_of on the two time metrics): -1 zero-copy, +1 the copy,
  // 0 alike (within compare's 2% margin, or the interval straddles it); nullopt: from the
  // medians alone.
  std::optional<int> winner;
};

// Where zero-copy stops winning as reuse grows: the first crossing of zero_copy_s - copy_s
// from below 0 to 0 or above, interpolated linearly between the two reuse counts around it.
enum class BreakEvenKind {
  kCrossing,            // zero-copy faster at the smaller reuse count, copy at a larger one
  kZeroCopyAlwaysWins,  // zero-copy faster (or alike) at every reuse count measured
  kCopyAlwaysWins,      // the copy faster already at the smallest reuse count
  kAlikeThenCopy,       // alike within noise at the smallest reuse counts, the copy faster after
  kAlike,               // alike within noise at every reuse count measured
};
struct BreakEven {
  BreakEvenKind kind = BreakEvenKind::kCopyAlwaysWins;
  std::optional<double> reuse;        // kCrossing only
  std::optional<double> alike_until;  // kAlikeThenCopy: the largest reuse where they are alike
};
const char* break_even_kind_name(BreakEvenKind kind);  // "crossing", "zerocopy-wins", ...
// Points in any order (sorted by reuse here); at least one. The crossing is interpolated on the
// medians between the last point zero-copy wins and the first the copy wins; a point where the
// two are alike within noise decides nothing, so a lead of 1% at reuse 1 is not "the copy wins".
BreakEven break_even(std::vector<ReusePoint> points);

// What the analysis needs from the device besides the rows.
struct RunFacts {
  bool can_map_host_memory = true;
  bool integrated = false;
  bool unified_addressing = true;
  // cudaLimitMaxL2FetchGranularity, when reported: the DRAM fetch block, which the model says
  // host-memory reads do not use (they ask for 32-byte sectors).
  std::optional<std::uint64_t> reported_fetch;
  std::uint64_t span_bytes = 0;  // the host buffer every row's elements lie in (--bytes)
  std::uint64_t l2_bytes = 0;
};

// Model columns for every zerocopy and copy row (from params): link_bytes_per_payload (PCIe
// bytes, TLP headers included, in the data's direction / payload; models/zerocopy_model.hpp).
void add_model(ProbeResult& result);

// Reads the measured rows (params mode, memory, direction, reuse, stride, element_bytes, bytes,
// blocks for the in-flight rows; metrics time, bandwidth; derived bytes_in_flight on in-flight
// rows) and adds: model columns, counter columns (link_bytes_per_payload_counter and its ratio
// to the model, bytes_per_access_counter on isolated accesses), summary rows per pattern with
// the break-even reuse, conditions and findings.
void analyse(ProbeResult& result, const RunFacts& facts);

// The findings' sentences and the columns' short headers.
void add_words(Glossary& glossary);

}  // namespace gpuprobe::zerocopy
