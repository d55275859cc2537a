// The terminal table renderer: one aligned table per probe result, method and findings below.
#include <fmt/color.h>
#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <string>

#include "gpuprobe/core/expect.hpp"
#include "gpuprobe/core/pair_matrix.hpp"
#include "gpuprobe/core/render.hpp"
#include "render_layout.hpp"

namespace gpuprobe {
namespace {

using render_detail::Column;
using render_detail::display_width;
using render_detail::kTextWidth;
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

// Pads to `width` terminal columns (UTF-8 aware: "÷" is one column, two bytes).
std::string cell(const std::string& text, std::size_t width, bool right) {
  const std::size_t w = display_width(text);
  const std::string pad(w < width ? width - w : 0, ' ');
  return right ? pad + text : text + pad;
}

// Prose: wrapped with a hanging indent under its first word, or one line with --wide.
void append_prose(std::string& out, const TableStyle& style, const std::string& prefix,
                  const std::string& text, fmt::text_style ts = {}, bool styled_text = false) {
  std::vector<std::string> lines;
  if (style.wide)
    lines.push_back(prefix + text);
  else
    lines = render_detail::wrap_text(prefix, text, kTextWidth, display_width(prefix));
  for (const auto& line : lines)
    out += (styled_text ? styled(style, line, ts) : line) + "\n";
}

void append_items(std::string& out, const TableStyle& style, const std::string& prefix,
                  const std::vector<std::string>& items, std::size_t indent) {
  if (style.wide) {
    out += fmt::format("{}{}\n", prefix, fmt::join(items, " · "));
    return;
  }
  for (const auto& line : render_detail::wrap_items(prefix, items, " · ", kTextWidth, indent))
    out += line + "\n";
}

std::size_t column_width(const Column& c) {
  std::size_t w = display_width(c.header);
  for (const auto& text : c.cells)
    w = std::max(w, display_width(text));
  return w;
}

// The most a column can add to a line's fit width: its padded width plus the extra bytes of
// its widest-encoded cell ("÷" pads as one column but takes two bytes).
std::size_t column_budget(const Column& c) {
  std::size_t extra = render_detail::fit_width(c.header) - display_width(c.header);
  for (const auto& text : c.cells)
    extra = std::max(extra, render_detail::fit_width(text) - display_width(text));
  return column_width(c) + extra;
}

// One block: header, rule of dashes, rows; the columns given by index.
void append_block(std::string& out, const Section& section, const std::vector<std::size_t>& cols,
                  const std::vector<std::size_t>& widths, const TableStyle& style) {
  std::string header = " ";
  std::string rule = " ";
  for (std::size_t i : cols) {
    header += " " + cell(section.columns[i].header, widths[i], section.columns[i].numeric);
    rule += " " + std::string(widths[i], '-');
  }
  out += styled(style, rtrim(header), fmt::emphasis::bold) + "\n" + rule + "\n";
  const std::size_t rows = section.columns.empty() ? 0 : section.columns.front().cells.size();
  for (std::size_t r = 0; r < rows; ++r) {
    std::string line = " ";
    for (std::size_t i : cols)
      line += " " + cell(section.columns[i].cells[r], widths[i], section.columns[i].numeric);
    out += rtrim(line) + "\n";
  }
}

// Column groups that each fit kTextWidth: the leading key columns (params) in every group,
// the others packed in order. One group when the table fits (always with --wide).
std::vector<std::vector<std::size_t>> column_groups(const Section& section,
                                                    const std::vector<std::size_t>& widths,
                                                    bool wide) {
  std::vector<std::size_t> all(section.columns.size());
  for (std::size_t i = 0; i < all.size(); ++i)
    all[i] = i;
  std::size_t total = 1;
  for (std::size_t w : widths)
    total += 1 + w;
  if (wide || total <= kTextWidth) return {all};
  std::vector<std::size_t> keys;
  std::size_t keys_width = 1;
  while (keys.size() < all.size() && section.columns[keys.size()].key) {
    keys_width += 1 + widths[keys.size()];
    keys.push_back(keys.size());
  }
  // Keys that leave too little room for anything else are not repeated.
  if (keys_width > kTextWidth / 2) {
    keys.clear();
    keys_width = 1;
  }
  std::vector<std::vector<std::size_t>> groups;
  std::vector<std::size_t> group = keys;
  std::size_t used = keys_width;
  for (std::size_t i = keys.size(); i < all.size(); ++i) {
    if (group.size() > keys.size() && used + 1 + widths[i] > kTextWidth) {
      groups.push_back(group);
      group = keys;
      used = keys_width;
    }
    group.push_back(i);
    used += 1 + widths[i];
  }
  if (group.size() > keys.size() || groups.empty()) groups.push_back(group);
  return groups;
}

// The table, then the legend of its short labels that this result has not explained yet. A
// compact table wider than kTextWidth is split into blocks that repeat its key columns.
void append_section(std::string& out, const Section& section, const TableStyle& style,
                    std::set<std::string>& explained) {
  std::vector<std::size_t> widths, budgets;
  for (const Column& c : section.columns) {
    widths.push_back(column_width(c));
    budgets.push_back(column_budget(c));
  }
  const auto groups = column_groups(section, budgets, style.wide);
  for (std::size_t g = 0; g < groups.size(); ++g) {
    if (g > 0) out += "\n";
    append_block(out, section, groups[g], widths, style);
  }
  std::vector<std::string> legend;
  for (const Column& c : section.columns) {
    if (!c.legend.empty() && explained.insert(c.legend).second) legend.push_back(c.legend);
  }
  if (!legend.empty()) append_items(out, style, "  ", legend, 4);
}

// The source x destination matrices of rows with src and dst GPUs (peer's pairs), each titled
// and aligned like a table; nothing for other rows.
void append_matrices(std::string& out, const TableStyle& style, const std::vector<Row>& rows) {
  const auto matrices = pair_matrices(rows);
  if (matrices.empty()) return;
  append_prose(out, style, "  ", render_detail::matrices_intro());
  std::set<std::string> explained;  // matrices have no legend
  for (const auto& m : matrices) {
    out += styled(style, "  " + render_detail::matrix_title(m), fmt::emphasis::bold) + "\n";
    append_section(out, render_detail::matrix_section(m), style, explained);
    out += "\n";
  }
}

void append_finding(std::string& out, const TableStyle& style, const Finding& f) {
  switch (f.kind) {
    case FindingKind::kVerdict:
      append_prose(out, style, "  => ", f.text, fmt::emphasis::bold, true);
      break;
    case FindingKind::kWarning:
      append_prose(out, style, "  warning: ", f.text, fmt::fg(fmt::terminal_color::yellow), true);
      break;
    case FindingKind::kNote:
      append_prose(out, style, "  note: ", f.text);
      break;
  }
}

}  // namespace

namespace {

// --expect's outcomes after the results: one line each, then each failed value's line.
void append_expectations(std::string& out, const TableStyle& style, const RunReport& report) {
  if (report.expectations.empty()) return;
  out += "\n" + styled(style, "== expectations", fmt::emphasis::bold) + "\n";
  for (const auto& e : report.expectations) {
    append_prose(out, style, "  ", expectation_summary(e));
    for (const auto& line : expectation_failure_lines(e))
      if (e.state == ExpectState::kFail) append_prose(out, style, "    ", line);
  }
  append_prose(out, style, "  ", expectation_total(report.expectations));
}

}  // namespace

std::string render_table(const RunReport& report, const TableStyle& style,
                         const Glossary& glossary) {
  std::string out;
  if (style.header && report.sides.empty()) {
    append_items(out, style, "", render_detail::host_parts(report), 4);
    for (const auto& d : report.devices) {
      append_items(out, style, fmt::format("GPU {}: {} · ", d.index, d.name),
                   render_detail::device_fact_parts(d), 4);
    }
  } else if (style.header) {
    // A comparison: both sides, each with its host and GPUs.
    append_items(out, style, "", render_detail::compare_tool_parts(report), 4);
    for (const auto& side : report.sides) {
      append_items(out, style, render_detail::side_prefix(side), render_detail::side_parts(side),
                   4);
      for (const auto& d : side.devices) {
        append_items(out, style, fmt::format("{} GPU {}: {} · ", side.label, d.index, d.name),
                     render_detail::device_fact_parts(d), 4);
      }
    }
  }
  std::set<std::string> said;  // note and warning texts already shown
  for (const auto& result : report.results) {
    out += "\n";
    const std::string title =
        fmt::format("== {} · {} · ", result.probe, render_detail::device_label(report, result));
    out += styled(style, title, fmt::emphasis::bold);
    out += styled(style, status_name(result.status), status_style(result.status));
    if (!result.reason.empty()) {
      // The reason is prose: it goes on after the status, wrapped with an indent.
      const std::string lead(
          render_detail::fit_width(title) + display_width(status_name(result.status)), ' ');
      std::vector<std::string> lines{lead + ": " + result.reason};
      if (!style.wide) lines = render_detail::wrap_text(lead + ": ", result.reason, kTextWidth, 4);
      lines.front().erase(0, lead.size());
      for (const auto& line : lines)
        out += line + "\n";
    } else {
      out += "\n";
    }
    const render_detail::Naming naming{&glossary, result.probe, style.wide};
    std::set<std::string> explained;  // legend lines already shown for this result
    for (const auto& section : render_detail::layout_rows(result.rows, naming)) {
      append_section(out, section, style, explained);
      out += "\n";
    }
    append_matrices(out, style, result.rows);
    if (!result.summary.empty()) {
      out += "  summary\n";
      append_section(out, render_detail::layout_summary(result.summary, naming), style, explained);
      out += "\n";
    }
    if (!result.conditions.empty()) {
      std::vector<std::string> parts;
      for (const auto& q : result.conditions) {
        parts.push_back(fmt::format("{} {}", q.name, render_detail::quantity_text(q)));
      }
      append_items(out, style, "  conditions: ", parts, 4);
    }
    if (!result.method.empty()) append_prose(out, style, "  method: ", result.method);
    if (result.counter_status && result.counter_status->state == CounterState::kCollected)
      append_prose(out, style,
                   "  counters: ", render_detail::counters_text(*result.counter_status));
    for (const auto& f : result.findings) {
      // A note or warning said once is not repeated for the next probe (counters refused on
      // this GPU, say); verdicts always show.
      if (f.kind != FindingKind::kVerdict && !said.insert(f.text).second) continue;
      append_finding(out, style, f);
    }
  }
  append_expectations(out, style, report);
  return out;
}

std::string render_table(const RunReport& report, const TableStyle& style) {
  return render_table(report, style, core_glossary());
}

}  // namespace gpuprobe
