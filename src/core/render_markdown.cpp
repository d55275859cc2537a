// The Markdown renderer: headings, pipe tables and lists, for CI summaries and docs.
#include <fmt/format.h>

#include <set>
#include <string>

#include "gpuprobe/core/expect.hpp"
#include "gpuprobe/core/pair_matrix.hpp"
#include "gpuprobe/core/render.hpp"
#include "render_layout.hpp"

namespace gpuprobe {
namespace {

std::string escape_cell(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '|')
      out += "\\|";
    else if (c == '\n')
      out += ' ';
    else
      out += c;
  }
  return out;
}

// The table, then the legend of its short labels that this result has not explained yet.
void append_section(std::string& out, const render_detail::Section& section,
                    std::set<std::string>& explained) {
  if (section.columns.empty()) return;
  std::string header = "|";
  std::string align = "|";
  for (const auto& c : section.columns) {
    header += " " + escape_cell(c.header) + " |";
    align += c.numeric ? " ---: |" : " :--- |";
  }
  out += header + "\n" + align + "\n";
  for (std::size_t r = 0; r < section.columns.front().cells.size(); ++r) {
    std::string line = "|";
    for (const auto& c : section.columns)
      line += " " + escape_cell(c.cells[r]) + " |";
    out += line + "\n";
  }
  out += "\n";
  std::vector<std::string> legend;
  for (const auto& c : section.columns) {
    if (c.legend.empty() || !explained.insert(c.legend).second) continue;
    // "label = meaning": the label as code, as it appears in the header.
    const auto eq = c.legend.find(" = ");
    legend.push_back(fmt::format("`{}` {}", c.legend.substr(0, eq), c.legend.substr(eq + 3)));
  }
  if (!legend.empty()) out += fmt::format("{}\n\n", fmt::join(legend, " · "));
}

// The source x destination matrices of rows with src and dst GPUs (peer's pairs), each a
// titled pipe table; nothing for other rows.
void append_matrices(std::string& out, const std::vector<Row>& rows) {
  const auto matrices = pair_matrices(rows);
  if (matrices.empty()) return;
  out += fmt::format("*{}*\n\n", render_detail::matrices_intro());
  std::set<std::string> explained;  // matrices have no legend
  for (const auto& m : matrices) {
    out += fmt::format("**{}**\n\n", escape_cell(render_detail::matrix_title(m)));
    append_section(out, render_detail::matrix_section(m), explained);
  }
}

}  // namespace

namespace {

// --expect's outcomes after the results: a list item each, failed values beneath.
void append_expectations(std::string& out, const RunReport& report) {
  if (report.expectations.empty()) return;
  out += "\n## Expectations\n\n";
  for (const auto& e : report.expectations) {
    out += fmt::format("- {}\n", escape_cell(expectation_summary(e)));
    if (e.state != ExpectState::kFail) continue;
    for (const auto& line : expectation_failure_lines(e))
      out += fmt::format("  - {}\n", escape_cell(line));
  }
  out += fmt::format("\n{}\n", expectation_total(report.expectations));
}

}  // namespace

std::string render_markdown(const RunReport& report, const Glossary& glossary,
                            const MarkdownStyle& style) {
  std::string out = "# gpuprobe results\n\n";
  if (report.sides.empty()) {
    out += fmt::format("{}\n\n", render_detail::host_line(report));
    for (const auto& d : report.devices) {
      out += fmt::format("- **GPU {}: {}** — {}\n", d.index, escape_cell(d.name),
                         render_detail::device_facts(d));
    }
  } else {
    // A comparison: both sides, each with its host and GPUs.
    out += fmt::format("{}\n\n", fmt::join(render_detail::compare_tool_parts(report), " · "));
    for (const auto& side : report.sides) {
      out += fmt::format(
          "- {}{}\n", escape_cell(render_detail::side_prefix(side)),
          escape_cell(fmt::format("{}", fmt::join(render_detail::side_parts(side), " · "))));
      for (const auto& d : side.devices) {
        out += fmt::format("  - **{} GPU {}: {}** — {}\n", side.label, d.index, escape_cell(d.name),
                           render_detail::device_facts(d));
      }
    }
  }
  for (const auto& result : report.results) {
    out += fmt::format("\n## {} — {} — {}", result.probe,
                       render_detail::device_label(report, result), status_name(result.status));
    if (!result.reason.empty()) out += ": " + result.reason;
    out += "\n\n";
    const render_detail::Naming naming{&glossary, result.probe, style.wide};
    std::set<std::string> explained;  // legend entries already given for this result
    for (const auto& section : render_detail::layout_rows(result.rows, naming))
      append_section(out, section, explained);
    append_matrices(out, result.rows);
    if (!result.summary.empty()) {
      out += "**Summary**\n\n";
      append_section(out, render_detail::layout_summary(result.summary, naming), explained);
    }
    if (!result.conditions.empty()) {
      out += "Conditions:";
      for (const auto& q : result.conditions) {
        out += fmt::format(" {} = {};", q.name, render_detail::quantity_text(q));
      }
      out += "\n\n";
    }
    if (!result.method.empty()) out += fmt::format("*Method:* {}\n\n", result.method);
    for (const auto& f : result.findings) {
      switch (f.kind) {
        case FindingKind::kVerdict:
          out += fmt::format("- **{}**\n", f.text);
          break;
        case FindingKind::kWarning:
          out += fmt::format("- Warning: {}\n", f.text);
          break;
        case FindingKind::kNote:
          out += fmt::format("- Note: {}\n", f.text);
          break;
      }
    }
  }
  append_expectations(out, report);
  return out;
}

std::string render_markdown(const RunReport& report) {
  return render_markdown(report, core_glossary());
}

}  // namespace gpuprobe
