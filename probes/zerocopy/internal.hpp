// zerocopy's analysis internals (host-only): what analysis.cpp and findings.cpp share, the
// measured rows read by name and the finding builders.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis.hpp"
#include "gpuprobe/core/finding_def.hpp"
#include "gpuprobe/models/zerocopy_model.hpp"

namespace gpuprobe::zerocopy {

// Spacing from which accesses are isolated (each in a 128-byte line of its own): the rows the
// measured bytes per access come from.
inline constexpr std::uint64_t kIsolatedSpacing = 128;
// Zero-copy and the copy within this of each other (the whole interval of their ratio) are alike
// in the break-even: PCIe copies of one H100 move by up to 5% between runs (docs/method.md), so
// a closer lead at one reuse count is no claim that survives the next run.
inline constexpr double kAlikeMargin = 0.05;
// A bandwidth within this fraction of the sweep's best counts as having reached it.
inline constexpr double kReachedFraction = 0.9;

// A measured row, read by name.
struct Measured {
  Row* row = nullptr;
  std::string mode;       // zerocopy, copy, memcpy
  std::string memory;     // hostalloc, registered
  std::string direction;  // read, write
  std::uint64_t reuse = 1;
  std::uint64_t stride = 1;
  int width = 0;                        // element bytes; 0 on memcpy rows
  std::uint64_t bytes = 0;              // payload (memcpy: the bytes copied)
  std::optional<std::uint64_t> blocks;  // in-flight rows only
  double time_s = 0;
  double gbps = 0;
};

std::vector<Measured> measured_rows(ProbeResult& result);
// The model's view of a zerocopy or copy row.
models::HostAccess access_of(const Measured& m);
bool is_write(const Measured& m);

// The main sweep's rows (no blocks param) of one mode.
std::vector<const Measured*> main_rows(const std::vector<Measured>& all, const std::string& mode);

// Break-even reuse per pattern: summary rows and findings.
void break_even_findings(ProbeResult& result, const std::vector<Measured>& all);
// Coalesced read-once (and write-once) zero-copy against the explicit copy alone.
void once_findings(const std::vector<Measured>& all, std::vector<Finding>& out);
// Strided reuse-1 zero-copy against stride 1, beside the model's link bytes.
void stride_findings(const std::vector<Measured>& all, std::vector<Finding>& out);
// Bandwidth against bytes in flight (the in-flight rows), Little's law.
void in_flight_findings(const std::vector<Measured>& all, std::vector<Finding>& out);
// Counter columns, the counter agreement and the measured bytes per isolated access.
void counter_findings(std::vector<Measured>& all, const RunFacts& facts, std::vector<Finding>& out);
// Zero-copy writes rewritten (reuse > 1) that put fewer bytes on the link than every pass would:
// per write pattern whose single pass (reuse 1, when measured) crossed whole, the rewritten reuse
// count with the smallest share of the model's link bytes (below the counter tolerance), and how
// far every pass crossed.
void merged_write_findings(const std::vector<Measured>& all, const RunFacts& facts,
                           std::vector<Finding>& out);
// The note on how the rows are sized (the span, against the L2).
Finding sizing_note(const RunFacts& facts);

}  // namespace gpuprobe::zerocopy
