// Private to the renderers: turns rows into titled text columns, grouped into sections.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "gpuprobe/core/glossary.hpp"
#include "gpuprobe/core/pair_matrix.hpp"
#include "gpuprobe/core/result.hpp"

namespace gpuprobe::render_detail {

// Where terminal prose and compact tables wrap.
inline constexpr std::size_t kTextWidth = 120;

struct Column {
  std::string header;
  bool numeric = true;  // right-aligned
  std::vector<std::string> cells;
  // "label = meaning [unit]" when the header is a short label for a longer name; empty when the
  // header says it all (always with wide naming).
  std::string legend;
  bool key = false;  // a param: says which row it is; repeated when a table is split
};

// Consecutive rows with the same columns form one section (one table).
struct Section {
  std::vector<Column> columns;
};

// How columns are titled: short labels from the glossary's terms (else a generic abbreviation)
// with a legend, or with `wide` the full names as "model fit_bandwidth [GB/s]".
struct Naming {
  const Glossary* glossary = nullptr;  // nullptr: generic abbreviations only
  std::string probe;                   // whose terms apply
  bool wide = false;
};

// What a column shows; decides the key its term is looked up by and the label's prefix.
enum class ColumnKind { kParam, kMetric, kNoise, kFlags, kDerived, kModel, kCounter, kSummary };

struct Header {
  std::string text;
  std::string legend;  // empty when the header is the full name
};

// The header of one column. Compact: the term of "<kind>.<name>" (derived., model., counter.,
// summary.), else of "<name>", else abbreviate(name); model columns get "m." in front and
// counters "c.", and the legend says what the label stands for, with the unit in brackets
// unless the label or the cells already show it. Wide: the full name, no legend.
Header column_header(const Naming& naming, ColumnKind kind, const std::string& name,
                     const std::string& unit);

// The generic short form of a name without a term, for names over 10 characters: common words
// shortened ("bandwidth" -> "bw", "relative" -> "rel"), "per"/"over" as "/", a leading
// "model" as "m.", other words over 10 letters cut to 5: "predicted_relative_bandwidth_dram"
// -> "pred_rel_bw_dram", "sectors_per_request" -> "sect/req". Short names, and names that
// cannot get shorter, come back unchanged.
std::string abbreviate(const std::string& name);

// Rows as sections of columns: params, metric medians, the worst noise, derived, model and (wide)
// counter values, flags. Compact naming shows a derived pair "<stem>_low", "<stem>_high" of one
// unit as one interval column "<stem>" ("0.8812–0.9213", "-" where an end is missing).
std::vector<Section> layout_rows(const std::vector<Row>& rows, const Naming& naming = {});
Section layout_summary(const std::vector<SummaryRow>& rows, const Naming& naming = {});

// Source x destination matrices (render_matrix.cpp). A matrix as a section: the corner column
// "src\dst" holds the source GPUs, then one column per destination GPU; "-" where no row has a
// value (the diagonal, unless measured). Rates as numbers of their unit, times in microseconds.
Section matrix_section(const PairMatrix& matrix);
// "peak bandwidth [GB/s] · mode ce · direction uni", "latency [us] (time at 4 KiB) · mode ce".
std::string matrix_title(const PairMatrix& matrix);
// The line before a result's matrices, saying how they read.
std::string matrices_intro();

// Columns a terminal shows for UTF-8 text (code points; "÷", "·" and "—" count one).
std::size_t display_width(std::string_view text);
// What the 120-column limit counts: bytes. A line whose bytes fit has no more characters than
// that, so it fits a terminal and tools that count bytes alike ("·" is 2 bytes, 1 column).
std::size_t fit_width(std::string_view text);

// Word-wraps `text` after `prefix` (the first line starts with it) so that no line is wider
// than `width`; continuation lines start with `indent` blanks. Words wider than a line are cut.
std::vector<std::string> wrap_text(const std::string& prefix, const std::string& text,
                                   std::size_t width, std::size_t indent);
// Like wrap_text for a list: items joined by `separator`, lines broken between items where
// they fit, inside an item only when it alone is wider than a line.
std::vector<std::string> wrap_items(const std::string& prefix,
                                    const std::vector<std::string>& items,
                                    const std::string& separator, std::size_t width,
                                    std::size_t indent);

// "64 MiB" for unit B, "1.25 ms" for unit s, else a number with 4 significant digits.
std::string format_value(double value, const std::string& unit);
// A quantity with its unit for running text: "1980 MHz", "128 MiB", "-" when missing.
std::string quantity_text(const Quantity& quantity);
// Header for a quantity: "bandwidth [GB/s]", or just the name when the unit is in the cells.
std::string quantity_header(const std::string& prefix, const std::string& name,
                            const std::string& unit);
std::string param_text(const Param& param);
// How counters were collected, for a line under the table: "12 metrics on GH100, 5 replay
// passes per point (after timing); --wide shows each counter".
std::string counters_text(const CounterStatus& counters);

// "GPU 0: NVIDIA H100 80GB HBM3" or "plan (no GPU used)" for plans.
std::string device_label(const RunReport& report, const ProbeResult& result);
// Device description parts: "cc 9.0", "132 SMs @ 1980 MHz max", "L2 50 MiB (...)", ...
std::vector<std::string> device_fact_parts(const DeviceInfo& device);
// The link facts among them (src/core/render_links.cpp), none when the device has no link source:
// "PCIe gen5 x16 (max gen5 x16, nvml)", "NUMA node 0", "CPUs 0-55", "to GPU 1: NVLink4 x18 via
// NVSwitch, 26.562 GB/s per link, P2P read ok / write ok / atomics ok, across sockets".
std::vector<std::string> link_fact_parts(const DeviceInfo& device);
// One-line device description: the parts joined by " · ".
std::string device_facts(const DeviceInfo& device);
std::vector<std::string> host_parts(const RunReport& report);
std::string host_line(const RunReport& report);

// The header of a comparison (report.sides not empty): the tool and time of the comparison,
// then for each side a line "A = before.json: host · cpu · driver · runtime · gpuprobe (git) ·
// started" ("A (3 runs) = a1.json, a2.json, a3.json: ..." for several files) and a line per GPU.
std::vector<std::string> compare_tool_parts(const RunReport& report);
std::string side_prefix(const ComparedSide& side);  // "A = before.json: "
std::vector<std::string> side_parts(const ComparedSide& side);

}  // namespace gpuprobe::render_detail
