// The terminal table renderer: one aligned table per probe result, method and verdict below.
#include <fmt/color.h>
#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "gpuprobe/core/render.hpp"
#include "render_layout.hpp"

namespace gpuprobe {
namespace {

using render_detail::Column;
using render_detail::Section;

std::string styled(const TableStyle& style, const std::string& text, fmt::text_style ts) {
  return style.color ? fmt::format(ts, "{}", text) : text;
}

fmt::text_style status_style(Status status) {
  switch (status) {
    case Status::kOk:
      return fmt::fg(fmt::terminal_color::green);
    case Status::kFailed:
      return fmt::fg(fmt::terminal_color::red) | fmt::emphasis::bold;
    case Status::kSkipped:
      return fmt::fg(fmt::terminal_color::yellow);
    case Status::kPlanned:
      return fmt::fg(fmt::terminal_color::cyan);
  }
  return {};
}

// Left-aligned last columns pad with blanks; lines never end in them.
std::string rtrim(std::string text) {
  text.erase(text.find_last_not_of(' ') + 1);
  return text;
}

void append_section(std::string& out, const Section& section, const TableStyle& style) {
  std::vector<std::size_t> widths;
  for (const Column& c : section.columns) {
    std::size_t w = c.header.size();
    for (const auto& cell : c.cells)
      w = std::max(w, cell.size());
    widths.push_back(w);
  }
  auto cell = [](const std::string& text, std::size_t width, bool right) {
    return right ? fmt::format("{:>{}}", text, width) : fmt::format("{:<{}}", text, width);
  };
  std::string header = " ";
  std::string rule = " ";
  for (std::size_t i = 0; i < section.columns.size(); ++i) {
    header += " " + cell(section.columns[i].header, widths[i], section.columns[i].numeric);
    rule += " " + std::string(widths[i], '-');
  }
  out += styled(style, rtrim(header), fmt::emphasis::bold) + "\n" + rule + "\n";
  const std::size_t rows = section.columns.empty() ? 0 : section.columns.front().cells.size();
  for (std::size_t r = 0; r < rows; ++r) {
    std::string line = " ";
    for (std::size_t i = 0; i < section.columns.size(); ++i) {
      line += " " + cell(section.columns[i].cells[r], widths[i], section.columns[i].numeric);
    }
    out += rtrim(line) + "\n";
  }
}

}  // namespace

std::string render_table(const RunReport& report, const TableStyle& style) {
  std::string out;
  if (style.header) {
    out += render_detail::host_line(report) + "\n";
    for (const auto& d : report.devices) {
      out += fmt::format("GPU {}: {} · {}\n", d.index, d.name, render_detail::device_facts(d));
    }
  }
  for (const auto& result : report.results) {
    out += "\n";
    out += styled(
        style,
        fmt::format("== {} · {} · ", result.probe, render_detail::device_label(report, result)),
        fmt::emphasis::bold);
    out += styled(style, status_name(result.status), status_style(result.status));
    if (!result.reason.empty()) out += ": " + result.reason;
    out += "\n";
    for (const auto& section : render_detail::layout_rows(result.rows)) {
      append_section(out, section, style);
      out += "\n";
    }
    if (!result.summary.empty()) {
      out += "  summary\n";
      append_section(out, render_detail::layout_summary(result.summary), style);
      out += "\n";
    }
    if (!result.conditions.empty()) {
      std::vector<std::string> parts;
      for (const auto& q : result.conditions) {
        parts.push_back(fmt::format("{} {}", q.name, render_detail::quantity_text(q)));
      }
      out += fmt::format("  conditions: {}\n", fmt::join(parts, " · "));
    }
    if (!result.method.empty()) out += fmt::format("  method: {}\n", result.method);
    for (const auto& f : result.findings) {
      switch (f.kind) {
        case FindingKind::kVerdict:
          out += styled(style, "  => " + f.text, fmt::emphasis::bold) + "\n";
          break;
        case FindingKind::kWarning:
          out += styled(style, "  warning: " + f.text, fmt::fg(fmt::terminal_color::yellow)) + "\n";
          break;
        case FindingKind::kNote:
          out += "  note: " + f.text + "\n";
          break;
      }
    }
  }
  return out;
}

}  // namespace gpuprobe
