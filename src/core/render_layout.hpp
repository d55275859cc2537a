// Private to the renderers: turns rows into titled text columns, grouped into sections.
#pragma once

#include <string>
#include <vector>

#include "gpuprobe/core/result.hpp"

namespace gpuprobe::render_detail {

struct Column {
  std::string header;
  bool numeric = true;  // right-aligned
  std::vector<std::string> cells;
};

// Consecutive rows with the same columns form one section (one table).
struct Section {
  std::vector<Column> columns;
};

std::vector<Section> layout_rows(const std::vector<Row>& rows);
Section layout_summary(const std::vector<SummaryRow>& rows);

// "64 MiB" for unit B, "1.25 ms" for unit s, else a number with 4 significant digits.
std::string format_value(double value, const std::string& unit);
// A quantity with its unit for running text: "1980 MHz", "128 MiB", "-" when missing.
std::string quantity_text(const Quantity& quantity);
// Header for a quantity: "bandwidth [GB/s]", or just the name when the unit is in the cells.
std::string quantity_header(const std::string& prefix, const std::string& name,
                            const std::string& unit);
std::string param_text(const Param& param);

// "GPU 0: NVIDIA H100 80GB HBM3" or "plan (no GPU used)" for plans.
std::string device_label(const RunReport& report, const ProbeResult& result);
// One-line device description: "cc 9.0 · 132 SMs · L2 50 MiB · ...".
std::string device_facts(const DeviceInfo& device);
std::string host_line(const RunReport& report);

}  // namespace gpuprobe::render_detail
