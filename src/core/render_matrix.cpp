// Source x destination matrices as sections and titles, shared by the table and Markdown
// renderers (the matrices themselves come from core/pair_matrix.hpp).
#include <fmt/format.h>

#include <string>

#include "gpuprobe/core/units.hpp"
#include "render_layout.hpp"

namespace gpuprobe::render_detail {
namespace {

bool in_seconds(const PairMatrix& m) {
  return m.unit == "s";
}

std::string cell_text(const PairMatrix& m, const std::optional<double>& value) {
  if (!value) return "-";
  return format_number(in_seconds(m) ? *value * 1e6 : *value);
}

}  // namespace

Section matrix_section(const PairMatrix& m) {
  Section section;
  Column corner;
  corner.header = "src\\dst";
  corner.key = true;
  for (const auto device : m.devices)
    corner.cells.push_back(std::to_string(device));
  section.columns.push_back(std::move(corner));
  for (std::size_t j = 0; j < m.devices.size(); ++j) {
    Column col;
    col.header = std::to_string(m.devices[j]);
    for (std::size_t i = 0; i < m.devices.size(); ++i)
      col.cells.push_back(cell_text(m, m.cells[i][j]));
    section.columns.push_back(std::move(col));
  }
  return section;
}

std::string matrix_title(const PairMatrix& m) {
  std::string title;
  if (m.cell == PairCell::kPeak) {
    title = fmt::format("peak {} [{}]", m.metric, m.unit);
  } else {
    const std::string at =
        m.bytes ? format_bytes(static_cast<double>(*m.bytes)) : std::string("the smallest size");
    title = m.metric == "time" ? fmt::format("latency [us] (time at {})", at)
                               : fmt::format("{} [us] (at {})", m.metric, at);
  }
  for (const auto& p : m.path)
    title += fmt::format(" · {} {}", p.key, param_text(p));
  return title;
}

std::string matrices_intro() {
  return "src x dst matrices: row = source GPU, column = destination GPU, - = not measured";
}

}  // namespace gpuprobe::render_detail
