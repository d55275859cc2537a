// Renderers: one RunReport as a table, JSON, CSV or Markdown; no renderer knows any probe.
#pragma once

#include <string>

#include "gpuprobe/core/glossary.hpp"
#include "gpuprobe/core/result.hpp"

namespace gpuprobe {

struct TableStyle {
  bool color = false;  // ANSI colour (only on a TTY, never with NO_COLOR)
  bool header = true;  // print the device/environment header
  // Full column names ("model fit_bandwidth [GB/s]"), no legend, no wrapping (--wide). Off:
  // short labels from the glossary's terms with a legend under each table, prose wrapped at
  // 120 columns.
  bool wide = false;
};

struct MarkdownStyle {
  bool wide = false;  // full column names, no legends (--wide)
};

// The glossary gives the short column labels and their legends (Glossary::term); columns
// without a term get a generic abbreviation. The overloads without one use core_glossary().
std::string render_table(const RunReport& report, const TableStyle& style,
                         const Glossary& glossary);
std::string render_table(const RunReport& report, const TableStyle& style = {});
std::string render_markdown(const RunReport& report, const Glossary& glossary,
                            const MarkdownStyle& style = {});
std::string render_markdown(const RunReport& report);
std::string render_csv(const RunReport& report);
std::string render_json(const RunReport& report);  // pretty-printed, trailing newline

}  // namespace gpuprobe
